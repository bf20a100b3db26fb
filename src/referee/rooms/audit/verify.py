"""``referee verify EXPORT``: check a room's exported log, as the contract lists
(the rooms' contract, docs/reference/rooms-contract.md, "Verifying").

From the export alone, with no word from the server, it checks that seq has no
gaps; every digest (of a non-redacted entry) and every chain link; each revealed
seed against its commitment; each lock's mix against its seeds; each verifiable
roll's draws against the stream; and that re-running each roll's command (its
``resolved`` command, for a roll made as a character) on its draws gives its
result. It reports, per epoch, the rolls verified, those whose mix had no player
seed, those waiting for a seed, and those redacted for the exporter.

A roll whose epoch was locked with no player seed is *not provable*: the server
alone chose its stream (contract v1.2). The report counts them, whether their dice
could be checked or not, and names their rollers; :attr:`Report.unprovable_players`
is what ``referee verify --require-seeds`` refuses.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ... import __version__, commands
from ...commands.result import SHARED_TABLE
from ...errors import RefereeError
from ...rng import ReplaySource
from ...stream import HmacStream, commitment, mix
from ..log import GENESIS, chain_link, digest, outcome
from .fightcheck import check_fight

__all__ = ["EpochReport", "Problem", "Report", "engine", "read_export", "verify"]


@dataclass(frozen=True, slots=True)
class Problem:
    """One check that failed: which entry, which check, and what was found."""

    seq: int | None
    check: str
    detail: str

    def __str__(self) -> str:
        where = "the export" if self.seq is None else f"seq {self.seq}"
        return f"{where}: {self.check}: {self.detail}"


@dataclass(slots=True)
class EpochReport:
    """What could be checked of one epoch."""

    epoch: int
    rolls: int = 0
    verified: int = 0
    unmixed: int = 0
    """Verified rolls whose mix held no player seed (the server alone chose the stream)."""
    unseeded: dict[str, int] = field(default_factory=dict)
    """Rolls of every kind (verified, waiting or redacted) whose epoch's lock held no
    player seed: not provable. By roller (member id)."""
    waiting: int = 0
    """Rolls whose seed is not revealed yet (the epoch is open, or its secret seed
    is not declassified)."""
    redacted: int = 0
    """Rolls redacted for the exporter: only their chain link is checked."""


@dataclass(slots=True)
class Report:
    """The outcome of a verification."""

    entries: int = 0
    problems: list[Problem] = field(default_factory=list)
    epochs: dict[int, EpochReport] = field(default_factory=dict)
    versions: list[Problem] = field(default_factory=list)
    fight_checked: int = 0
    """The fight's events replayed and found to follow by the rules."""
    fight_adopted: int = 0
    """The fight's events hidden from the exporter, their visible entries taken as logged."""
    names: dict[str, str] = field(default_factory=dict)
    """Members' display names from the ``join`` entries, to name rollers."""
    """Rolls whose draws are the stream's but whose result this version of referee
    computes otherwise, made by another version (its ``engine``): a change of
    rules or text between versions, reported apart from tampering."""

    @property
    def ok(self) -> bool:
        """No check failed. Results that another version of referee made otherwise
        (:attr:`versions`) do not count against it: their draws were checked against
        the stream, and ``referee verify`` exits 0 for them, listing them apart."""
        return not self.problems

    @property
    def unseeded(self) -> dict[str, int]:
        """Rolls with no player seed in their mix (not provable), by roller, over every epoch."""
        out: dict[str, int] = {}
        for e in self.epochs.values():
            for roller, n in e.unseeded.items():
                out[roller] = out.get(roller, 0) + n
        return out

    @property
    def unprovable_players(self) -> int:
        """Rolls *by players* with no player seed in their mix: what
        ``referee verify --require-seeds`` exits 1 for."""
        return sum(n for roller, n in self.unseeded.items() if roller != "gm")

    def who(self, roller: str) -> str:
        """A roller as a person reads it: ``the GM``, ``Dai (p:x1)``."""
        if roller == "gm":
            return "the GM"
        name = self.names.get(roller)
        return f"{name} ({roller})" if name else roller

    def rollers(self, counts: dict[str, int]) -> str:
        """``the GM 4, Dai (p:x1) 2``: rollers with their counts, most first."""
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        return ", ".join(f"{self.who(r)} {n}" for r, n in ranked)

    def by_version(self) -> list[str]:
        """``rolled by referee 0.1.0, replayed by 0.2.0: 3 results differ``, a line for
        each other version whose results differ."""
        counts = Counter(p.detail.split("rolled by referee ", 1)[-1].split(";")[0]
                         for p in self.versions)  # fmt: skip
        return [
            f"rolled by referee {old}, replayed by {engine()}: {n} result"
            f"{'s differ' if n != 1 else ' differs'} (a change of version, not tampering)"
            for old, n in sorted(counts.items())
        ]

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "entries": self.entries,
            "not_provable": {
                "rolls": sum(self.unseeded.values()),
                "by_players": self.unprovable_players,
                "by": dict(sorted(self.unseeded.items())),
                "names": {m: self.names[m] for m in sorted(self.unseeded) if m in self.names},
            },
            "problems": [
                {"seq": p.seq, "check": p.check, "detail": p.detail} for p in self.problems
            ],
            "other_versions": [{"seq": p.seq, "detail": p.detail} for p in self.versions],
            "epochs": [
                {
                    "epoch": e.epoch,
                    "rolls": e.rolls,
                    "verified": e.verified,
                    "verified_without_player_seed": e.unmixed,
                    "without_player_seed": sum(e.unseeded.values()),
                    "without_player_seed_by": dict(sorted(e.unseeded.items())),
                    "waiting_for_seed": e.waiting,
                    "redacted": e.redacted,
                }
                for e in sorted(self.epochs.values(), key=lambda e: e.epoch)
            ],
        }

    def text(self) -> str:
        lines = []
        for e in sorted(self.epochs.values(), key=lambda e: e.epoch):
            parts = [f"{e.verified} of {e.rolls} rolls verified"]
            if e.unseeded:
                parts.append(
                    f"{sum(e.unseeded.values())} with no player seed in the mix, not provable "
                    f"(by {self.rollers(e.unseeded)})"
                )
            if e.waiting:
                parts.append(f"{e.waiting} waiting for a seed to be revealed")
            if e.redacted:
                parts.append(f"{e.redacted} redacted for you (chain checked only)")
            lines.append(f"epoch {e.epoch}: " + "; ".join(parts))
        if self.fight_checked or self.fight_adopted:
            hidden = f"; {self.fight_adopted} hidden from you" if self.fight_adopted else ""
            lines.append(f"fight: {self.fight_checked} events follow by the rules{hidden}")
        lines.extend(f"FAILED {p}" for p in self.problems)
        lines.extend(f"NOTE {p}" for p in self.versions)
        lines.extend(self.by_version())
        if unseeded := self.unseeded:
            n = sum(unseeded.values())
            lines.append(
                f"WARNING: {n} roll{'s' if n != 1 else ''} had no player seed in the mix: "
                f"not provable, the server alone chose their dice (by {self.rollers(unseeded)})"
            )
        verdict = (
            "every check that could be made holds"
            if self.ok
            else (f"{len(self.problems)} check(s) failed")
        )
        lines.append(f"{self.entries} entries: {verdict}")
        return "\n".join(lines)


