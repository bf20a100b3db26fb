"""What a combatant may do on its turn, for a front end that offers it as buttons
(issue 72 §2; Discord's): each attack it may make, a weapon of its sheet at a foe in
view, with its level after the fight's modifiers and its exact odds to hit; and the
other maneuvers its state allows. The rules are the fight's own
(:mod:`referee.fight.maneuvers`): a front end lists these, and the press goes through
:func:`.attacks.attack` or :func:`.events.event`, which decide again."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ....fight import Combatant, Fight
from ....fight.maneuvers import tracker_modifiers
from ....systems.gurps.success import skill_odds
from ...db.store import Member
from ..access import conflicts
from .blows import sheet_of

__all__ = ["AttackOption", "OTHER_MANEUVERS", "SWN_MANEUVERS", "Turn", "turn_of"]

OTHER_MANEUVERS: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("all-out attack", {}, "All-Out Attack (Determined)"),
    ("all-out attack", {"double": True}, "All-Out Attack (Double)"),
    ("move and attack", {}, "Move and Attack"),
    ("all-out defense", {"defense": "dodge"}, "All-Out Defense (Dodge +2)"),
    ("all-out defense", {"defense": "parry"}, "All-Out Defense (Parry +2)"),
    ("all-out defense", {"defense": "block"}, "All-Out Defense (Block +2)"),
    ("aim", {}, "Aim"),
    ("change posture", {"posture": "standing"}, "Stand up"),
    ("change posture", {"posture": "kneeling"}, "Kneel"),
    ("change posture", {"posture": "prone"}, "Lie prone"),
    ("evaluate", {}, "Evaluate"),
    ("ready", {}, "Ready"),
    ("do nothing", {}, "Do Nothing"),
)
"""GURPS's maneuvers besides a plain Attack (B364-B366), as a turn offers them: the
maneuver, what its event adds, and its label. One taken, the attack that follows (if it
allows one) is made with it."""

SWN_MANEUVERS: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("total defense", {}, "Total Defense (+2 AC, no Shock)"),
)
"""SWN's turn besides its attack, a Main Action (003)."""


@dataclass(frozen=True, slots=True)
class AttackOption:
    """One attack a turn offers: a weapon of the sheet at a foe."""

    target: str
    """The foe's id (a hidden NPC's opaque one, for the GM only)."""
    target_name: str
    weapon: str
    """As the attack names it: ``Knife (Swung)``."""
    level: int | None
    """The skill after the fight's modifiers (GURPS); None where the sheet gives none."""
    odds: Fraction | None
    """The exact chance to hit at that level (B344: 3-4 always, 17-18 never)."""


@dataclass(frozen=True, slots=True)
class Turn:
    """A combatant's turn, as a front end offers it."""

    combatant: Combatant
    attacks: tuple[AttackOption, ...]
    maneuvers: tuple[tuple[int, str], ...]
    """The other maneuvers it may take: ``(index in OTHER_MANEUVERS or SWN_MANEUVERS,
    label)``."""
    acted: bool
    """It took its maneuver this turn (an attack may still follow one that allows it)."""


async def turn_of(st: Any, room: str, member: Member, cid: str) -> Turn | None:
    """``cid``'s turn as ``member`` may see and take it, or None when it is not its turn,
    it is out of the fight, or the member may not act for it (another's character; a
    hidden NPC for a player)."""
    fight: Fight = await conflicts(st.store.fight(room))
    c = fight.combatants.get(cid)
    if c is None or fight.current != cid or not fight.round or fight.out_of_action(cid):
        return None
    if not member.is_gm and c.owner != member.id:
        return None
    foes = [
        x for x in fight.combatants.values()
        if x.id != cid and x.id not in fight.removed and "dead" not in x.conditions
        and (member.is_gm or not x.hidden)
    ]  # fmt: skip
    foes.sort(key=lambda x: (x.side == c.side, fight.out_of_action(x.id)))  # foes up first
    stunned = "stunned" in c.conditions or "broken" in c.conditions
    attacks: list[AttackOption] = []
    if c.sheet and not stunned and (not c.value("acted") or c.value("attacks") > 0):
        sheet = await sheet_of(st, room, c)
        for a in sheet.attacks:
            weapon = f"{a.name} ({a.usage})" if a.usage else a.name
            level = a.level
            odds = None
            if fight.system == "gurps" and level is not None:
                mods = tracker_modifiers(c, level, a.acc is not None)
                level += sum(m for _, m in mods)
                odds = skill_odds(level).success if level >= 3 else None
            for foe in foes:
                attacks.append(AttackOption(foe.id, foe.name, weapon, level, odds))
    table = OTHER_MANEUVERS if fight.system == "gurps" else SWN_MANEUVERS
    maneuvers: tuple[tuple[int, str], ...] = ()
    if not c.value("acted"):
        allowed = [(i, label) for i, (name, _, label) in enumerate(table)
                   if not stunned or name == "do nothing"]  # fmt: skip
        maneuvers = tuple(allowed)
    return Turn(c, tuple(attacks), maneuvers, bool(c.value("acted")))
