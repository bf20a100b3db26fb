"""The engine's one formatting module: exact fractions and percentages for display.

Results explain themselves in text (``.text``), and this is all the formatting
they need. Everything else about presentation (JSON, tables, colour, HTML)
sits above the results, in :mod:`referee.render` and the front ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

__all__ = ["fraction", "percent", "rolled"]


def fraction(p: Fraction) -> str:
    """An exact probability as the JSON string ``"p/q"``.

    >>> fraction(Fraction(5, 12))
    '5/12'
    """
    return f"{p.numerator}/{p.denominator}"


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
