"""How a roll explains itself in one line: ``4d6kh3 = [6, 5, 1 (dropped), 4] = 15``.

The text of :class:`referee.roller.RollResult` (its ``.text``), written from
the result alone: the dice of each pool in the expression's own notation.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from .ast import FUDGE, Dice, Group
from .notation import format_counting, format_expr

if TYPE_CHECKING:
    from .rolls import DiceGroup, DieRoll, GroupRoll, RollResult

__all__ = ["die_text", "group_text", "number_text", "roll_text", "subrolls_text"]

_FUDGE_FACES = {-1: "-", 0: "0", 1: "+"}


def _face(face: int, sides: int) -> str:
    return _FUDGE_FACES[face] if sides == FUDGE else str(face)


def die_text(die: DieRoll, sides: int) -> str:
    """One die: ``5``, ``6!`` (it exploded), ``6!+6!+2`` (compounded), ``6!-1`` (an added
    penetrating die that exploded and counts 5), ``1 (dropped)``, ``4 (rerolled 1)``."""
    text = "!+".join(_face(f, sides) for f in die.faces)
    if die.exploded and len(die.faces) == 1:
        text += "!"
    if die.added and die.value != die.faces[0]:
        text += f"{die.value - die.faces[0]:+d}"
    notes = []
    if die.rerolled:
        notes.append("rerolled " + ", ".join(_face(f, sides) for f in die.rerolled))
    if not die.kept:
        notes.append("dropped")
    if die.success:
        notes.append("success")
    if die.failure:
        notes.append("failure")
    if die.critical:
        notes.append(f"critical {die.critical}")
    return f"{text} ({'; '.join(notes)})" if notes else text


def group_text(group: DiceGroup, sort: str | None = None) -> str:
    """One pool: ``[6, 5, 1 (dropped), 4]``; with ``sort`` (``a``/``d``), in that order."""
    dice = list(group.dice)
    if sort is not None:
        dice.sort(key=lambda d: d.value, reverse=sort == "d")
    return "[" + ", ".join(die_text(d, group.sides) for d in dice) + "]"


def number_text(value: int | Fraction) -> str:
    """``7`` or, for a fraction inside a function, ``7/2``."""
    return str(value)


def subrolls_text(node: Group, items: list[str], record: GroupRoll) -> str:
    """One group: ``{[2, 4] + 3 = 9, [5, 1] = 6 (dropped)}kh1``."""
    shown = []
    for text, sub in zip(items, record.items, strict=True):
        notes = []
        if not sub.kept:
            notes.append("dropped")
        if sub.success:
            notes.append("success")
        if sub.failure:
            notes.append("failure")
        value = number_text(sub.value)
        out = text if text in (value, f"[{value}]") else f"{text} = {value}"
        shown.append(f"{out} ({'; '.join(notes)})" if notes else out)
    return "{" + ", ".join(shown) + "}" + format_counting(node.keep, node.success, node.failure)


def roll_text(result: RollResult) -> str:
    """``4d6kh3 = [6, 5, 1 (dropped), 4] = 15``, prefixed by the label if there is one."""
    groups = iter(result.groups)
    subrolls = iter(result.subrolls)

    def show(node: Dice) -> str:
        return group_text(next(groups), node.sort)

    def show_group(node: Group, items: list[str]) -> str:
        return subrolls_text(node, items, next(subrolls))

    middle = format_expr(result.parsed.root, show, show_group)
    text = f"{result.expression} = {middle}"
    if middle != str(result.total):
        text += f" = {result.total}"
    return f"{result.label}: {text}" if result.label else text
