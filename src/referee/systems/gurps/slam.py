"""A slam (B371): an attack with the body whose damage comes from HP and velocity, and
which hurts both; who falls down; with the exact odds.

Sources: *GURPS Basic Set*, 4th edition, B371, "Slams" (the rules notes' ``COMBAT.md``
has no slam; these are the book's rules as referee reads them, docs/systems/gurps.md):

- The slam is an attack roll (DX, Brawling or Sumo Wrestling: the GM gives the level)
  against which the target may dodge, parry or block; a critical miss reads the
  Unarmed Critical Miss Table (B557).
- Slam damage is crushing: (HP × velocity) / 100 dice, velocity in yards per second
  (the closing speed, which the GM gives). Under one die the book gives 1d-3, 1d-2 or
  1d-1 (:class:`SlamBounds` says where each ends); a whole number of dice otherwise,
  rounded to the nearest (a half up).
- Both are hurt: the target takes the slammer's damage, the slammer the target's (each
  from its own HP, the same velocity), each through its own DR at the torso.
- Whoever deals at least twice the basic damage it takes knocks the other down (B371);
  with neither twice the other, neither falls by this rule (referee compares the basic
  damage rolled, before DR).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from ...errors import RuleError
from ...fmt import percent, rolled
from ...rng import RandomSource
from .blows import blow
from .damage import DamageSpec, _dice_adds
from .exchange import Exchange, Hurt, exchange, strike
from .exchange_odds import ExchangeOdds, _split, exchange_odds
from .locations import read_location
from .melee import AttackOptions, DefenseOptions
from .odds_steps import prepared, ways
from .target import Target

__all__ = ["Slam", "SlamBounds", "SlamOdds", "slam", "slam_dice", "slam_odds"]


class SlamBounds(StrEnum):
    """Where B371's dice for a slam under one die end (its words: 1d-3, 1d-2, 1d-1 by
    the size of (HP × velocity) / 100).

    The slam tables GMs use (the Albuquerque GURPS group's "Table of Collisions and
    Slams") read each bound as "less than": 0.25 is 1d-2 and 0.5 is 1d-1. An "at most"
    reading moves only those two exact values one step down.
    """

    BELOW = "below"
    """The default: under 0.25, 1d-3; under 0.5, 1d-2; under 1, 1d-1."""
    AT_MOST = "at-most"
    """0.25 or less, 1d-3; 0.5 or less, 1d-2; under 1, 1d-1."""


def slam_dice(hp: int, velocity: int, bounds: SlamBounds = SlamBounds.BELOW) -> str:
    """A slam's damage dice for ``hp`` at ``velocity`` yards per second (*GURPS Basic
    Set*, 4th edition, B371; the bounds under one die by :class:`SlamBounds`).

    >>> [slam_dice(10, v) for v in (2, 3, 5, 9, 10, 14, 15)]
    ['1d-3', '1d-2', '1d-1', '1d-1', '1d', '1d', '2d']
    >>> slam_dice(5, 5), slam_dice(5, 5, SlamBounds.AT_MOST), slam_dice(13, 20)
    ('1d-2', '1d-3', '3d')

    Raises:
        RuleError: HP or velocity under 1.
    """
    if hp < 1 or velocity < 1:
        raise RuleError(f"a slam needs HP and a velocity of 1 or more, not {hp} and {velocity}")
    size = Fraction(hp * velocity, 100)
    for bound, dice in ((Fraction(1, 4), "1d-3"), (Fraction(1, 2), "1d-2"), (Fraction(1), "1d-1")):
        if size < bound or (bounds is SlamBounds.AT_MOST and size == bound and bound < 1):
            return dice
    return f"{int(size + Fraction(1, 2))}d"


def falls(dealt: int, taken: int) -> str | None:
    """Who a slam knocks down (*GURPS Basic Set*, 4th edition, B371): ``target`` when
    the slammer deals at least twice the basic damage it takes, ``slammer`` the other
    way round; None for neither.

    >>> falls(6, 3), falls(2, 5), falls(4, 3), falls(0, 0)
    ('target', 'slammer', None, None)
    """
    if dealt and dealt >= 2 * taken:
        return "target"
    if taken and taken >= 2 * dealt:
        return "slammer"
    return None


@dataclass(frozen=True, slots=True)
class Slam:
    """A slam rolled: the attack's exchange, and when it landed, the blow back."""

    exchange: Exchange
    velocity: int
    slammer: Target
    """The slammer as the blow back meets it (its HP and DR)."""
    back: Hurt | None
    """The target's damage to the slammer (B371), when the slam landed."""

    system = "gurps"
    kind = "slam"

    @property
    def fallen(self) -> str | None:
        """``target``, ``slammer`` or None (:func:`falls`)."""
        h = self.exchange.hurt
        return None if h is None or self.back is None else falls(h.basic, self.back.basic)

    @property
    def text(self) -> str:
        x, back = self.exchange, self.back
        out = f"{x.attacker}'s slam at {self.velocity} yd/s (B371): {x.text}"
        if back is not None and x.hurt is not None:
            out += (f". {x.target.name} hits back: {_dice(back)} cr vs DR {back.dr}, basic "
                    f"{back.basic}, injury {back.injury} to {self.slammer.name}")  # fmt: skip
            who = {"target": x.target.name, "slammer": self.slammer.name}.get(self.fallen or "")
            out += f"; {who} falls down (B371)" if who else "; neither falls (B371)"
        return out


