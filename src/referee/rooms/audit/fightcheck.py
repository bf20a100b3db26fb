"""``referee verify``'s check of the fight (contract v1.2, "The fight's state"): the
export's events replayed through :func:`referee.fight.step`, each logged ``change``,
``combatant`` and ``turn`` entry compared with what the rules give, and each number
an event took from a roll compared with that roll's result.

What the exporter may not see is taken as logged, unchecked (:func:`referee.fight.step.adopt`):
a redacted entry is skipped, and a public entry whose event is hidden (a turn moved
by a hidden NPC's initiative) is adopted. So a player's export checks everything
about the combatants that player sees, and the GM's checks the whole fight.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import RefereeError
from ...fight import Fight, begin, numbers, step
from ...fight.step import adopt
from ..db.fightstore import events_of

__all__ = ["check_fight"]

_COMMON = ("room", "seq", "kind", "time", "salt", "digest", "chain", "event", "part", "why",
           "by", "visibility")  # fmt: skip


def check_fight(entries: list[dict[str, Any]]) -> tuple[int, int, list[tuple[int, str]]]:
    """``(events checked, events taken as logged, problems as (seq, what))``."""
    system = next((e.get("system") for e in entries if e.get("kind") == "room"), None)
    groups = events_of(entries)
    if not groups:
        return 0, 0, []
    if system not in ("gurps", "swn", "fudge"):
        return 0, 0, [(int(groups[0][1][0].get("seq", 0)), "a fight in a room with no system")]
    by_seq = {e.get("seq"): e for e in entries}
    fight: Fight = begin(str(system))
    checked = adopted = 0
    problems: list[tuple[int, str]] = []
    for event, group in groups:
        whole = [e for e in group if not e.get("redacted")]
        first = int(group[0].get("seq", 0))
        if event is None or len(whole) < len(group):  # it touches what is hidden
            for e in whole:
                fight = _adopt(fight, e, problems)
            adopted += 1
            continue
        why = next((e.get("why") for e in whole), None)
        wrong = _from_roll(event, why, by_seq)
        if wrong:
            problems.append((first, wrong))
        try:
            done = step(fight, event)
        except RefereeError as exc:
            problems.append((first, f"the fight refuses this event: {exc}"))
            for e in whole:
                fight = _adopt(fight, e, problems)
            continue
        expected = [r for r in done.records]
        shown = {(e["part"][0]) for e in whole if isinstance(e.get("part"), list)}
        for i, r in enumerate(expected):
            if i not in shown:
                continue
            logged = next(e for e in whole if e["part"][0] == i)
            body = {k: v for k, v in logged.items() if k not in _COMMON and k != "redacted"}
            if logged.get("kind") != r.kind or body != dict(r.fields):
                problems.append(
                    (
                        int(logged["seq"]),
                        f"this {logged.get('kind')} entry does not follow from its event",
                    )
                )
        if len(group) != len(expected):
            problems.append(
                (first, f"the event gives {len(expected)} entries, the log {len(group)}")
            )
        fight = done.fight
        checked += 1
    return checked, adopted, problems


def _adopt(fight: Fight, e: Mapping[str, Any], problems: list[tuple[int, str]]) -> Fight:
    try:
        return adopt(fight, str(e.get("kind")), e)
    except (RefereeError, KeyError, TypeError, ValueError):
        problems.append((int(e.get("seq", 0)), "a fight entry that cannot be read"))
        return fight


def _from_roll(event: Mapping[str, Any], why: Any, by_seq: Mapping[Any, Any]) -> str | None:
    """Whether the numbers an event took from the roll it names are that roll's."""
    kind = event.get("kind")
    if not isinstance(why, int) or kind not in ("damage", "answer", "result"):
        return None
    roll = by_seq.get(why)
    if roll is None or roll.get("kind") != "roll":
        return f"its roll {why} is not in the log"
    if roll.get("redacted"):
        return None  # not the exporter's to see: the draws' check is the GM's
    try:
        wanted = numbers(str(kind), roll.get("result") or {})
    except RefereeError as exc:
        return f"roll {why}: {exc}"
    if any(event.get(k) != v for k, v in wanted.items()):
        return f"its numbers are not roll {why}'s"
    return None
