"""Fudge opposed actions: both sides roll, and each result is the other's difficulty.

Source: *Psi-punk*, "Degree of Success"
("For opposed actions, the difficulty level is always the total result of the
opponent's check"); the tie rule is an option (:class:`TieRule`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction

from ...fmt import percent
from ...results import Contest, Versus
from ...rng import RandomSource, resolve
from .action import NO_DIFFICULTY, ActionOdds, ActionRoll, Rerolls, _odds, action
from .dice import Strategy
from .ladder import PSI_PUNK, Ladder, Level

__all__ = ["OpposedRoll", "TieRule", "oppose", "oppose_odds"]


class TieRule(StrEnum):
    """Who wins an opposed action when the results are equal (an option; the text is silent)."""

    NOBODY = "nobody"
    """The default: a tie is a tie; nobody wins."""
    DEFENDER = "defender"
    """The second side, the defender, wins ties."""


@dataclass(frozen=True, slots=True)
class OpposedRoll(Contest):
    """Both sides of an opposed action; each side's result is the other's difficulty.

    Source: ``002``, "Degree of Success" ("For opposed actions, the difficulty
    level is always the total result of the opponent's check").
    """

    first: ActionRoll
    """The acting side, rolled against the second side's result."""
    second: ActionRoll
    """The opposing side (the defender)."""
    ties: TieRule
    """What a tie means."""
    odds: Versus
    """Exact odds of each side winning and of a tie, before the roll."""
    names: tuple[str, str] = ("side 1", "side 2")
    """What the text calls the two sides."""

    system = "fudge"
    kind = "oppose"

    @property
    def degree(self) -> int:
        """The first side's degree of success: its result minus the second side's."""
        return _value(self.first) - _value(self.second)

    @property
    def winner(self) -> int | None:
        """1 or 2, or None on a tie that nobody wins."""
        if self.degree > 0:
            return 1
        if self.degree < 0 or self.ties is TieRule.DEFENDER:
            return 2
        return None

    @property
    def text(self) -> str:
        """Both sides' rolls, the winner, the degree and the odds."""
        a, b, o = self.first, self.second, self.odds
        first, second = self.names
        lines = [f"{first}: {a.reading}", f"{second}: {b.reading}"]
        d = self.degree
        if self.winner is None:
            verdict = "a tie: nobody wins"
        else:
            how = " (a tie, which goes to the defender)" if d == 0 else ""
            name = a.ladder.degree_name(abs(d))
            verdict = f"{self.names[self.winner - 1]} wins{how}, degree {abs(d):+d}" + (
                f" ({name})" if name else ""
            )
        shares = f"{first} wins {percent(o.first)}, {second} wins {percent(o.second)}"
        if self.ties is not TieRule.DEFENDER:  # with ties to the defender there is no tie
            shares += f", tie {percent(o.tie)}"
        lines.append(f"{verdict} — odds: {shares}")
        return "\n".join(lines)


def oppose_odds(first: ActionOdds, second: ActionOdds, ties: TieRule | str) -> Versus:
    """Exact odds that each side of an opposed action wins, from both result distributions.

    Source: ``002``, "Degree of Success" (opposed actions); the tie rule is an
    option (:class:`TieRule`).

    >>> from referee.systems.fudge import action_odds
    >>> o = oppose_odds(action_odds("Good"), action_odds("Fair"), "nobody")
    >>> o.first + o.second + o.tie
    Fraction(1, 1)
    """
    win = lose = tie = Fraction(0)
    for a, pa in first.distribution:
        for b, pb in second.distribution:
            if a > b:
                win += pa * pb
            elif a < b:
                lose += pa * pb
            else:
                tie += pa * pb
    if TieRule(ties) is TieRule.DEFENDER:
        return Versus(win, lose + tie, Fraction(0))
    return Versus(win, lose, tie)


@functools.lru_cache(maxsize=4096)
def _oppose_cached(
    base1: int, net1: int, base2: int, net2: int, strategy: Strategy, ties: TieRule
) -> Versus:
    return oppose_odds(_odds(base1, None, net1, strategy), _odds(base2, None, net2, strategy), ties)


def oppose(
    first: str | int,
    second: str | int,
    *,
    modifiers: tuple[int | Iterable[int], int | Iterable[int]] = (0, 0),
    rerolls: tuple[Rerolls, Rerolls] = (0, 0),
    strategy: Strategy | str = Strategy.OPTIMAL,
    ties: TieRule | str = TieRule.NOBODY,
    extreme: bool = False,
    ladder: Ladder = PSI_PUNK,
    names: tuple[str, str] = ("side 1", "side 2"),
    rng: RandomSource | None = None,
) -> OpposedRoll:
    """Roll an opposed action: both sides roll, and each result is the other's difficulty.

    Source: ``002``, "Degree of Success" (the opponent's total result is the
    difficulty; degree = your result − theirs). Ties: :class:`TieRule`, nobody
    wins by default. Both sides roll at once, so neither knows the other's
    result when choosing rerolls: the optimal strategy maximises the expected
    result (it rerolls ``-`` dice only).

    Raises:
        RuleError: as :func:`action`, for either side.
    """
    src = resolve(rng)
    sides = []
    for trait, mod, rr in zip((first, second), modifiers, rerolls, strict=True):
        sides.append(
            action(
                trait,
                modifier=mod,
                difficulty=NO_DIFFICULTY,
                reroll=rr,
                strategy=strategy,
                extreme=extreme,
                roll_anyway=True,
                ladder=ladder,
                rng=src,
            )
        )
    a, b = sides
    odds = _oppose_cached(
        a.trait.value + a.modifier, a.reroll, b.trait.value + b.modifier, b.reroll,
        a.strategy, TieRule(ties),
    )  # fmt: skip
    # Each side's difficulty is the other's result (002, "Degree of Success").
    a = _against(a, _result(b))
    b = _against(b, _result(a))
    return OpposedRoll(a, b, TieRule(ties), odds, names)


def _result(r: ActionRoll) -> Level:
    assert r.result is not None  # both sides of an opposed action always roll
    return r.result


def _value(r: ActionRoll) -> int:
    return _result(r).value


def _against(r: ActionRoll, difficulty: Level) -> ActionRoll:
    return replace(r, difficulty=difficulty, odds=ActionOdds(r.odds.distribution, None))