def read_export(path: str | Path) -> list[dict[str, Any]]:
    """The entries of an export (one JSON object per line).

    Raises:
        OSError: the file cannot be read.
        ValueError: a line is not a JSON object.
    """
    out = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            entry = json.loads(line)
            if not isinstance(entry, dict):
                raise ValueError(f"line {number} is not a JSON object")
            out.append(entry)
    return out


@dataclass(slots=True)
class _Epoch:
    commitments: dict[str, str] | None = None
    mix: str | None = None
    players: int = 0
    """How many player seeds its lock mixed."""
    seeds: dict[str, bytes] = field(default_factory=dict)
    """Revealed server seeds, by ``public``/``secret``, once checked against their commitment."""


def verify(entries: list[dict[str, Any]]) -> Report:
    """Check an exported log; see the module's docstring."""
    report = Report(entries=len(entries))
    problems = report.problems
    epochs: dict[int, _Epoch] = {}
    rolls: list[tuple[dict[str, Any], int]] = []  # each roll, with the epoch it falls in
    previous = GENESIS
    for i, entry in enumerate(entries):
        seq = entry.get("seq")
        if seq != i:
            problems.append(
                Problem(seq if isinstance(seq, int) else None, "seq", f"expected seq {i}")
            )
            return report  # nothing after a gap can be placed
        if not entry.get("redacted") and entry.get("digest") != digest(entry):
            problems.append(Problem(i, "digest", "the entry does not match its digest"))
        link = chain_link(previous, str(entry.get("digest", "")))
        if entry.get("chain") != link:
            problems.append(
                Problem(i, "chain", "the chain link does not follow from the one before")
            )
        previous = str(entry.get("chain", ""))
        try:
            _read(entry, i, epochs, rolls, problems, report.names)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            problems.append(Problem(i, "format", f"a field is missing or malformed ({exc!r})"))

    report.fight_checked, report.fight_adopted, found = check_fight(entries)
    problems.extend(Problem(seq, "fight", what) for seq, what in found)
    return _rolls(report, epochs, rolls)


