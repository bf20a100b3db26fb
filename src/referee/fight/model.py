"""The state of a fight and the events that change it: frozen values, and their JSON.

A fight is its combatants (each with the values its system tracks and its
conditions), the initiative order, whose turn it is and the round, and the rolls
the rules now call for (:class:`Call`). :func:`referee.fight.step` takes a fight and
one event and gives the next fight and the records to log (contract v1.2's
``combatant``, ``change`` and ``turn`` entries; docs/reference/rooms-contract.md).

Every value is an integer (a GURPS Basic Speed in hundredths: 5.75 is ``575``), so
a record can go into the log, which holds no floats.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import RuleError

__all__ = ["SYSTEMS", "Call", "Combatant", "Fight", "Record", "Step"]

SYSTEMS = ("gurps", "swn", "fudge")
"""The systems a fight follows (a room's ``system``)."""

OUT = frozenset({"dead", "unconscious", "mortally wounded", "incapacitated"})
"""Conditions that take a combatant out of the fight (no turns; its calls close)."""


@dataclass(frozen=True, slots=True)
class Combatant:
    """One side's fighter: who it is, who answers for it, and what is tracked."""

    id: str
    """Its id in the fight: 1-40 of ``A-Z a-z 0-9 _ -`` (``orc``, ``dai``)."""
    name: str
    """Its name as shown (an NPC's name is its roller's name in the log)."""
    values: Mapping[str, int]
    """What its system tracks (:data:`referee.fight.rules.TRACKED`), all integers."""
    conditions: frozenset[str] = frozenset()
    """``stunned``, ``prone``, ``unconscious``, ``mortally wounded``, ``dead``, ..."""
    sheet: str | None = None
    """The room sheet it came from, if any."""
    owner: str = "gm"
    """The member who answers its calls: the sheet's owner, or the GM."""
    hidden: bool = False
    """Hidden from players (the GM's NPCs) until revealed."""
    side: str = ""
    """Its side (SWN morale counts a side's casualties)."""
    pc: bool = False
    """A player character (SWN: PCs win initiative ties and never check morale)."""

    def value(self, name: str) -> int:
        return self.values.get(name, 0)

    def with_values(self, **changes: int) -> Combatant:
        """This combatant with ``changes`` to its values (itself when they change none:
        a step records only the combatants it replaced)."""
        values = self.values
        if all(values.get(k) == v for k, v in changes.items()):
            return self
        return Combatant(
            self.id,
            self.name,
            {**values, **changes},
            self.conditions,
            self.sheet,
            self.owner,
            self.hidden,
            self.side,
            self.pc,
        )

    def with_conditions(self, conditions: frozenset[str]) -> Combatant:
        """This combatant with ``conditions`` (as ``dataclasses.replace``, faster)."""
        return Combatant(
            self.id,
            self.name,
            self.values,
            conditions,
            self.sheet,
            self.owner,
            self.hidden,
            self.side,
            self.pc,
        )

    def json(self) -> dict[str, Any]:
        """The fields of its ``combatant`` entry."""
        return {
            "combatant": self.id,
            "name": self.name,
            "sheet": self.sheet,
            "owner": self.owner,
            "hidden": self.hidden,
            "side": self.side,
            "pc": self.pc,
            "values": dict(sorted(self.values.items())),
            "conditions": sorted(self.conditions),
        }


@dataclass(frozen=True, slots=True)
class Call:
    """A roll the rules now call for, one click for the member it belongs to."""

    id: str
    """Its id, which an answer names: the combatant's id and its own count of calls
    (``orc/2``), so that a hidden combatant's calls change no other's numbering."""
    combatant: str
    """Who rolls (a GURPS knockdown roll is the target's)."""
    kind: str
    """``knockdown``, ``conscious``, ``survive``, ``stun``, ``collapse``,
    ``initiative``, ``side initiative``, ``tiebreak``, ``morale``, ``defense``."""
    command: str
    """What to roll, as a room command: ``gurps check 12 -5 --label 'HT (knockdown)'``."""
    why: str
    """Why the rules call for it, with the rule's page or section."""
    attacker: str | None = None
    """A ``defense`` call's attacker (an exchange the GM defends by hand)."""
    then: str | None = None
    """A ``defense`` call's sequel: the attacker's damage roll, rolled when it fails."""
    choices: tuple[Mapping[str, Any], ...] = ()
    """A player's ``defense`` call (contract v1.4, "the defender chooses her defense"):
    the defenses she may roll, each ``{"label", "command", "level", "odds"}``, the
    best first (its ``command`` is the call's); the answer names its ``choice``."""
    attack: int | None = None
    """From rules 6, a ``defense`` call whose attack roll players may not see: that
    roll's seq, from which the server makes the damage roll (no ``then``: contract
    v1.5, "a hidden attacker stays hidden in its target's call")."""

    def command_of(self, choice: int | None) -> str:
        """The command that ``choice`` (an index of :attr:`choices`) rolls: the call's
        own when there is no choice to make.

        Raises:
            RuleError: a choice the call does not offer.
        """
        if choice is None or (not self.choices and choice == 0):
            return self.command
        if not 0 <= choice < len(self.choices):
            raise RuleError(f"call {self.id} offers choices 0 to {len(self.choices) - 1}")
        return str(self.choices[choice]["command"])

    def json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "call": self.id,
            "combatant": self.combatant,
            "kind": self.kind,
            "command": self.command,
            "why": self.why,
        }
        if self.attack is not None:  # rules 6: the attack's seq, no damage command
            out["attacker"], out["attack"] = self.attacker, self.attack
        elif self.attacker is not None:  # only a defense call's: older entries unchanged
            out["attacker"], out["then"] = self.attacker, self.then
        if self.choices:  # only a player's defense call's (rules 5)
            out["choices"] = [dict(c) for c in self.choices]
        return out


