"""Rendering: results to plain text and to JSON-ready dicts.

The engine's results know nothing of presentation; this module turns them into
the documented text and the stable JSON contract (fractions as ``"p/q"``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .ast import FUDGE, Dice
from .odds import Odds
from .parser import format_expr
from .roller import DiceGroup, DieRoll, RollResult

__all__ = ["fraction", "odds_json", "percent", "roll_json", "roll_text"]

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
