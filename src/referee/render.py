"""Rendering: results to plain text and to JSON-ready dicts.

The engine's results know nothing of presentation; this module turns them into
the documented text and the stable JSON contract (fractions as ``"p/q"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from .ast import FUDGE, Dice
from .odds import Odds
from .parser import format_expr
from .roller import DiceGroup, DieRoll, RollResult

__all__ = ["MAX_ROWS", "fraction", "odds_json", "percent", "roll_json", "roll_text", "shown_rows"]

_FUDGE_FACES = {-1: "-", 0: "0", 1: "+"}


def fraction(p: Fraction) -> str:
    """An exact probability as the JSON string ``"p/q"``.

    >>> fraction(Fraction(5, 12))
    '5/12'
    """
    return f"{p.numerator}/{p.denominator}"


def percent(p: Fraction) -> str:
    """A probability as a percentage for display, e.g. ``'41.7%'``; never rounds to 0 or 100."""
    value = float(p) * 100
    if 0 < value < 0.1:
        return "<0.1%"
    if 99.9 < value < 100:
        return ">99.9%"
    return f"{value:.1f}%"


def _face(face: int, sides: int) -> str:
    return _FUDGE_FACES[face] if sides == FUDGE else str(face)


def die_text(die: DieRoll, sides: int) -> str:
    """One die: ``5``, ``6!+6!+2``, ``1 (dropped)``, ``4 (rerolled 1)``, ``9 (success)``."""
    text = "!+".join(_face(f, sides) for f in die.faces)
    notes = []
    if die.rerolled:
        notes.append("rerolled " + ", ".join(_face(f, sides) for f in die.rerolled))
    if not die.kept:
        notes.append("dropped")
    if die.success:
        notes.append("success")
    return f"{text} ({'; '.join(notes)})" if notes else text


def group_text(group: DiceGroup) -> str:
    """One pool: ``[6, 5, 1 (dropped), 4]``."""
    return "[" + ", ".join(die_text(d, group.sides) for d in group.dice) + "]"


def roll_text(result: RollResult) -> str:
    """``4d6kh3 = [6, 5, 1 (dropped), 4] = 15``, prefixed by the label if there is one."""
    groups = iter(result.groups)

    def show(_: Dice) -> str:
        return group_text(next(groups))

    middle = format_expr(result.parsed.root, show)
    text = f"{result.expression} = {middle}"
    if middle != str(result.total):
        text += f" = {result.total}"
    return f"{result.label}: {text}" if result.label else text


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
