"""Rendering: results to plain text and to JSON-ready dicts.

The engine's results know nothing of presentation; this module turns them into
the documented text and the stable JSON contract (fractions as ``"p/q"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from .fmt import fraction, percent
from .odds import Odds
from .roller import RollResult

__all__ = ["MAX_ROWS", "fraction", "odds_json", "percent", "roll_json", "shown_rows"]


def roll_json(result: RollResult) -> dict[str, Any]:
    """The JSON contract for a roll."""
    dice = []
    for group in result.groups:
        for d in group.dice:
            dice.append(
                {
                    "pool": group.notation,
                    "value": d.value,
                    "faces": list(d.faces),
                    "rerolled": list(d.rerolled),
                    "kept": d.kept,
                    "exploded": d.exploded,
                    "success": d.success,
                }
            )
    return {
        "expression": result.expression,
        "label": result.label,
        "total": result.total,
        "dice": dice,
        "text": result.text,
    }


def odds_json(o: Odds, op: str | None = None, value: int | None = None) -> dict[str, Any]:
    """The JSON contract for odds; ``probability`` is added when a threshold is given."""
    out: dict[str, Any] = {
        "expression": o.expression,
        "distribution": [[k, fraction(p)] for k, p in o.distribution.items()],
        "mean": fraction(o.mean),
        "stdev": o.stdev,
    }
    if op is not None and value is not None:
        out["probability"] = fraction(o.p(op, value))
    if o.notes:
        out["notes"] = list(o.notes)
    return out


MAX_ROWS = 60
"""Tables and histograms longer than this leave out their rows under 0.1%."""


def shown_rows(
    outcomes: Sequence[int], counts: Sequence[int], denominator: int
) -> tuple[list[tuple[int, int]], str | None]:
    """The ``(outcome, count)`` rows worth printing, and a note on any left out.

    With more than :data:`MAX_ROWS` rows, rows under 0.1% are left out (or, if
    every row is under 0.1%, all but the :data:`MAX_ROWS` most likely), and the
    note says how many rows and how much probability they hold.

    >>> rows, note = shown_rows(range(1, 101), [1] * 100, 100)
    >>> len(rows), note
    (100, None)
    >>> rows, note = shown_rows([0, *range(1, 100)], [901, *[1] * 99], 1000)
    >>> len(rows), note
    (100, None)
    >>> rows, note = shown_rows(range(200), [1000, *[1] * 199], 1199)
    >>> len(rows), note
    (1, '199 rows under 0.1% not shown (16.6% of the probability in all)')
    """
    rows = list(zip(outcomes, counts, strict=True))
    if len(rows) <= MAX_ROWS:
        return rows, None
    kept = [r for r in rows if r[1] * 1000 >= denominator]
    if not kept:
        best = sorted(rows, key=lambda r: -r[1])[:MAX_ROWS]
        kept = sorted(best)
    if len(kept) == len(rows):
        return rows, None
    hidden = len(rows) - len(kept)
    mass = Fraction(denominator - sum(c for _, c in kept), denominator)
    note = f"{hidden:,} rows under 0.1% not shown ({percent(mass)} of the probability in all)"
    if not any(r[1] * 1000 >= denominator for r in kept):
        note = f"{hidden:,} less likely rows not shown ({percent(mass)} of the probability in all)"
    return kept, note
