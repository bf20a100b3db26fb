"""Fudge actions: unopposed against a difficulty, or opposed, with exact odds.

Source: *Psi-punk* ("Rolling the Dice", "Degree of Success", "Natural Rolls",
"Initial Result", the rerolls section and "Action Modifiers") and the rules notes,
"Psi-punk trait ladder" (docs/reference/sources.md).
Every function is pure apart from the injected random source, and returns a
frozen result carrying its faces, natural roll, rerolls, result, difficulty,
degree and exact odds.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from ...ast import FUDGE
from ...errors import RuleError
from ...faces import draw_faces
from ...fmt import percent
from ...results import Chances
from ...rng import RandomSource, resolve
from .dice import (
    DICE,
    MAX_REROLLS,
    Reroll,
    Strategy,
    dice_distribution,
    face_text,
    net_rerolls,
    read_faces,
    reroll_dice,
)
from .ladder import PSI_PUNK, Degrees, Ladder, Level

__all__ = [
    "MAX_MODIFIER",
    "ActionOdds",
    "ActionRoll",
    "action",
    "action_odds",
    "difficulty_level",
]

MAX_MODIFIER = 3
"""``002``, "Action Modifiers": "+/-3 is the maximum that should ever be granted
except under extreme conditions". Beyond it needs ``extreme=True`` (up to ±1000)."""
_EXTREME_LIMIT = 1000
NO_DIFFICULTY = "none"
"""Pass as ``difficulty`` to read the result without a difficulty (no success or degree)."""

Rerolls = int | Iterable[int]
"""A net reroll (``+1``, ``-2``) or several bonuses and penalties that cancel (``[+1, -1]``)."""


@dataclass(frozen=True, slots=True)
class ActionOdds:
    """The exact odds of an action, known before it is rolled."""

    distribution: tuple[tuple[int, Fraction], ...]
    """P(result = value) for each possible result value, lowest first."""
    success: Fraction | None
    """P(result >= difficulty), or None without a difficulty."""


