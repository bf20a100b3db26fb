"""GURPS repeated attempts at a success roll, with exact odds.

Source: *GURPS Lite*, 3rd edition, "Repeated Attempts on Success Rolls" (cases
(a), (b), (c)); *GURPS Basic Set*, B347, "Critical Success and Failure" (a critical
failure is "always something bad").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from ...errors import RuleError
from ...rng import RandomSource
from .success import SuccessRoll, check, skill_odds

__all__ = ["Attempts", "RetryRule", "repeated_attempts", "retry_odds"]


class RetryRule(StrEnum):
    """The three cases of ``004``, "Repeated Attempts on Success Rolls"."""

    FIRST_FAILURE_ENDS = "a"
    """(a) The first failure ends it (it kills, or destroys the object)."""
    HARM = "b"
    """(b) Each failure does harm, assessed by the caller; then try again."""
    PENALTY = "c"
    """(c) Failure does no harm; each attempt after the first is at -1, cumulative."""


def retry_odds(effective: int, attempts: int, *, stop_on_critical: bool = True) -> Fraction:
    """P(success within ``attempts`` tries) when each retry after the first is at -1, cumulative.

    Source: ``004``, "Repeated Attempts on Success Rolls", case (c). Attempts
    whose effective skill would fall below 3 cannot be made and are not
    counted. With ``stop_on_critical`` (the default) a critical failure ends
    the attempts: it is "always something bad" (``000``, "Critical Success and
    Failure"), so it is not the harmless failure that case (c) retries.

    >>> retry_odds(10, 1), retry_odds(10, 2) < retry_odds(10, 2, stop_on_critical=False)
    (Fraction(1, 2), True)

    Raises:
        RuleError: an effective skill below 3 (no roll is allowed), or fewer than
            1 or more than 1000 attempts.
    """
    if effective < 3:
        raise RuleError(f"effective skill {effective} is below 3: no roll is allowed")
    if not 1 <= attempts <= 1000:
        raise RuleError(f"attempts {attempts} must be from 1 to 1000")
    success = Fraction(0)
    going = Fraction(1)  # P(every attempt so far failed and the run goes on)
    for i in range(attempts):
        if effective - i < 3:
            break
        o = skill_odds(effective - i)
        success += going * o.success
        going *= 1 - o.success - (o.critical_failure if stop_on_critical else 0)
    return success


@dataclass(frozen=True, slots=True)
class Attempts:
    """A run of repeated attempts, every roll recorded."""

    rule: RetryRule
    """Which case of the text applied."""
    attempts: tuple[SuccessRoll, ...]
    """Each attempt in order; the last is the success, if any."""
    harm: tuple[int, ...]
    """Under rule (b), the harm each failure did, as the caller assessed it."""
    stopped_by_critical: bool = False
    """True if a critical failure ended the attempts."""

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
    stop_on_critical: bool = True,
    rng: RandomSource | None = None,
) -> Attempts:
    """Try a success roll again and again, as ``004`` "Repeated Attempts" case (a), (b) or (c).

    Under (c) an attempt whose effective skill would fall below 3 is not made.
    Under (b) ``harm`` is called with each failed roll and returns the harm done.
    A critical failure ends the attempts under every rule unless
    ``stop_on_critical`` is False (see :func:`retry_odds`).

    Raises:
        RuleError: under (b) without ``harm``, or as :func:`check`.
    """
    if rule is RetryRule.HARM and harm is None:
        raise RuleError("rule (b) needs a harm function to assess each failure")
    first = check(skill, rng=rng)
    rolls = [first]
    hurt: list[int] = []
    critical = False
    while not rolls[-1].success and rule is not RetryRule.FIRST_FAILURE_ENDS:
        if rule is RetryRule.HARM and harm is not None:
            hurt.append(harm(rolls[-1]))
        if stop_on_critical and rolls[-1].critical:
            critical = True
            break
        if len(rolls) >= max_attempts:
            break
        penalty = len(rolls) if rule is RetryRule.PENALTY else 0
        if first.effective_skill - penalty < 3:
            break
        rolls.append(check(f"{first.skill_text}{-penalty:+d}", rng=rng))
    return Attempts(rule, tuple(rolls), tuple(hurt), critical)
