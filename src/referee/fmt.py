"""The engine's one formatting module: exact fractions and percentages for display.

Results explain themselves in text (``.text``), and this is all the formatting
they need. Everything else about presentation (JSON, tables, colour, HTML)
sits above the results, in :mod:`referee.render` and the front ends.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["fraction", "percent"]


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