@dataclass(frozen=True, slots=True)
class ActionRoll:
    """A resolved Fudge action with its own explanation.

    Source: ``002``, "Natural Rolls" (dice before rerolls), "Initial Result"
    (trait + modifiers + dice) and "Degree of Success" (result − difficulty).
    """

    ladder: Ladder
    """The ladder that names the levels."""
    trait: Level
    """The trait rolled, as on the character sheet."""
    modifier: int
    """The sum of the action modifiers added to the trait."""
    natural: tuple[int, ...]
    """The four faces as first rolled (-1, 0, +1), before any reroll; empty if not rolled."""
    dice: tuple[int, ...]
    """The four faces that count, after rerolls."""
    rerolls: tuple[Reroll, ...]
    """Each die rerolled, with its old and new face."""
    result: Level | None
    """The initial result: trait + modifier + dice, named on the ladder; None if not
    rolled (success was certain or impossible, ``002``, "Rolling the Dice")."""
    difficulty: Level | None
    """The difficulty level, or None when the result is only read."""
    odds: ActionOdds
    """The exact odds of this action, before it was rolled."""
    reroll: int = 0
    """The net reroll bonus (> 0) or penalty (< 0) after cancelling."""
    strategy: Strategy = Strategy.OPTIMAL
    """How a reroll bonus chose its dice."""

    system = "fudge"
    kind = "action"

    @property
    def outcome(self) -> str:
        """``success``/``failure`` (Fate's words on a Fate ladder), or the result read
        without a difficulty; ``not rolled`` results say whether success was certain."""
        if self.difficulty is None:
            return "read" if self.result is None else self.result.name
        if self.result is None:
            return "certain success" if self.success else "impossible"
        if self.ladder.degrees is Degrees.FATE and self.degree_name is not None:
            return self.degree_name
        return "success" if self.success else "failure"

    @property
    def chances(self) -> Chances:
        """P(success), when there is a difficulty."""
        if self.odds.success is None:
            return Chances(())
        return Chances.of(success=self.odds.success)

    @property
    def rolled(self) -> bool:
        """False when no roll was needed: success was certain or impossible."""
        return self.result is not None

    @property
    def natural_total(self) -> int:
        """The natural roll as a number, -4..+4 (before rerolls)."""
        return sum(self.natural)

    @property
    def total(self) -> int:
        """The dice that count, summed (after rerolls)."""
        return sum(self.dice)

    @property
    def degree(self) -> int | None:
        """Degree of success: result minus difficulty (``002``, "Degree of Success")."""
        if self.difficulty is None or self.result is None:
            return None
        return self.result.value - self.difficulty.value

    @property
    def degree_name(self) -> str | None:
        """The degree as the ladder speaks of it (:meth:`.Ladder.degree_name`):
        ``Great`` for +2 on the Psi-punk ladder, ``succeed with style`` for +3 on Fate Core."""
        d = self.degree
        return None if d is None else self.ladder.degree_name(d)

    @property
    def success(self) -> bool | None:
        """Whether the result meets or beats the difficulty (None without one).

        Unrolled, it is what the odds make certain.
        """
        if self.result is None:
            return self.odds.success == 1
        d = self.degree
        return None if d is None else d >= 0

    @property
    def reading(self) -> str:
        """The roll read as ``002`` describes: ``Good, rolled [+ + - 0] → [+] (+1) → Great``.

        Cancelled ``+``/``-`` pairs and blanks are dropped from the bracket after
        the arrow; rerolled dice are listed with their old and new faces.
        """
        head = self.trait.name + (f"{self.modifier:+d}" if self.modifier else "")
        if self.result is None:
            return f"{head}, not rolled"
        out = f"{head}, rolled {_faces(self.natural)}"
        if self.rerolls:
            changes = ", ".join(
                f"die {r.index + 1} ({face_text(r.old)} → {face_text(r.new)})" for r in self.rerolls
            )
            out += f", rerolled {changes}: {_faces(self.dice)}"
        elif self.reroll > 0:
            out += " (kept every die: no reroll helps)"
        elif self.reroll < 0:
            out += " (no + die to reroll)"
        return out + f" → {_faces(read_faces(self.dice))} ({self.total:+d}) → {self.result.name}"

    @property
    def text(self) -> str:
        """The reading, then the difficulty, the verdict, the degree and the odds of success."""
        if self.result is None and self.difficulty is not None:
            head = self.trait.name + (f"{self.modifier:+d}" if self.modifier else "")
            sure = "certain success" if self.success else "impossible"
            chance = percent(self.odds.success or Fraction(0))
            return (
                f"{head} vs {self.difficulty.name}: {sure}, no roll needed"
                f" — {chance} to succeed (002, 'Rolling the Dice')"
            )
        out = self.reading
        if self.difficulty is None or self.degree is None:
            return out
        verdict = "success" if self.success else "failure"
        name = self.degree_name
        if self.ladder.degrees is Degrees.FATE:
            out += f" vs {self.difficulty.name}: {name} ({self.degree:+d} shifts)"
        else:
            out += f" vs {self.difficulty.name}: {verdict}, degree {self.degree:+d}"
            out += f" ({name})" if name else ""
        if self.odds.success is None:
            return out
        return out + f" — {percent(self.odds.success)} to succeed"


def _faces(faces: Iterable[int]) -> str:
    return "[" + " ".join(face_text(f) for f in faces) + "]"


def _modifier(modifier: int | Iterable[int], extreme: bool) -> int:
    total = modifier if isinstance(modifier, int) else sum(modifier)
    limit = _EXTREME_LIMIT if extreme else MAX_MODIFIER
    if abs(total) > limit:
        hint = "" if extreme else " (002, 'Action Modifiers'; allow it with --extreme)"
        raise RuleError(f"modifier {total:+d} is beyond ±{limit}{hint}")
    return total


def _net(reroll: Rerolls) -> int:
    if isinstance(reroll, int) and -MAX_REROLLS <= reroll <= MAX_REROLLS:
        return reroll  # one count within bounds: nothing to cancel or check
    return net_rerolls([reroll] if isinstance(reroll, int) else reroll)


def difficulty_level(ladder: Ladder, difficulty: str | int | None) -> Level | None:
    """The difficulty as a level: None is the ladder's default (Fair), ``"none"`` is no difficulty.

    Source: rules README, "The default difficulty is Fair"; ``002``, "Rolling the Dice".
    """
    if difficulty is None:
        return ladder.level(ladder.default_difficulty)
    if isinstance(difficulty, str) and difficulty.strip().casefold() == NO_DIFFICULTY:
        return None
    return ladder.parse(difficulty)


