"""Stars Without Number and Psi-punk (Fudge) in a fight: what each tracks and how
damage, the end of a round and a called roll change it.

SWN sources: *Stars Without Number Revised* (``003``): "Mortal Wounds",
"Stabilization" and "Recovery" (through :mod:`referee.systems.swn.injury`), "Morale"
(through :func:`referee.systems.swn.morale_triggers`), "Initiative and Rounds".
System strain is not in ``003``; *Stars Without Number Revised* ("System Strain")
caps it at the Constitution score, which is what referee tracks (``strain_max``),
changed by the GM.

Fudge: ``002`` (Psi-punk) gives no damage capacity and no wound track, so none is
tracked (docs/systems/fudge.md); its Luck Points are (``luck``), each spent for a
reroll as ``002`` describes ("Rerolls"), one ``change`` each.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import RuleError
from ..systems import swn
from .model import Combatant

__all__ = [
    "fled_refusal",
    "FUDGE_TRACKED",
    "SWN_TRACKED",
    "end_round",
    "fudge_defaults",
    "injure",
    "is_down",
    "swn_answer",
    "swn_defaults",
]

SWN_TRACKED = ("hp", "hp_max", "strain", "strain_max", "dex_mod", "morale", "rounds_down")
"""SWN values: HP and its maximum, system strain and its maximum (the Con score), the
Dexterity modifier (initiative), the morale score (an NPC's; 0 for none) and the
rounds since going down (the death clock)."""

FUDGE_TRACKED = ("luck",)
"""Psi-punk values: Luck Points."""

_STATES = {c.value: c for c in swn.Condition}


def swn_defaults(values: dict[str, int]) -> dict[str, int]:
    """An SWN combatant's values, filled in: HP at its maximum, no strain, a strain
    maximum of 10 (the Con score, when not given), no Dex modifier, no morale score.

    >>> swn_defaults({"hp_max": 9})["hp"], swn_defaults({"hp_max": 9})["strain_max"]
    (9, 10)
    """
    v = dict(values)
    if v.get("hp_max", 1) < 1:
        raise RuleError("an SWN combatant needs hp_max of 1 or more")
    v.setdefault("hp_max", 1)
    v.setdefault("hp", v["hp_max"])
    for name, value in (("strain", 0), ("strain_max", 10), ("dex_mod", 0)):
        v.setdefault(name, value)
    v.setdefault("morale", 0)
    v.setdefault("rounds_down", 0)
    return v


def fudge_defaults(values: dict[str, int]) -> dict[str, int]:
    """A Psi-punk combatant's values: its Luck Points (0 when not given)."""
    return {"luck": 0, **values}


def _state(c: Combatant) -> swn.Condition:
    """The first of its conditions that is a state (``mortally wounded``, ...), or up."""
    for k in c.conditions:
        state = _STATES.get(k)
        if state is not None:
            return state
    return swn.Condition.UP


def _health(c: Combatant) -> swn.Health:
    return swn.Health(
        max(0, c.value("hp")), max(1, c.value("hp_max")), _state(c), c.value("rounds_down"), c.pc
    )


def _from(c: Combatant, h: swn.Health) -> Combatant:
    """``c`` with ``h``'s HP, condition and death clock (``c`` itself if unchanged)."""
    kept = {k for k in c.conditions if k not in _STATES}
    state = set() if h.condition is swn.Condition.UP else {str(h.condition)}
    conditions = frozenset(kept | state)
    # equal, c's hold at most one state: which set is kept changes nothing _state reads
    out = c if conditions == c.conditions else c.with_conditions(conditions)
    return out.with_values(hp=h.hp, rounds_down=h.rounds_down)


def is_down(c: Combatant) -> bool:
    """Out of the fight: at 0 HP or dead (a casualty, for morale)."""
    if c.value("hp") > max(1, c.value("hp_max")):
        _health(c)  # refused, as swn.Health refuses more HP than the maximum
    return _state(c) is not swn.Condition.UP


def injure(c: Combatant, damage: int, lethal: bool = True) -> Combatant:
    """``damage`` (Shock included, as an attack's result gives it) off its HP; a negative
    ``damage`` is healing.

    Source: ``003``, "Mortal Wounds" (0 HP from a lethal attack, mortally wounded;
    from a non-lethal one, unconscious) and "Recovery" (further damage to a stabilized
    character before it recovers kills), as :func:`referee.systems.swn.take_damage`
    with the default :attr:`~referee.systems.swn.DeathWindow.FIRST_HP`; healing above
    0 HP ends a mortal wound, a stabilized state and the death clock, as
    :func:`referee.systems.swn.heal` (the same reading).
    """
    if damage < 0:
        return _from(c, swn.heal(_health(c), -damage))
    return _from(c, swn.take_damage(_health(c), damage, lethal=lethal))


def end_round(c: Combatant) -> Combatant:
    """The end of a round: a mortally wounded combatant's clock runs; after 6 rounds it
    dies (``003``, "Stabilization", as :func:`referee.systems.swn.end_round`)."""
    return _from(c, swn.end_round(_health(c)))


def swn_answer(c: Combatant, kind: str, success: bool) -> Combatant:
    """A roll's result for ``c``: a successful ``swn stabilize`` stabilizes a mortally
    wounded combatant (``003``, "Stabilization"); a failed morale check breaks an NPC
    (``003``, "Morale": it flees, withdraws or surrenders)."""
    if kind == "stabilize" and success and "mortally wounded" in c.conditions:
        return _from(c, replace(_health(c), condition=swn.Condition.STABILIZED, rounds_down=0))
    if kind == "morale" and not success:
        return c.with_conditions(c.conditions | {"broken"})
    return c


def fled_refusal(c: Combatant) -> str | None:
    """Why ``c`` may make no attack, if its morale broke (``003``, "Morale": "Greater =
    flee/withdraw/surrender"): it flees or surrenders, and fights on only if the GM
    says so (she drops ``broken``). None for one whose morale holds."""
    if "broken" in c.conditions:
        return (
            f"{c.name}'s morale broke: it flees or surrenders, and makes no attack (003, "
            "Morale); the GM may rally it (drop 'broken')"
        )
    return None
