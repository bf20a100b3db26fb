"""Rendering dice results: rolls and odds to the JSON contract, odds and samples to text.

Fractions are exact strings ``"p/q"``. The one text table of odds and the one
summary of a sample live here, for every front end.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from ..fmt import fraction, percent
from ..odds import Odds
from ..roller import RollResult

__all__ = [
    "MAX_ROWS",
    "odds_json",
    "odds_text",
    "roll_json",
    "sample_text",
    "shown_rows",
]


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
                    "added": d.added,
                    "failure": d.failure,
                    "critical": d.critical,
                    "success": d.success,
                }
            )
    out: dict[str, Any] = {
        "expression": result.expression,
        "label": result.label,
        "total": result.total,
        "dice": dice,
        "text": result.text,
    }
    if result.subrolls:  # groups {a, b}: each sub-roll's total and what became of it
        out["groups"] = [
            {
                "group": g.notation,
                "value": _number(g.value),
                "subrolls": [
                    {
                        "value": _number(s.value),
                        "kept": s.kept,
                        "success": s.success,
                        "failure": s.failure,
                    }
                    for s in g.items
                ],
            }
            for g in result.subrolls
        ]
    return out


def _number(value: int | Fraction) -> int | str:
    """A whole number as itself; a fraction (inside a function) as an exact ``"p/q"``."""
    return value if isinstance(value, int) else fraction(value)


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


def odds_text(o: Odds, op: str | None = None, value: int | None = None) -> str:
    """The table of an expression's odds: each total, its fraction, percentage and a bar."""
    lines = [f"{o.expression}: mean {float(o.mean):.3f}, stdev {o.stdev:.3f}"]
    rows, omitted = shown_rows(o.outcomes, o.counts, o.denominator)
    top = max(o.counts)
    width = max(len(fraction(Fraction(c, o.denominator))) for _, c in rows)
    for total, count in rows:
        p = Fraction(count, o.denominator)
        bar = "█" * round(40 * count / top)
        lines.append(f"{total:>6}  {fraction(p):>{width}}  {percent(p):>6}  {bar}")
    if omitted:
        lines.append(f"({omitted})")
    lines += [f"note: {note}" for note in o.notes]
    if op is not None and value is not None:
        p = o.p(op, value)
        lines.append(f"P(total {op} {value}) = {fraction(p)} = {percent(p)}")
    return "\n".join(lines)


def sample_text(summary: dict[str, Any]) -> str:
    """A sample's statistics and histogram (``summary`` as :func:`referee.sampling.summarize`)."""
    n = summary["n"]
    hist = summary["histogram"]
    lines = [
        f"{summary['expression']}: {n:,} rolls, mean {summary['mean']:.4f}, "
        f"stdev {summary['stdev']:.4f}, range {summary['min']}..{summary['max']}"
    ]
    top = max((c for _, c in hist), default=1)
    rows, omitted = shown_rows([k for k, _ in hist], [c for _, c in hist], n)
    lines += [f"{k:>6} {count / n:7.2%} {'█' * round(40 * count / top)}" for k, count in rows]
    if omitted:
        lines.append(f"({omitted})")
    return "\n".join(lines)
