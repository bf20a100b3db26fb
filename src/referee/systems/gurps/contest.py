"""GURPS repeated attempts and contests (Quick and Regular), with exact odds.

Sources: ``000_f6059ff1ef0c1de9.txt`` "Contests", "Quick Contest", "Margin of
Victory", "Regular Contest"; ``004_725ab8d3fbcfd4b2.txt`` "Repeated Attempts on
Success Rolls" and "Contests of Skill" (3rd edition shortening rule); the rules
README for the 4th edition shortening rule (Basic Set p. B349).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from ...errors import RuleError
from ...odds import odds
from ...rng import RandomSource
from .success import SuccessRoll, check, outcome, skill_odds

__all__ = [
    "Attempts",
    "RetryRule",
    "repeated_attempts",
    "ContestOdds",
    "ContestResult",
    "Edition",
    "quick_contest",
    "quick_contest_odds",
    "regular_contest",
    "retry_odds",
    "shorten",
]


class Edition(StrEnum):
    """Which shortening rule a Regular Contest uses."""

    FOURTH = "4e"
    THIRD = "3e"
    NONE = "none"


def shorten(a: int, b: int, edition: Edition = Edition.FOURTH) -> tuple[int, int]:
    """Shorten a Regular Contest between effective skills ``a`` and ``b``.

    * 4th edition (rules README, Basic Set p. B349, the default): if both are
      over 14, reduce the lower to 10 and subtract the same from the higher; if
      both are 6 or less, raise the lower to 10 and add the same to the higher.
    * 3rd edition (``004``, "Contests of Skill"): if both are over 14, reduce the
      higher to 14 and subtract the same from the lower.
    * none: unchanged.

    >>> shorten(18, 16), shorten(18, 16, Edition.THIRD), shorten(5, 4)
    ((12, 10), (14, 12), (11, 10))
    """
    if edition is Edition.FOURTH:
        if a > 14 and b > 14:
            cut = min(a, b) - 10
            return a - cut, b - cut
        if a <= 6 and b <= 6:
            lift = 10 - min(a, b)
            return a + lift, b + lift
    elif edition is Edition.THIRD and a > 14 and b > 14:
        cut = max(a, b) - 14
        return a - cut, b - cut
    return a, b


def retry_odds(effective: int, attempts: int) -> Fraction:
    """P(success within ``attempts`` tries) when each retry after the first is at -1, cumulative.

    Source: ``004``, "Repeated Attempts on Success Rolls", case (c). Attempts
    whose effective skill would fall below 3 cannot be made and are not counted.

    >>> retry_odds(10, 1)
    Fraction(1, 2)
    """
    fail = Fraction(1)
    for i in range(attempts):
        if effective - i < 3:
            break
        fail *= 1 - skill_odds(effective - i).success
    return 1 - fail


class RetryRule(StrEnum):
    """The three cases of ``004``, "Repeated Attempts on Success Rolls"."""

    FIRST_FAILURE_ENDS = "a"
    """(a) The first failure ends it (it kills, or destroys the object)."""
    HARM = "b"
    """(b) Each failure does harm, assessed by the caller; then try again."""
    PENALTY = "c"
    """(c) Failure does no harm; each attempt after the first is at -1, cumulative."""


@dataclass(frozen=True, slots=True)
class Attempts:
    """A run of repeated attempts, every roll recorded."""

    rule: RetryRule
    """Which case of the text applied."""
    attempts: tuple[SuccessRoll, ...]
    """Each attempt in order; the last is the success, if any."""
    harm: tuple[int, ...]
    """Under rule (b), the harm each failure did, as the caller assessed it."""

    @property
    def success(self) -> bool:
        """Whether some attempt succeeded."""
        return bool(self.attempts) and self.attempts[-1].success


def repeated_attempts(
    skill: str | int,
    *,
    rule: RetryRule = RetryRule.PENALTY,
    max_attempts: int = 5,
    harm: Callable[[SuccessRoll], int] | None = None,
    rng: RandomSource | None = None,
) -> Attempts:
    """Try a success roll again and again, as ``004`` "Repeated Attempts" case (a), (b) or (c).

    Under (c) an attempt whose effective skill would fall below 3 is not made.
    Under (b) ``harm`` is called with each failed roll and returns the harm done.

    Raises:
        RuleError: under (b) without ``harm``, or as :func:`check`.
    """
    if rule is RetryRule.HARM and harm is None:
        raise RuleError("rule (b) needs a harm function to assess each failure")
    first = check(skill, rng=rng)
    rolls = [first]
    hurt: list[int] = []
    while not rolls[-1].success and rule is not RetryRule.FIRST_FAILURE_ENDS:
        if rule is RetryRule.HARM and harm is not None:
            hurt.append(harm(rolls[-1]))
        if len(rolls) >= max_attempts:
            break
        penalty = len(rolls) if rule is RetryRule.PENALTY else 0
        if first.effective_skill - penalty < 3:
            break
        rolls.append(check(f"{first.skill_text}{-penalty:+d}", rng=rng))
    return Attempts(rule, tuple(rolls), tuple(hurt))


@dataclass(frozen=True, slots=True)
class ContestOdds:
    """Exact odds of a contest's result."""

    first: Fraction
    """P(the first side wins)."""
    second: Fraction
    """P(the second side wins)."""
    tie: Fraction
    """P(nobody wins) (Quick Contest only; zero for a Regular Contest)."""