@functools.lru_cache(maxsize=4096)
def _odds(base: int, difficulty: int | None, net: int, strategy: Strategy) -> ActionOdds:
    need = None if difficulty is None else difficulty - base
    dist = dice_distribution(net, strategy, need)
    table = tuple((base + v, p) for v, p in sorted(dist.items()))
    if difficulty is None:
        return ActionOdds(table, None)
    return ActionOdds(table, sum((p for v, p in table if v >= difficulty), Fraction(0)))


def action_odds(
    trait: str | int,
    *,
    modifier: int | Iterable[int] = 0,
    difficulty: str | int | None = None,
    reroll: Rerolls = 0,
    strategy: Strategy | str = Strategy.OPTIMAL,
    extreme: bool = False,
    ladder: Ladder = PSI_PUNK,
) -> ActionOdds:
    """The exact distribution of an action's result and its probability of success.

    Source: as :func:`action`. Cached per (trait + modifier, difficulty, net
    reroll, strategy).

    >>> action_odds("Good", difficulty="Great").success
    Fraction(31, 81)
    """
    lv = ladder.trait(trait)
    diff = difficulty_level(ladder, difficulty)
    base = lv.value + _modifier(modifier, extreme)
    return _odds(base, None if diff is None else diff.value, _net(reroll), Strategy(strategy))


def action(
    trait: str | int,
    *,
    modifier: int | Iterable[int] = 0,
    difficulty: str | int | None = None,
    reroll: Rerolls = 0,
    strategy: Strategy | str = Strategy.OPTIMAL,
    extreme: bool = False,
    roll_anyway: bool = False,
    ladder: Ladder = PSI_PUNK,
    rng: RandomSource | None = None,
) -> ActionRoll:
    """Roll an unopposed action: 4dF added to the trait and modifiers, against a difficulty.

    Source: ``002`` (Psi-punk): "Rolling the Dice" (4dF, move up or down the
    ladder), "Degree of Success", "Natural Rolls", "Initial Result", the rerolls
    section, and "Action Modifiers" (±3 at most unless ``extreme``); rules
    README: success when the result meets or beats the difficulty, Fair by
    default.

    Args:
        trait: the trait, as a ladder level within the ladder's trait range.
        modifier: one modifier or several, summed and added to the trait.
        difficulty: a ladder level; None for the ladder's default (Fair); the
            string ``"none"`` to read the result with no difficulty.
        reroll: a net reroll (``+1`` bonus, ``-1`` penalty), or several that cancel.
        strategy: which dice a bonus rerolls (:class:`Strategy`; the best choice
            for this difficulty by default).
        extreme: allow modifiers beyond ±3 ("extreme conditions").
        roll_anyway: roll even when success is certain or impossible. Without it
            no dice are drawn then: "There is no need to roll the dice when a
            character performs an action that is so easy as to be automatic.
            Likewise, an action so difficult that it has no chance to succeed
            requires no roll" (``002``, "Rolling the Dice").
        ladder: the game's ladder (Psi-punk by default).
        rng: the random source (the OS's secure source by default).

    Raises:
        RuleError: an unknown or ambiguous level, a trait outside the trait
            range, a modifier beyond ±3 without ``extreme``, or more than four
            dice of reroll bonus or penalty.
    """
    lv = ladder.trait(trait)
    mod = _modifier(modifier, extreme)
    diff = difficulty_level(ladder, difficulty)
    net = _net(reroll)
    strat = strategy if isinstance(strategy, Strategy) else Strategy(strategy)
    base = lv.value + mod
    target = None if diff is None else diff.value
    odds = _odds(base, target, net, strat)
    if odds.success in (0, 1) and not roll_anyway:
        return ActionRoll(ladder, lv, mod, (), (), (), None, diff, odds, net, strat)
    src = resolve(rng)
    natural = draw_faces(src, DICE, FUDGE)
    if net:
        need = None if target is None else target - base
        dice, done = reroll_dice(natural, net, strat, src, need)
    else:
        dice, done = natural, ()
    return ActionRoll(
        ladder,
        lv,
        mod,
        natural,
        dice,
        done,
        ladder.level(base + sum(dice)),
        diff,
        odds,
        net,
        strat,
    )
