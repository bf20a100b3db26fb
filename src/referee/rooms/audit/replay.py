"""One roll of an export checked as a reader reads it (contract v1.5, "Verify reads what
a reader reads"): its draws against the stream, then its command re-run on those draws,
whose result *and text* must be the entry's, field for field (the total, the margin,
the success, the line a player reads). A refused roll must refuse again, so.

:mod:`.verify` calls :func:`check_roll` for every roll whose seed is revealed.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

from ... import __version__, commands
from ...commands.result import SHARED_TABLE
from ...errors import RefereeError
from ...rng import ReplaySource
from ...stream import HmacStream
from ..log import outcome

__all__ = ["ROOM_CAPS", "Found", "check_roll", "engine"]

Found = list[tuple[int, str, str]]
"""What a check found: ``(seq, check, detail)`` for each."""

ROOM_CAPS = replace(SHARED_TABLE, dice=None)
"""What a room's roll may cost, as :func:`.api.room_limits` caps it, but the dice."""


@functools.cache
def engine() -> str:
    """This referee's version, as roll entries carry it (``engine``)."""
    return str(__version__)


def check_roll(
    entry: dict[str, Any], seed: bytes, the_mix: str, problems: Found, versions: Found
) -> bool:
    """Whether ``entry``'s dice are the stream's and its command, re-run on them, gives
    what the entry says. A mismatch goes into ``problems``; a result or text that this
    version of referee makes otherwise for a roll another version made (its ``engine``)
    goes into ``versions`` instead (the draws were checked: a change of version)."""
    seq = entry["seq"]
    stream = HmacStream(seed, entry["room"], entry["epoch"], seq, entry["roller"], the_mix)
    for k, (n, value) in enumerate(entry["draws"]):
        if stream.randbelow(n) + 1 != value:
            problems.append((seq, "draws", f"draw {k + 1} (from {n}) is not the stream's"))
            return False
    replay = ReplaySource([tuple(d) for d in entry["draws"]])
    try:
        # A roll made as a character replays what the engine ran (contract v1.1), under
        # the room's caps as it rolled (their odds budget decides whether a result has
        # its chance), but for its cap on dice, which the export does not hold.
        command = entry.get("resolved") or entry["command"]
        _, plan = commands.plan(command, only_rolls=True, limits=ROOM_CAPS)
        if "refused" in entry:  # logged though refused: the refusal must replay too
            return _check_refusal(entry, plan, replay, problems)
        again = plan(replay)
    except (RefereeError, ValueError) as exc:
        problems.append((seq, "replay", f"the command does not replay: {exc}"))
        return False
    differs = _differs(again.data, again.text, entry)
    if differs is None:
        return True
    made_by, ours = entry.get("engine"), engine()
    if isinstance(made_by, str) and made_by != ours:
        versions.append(
            (
                seq,
                "engine",
                f"rolled by referee {made_by}; this verifier is referee {ours}, whose "
                "result for the same draws differs (the draws are the stream's)",
            )
        )
        return True
    check, detail = differs
    problems.append((seq, check, detail))
    return False


def _differs(data: Any, text: str, entry: dict[str, Any]) -> tuple[str, str] | None:
    """``(check, detail)`` for the first thing a reader reads that the replay makes
    otherwise (the result's fields, then the text), or None."""
    logged = entry.get("result")
    if data != logged:
        if isinstance(data, dict) and isinstance(logged, dict):
            keys = sorted(k for k in data.keys() | logged.keys() if data.get(k) != logged.get(k))
            named = ", ".join(keys[:4]) + (", ..." if len(keys) > 4 else "")
            return "result", f"re-running the command on its draws gives another {named}"
        return "result", "re-running the command on its draws gives another result"
    if text != entry.get("text"):
        return "text", f"re-running the command on its draws reads {text!r}, not the text logged"
    return None


def _check_refusal(entry: dict[str, Any], plan: Any, replay: Any, problems: Found) -> bool:
    """A refused roll (:func:`.log.outcome`): replaying its draws must give the same
    refusal, or, for a room's cap on dice (which the export does not record), use
    every draw and want one more."""
    seq, why = entry["seq"], entry["refused"]
    result, text, refused = outcome(plan, replay)
    capped = (
        isinstance(why, str)
        and entry["text"] == f"refused: {why}"
        and why.startswith("a command here may draw at most ")
        and refused is not None
        and refused.startswith(f"draw {len(entry['draws']) + 1} ")
        and replay.left == 0
    )
    if capped or (refused == why and result == entry["result"] and text == entry["text"]):
        return True
    problems.append((seq, "refused", "re-running the command on its draws does not refuse it so"))
    return False