def _dice(h: Hurt) -> str:
    return rolled(sum(h.dice), h.dice)


def slam(
    skill: int,
    velocity: int,
    slammer: Target,
    target: Target,
    *,
    defense: str = "best",
    defense_options: DefenseOptions | None = None,
    bounds: SlamBounds = SlamBounds.BELOW,
    rng: RandomSource | None = None,
) -> Slam:
    """Roll a slam: the attack's exchange with the slammer's damage (an unarmed attack,
    at the torso), then, if it landed, the target's damage back to the slammer. Draws:
    the exchange's, then the blow back's dice.

    Raises:
        RuleError: HP not known (both are needed, B371), a bad velocity, or what the
            exchange refuses.
    """
    if slammer.hp is None or target.hp is None:
        raise RuleError("a slam needs both HP: the slammer's and the target's (B371)")
    spec = DamageSpec(slam_dice(slammer.hp, velocity, bounds), "cr")
    back_spec = DamageSpec(slam_dice(target.hp, velocity, bounds), "cr")
    x = exchange(skill, spec, target, attacker=slammer.name, options=AttackOptions(unarmed=True),
                 defense=defense, defense_options=defense_options, rng=rng)  # fmt: skip
    back = None
    if x.hurt is not None:
        back = strike(back_spec, slammer, AttackOptions(), "normal", rng)
    return Slam(x, velocity, slammer, back)


@dataclass(frozen=True, slots=True)
class SlamOdds:
    """A slam's odds before any die: the exchange's, and what the blow back and the
    comparison of basic damage bring."""

    steps: ExchangeOdds
    """The attack's exchange (:func:`.exchange_odds.exchange_odds`)."""
    slammer: str
    hurt_back: Fraction
    """P(the slammer is injured by the blow back)."""
    target_falls: Fraction
    slammer_falls: Fraction

    @property
    def text(self) -> str:
        return (
            f"{self.steps.text}\n  slam (B371): {self.slammer} hurt back {percent(self.hurt_back)}"
            f", {self.steps.target} falls {percent(self.target_falls)}, {self.slammer} falls "
            f"{percent(self.slammer_falls)}"
        )


def slam_odds(
    skill: int,
    velocity: int,
    slammer: Target,
    target: Target,
    *,
    defense: str = "best",
    defense_options: DefenseOptions | None = None,
    bounds: SlamBounds = SlamBounds.BELOW,
) -> SlamOdds:
    """The exact odds of :func:`slam` with these arguments: the exchange's steps, and over
    every landing (with its critical row) and both damage rolls, P(the slammer is hurt
    back), P(each falls) (B371).

    Raises:
        RuleError: as :func:`slam`, before any die.
    """
    if slammer.hp is None or target.hp is None:
        raise RuleError("a slam needs both HP: the slammer's and the target's (B371)")
    return _slam_odds(skill, velocity, slammer, target, defense,
                      defense_options or DefenseOptions(), bounds)  # fmt: skip


@functools.lru_cache(maxsize=128)
def _slam_odds(
    skill: int,
    velocity: int,
    slammer: Target,
    target: Target,
    defense: str,
    defense_options: DefenseOptions,
    bounds: SlamBounds,
) -> SlamOdds:
    assert slammer.hp is not None and target.hp is not None
    spec = DamageSpec(slam_dice(slammer.hp, velocity, bounds), "cr")
    back = DamageSpec(slam_dice(target.hp, velocity, bounds), "cr")
    options = AttackOptions(unarmed=True)
    steps = exchange_odds(skill, spec, target, options, defense, defense_options,
                          attacker=slammer.name)  # fmt: skip
    spec, settled = prepared(spec, target, options, defense_options)
    sp = _split(skill, spec, target, options, defense, settled)
    dealt: dict[int, Fraction] = {}  # the slammer's basic damage, over every landing
    count, adds = _dice_adds(spec.expression)
    for (key, effect), p in [*sp.rolled.items(), *sp.free.items()]:
        for total, w in ways(count).items():
            b = blow(total + adds, spec, target, read_location(key), effect)
            dealt[b.basic] = dealt.get(b.basic, Fraction(0)) + p * Fraction(w, 6**count)
    count, adds = _dice_adds(back.expression)
    taken: dict[int, Fraction] = {}
    hurt = Fraction(0)
    for total, w in ways(count).items():
        b = blow(total + adds, back, slammer, read_location("torso"))
        q = Fraction(w, 6**count)
        taken[b.basic] = taken.get(b.basic, Fraction(0)) + q
        hurt += q * (b.injury > 0)
    landed = sum(dealt.values(), Fraction(0))
    down = {"target": Fraction(0), "slammer": Fraction(0)}
    for a, p in dealt.items():
        for b_, q in taken.items():
            who = falls(a, b_)
            if who is not None:
                down[who] += p * q
    return SlamOdds(steps, slammer.name, landed * hurt, down["target"], down["slammer"])