def _winner(a: int, ra: int, b: int, rb: int, resistance: bool) -> int | None:
    """1, 2 or None for one pair of rolls (``000``, "Quick Contest")."""
    sa, sb = outcome(ra, a).success, outcome(rb, b).success
    ma, mb = a - ra, b - rb
    if resistance and not sa:
        return 2
    if sa != sb:
        return 1 if sa else 2
    if ma == mb:
        return 2 if resistance else None
    return 1 if ma > mb else 2


@functools.lru_cache(maxsize=4096)
def quick_contest_odds(a: int, b: int, resistance: bool = False) -> ContestOdds:
    """Exact odds of a Quick Contest, over all 216 x 216 pairs of 3d6 rolls.

    With ``resistance``, the first side must succeed to win, and ties go to the second.
    """
    dist = odds("3d6").distribution
    tally = {1: Fraction(0), 2: Fraction(0), None: Fraction(0)}
    for ra, pa in dist.items():
        for rb, pb in dist.items():
            tally[_winner(a, ra, b, rb, resistance)] += pa * pb
    return ContestOdds(tally[1], tally[2], tally[None])


@dataclass(frozen=True, slots=True)
class ContestResult:
    """A resolved contest, every round recorded."""

    kind: str
    """``quick_contest`` or ``regular_contest``."""
    skills: tuple[int, int]
    """The two effective skills as given."""
    effective_skills: tuple[int, int]
    """The skills actually rolled against (after shortening)."""
    rounds: tuple[tuple[SuccessRoll, SuccessRoll], ...]
    """Each round's two success rolls."""
    winner: int | None
    """1, 2, or None for a tie (or a Regular Contest stopped at the round cap)."""
    margin_of_victory: int | None
    """The winner's margin of victory (``000``, "Margin of Victory"), or None."""
    odds: ContestOdds
    """Exact odds of each result, before rolling."""
    expected_rounds: Fraction | None = None
    """For a Regular Contest, the expected number of rounds."""
    capped: bool = False
    """True if a Regular Contest reached the round cap without a winner."""


def _check_skill(value: int) -> None:
    if value < 3:
        raise RuleError(f"effective skill {value} is below 3: no contest roll is allowed")


def quick_contest(
    a: int, b: int, *, resistance: bool = False, rng: RandomSource | None = None
) -> ContestResult:
    """A Quick Contest: one roll each; the better margin wins; a tie means nobody wins.

    Source: ``000``, "Quick Contest" and "Margin of Victory". The margin of
    victory is ``|(a - roll_a) - (b - roll_b)|`` in all three of the text's cases.
    """
    _check_skill(a)
    _check_skill(b)
    ra, rb = check(a, rng=rng), check(b, rng=rng)
    winner = _winner(a, ra.roll, b, rb.roll, resistance)
    mov = None if winner is None else abs((a - ra.roll) - (b - rb.roll))
    return ContestResult(
        "quick_contest",
        (a, b),
        (a, b),
        ((ra, rb),),
        winner,
        mov,
        quick_contest_odds(a, b, resistance),
    )


def regular_contest(
    a: int,
    b: int,
    *,
    edition: Edition = Edition.FOURTH,
    max_rounds: int = 1000,
    rng: RandomSource | None = None,
) -> ContestResult:
    """A Regular Contest: roll until one side succeeds and the other fails.

    Source: ``000``, "Regular Contest"; shortening per :func:`shorten`. Odds in
    closed form: with per-round win chances ``w1 = p1 (1 - p2)`` and
    ``w2 = p2 (1 - p1)``, side 1 wins with ``w1 / (w1 + w2)`` and the expected
    number of rounds is ``1 / (w1 + w2)``.
    """
    _check_skill(a)
    _check_skill(b)
    ea, eb = shorten(a, b, edition)
    pa, pb = skill_odds(max(ea, 3)).success, skill_odds(max(eb, 3)).success
    w1, w2 = pa * (1 - pb), pb * (1 - pa)
    ends = w1 + w2
    contest_odds = ContestOdds(w1 / ends, w2 / ends, Fraction(0))
    rounds: list[tuple[SuccessRoll, SuccessRoll]] = []
    winner: int | None = None
    for _ in range(max_rounds):
        ra = check(max(ea, 3), rng=rng)
        rb = check(max(eb, 3), rng=rng)
        rounds.append((ra, rb))
        if ra.success != rb.success:
            winner = 1 if ra.success else 2
            break
    return ContestResult(
        "regular_contest",
        (a, b),
        (ea, eb),
        tuple(rounds),
        winner,
        None,
        contest_odds,
        1 / ends,
        winner is None,
    )
