"""Rendering dice results: rolls and odds to the JSON contract, odds and samples to text.

Fractions are exact strings ``"p/q"``. The one text table of odds and the one
summary of a sample live here, for every front end.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import islice
from typing import Any, Literal

from ..fmt import fraction, percent, readable, short_fraction
from ..odds import Odds
from ..roller import RollResult

__all__ = [
    "BAR",
    "LINE",
    "MAX_ROWS",
    "TAIL",
    "Row",
    "odds_json",
    "odds_text",
    "roll_json",
    "sample_text",
    "shown_rows",
]


def roll_json(result: RollResult, text: str | None = None) -> dict[str, Any]:
    """The JSON contract for a roll (``text``: its text, when the caller has made it)."""
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
        "text": result.text if text is None else text,
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
"""No table or histogram prints more rows than this: longer ones fold their far tails
into one row each and group the totals between them into ranges (:func:`shown_rows`)."""

TAIL = Fraction(1, 1000)
"""A long table folds each far tail into one row while the tail holds less than this."""


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a table of totals: a total, a range of totals, or a folded far tail.

    >>> [Row(7, 7, 1).label, Row(4900, 4949, 9).label, Row(100, 4099, 1, "low").label]
    ['7', '4,900..4,949', '≤ 4,099']
    """

    low: int
    """The least total in the row."""
    high: int
    """The greatest total in the row."""
    count: int
    """How many of the cases (over the table's denominator) give a total in the row."""
    tail: Literal["low", "high"] | None = None
    """``"low"`` or ``"high"`` for a row that holds a whole far tail of the table."""

    @property
    def label(self) -> str:
        """``7``, ``4,900..4,949``, or for a tail ``≤ 4,099`` or ``≥ 6,000``."""
        if self.tail == "low":
            return f"≤ {self.high:,}"
        if self.tail == "high":
            return f"≥ {self.low:,}"
        if self.low == self.high:
            return f"{self.low:,}"
        return f"{self.low:,}..{self.high:,}"

    def p(self, denominator: int) -> Fraction:
        """The row's probability, over the table's ``denominator``."""
        return Fraction(self.count, denominator)

    def joined(self, other: Row) -> Row:
        """This row and the next one (``other``) as one range."""
        return Row(self.low, other.high, self.count + other.count, self.tail)


