"""What ``referee verify`` found (:mod:`.verify`), and how it says so: per epoch, the
rolls verified, not provable, not checked (and why) and redacted; the fight; the
signatures; and a last line that names what could not be checked, never "every check
holds" alone (contract v1.5). As text, or as JSON (``--json``)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .replay import engine
from .signatures import Heads

__all__ = ["EpochReport", "Problem", "Report"]


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
            return (
                "no signature to check (the export has no signed head: written before v1.5, or "
                "its heads were removed; --key FINGERPRINT requires them)"
            )
        keys = ", ".join(h.keys) or "none"
        if h.trusted is None:
            return (
                f"no signature checked: {_heads_n(h.heads)} signed by key {keys}, but no key given "
                "to trust (--key FINGERPRINT or --server URL)"
            )
        if h.problems:
            return f"the heads are not all signed by key {h.trusted} over this chain"
        return f"{_heads_n(h.heads)} signed by key {h.trusted}, through seq {h.through}"

    def verdict(self) -> str:
        """The last line: what failed, or that nothing did and what was not checked."""
        rolls = sum(e.rolls for e in self.epochs.values())
        verified = sum(e.verified for e in self.epochs.values())
        if not self.ok:
            return f"{self.entries} entries: {len(self.problems)} check(s) failed"
        said = f"{self.entries} entries: no check failed; {verified} of {rolls} rolls verified"
        if unseeded := sum(self.unseeded.values()):
            said += f" ({_rolls_n(unseeded)} not provable: no player seed in the mix)"
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


def _heads_n(n: int) -> str:
    return f"{n} head{'s' if n != 1 else ''}"
