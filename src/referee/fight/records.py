"""The records a step logs, and a logged record read back (:func:`adopt`): the half of
:mod:`.step` that turns a fight's change into its entries and an entry into the fight's
change (split from it, issue 72)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .model import Call, Combatant, Fight, Record

__all__ = ["adopt", "diff"]


def _put(fight: Fight, c: Combatant) -> Fight:
    return fight.put(c)


def diff(before: Fight, after: Fight) -> list[Record]:
    """The records that take ``before`` to ``after``.

    Only the combatants the step touched are compared: one that is the same object
    before and after, with no call opened or closed and its initiative unchanged, has
    nothing to record (combatants are frozen, and a step replaces only those it
    changes), so a step costs what it changed, not the size of the fight."""
    records: list[Record] = []
    if _turn(before) != _turn(after):
        records.append(Record("turn", after.turn_json()))
    opened: dict[str, list[dict[str, Any]]] = {}
    closed: dict[str, list[str]] = {}
    if after.calls is not before.calls and after.calls != before.calls:
        old_calls = {c.id for c in before.calls}
        open_now = {x.id for x in after.calls}
        for x in after.calls:
            if x.id not in old_calls:
                opened.setdefault(x.combatant, []).append(x.json())
        for x in before.calls:
            if x.id not in open_now:
                closed.setdefault(x.combatant, []).append(x.id)
    moved: set[str] = set()
    if after.initiative is not before.initiative:
        moved = {
            cid
            for cid in {*after.initiative, *before.initiative}
            if after.initiative.get(cid) != before.initiative.get(cid)
        }
    olds, news = before.combatants, after.combatants
    marked = opened.keys() | closed.keys() | moved
    if news is olds:
        pairs = [(cid, c, c) for cid, c in news.items() if cid in marked] if marked else []
    elif marked:  # one just added is compared with itself: only its calls are new
        pairs = [
            (cid, c, was)
            for cid, c in news.items()
            if (was := olds.get(cid, c)) is not c or cid in marked
        ]
    else:
        pairs = [(cid, c, was) for cid, c in news.items() if (was := olds.get(cid, c)) is not c]
    for cid, c, was in pairs:
        old, new = was.values, c.values
        values: dict[str, list[int]] = {}
        if old is not new:
            changed = [k for k in old.keys() | new.keys() if old.get(k, 0) != new.get(k, 0)]
            values = {k: [old.get(k, 0), new.get(k, 0)] for k in sorted(changed)}
        new_calls = opened.get(cid, [])
        shut = closed.get(cid, [])
        key = after.initiative.get(cid)
        if not (values or new_calls or shut or cid in moved or was.conditions != c.conditions):
            continue
        fields: dict[str, Any] = {"combatant": cid, "values": values}
        if was.conditions != c.conditions:
            fields["conditions"] = [sorted(was.conditions), sorted(c.conditions)]
        if cid in moved and key is not None:
            fields["initiative"] = list(key)
        fields["calls"] = new_calls
        fields["closed"] = shut
        records.append(Record("change", fields, c.hidden))
    return records


def _turn(f: Fight) -> tuple[Any, ...]:
    """What a ``turn`` record shows, to compare (:meth:`Fight.turn_json`)."""
    return (f.order, f.current, f.round, f.delayed, f.removed)


def adopt(fight: Fight, kind: str, fields: Mapping[str, Any]) -> Fight:
    """``fight`` with a logged record taken as it stands, unchecked: what a player's
    verifier does with a record whose event it may not see (one about a hidden
    combatant), so that what follows it can still be checked."""
    if kind == "turn":
        return replace(
            fight,
            order=tuple(fields["order"]),
            current=fields["current"],
            round=fields["round"],
            delayed=tuple(fields["delayed"]),
            removed=tuple(fields["removed"]),
        )
    cid = fields["combatant"]
    if kind == "combatant":
        c = Combatant(
            id=cid,
            name=fields["name"],
            values=dict(fields["values"]),
            conditions=frozenset(fields["conditions"]),
            sheet=fields["sheet"],
            owner=fields["owner"],
            hidden=fields["hidden"],
            side=fields["side"],
            pc=fields["pc"],
        )
        return _put(fight, c)
    c = fight.combatant(cid)
    c = c.with_values(**{k: new for k, (_, new) in fields["values"].items()})
    if "conditions" in fields:
        c = replace(c, conditions=frozenset(fields["conditions"][1]))
    fight = _put(fight, c)
    if "initiative" in fields:
        fight = replace(fight, initiative={**fight.initiative, cid: tuple(fields["initiative"])})
    shut = set(fields["closed"])
    kept = tuple(x for x in fight.calls if x.id not in shut)
    fight = replace(fight, calls=kept)
    if not fields["calls"]:
        return fight
    # The logged ids, as they are (contract v1.3: a call has one id for every member),
    # and the count for each combatant's next call taken past them.
    new = [
        Call(x["call"], x["combatant"], x["kind"], x.get("command", ""), x["why"],
             x.get("attacker"), x.get("then"), tuple(x.get("choices", ())), x.get("attack"))
        for x in fields["calls"]
    ]  # fmt: skip
    counts = dict(fight.counts)
    for x in new:
        n = int(x.id.rpartition("/")[2])
        counts[x.combatant] = max(counts.get(x.combatant, 0), n)
    return replace(fight, calls=(*fight.calls, *new), counts=counts)