@dataclass(frozen=True, slots=True)
class Fight:
    """A fight's whole state. Combatants keep the order they were added in."""

    system: str
    combatants: Mapping[str, Combatant] = field(default_factory=dict)
    order: tuple[str, ...] = ()
    """The initiative order, first to act first; empty before the fight starts."""
    current: str | None = None
    """Whose turn it is (None before the start)."""
    round: int = 0
    """The round, from 1 (0 before the start)."""
    delayed: tuple[str, ...] = ()
    """Combatants holding their action, out of the order until they act."""
    removed: tuple[str, ...] = ()
    """Combatants out of the fight (kept, with their values, for the record)."""
    initiative: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """Each combatant's place in the order, compared highest first, once known."""
    calls: tuple[Call, ...] = ()
    """The rolls the rules call for now, oldest first."""
    counts: Mapping[str, int] = field(default_factory=dict)
    """How many calls each combatant has had (for the next call's id)."""
    rules: int = field(default=1, compare=False)
    """The rules of the event being applied (:data:`.events.RULES`): from 2, a
    combatant out of the fight gets no turn and its calls close."""
    gm_defends_pcs: bool = False
    """The room's setting (contract v1.4, a ``defenses`` event): the GM rolls the players'
    characters' defenses, for speed; each PC carries it as ``gm_defends``, one added
    later too."""

    def __post_init__(self) -> None:
        if self.system not in SYSTEMS:
            raise RuleError(f"a fight follows gurps, swn or fudge, not {self.system!r}")

    def combatant(self, cid: str) -> Combatant:
        found = self.combatants.get(cid)
        if found is None:
            known = ", ".join(self.combatants) or "none yet"
            raise RuleError(f"no combatant {cid!r} in this fight (combatants: {known})")
        return found

    def out_of_action(self, cid: str) -> bool:
        """Whether ``cid`` is out of the fight, by its system's rules: dead,
        unconscious or mortally wounded (GURPS, B419-B423; Fudge, as the GM marks it),
        or at 0 HP in SWN (``003``, "Mortal Wounds": mortally wounded, stabilized but
        down, or dead)."""
        c = self.combatants.get(cid)
        if c is None:  # one this reader may not see (a player's view): not known to be out
            return False
        if self.system == "swn":
            return c.value("hp") <= 0 or "dead" in c.conditions
        return bool(c.conditions & OUT)

    def call(self, cid: str) -> Call:
        for c in self.calls:
            if c.id == cid:
                return c
        raise RuleError(f"no call {cid!r} is open in this fight")

    def calling(self, specs: Iterable[tuple[str, str, str, str]]) -> Fight:
        """This fight with new calls: ``(combatant, kind, command, why)`` each (itself
        when there are none)."""
        calls, counts = list(self.calls), dict(self.counts)
        for cid, kind, command, why in specs:
            counts[cid] = counts.get(cid, 0) + 1
            calls.append(Call(f"{cid}/{counts[cid]}", cid, kind, command, why))
        if len(calls) == len(self.calls):
            return self
        return Fight(
            self.system,
            self.combatants,
            self.order,
            self.current,
            self.round,
            self.delayed,
            self.removed,
            self.initiative,
            tuple(calls),
            counts,
            self.rules,
            self.gm_defends_pcs,
        )

    def turned(self, order: tuple[str, ...], current: str | None, round: int) -> Fight:
        """This fight with its order, whose turn it is and the round set."""
        return Fight(
            self.system,
            self.combatants,
            order,
            current,
            round,
            self.delayed,
            self.removed,
            self.initiative,
            self.calls,
            self.counts,
            self.rules,
            self.gm_defends_pcs,
        )

    def put(self, c: Combatant) -> Fight:
        """This fight with ``c`` in the place of its id's combatant (or added last)."""
        if self.combatants.get(c.id) is c:
            return self
        return Fight(
            self.system,
            {**self.combatants, c.id: c},
            self.order,
            self.current,
            self.round,
            self.delayed,
            self.removed,
            self.initiative,
            self.calls,
            self.counts,
            self.rules,
            self.gm_defends_pcs,
        )

    def turn_json(self) -> dict[str, Any]:
        """The fields of a ``turn`` entry."""
        return {
            "order": list(self.order),
            "current": self.current,
            "round": self.round,
            "delayed": list(self.delayed),
            "removed": list(self.removed),
        }


@dataclass(frozen=True, slots=True)
class Record:
    """One entry to log: ``kind`` is ``combatant``, ``change`` or ``turn``; ``fields``
    its fields beside the common ones; ``hidden`` when players see it redacted."""

    kind: str
    fields: Mapping[str, Any]
    hidden: bool = False


@dataclass(frozen=True, slots=True)
class Step:
    """What an event did: the fight after it, and what to log, in order."""

    fight: Fight
    records: tuple[Record, ...]
