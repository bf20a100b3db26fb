"""``referee verify EXPORT``: check a room's exported log, as the contract lists
(the rooms' contract, docs/reference/rooms-contract.md, "Verifying").

From the export alone, with no word from the server, it checks that seq has no
gaps; every digest (of a non-redacted entry) and every chain link; each revealed
seed against its commitment; each lock's mix against its seeds; each verifiable
roll's draws against the stream; and that re-running each roll's command (its
``resolved`` command, for a roll made as a character) on its draws gives its
result and its text, as a reader reads them (:mod:`.replay`, contract v1.5). It
checks the server's signed heads (:mod:`.signatures`), against the key it is given
if any. It reports, per epoch, the rolls verified, those whose mix had no player
seed, those waiting for a seed (and why), and those redacted for the exporter; and
its last line says what it could not check, and why, never "every check holds"
alone.

A roll whose epoch was locked with no player seed is *not provable*: the server
alone chose its stream (contract v1.2). The report counts them, whether their dice
could be checked or not, and names their rollers; :attr:`Report.unprovable_players`
is what ``referee verify --require-seeds`` refuses.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...stream import commitment, mix
from ..log import GENESIS, chain_link, digest
from .fightcheck import check_fight
from .replay import Found, check_roll, engine
from .signatures import Heads, check_heads

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
    open: int = 0
    """Of those waiting, the rolls whose epoch is not closed (no seed revealed)."""
    redacted: int = 0
    """Rolls redacted for the exporter: only their chain link is checked."""


@dataclass(slots=True)
class Report:
    """The outcome of a verification."""

    entries: int = 0
    problems: list[Problem] = field(default_factory=list)
    epochs: dict[int, EpochReport] = field(default_factory=dict)
    versions: list[Problem] = field(default_factory=list)
    """Rolls whose draws are the stream's but whose result this version of referee
    computes otherwise, made by another version (its ``engine``): a change of
    rules or text between versions, reported apart from tampering."""
    fight_checked: int = 0
    """The fight's events replayed and found to follow by the rules."""
    fight_adopted: int = 0
    """The fight's events hidden from the exporter, their visible entries taken as logged."""
    names: dict[str, str] = field(default_factory=dict)
    """Members' display names from the ``join`` entries, to name rollers."""
    heads: Heads = field(default_factory=lambda: Heads(0, (), None, None, None, ()))
    """What the export's signed heads prove (contract v1.5)."""

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
                    "epoch_not_closed": e.open,
                    "redacted": e.redacted,
                }
                for e in sorted(self.epochs.values(), key=lambda e: e.epoch)
            ],
            "signatures": {
                "heads": self.heads.heads,
                "keys": list(self.heads.keys),
                "key_given": self.heads.trusted,
                "checked": self.heads.checked,
                "signed_through": self.heads.through,
                "summary": self.signatures(),
            },
            "not_checked": self.unchecked(),
            "summary": self.verdict(),
        }

    def unchecked(self) -> list[str]:
        """What could not be checked, and why: ``["57 rolls: epoch 1 is not closed"]``."""
        out = []
        for e in sorted(self.epochs.values(), key=lambda e: e.epoch):
            if e.open:
                out.append(_rolls_n(e.open) + f": epoch {e.epoch} is not closed")
            if e.waiting - e.open:
                out.append(
                    _rolls_n(e.waiting - e.open)
                    + f": epoch {e.epoch}'s secret seed is not declassified"
                )
            if e.redacted:
                out.append(_rolls_n(e.redacted) + f" of epoch {e.epoch}: redacted for you")
        if not self.heads.checked:
            out.append("signatures: " + self.signatures())
        elif self.heads.through is not None and self.heads.through < self.entries - 1:
            out.append(
                f"seq {self.heads.through + 1} to {self.entries - 1}: after the last signed head"
            )
        return out

    def signatures(self) -> str:
        """What the signed heads prove, in a line (contract v1.5)."""
        h = self.heads
        if not h.heads:
            return "no signature to check (the export has no signed head: written before v1.5)"
        keys = ", ".join(h.keys) or "none"
        if h.trusted is None:
            return (
                f"no signature checked: {h.heads} heads signed by key {keys}, but no key given "
                "to trust (--key FINGERPRINT or --server URL)"
            )
        if h.problems:
            return f"the heads are not all signed by key {h.trusted} over this chain"
        return f"{h.heads} heads signed by key {h.trusted}, through seq {h.through}"

    def verdict(self) -> str:
        """The last line: what failed, or that nothing did and what was not checked."""
        rolls = sum(e.rolls for e in self.epochs.values())
        verified = sum(e.verified for e in self.epochs.values())
        if not self.ok:
            return f"{self.entries} entries: {len(self.problems)} check(s) failed"
        said = f"{self.entries} entries: no check failed; {verified} of {rolls} rolls verified"
        if unchecked := self.unchecked():
            return said + "; not checked: " + "; ".join(unchecked)
        return said + "; every check holds, signatures included"

    def text(self) -> str:
        lines = []
        for e in sorted(self.epochs.values(), key=lambda e: e.epoch):
            parts = [f"{e.verified} of {e.rolls} rolls verified"]
            if e.open:
                parts.append(f"{e.open} not checked: the epoch is not closed")
            if e.unseeded:
                parts.append(
                    f"{sum(e.unseeded.values())} with no player seed in the mix, not provable "
                    f"(by {self.rollers(e.unseeded)})"
                )
            if e.waiting - e.open:
                parts.append(
                    f"{e.waiting - e.open} not checked: its secret seed is not declassified"
                )
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
        lines.append("signatures: " + self.signatures())
        lines.append(self.verdict())
        return "\n".join(lines)


def _rolls_n(n: int) -> str:
    return f"{n} roll{'s' if n != 1 else ''}"


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


def verify(entries: list[dict[str, Any]], key: str | None = None) -> Report:
    """Check an exported log; see the module's docstring. ``key``: the fingerprint of
    the server's key, which must have signed every head (``referee verify --key``)."""
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
    report.heads = check_heads(entries, key)
    problems.extend(Problem(*p) for p in report.heads.problems)
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
            er.open += "public" not in ep.seeds  # not closed (its public seed is kept)
            continue
        found: Found = []
        versions: Found = []
        ok = check_roll(entry, seed, ep.mix, found, versions)
        problems.extend(Problem(*p) for p in found)
        report.versions.extend(Problem(*p) for p in versions)
        if ok:
            er.verified += 1
            if ep.mix == mix({}):
                er.unmixed += 1
    return report
