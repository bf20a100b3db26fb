"""A GM's NPC in plain view: the table sees what befalls it, never its sheet's numbers
(issue 49 §5: "the NPC's sheet numbers stay the GM's; players see the outcome").

From rules 3 (:data:`.events.RULES`), each record about a combatant that the GM plays,
is not a PC and is not hidden is logged in its *public form*: without the numbers of
its sheet (:data:`SHEET_NUMBERS`: its attributes, Basic Speed, DR, Pain Threshold, an
SWN Dex modifier, Con and morale score), without its initiative's tie-breakers (Basic
Speed and DX, B363) and without the command of the rolls it is called to make (the
target number they name is its HT or Will). Its HP, FP, shock, conditions and the
calls' kinds stay public: the outcome. An event that carries such numbers (an ``add``,
or the GM's ``set`` of them) gets, after those records, GM-only copies of the ones
that lost something: the GM's copy of the log holds the whole event, and ``referee
verify`` on it checks every record; a player's copy takes the public records as
logged.

>>> SHEET_NUMBERS >= {"dx", "ht", "dr"}, private("dr_skull"), private("hp")
(True, True, False)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .model import Combatant, Fight, Record

__all__ = ["SHEET_NUMBERS", "carries_numbers", "plays", "private", "public_records"]

SHEET_NUMBERS = frozenset(
    {"st", "dx", "iq", "ht", "will", "speed", "dr", "hpt", "lpt", "male",
     "dex_mod", "strain_max", "morale"}
)  # fmt: skip
"""The values that are an NPC's sheet, not its state (``dr_<location>`` too)."""

FROM_RULES = 3
"""The first rules (:data:`.events.RULES`) that log an NPC's records in public form."""


def private(key: str) -> bool:
    """Whether value ``key`` is one of a sheet's numbers."""
    return key in SHEET_NUMBERS or key.startswith("dr_")


def plays(c: Combatant | None) -> bool:
    """Whether ``c`` is a GM's NPC in plain view (played by the GM, no PC, not hidden)."""
    return c is not None and c.owner == "gm" and not c.pc and not c.hidden


def carries_numbers(fight: Fight, ev: Mapping[str, Any]) -> bool:
    """Whether event ``ev`` (read) names a GM's NPC's sheet numbers: its ``add`` with
    any, or a ``set`` of them. ``fight`` is the fight before it."""
    kind = ev.get("kind")
    if kind == "add":  # the NPC it adds, as :func:`plays` reads one
        npc = ev.get("owner", "gm") == "gm" and not ev.get("pc") and not ev.get("hidden")
        return npc and any(private(k) for k in ev.get("values", {}))
    if kind == "set":
        c = fight.combatants.get(str(ev.get("combatant")))
        return plays(c) and any(private(k) for k in ev.get("values", {}))
    return False


def public_records(
    before: Fight, after: Fight, ev: Mapping[str, Any], records: tuple[Record, ...]
) -> tuple[Record, ...]:
    """``records`` with each about a GM's NPC in its public form, and the GM-only
    copies the event needs when it carries the NPC's numbers (:func:`carries_numbers`).
    ``records`` itself when none changes (the usual step: a PC's, or only HP)."""
    out: list[Record] | None = None
    kept: list[Record] = []
    for i, r in enumerate(records):
        if r.kind == "turn" or r.hidden:
            continue
        cid = r.fields.get("combatant")
        shown = _public(r) if isinstance(cid, str) and plays(after.combatants.get(cid)) else None
        if shown is None:
            continue
        if out is None:
            out = list(records)
        out[i] = shown
        kept.append(Record(r.kind, r.fields, True))
    if out is None:
        return records
    if carries_numbers(before, ev):
        out.extend(kept)
    return tuple(out)


def _public(r: Record) -> Record | None:
    """``r`` without what is the GM's, or None when it has none of it."""
    f = r.fields
    values = f.get("values")
    secret = isinstance(values, Mapping) and any(private(k) for k in values)
    calls = f.get("calls") or ()
    if not (secret or "initiative" in f or any("command" in x for x in calls)):
        return None
    fields = dict(f)
    if secret and isinstance(values, Mapping):
        fields["values"] = {k: v for k, v in values.items() if not private(k)}
    fields.pop("initiative", None)
    if calls:
        fields["calls"] = [{k: v for k, v in x.items() if k != "command"} for x in calls]
    return Record(r.kind, fields, r.hidden)
