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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...stream import commitment, mix
from ..log import GENESIS, chain_link, digest
from .fightcheck import check_fight
from .replay import Found, check_roll, engine
from .report import EpochReport, Problem, Report
from .signatures import check_heads

__all__ = ["EpochReport", "Problem", "Report", "engine", "read_export", "verify"]

MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError, ArithmeticError)
"""What reading a malformed export's fields can raise: a field missing, of another type or
out of range, wherever verify meets it, is reported as a problem of that entry (a forger
writes the file; verify never answers with a traceback)."""


def _malformed(exc: Exception) -> str:
    return f"a field is missing or malformed ({type(exc).__name__}: {str(exc)[:120]})"


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
            try:
                entry = json.loads(line)
            except RecursionError:
                raise ValueError(f"line {number} is nested too deeply") from None
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
        except MALFORMED as exc:
            problems.append(Problem(i, "format", _malformed(exc)))

    try:
        report.fight_checked, report.fight_adopted, found = check_fight(entries)
    except MALFORMED as exc:  # the fight's replay meets a malformed event
        found = []
        problems.append(Problem(None, "fight", f"the fight does not replay: {_malformed(exc)}"))
    problems.extend(Problem(seq, "fight", what) for seq, what in found)
    try:
        report.heads = check_heads(entries, key)
    except MALFORMED as exc:
        problems.append(Problem(None, "head", f"the heads cannot be read: {_malformed(exc)}"))
    problems.extend(Problem(*p) for p in report.heads.problems)
    return _rolls(report, epochs, rolls)


def _number(value: Any) -> int:
    """An epoch's number as the export gives it: a whole number (ValueError otherwise)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"an epoch is a whole number, not {value!r:.40}")
    return value


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
        rolls.append((entry, _number(entry.get("epoch", current))))
    elif kind == "epoch":
        epochs[_number(entry["epoch"])] = _Epoch(commitments=dict(entry["commitments"]))
    elif kind == "lock":
        ep = epochs.setdefault(_number(entry["epoch"]), _Epoch())
        if mix(entry["seeds"]) != entry["mix"]:
            problems.append(Problem(i, "mix", "the mix does not match the locked seeds"))
        ep.mix = entry["mix"]
        ep.players = len(entry["seeds"])
    elif kind in ("close", "declassify"):
        ep = epochs.setdefault(_number(entry["epoch"]), _Epoch())
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
        try:
            ok = check_roll(entry, seed, ep.mix, found, versions)
        except MALFORMED as exc:
            found, ok = [(int(entry["seq"]), "format", _malformed(exc))], False
        problems.extend(Problem(*p) for p in found)
        report.versions.extend(Problem(*p) for p in versions)
        if ok:
            er.verified += 1
            if ep.mix == mix({}):
                er.unmixed += 1
    return report
