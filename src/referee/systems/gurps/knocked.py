"""The HT roll against knockdown and stunning between the two attacks of one maneuver
(All-Out Attack (Double), a Dual-Weapon Attack, a Rapid Strike): what the first did
to the foe the second meets.

Sources: *GURPS Basic Set*, 4th edition (``COMBAT.md``, "Shock, major wounds,
knockdown"): B420, "Knockdown and Stunning": on a failed HT roll the victim is
stunned and knocked down; on a failure by 5 or more, or a critical failure, he is
unconscious. B420, "Stunning": a stunned fighter is at −4 to every active defense.
B551, "Posture": a prone defender is at −3 to his defenses.

Readings referee states: the roll is made only when the target's HT is given
(``--target-ht``; otherwise the second attack meets the foe standing, as it did
before, and the GM applies the roll); the knockdown roll is made at any effective HT,
as a defense roll is (B420 names no floor); an unconscious foe has no active defense.
Draws: the knockdown roll's 3d6, between the first exchange's draws and the second's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction

from ...rng import RandomSource
from .defense import DefenseOptions
from .situation import Posture
from .success import Outcome, SuccessRoll, check, margin, outcome, three_d6

__all__ = ["Fallen", "Knockdown", "fallen", "knockdown_odds", "roll_knockdown", "standing"]


class Fallen(StrEnum):
    """What the knockdown roll left the foe (B420)."""

    UP = "up"
    """The roll succeeded (or none was called): the foe stands."""
    DOWN = "down"
    """Failed: stunned and prone."""
    OUT = "out"
    """Failed by 5 or more, or critically: unconscious."""


def fallen(total: int, effective: int) -> Fallen:
    """What a knockdown roll of ``total`` against effective HT ``effective`` does (B420).

    >>> fallen(10, 11), fallen(12, 11), fallen(16, 11), fallen(18, 20)
    (<Fallen.UP: 'up'>, <Fallen.DOWN: 'down'>, <Fallen.OUT: 'out'>, <Fallen.OUT: 'out'>)
    """
    o = outcome(total, effective)
    if o.success:
        return Fallen.UP
    if o is Outcome.CRITICAL_FAILURE or -margin(total, effective) >= 5:
        return Fallen.OUT
    return Fallen.DOWN


@functools.lru_cache(maxsize=256)
def knockdown_odds(effective: int) -> tuple[tuple[Fallen, Fraction], ...]:
    """P(each :class:`Fallen`) of a knockdown roll at effective HT ``effective`` (B420),
    summed over 3d6 exactly."""
    out = dict.fromkeys(Fallen, Fraction(0))
    for t, p in three_d6().items():
        out[fallen(t, effective)] += p
    return tuple(out.items())


def standing(state: Fallen, defense: str, options: DefenseOptions) -> tuple[str, DefenseOptions]:
    """The defense the foe makes after the knockdown roll: as chosen when ``UP``;
    stunned (−4, B420) and prone (−3, B551) when ``DOWN``; none when ``OUT``."""
    if state is Fallen.DOWN:
        return defense, replace(options, stunned=True, posture=Posture.PRONE)
    if state is Fallen.OUT:
        return "none", options
    return defense, options


@dataclass(frozen=True, slots=True)
class Knockdown:
    """The knockdown roll made between two attacks, and what it did."""

    roll: SuccessRoll
    state: Fallen

    @property
    def text(self) -> str:
        said = {Fallen.UP: "stays standing", Fallen.DOWN: "is stunned and prone (B420)",
                Fallen.OUT: "is unconscious (B420)"}[self.state]  # fmt: skip
        return f"{self.roll.text}: {said}"


def roll_knockdown(ht: int, modifier: int, name: str, rng: RandomSource | None = None) -> Knockdown:
    """Roll HT + ``modifier`` against knockdown and stunning (B420; the modifier is the
    wound's, :attr:`.wounds.Wound.knockdown`). Draws: 3d6."""
    roll = check(ht, modifiers=(modifier,) if modifier else (),
                 label=f"{name}'s HT (knockdown)", defense=True, rng=rng)  # fmt: skip
    return Knockdown(roll, fallen(roll.roll, roll.effective_skill))
