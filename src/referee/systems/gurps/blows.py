"""One blow that lands in a GURPS exchange: its basic damage, the DR it meets, what
penetrates, the injury and what the injury does; the one function both the roll
(:mod:`.exchange`) and its odds (:mod:`.exchange_odds`) use, so they cannot disagree.

Sources: *GURPS Basic Set*, 4th edition: B378-B379 (crushing does at least 0, any
other type at least 1; DR and armor divisors), B399 (a location's own DR), B398-B400
(wounding by location, crippling caps, large-area injury), B556 (the critical
tables' effects on a blow), B380 and B60 (Injury Tolerance, :mod:`.tolerance`) and
B419-B421 (:func:`.wounds.wound_effects`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from fractions import Fraction

from .criticals import HEAD
from .damage import DamageSpec, _dice_adds, armor_dr
from .locations import LOCATIONS, LargeArea, Location, location_injury, read_location
from .success import sum_d6
from .target import Target
from .tolerance import struck_as, tolerant_injury
from .wounds import Wound, extra_dr, wound_effects

__all__ = ["BLOWS", "Blow", "blow", "on_head", "penetrates"]


BLOWS = frozenset(
    {"normal", "max", "double", "triple", "half_dr", "major", "double_shock",
     "max_no_dr", "half_dr_up_major", "half_dr_up", "eye"}
)  # fmt: skip
"""The critical hit effects (B556, both tables) that change the blow itself
(:func:`blow`); the rest do a normal blow."""


@dataclass(frozen=True, slots=True)
class Blow:
    """One blow that lands: its basic damage, the DR it meets, what penetrates, the
    injury and what the injury does."""

    basic: int
    dr: int
    penetrating: int
    injury: int
    wound: Wound


def blow(
    total: int,
    damage: DamageSpec,
    target: Target,
    location: Location,
    effect: str = "normal",
    tight_beam: bool = False,
    large_area: bool | LargeArea = False,
) -> Blow:
    """The blow of a damage roll totalling ``total`` (dice and adds) at ``location``,
    under a critical hit's ``effect`` (B556's Critical Hit Table: ``max``, ``double``,
    ``triple``, ``half_dr``, ``major``, ``double_shock``; its Critical Head Blow Table:
    ``max_no_dr``, ``half_dr_up_major``, ``half_dr_up``, ``eye``; anything else is a
    normal blow).

    Source: B378-B379 (crushing does at least 0, any other type at least 1; DR, and
    armor divisors; at 1/2D range, :attr:`.damage.DamageSpec.half`, basic damage is
    halved, as the roll and a critical row leave it, rounding down and to no less than
    that least: referee's reading, 4th edition), B399 (a location's own DR: the skull's
    2, none against toxic), B398-B400 (wounding by location, crippling caps) and B419-B421
    (:func:`.wounds.wound_effects`).

    >>> b = blow(9, DamageSpec("2d+1", "cut"), Target(dr=2, hp=10), read_location("torso"))
    >>> b.penetrating, b.injury, b.wound.major
    (7, 10, True)
    """
    count, adds = _dice_adds(damage.expression)
    if effect == "eye":  # the Critical Head Blow Table's 6-7: an eye hit (B556)
        location = read_location("eye")
    struck = struck_as(location, target.tolerance)  # No Brain, No Vitals (B60)
    least = 0 if damage.damage_type == "cr" else 1
    basic = max(total, least)
    if effect in ("max", "max_no_dr"):
        basic = max(count * 6 + adds, least)
    elif effect in ("double", "triple"):
        basic *= 2 if effect == "double" else 3
    if damage.half:  # 1/2D (B378): halved after the roll, before DR, rounded down
        basic = max(basic // 2, least)
    dr = (
        _large_area_dr(target, damage, large_area)
        if large_area
        else (target.dr_over(location.key) + extra_dr(struck, damage.damage_type))
    )
    dr = armor_dr(dr, damage.divisor)  # fmt: skip
    if effect == "half_dr":
        dr //= 2
    elif effect in ("half_dr_up", "half_dr_up_major"):
        dr = (dr + 1) // 2
    elif effect == "max_no_dr":
        dr = 0
    through = max(basic - dr, 0)
    if target.tolerance is None:
        injury = location_injury(through, damage.damage_type, location.key, target.hp, tight_beam)
    else:  # Injury Tolerance (B380)
        injury = tolerant_injury(through, damage.damage_type, struck, target.hp,
                                 target.tolerance, tight_beam, large_area)  # fmt: skip
    wound = wound_effects(
        injury,
        struck,
        target.hp,
        damage_type=damage.damage_type,
        hpt=target.hpt,
        lpt=target.lpt,
        male=target.male,
        major_effect=effect in ("major", "half_dr_up_major") and through > 0,
        double_shock=effect == "double_shock" and through > 0,
    )
    if struck is not location and location.key == "eye" and target.hp is not None:
        wound = replace(wound, blinded=10 * injury > target.hp)  # No Brain's eye (B60)
    return Blow(basic, dr, through, injury, wound)


def _large_area_dr(target: Target, damage: DamageSpec, large_area: bool | LargeArea) -> int:
    """B400, "Large-Area Injury": the average of the torso's DR and the least-protected
    location's (each with its own, the skull's 2), a half rounded as ``large_area``
    says (:class:`.locations.LargeArea`; ``True``: up, the default)."""
    each = [target.dr_over(k) + extra_dr(loc, damage.damage_type) for k, loc in LOCATIONS.items()]
    rounding = large_area if isinstance(large_area, LargeArea) else LargeArea.UP
    return rounding.average(target.dr_over("torso"), min(each))


@functools.lru_cache(maxsize=4096)
def penetrates(
    damage: DamageSpec,
    target: Target,
    location: Location,
    effect: str = "normal",
    large_area: bool | LargeArea = False,
) -> Fraction:
    """P(any of the damage penetrates DR at ``location``), over the damage dice. Cached:
    every exchange's damage step says it, and it reads one blow for each total."""
    count, adds = _dice_adds(damage.expression)
    return sum(
        (p for total, p in sum_d6(count).items()
         if blow(total + adds, damage, target, location, effect,
                 large_area=large_area).penetrating > 0),
        Fraction(0),
    )  # fmt: skip


def on_head(location: str, damage_type: str) -> bool:
    """Whether a critical hit at ``location`` reads the Critical Head Blow Table
    (B556: the skull, face and eye; B399: not toxic damage at the skull, whose
    special effects toxic damage does not get)."""
    return location in HEAD and not (location == "skull" and damage_type == "tox")
