"""The engine's one formatting module: exact fractions and percentages for display.

Results explain themselves in text (``.text``), and this is all the formatting
they need. Everything else about presentation (JSON, tables, colour, HTML)
sits above the results, in :mod:`referee.render` and the front ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

__all__ = ["SHORT_DIGITS", "fraction", "percent", "readable", "rolled", "short_fraction"]


def fraction(p: Fraction) -> str:
    """An exact probability as the JSON string ``"p/q"``.

    >>> fraction(Fraction(5, 12))
    '5/12'
    """
    return f"{p.numerator}/{p.denominator}"


SHORT_DIGITS = 12
"""A fraction is shown in text only while its numerator and denominator each have at
most this many digits; the JSON always has the exact fraction."""


def short_fraction(p: Fraction) -> str | None:
    """``"p/q"`` when both parts are short enough to read, else None.

    >>> short_fraction(Fraction(20, 27)), short_fraction(Fraction(1, 6**20))
    ('20/27', None)
    """
    if len(str(abs(p.numerator))) > SHORT_DIGITS or len(str(p.denominator)) > SHORT_DIGITS:
        return None
    return fraction(p)


def readable(p: Fraction) -> str:
    """A probability for people: the percentage, then the fraction while it is short.

    >>> readable(Fraction(20, 27)), readable(Fraction(174074868515, 152339935002624 * 10))
    ('74.1% (20/27)', '<0.1%')
    """
    short = short_fraction(p)
    return percent(p) if short is None else f"{percent(p)} ({short})"


def percent(p: Fraction) -> str:
    """A probability as a percentage for display, e.g. ``'41.7%'``; never rounds to 0 or 100.

    >>> percent(Fraction(5, 12)), percent(Fraction(1, 10_000)), percent(Fraction(1))
    ('41.7%', '<0.1%', '100.0%')
    """
    value = float(p) * 100
    if 0 < value < 0.1:
        return "<0.1%"
    if 99.9 < value < 100:
        return ">99.9%"
    return f"{value:.1f}%"


def rolled(total: int, dice: Sequence[int]) -> str:
    """The one way results show their dice: ``rolled 11 (2, 4, 5)``; one die, ``rolled 12``.

    >>> rolled(11, (2, 4, 5)), rolled(12, (12,))
    ('rolled 11 (2, 4, 5)', 'rolled 12')
    """
    if len(dice) == 1 and dice[0] == total:
        return f"rolled {total}"
    return f"rolled {total} ({', '.join(map(str, dice))})"
