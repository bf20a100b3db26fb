"""The fight at the table: combatants, initiative and turns, HP, FP and wounds, and
the rolls the rules call for, kept as pure state changed by events.

>>> from referee import fight
>>> f = fight.begin("gurps")
>>> f = fight.step(f, {"kind": "add", "combatant": "orc", "values": {"st": 12, "ht": 11}}).fight
>>> s = fight.step(f, {"kind": "damage", "combatant": "orc", "amount": 7})
>>> s.fight.combatants["orc"].values["hp"], [c.kind for c in s.fight.calls]
(5, ['knockdown'])
>>> [r.kind for r in s.records], s.records[0].fields["values"]["hp"]
(['change'], [12, 5])
"""

from .events import EVENTS, read_event
from .model import SYSTEMS, Call, Combatant, Fight, Record, Step
from .rolls import numbers
from .step import begin, replay, step
from .turns import tracked
from .view import shown, visible

__all__ = [
    "EVENTS",
    "SYSTEMS",
    "Call",
    "Combatant",
    "Fight",
    "Record",
    "Step",
    "begin",
    "numbers",
    "read_event",
    "replay",
    "shown",
    "step",
    "tracked",
    "visible",
]
