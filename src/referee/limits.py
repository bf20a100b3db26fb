"""Limits on the work one dice expression may ask for.

They are checked when an expression is parsed (or, for exact odds, before the
distribution is computed), so a hostile expression is refused before any dice
are rolled.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_LIMITS", "Limits"]


@dataclass(frozen=True, slots=True)
class Limits:
    """The bounds every stage enforces. The defaults are the documented ones."""

    length: int = 1000
    """Most characters in an expression."""
    nesting: int = 50
    """Deepest nesting of the expression tree (parentheses, unary minus, mixed operators)."""
    dice: int = 20_000
    """Most dice one roll may throw: the worst case over explosions, times the
    expected number of draws per die for ``r`` (a ``d20r<20`` counts 20 a die)."""
    sides: int = 1_000_000
    """Most faces on one die."""
    explosions: int = 100
    """Most times one die may explode."""
    odds_outcomes: int = 2_000_000
    """Most distinct outcomes an exact distribution may have at any stage."""
    odds_work: int = 50_000_000
    """Most elementary steps (pairs of outcomes, or bits of big-integer work) for exact odds."""
    sample_n: int = 1_000_000_000
    """Most rolls one call to ``sample`` may simulate."""


DEFAULT_LIMITS = Limits()
"""The limits used when none are given."""