def _read(
    entry: dict[str, Any],
    i: int,
    epochs: dict[int, _Epoch],
    rolls: list[tuple[dict[str, Any], int]],
    problems: list[Problem],
    names: dict[str, str],
) -> None:
    """Take what one entry says of its epoch: commitments, the mix, revealed seeds."""
    current = max(epochs) if epochs else 0  # epochs only grow along the log
    kind = entry.get("kind")
    if kind == "join":
        names[str(entry["member"])] = str(entry["name"])
    elif kind == "roll":  # a redacted roll has no epoch field: it is the current one
        rolls.append((entry, int(entry.get("epoch", current))))
    elif kind == "epoch":
        epochs[entry["epoch"]] = _Epoch(commitments=dict(entry["commitments"]))
    elif kind == "lock":
        ep = epochs.setdefault(entry["epoch"], _Epoch())
        if mix(entry["seeds"]) != entry["mix"]:
            problems.append(Problem(i, "mix", "the mix does not match the locked seeds"))
        ep.mix = entry["mix"]
        ep.players = len(entry["seeds"])
    elif kind in ("close", "declassify"):
        ep = epochs.setdefault(entry["epoch"], _Epoch())
        for which, hexseed in entry["seeds"].items():
            if hexseed is None:
                continue
            revealed = bytes.fromhex(hexseed)
            expected = (ep.commitments or {}).get(which)
            if commitment(revealed) != expected:
                problems.append(
                    Problem(
                        i,
                        "commitment",
                        f"the revealed {which} seed does not match its commitment",
                    )
                )
            else:
                ep.seeds[which] = revealed


def _rolls(
    report: Report, epochs: dict[int, _Epoch], rolls: list[tuple[dict[str, Any], int]]
) -> Report:
    """Check the rolls, once every seed of the export is known."""
    problems = report.problems
    for number in epochs:
        report.epochs[number] = EpochReport(number)
    for entry, number in rolls:
        er = report.epochs.setdefault(number, EpochReport(number))
        er.rolls += 1
        ep = epochs.get(number, _Epoch())
        if ep.mix is not None and not ep.players:  # locked with no player seed
            roller = str(entry.get("roller"))
            er.unseeded[roller] = er.unseeded.get(roller, 0) + 1
        if entry.get("redacted"):
            er.redacted += 1
            continue
        seed = ep.seeds.get("public" if entry.get("visibility") == "public" else "secret")
        if seed is None or ep.mix is None:
            er.waiting += 1
            continue
        if _check_roll(entry, seed, ep.mix, problems, report.versions):
            er.verified += 1
            if ep.mix == mix({}):
                er.unmixed += 1
    return report


def _check_roll(
    entry: dict[str, Any],
    seed: bytes,
    the_mix: str,
    problems: list[Problem],
    versions: list[Problem],
) -> bool:

    seq = entry["seq"]
    stream = HmacStream(seed, entry["room"], entry["epoch"], seq, entry["roller"], the_mix)
    for k, (n, value) in enumerate(entry["draws"]):
        if stream.randbelow(n) + 1 != value:
            problems.append(Problem(seq, "draws", f"draw {k + 1} (from {n}) is not the stream's"))
            return False
    replay = ReplaySource([tuple(d) for d in entry["draws"]])
    try:
        # A roll made as a character replays what the engine ran (contract v1.1), under
        # the room's caps as it rolled (their odds budget decides whether a result has
        # its chance), but for its cap on dice, which the export does not hold.
        command = entry.get("resolved") or entry["command"]
        _, plan = commands.plan(command, only_rolls=True, limits=_ROOM_CAPS)
        if "refused" in entry:  # logged though refused: the refusal must replay too
            return _check_refusal(entry, plan, replay, problems)
        again = plan(replay)
    except (RefereeError, ValueError) as exc:
        problems.append(Problem(seq, "replay", f"the command does not replay: {exc}"))
        return False
    if again.data != entry["result"]:
        made_by, ours = entry.get("engine"), engine()
        if isinstance(made_by, str) and made_by != ours:
            versions.append(
                Problem(
                    seq,
                    "engine",
                    f"rolled by referee {made_by}; this verifier is referee {ours}, whose "
                    "result for the same draws differs (the draws are the stream's)",
                )
            )
            return True
        problems.append(
            Problem(seq, "result", "re-running the command on its draws gives another result")
        )
        return False
    return True


def _check_refusal(entry: dict[str, Any], plan: Any, replay: Any, problems: list[Problem]) -> bool:
    """A refused roll (:func:`.log.outcome`): replaying its draws must give the same
    refusal, or, for a room's cap on dice (which the export does not record), use
    every draw and want one more."""
    seq, why = entry["seq"], entry["refused"]
    result, text, refused = outcome(plan, replay)
    capped = (
        isinstance(why, str)
        and why.startswith("a command here may draw at most ")
        and refused is not None
        and refused.startswith(f"draw {len(entry['draws']) + 1} ")
        and replay.left == 0
    )
    if capped or (refused == why and result == entry["result"] and text == entry["text"]):
        return True
    problems.append(
        Problem(seq, "refused", "re-running the command on its draws does not refuse it so")
    )
    return False


_ROOM_CAPS = replace(SHARED_TABLE, dice=None)
"""What a room's roll may cost, as :func:`.api.room_limits` caps it, but the dice."""


@functools.cache
def engine() -> str:
    """This referee's version, as roll entries carry it (``engine``)."""
    return str(__version__)