def shown_rows(
    outcomes: Sequence[int], counts: Sequence[int], denominator: int
) -> tuple[list[Row], str | None]:
    """The rows worth printing for these totals, at most :data:`MAX_ROWS`, and a note on
    any grouping.

    Up to :data:`MAX_ROWS` totals get a row each. A longer table folds each far
    tail (as many of the least or the greatest totals as hold less than
    :data:`TAIL` in all) into one row, and groups the totals between them into
    ranges of the same width (1, 2, 5, 10, 20, 25, 50, ... times their common
    step), counted from the least total. Where that is still too many rows,
    runs of ranges under 0.1% are joined until they hold 0.1%, and what is
    left of a run joins the row before it. The rows share out every case, so
    their probabilities add up to 1; the note says how the totals are grouped.

    >>> half = [1, 3, 6, 10, 15, 21, 25, 27]  # 3d6
    >>> rows, note = shown_rows(range(3, 19), half + half[::-1], 216)
    >>> len(rows), rows[0], note
    (16, Row(low=3, high=3, count=1, tail=None), None)
    >>> rows, note = shown_rows(range(1, 101), [1] * 100, 100)
    >>> len(rows), rows[0].label, rows[-1].label, note
    (50, '1..2', '99..100', 'totals in ranges of 2')
    >>> rows, note = shown_rows(range(200), [10_000, *[1] * 199], 10_199)
    >>> [(r.label, r.count) for r in rows[:3] + rows[-2:]]
    [('0', 10000), ('1..11', 11), ('12..22', 11), ('177..189', 13), ('≥ 190', 10)]
    >>> note
    'totals under 0.1% joined into ranges'
    """
    pairs = list(zip(outcomes, counts, strict=True))
    if len(pairs) <= MAX_ROWS:
        return [Row(o, o, c) for o, c in pairs], None
    first, last = _body(pairs, denominator)
    origin = pairs[0][0]
    step = 0
    for o, _ in pairs:
        step = math.gcd(step, o - origin)
        if step == 1:
            break
    for width in _widths(max(step, 1)):
        for join in (False, True):
            rows = _grouped(pairs, first, last, origin, width, join, denominator)
            if rows is not None:
                return rows, _grouping_note(width // max(step, 1), width, join)
    raise AssertionError("one range of every total always fits")  # pragma: no cover


def _body(pairs: Sequence[tuple[int, int]], denominator: int) -> tuple[int, int]:
    """The indices of the first and last totals outside the far tails (each under TAIL)."""
    first, below = 0, 0
    while first < len(pairs) - 1 and (below + pairs[first][1]) < TAIL * denominator:
        below += pairs[first][1]
        first += 1
    last, above = len(pairs) - 1, 0
    while last > first and (above + pairs[last][1]) < TAIL * denominator:
        above += pairs[last][1]
        last -= 1
    return first, last


def _widths(step: int) -> Iterator[int]:
    """Widths of ranges: ``step`` times 1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, ...

    >>> from itertools import islice
    >>> list(islice(_widths(3), 9))
    [3, 6, 15, 30, 60, 75, 150, 300, 600]
    """
    yield from (step, 2 * step, 5 * step)
    scale = 10 * step
    while True:
        yield from (scale, 2 * scale, scale * 5 // 2, 5 * scale)
        scale *= 10


def _grouped(
    pairs: Sequence[tuple[int, int]],
    first: int,
    last: int,
    origin: int,
    width: int,
    join: bool,
    denominator: int,
) -> list[Row] | None:
    """The rows with ranges of ``width`` between the far tails (``join``: ranges under 0.1%
    joined, see :func:`_joined`), or None if they are more than :data:`MAX_ROWS`."""
    start = (pairs[first][0] - origin) // width
    stop = (pairs[last][0] - origin) // width
    below = [(o, c) for o, c in pairs[:first] if (o - origin) // width < start]
    above = [(o, c) for o, c in pairs[last + 1 :] if (o - origin) // width > stop]
    room = MAX_ROWS - (1 if below else 0) - (1 if above else 0)
    body = islice(pairs, len(below), len(pairs) - len(above))
    ranges = _ranges(body, origin, width)
    rows = list(islice(_joined(ranges, denominator) if join else ranges, room + 1))
    if len(rows) > room:
        return None
    low = [Row(below[0][0], below[-1][0], sum(c for _, c in below), "low")] if below else []
    high = [Row(above[0][0], above[-1][0], sum(c for _, c in above), "high")] if above else []
    return low + rows + high


def _ranges(pairs: Iterable[tuple[int, int]], origin: int, width: int) -> Iterator[Row]:
    """One row for each range ``origin + k * width`` ... that holds a total."""
    low = high = count = bucket = 0
    started = False
    for o, c in pairs:
        b = (o - origin) // width
        if started and b == bucket:
            high, count = o, count + c
            continue
        if started:
            yield Row(low, high, count)
        low, high, count, bucket, started = o, o, c, b, True
    if started:
        yield Row(low, high, count)


def _joined(rows: Iterable[Row], denominator: int) -> Iterator[Row]:
    """Rows under 0.1% joined: each run of them into rows of 0.1% or more, and what is
    left of a run under 0.1% into the row before it (at the start, the row after it)."""
    held: Row | None = None
    for row in _runs(rows, denominator):
        if held is None:
            held = row
        elif _small(row, denominator) or _small(held, denominator):
            held = held.joined(row)
        else:
            yield held
            held = row
    if held is not None:
        yield held


def _runs(rows: Iterable[Row], denominator: int) -> Iterator[Row]:
    """Consecutive rows under 0.1% joined until they hold 0.1%."""
    held: Row | None = None
    for row in rows:
        if held is not None and _small(held, denominator) and _small(row, denominator):
            held = held.joined(row)
            continue
        if held is not None:
            yield held
        held = row
    if held is not None:
        yield held


def _small(row: Row, denominator: int) -> bool:
    """Whether a row holds under 0.1% (:data:`TAIL`) of the cases."""
    return row.count < TAIL * denominator


def _grouping_note(times: int, width: int, join: bool) -> str | None:
    """What a reader needs to know about the ranges (``times``: the width over the step)."""
    if times == 1:
        return "totals under 0.1% joined into ranges" if join else None
    return f"totals in ranges of {width:,}" + ("; ranges under 0.1% joined" if join else "")


LINE = 100
"""No row of a table is longer than this; bars are at most :data:`BAR` long, and shorter
if the row needs the room."""

BAR = 40
"""The longest bar, for the most likely row."""


def _bar(count: int, top: int, used: int) -> str:
    """A bar for ``count`` (the most likely row has ``top``) after ``used`` characters."""
    return "█" * round(min(BAR, LINE - used) * count / top)


def odds_text(o: Odds, op: str | None = None, value: int | None = None) -> str:
    """The table of an expression's odds: each total (or range, see :func:`shown_rows`), its
    percentage and a bar, with its fraction while that is short (the JSON has them all)."""
    lines = [f"{o.expression}: mean {float(o.mean):.3f}, stdev {o.stdev:.3f}"]
    rows, note = shown_rows(o.outcomes, o.counts, o.denominator)
    top = max(r.count for r in rows)
    label = max(6, *(len(r.label) for r in rows))
    shorts = [short_fraction(Fraction(r.count, o.denominator)) or "" for r in rows]
    width = max(len(f) for f in shorts)
    for row, short in zip(rows, shorts, strict=True):
        cells = [f"{row.label:>{label}}", f"{percent(row.p(o.denominator)):>6}"]
        if width:  # a column of short fractions, blank where one is long
            cells.insert(1, f"{short:>{width}}")
        text = "  ".join(cells)
        lines.append(f"{text}  {_bar(row.count, top, len(text) + 2)}".rstrip())
    if note:
        lines.append(f"({note})")
    lines += [f"note: {note}" for note in o.notes]
    if op is not None and value is not None:
        lines.append(f"P(total {op} {value}) = {readable(o.p(op, value))}")
    return "\n".join(lines)


def sample_text(summary: dict[str, Any]) -> str:
    """A sample's statistics and histogram (``summary`` as :func:`referee.sampling.summarize`),
    long ones folded as :func:`shown_rows` folds them."""
    n = summary["n"]
    hist = summary["histogram"]
    lines = [
        f"{summary['expression']}: {n:,} rolls, mean {summary['mean']:.4f}, "
        f"stdev {summary['stdev']:.4f}, range {summary['min']}..{summary['max']}"
    ]
    rows, note = shown_rows([k for k, _ in hist], [c for _, c in hist], n)
    top = max((r.count for r in rows), default=1)
    label = max((6, *(len(r.label) for r in rows)))
    for r in rows:
        text = f"{r.label:>{label}} {r.count / n:7.2%}"
        lines.append(f"{text} {_bar(r.count, top, len(text) + 1)}")
    if note:
        lines.append(f"({note})")
    return "\n".join(lines)
