"""GURPS reaction rolls, with exact odds.

Sources: *GURPS Basic Set*, "Reaction Rolls" (B494) and the Reaction Table (B560);
the rules notes on GURPS (docs/reference/sources.md: modifiers apply to the roll; the GM
rolls it in secret).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

from ...errors import RuleError
from ...results import Chances
from ...rng import RandomSource
from ...roller import roll
from .success import three_d6

__all__ = ["BANDS", "SECRET_BY_DEFAULT", "ReactionRoll", "reaction", "reaction_band"]

SECRET_BY_DEFAULT = True
"""The rule's default visibility: "The GM should keep this roll secret from the
players" (``000``, "Reaction Rolls"). Who sees a roll is the caller's choice."""

BANDS: tuple[tuple[int, str], ...] = (
    (0, "Disastrous"),
    (3, "Very Bad"),
    (6, "Bad"),
    (9, "Poor"),
    (12, "Neutral"),
    (15, "Good"),
    (18, "Very Good"),
)
"""Upper bound of each band of the Reaction Table; 19 or more is Excellent."""


def reaction_band(total: int) -> str:
    """The Reaction Table band of a modified roll (``000``, "Reaction Table").

    >>> reaction_band(0), reaction_band(1), reaction_band(12), reaction_band(19)
    ('Disastrous', 'Very Bad', 'Neutral', 'Excellent')
    """
    for top, name in BANDS:
        if total <= top:
            return name
    return "Excellent"


@functools.lru_cache(maxsize=256)
def reaction_odds(modifier: int) -> dict[str, Fraction]:
    """Exact odds of each band for 3d6 plus ``modifier`` (modifiers apply to the roll).

    Raises:
        RuleError: a modifier beyond ±1000.
    """
    check_modifier(modifier)
    out = {name: Fraction(0) for _, name in BANDS} | {"Excellent": Fraction(0)}
    for total, p in three_d6().items():
        out[reaction_band(total + modifier)] += p
    return out


@dataclass(frozen=True, slots=True)
class ReactionRoll:
    """A resolved reaction roll."""

    dice: tuple[int, ...]
    """The three dice."""
    roll: int
    """Their sum."""
    modifier: int
    """The total reaction modifier, applied to the roll."""
    reaction: str
    """The band, Disastrous to Excellent."""
    odds: dict[str, Fraction]
    """Exact odds of each band given the modifier."""

    system = "gurps"
    kind = "reaction"

    @property
    def outcome(self) -> str:
        """The band of the Reaction Table."""
        return self.reaction

    @property
    def success(self) -> None:
        """A reaction has a band, not a success."""
        return None

    @property
    def chances(self) -> Chances:
        """P(each band), in the table's order."""
        return Chances(tuple(self.odds.items()))

    @property
    def total(self) -> int:
        """The modified roll."""
        return self.roll + self.modifier

    @property
    def text(self) -> str:
        """``Reaction 3d6+2: rolled 11 (3, 4, 4) +2 = 13: Good``."""
        dice = ", ".join(map(str, self.dice))
        return (
            f"Reaction 3d6{self.modifier:+d}: rolled {self.roll} ({dice}) "
            f"{self.modifier:+d} = {self.total}: {self.reaction}"
        )


def check_modifier(modifier: int) -> int:
    """A reaction modifier within ±1000.

    Raises:
        RuleError: a modifier out of range.
    """
    if abs(modifier) > 1000:
        raise RuleError(f"reaction modifier {modifier} is out of range (-1000 to 1000)")
    return modifier


def reaction(modifier: int = 0, *, rng: RandomSource | None = None) -> ReactionRoll:
    """Roll a reaction: 3d6 plus the reaction modifiers, read on the Reaction Table.

    Source: ``000``, "Reaction Rolls" and "Reaction Table".
    """
    check_modifier(modifier)
    result = roll("3d6", rng=rng)
    total = result.total + modifier
    return ReactionRoll(
        tuple(d.value for d in result.dice),
        result.total,
        modifier,
        reaction_band(total),
        reaction_odds(modifier),
    )
