"""What a roll returns: :class:`RollResult`, made of its pools and groups, and its text.

Produced by :mod:`referee.roller`; each record explains itself (``.text``, written by
:func:`roll_text` from :func:`die_text`, :func:`group_text` and :func:`subrolls_text`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from .ast import FUDGE, Dice, Expression, Group
from .notation import format_counting, format_expr

__all__ = [
    "DiceGroup",
    "DieRoll",
    "GroupRoll",
    "RollResult",
    "SubRoll",
    "die_text",
    "group_text",
    "number_text",
    "roll_text",
    "subrolls_text",
]


class DieRoll(NamedTuple):
    """One die of a pool, with everything that happened to it."""

    value: int
    """What the die contributes: its face, or the sum of its explosion chain."""
    faces: tuple[int, ...]
    """The faces that stand, in order: the first roll, then each explosion."""
    rerolled: tuple[int, ...] = ()
    """Faces that were rolled and then rerolled away, in order."""
    kept: bool = True
    """False if a keep/drop modifier dropped this die."""
    success: bool | None = None
    """For a success-counting pool, whether this die counted; otherwise None."""
    failure: bool = False
    """In a pool that counts failures (``f``), whether this die counted −1."""
    critical: str | None = None
    """``"success"`` or ``"failure"`` when a critical marker (``cs``, ``cf``) matched."""
    exploded: bool = False
    """Whether the die exploded: a compounding chain of more than one face, or a die
    whose face rolled another (``!``, ``!p``)."""
    added: bool = False
    """Whether an explosion added this die to the pool (``!``, ``!p``)."""


@dataclass(frozen=True, slots=True)
class DiceGroup:
    """The roll of one pool (one ``NdS...`` term of the expression)."""

    notation: str
    """The pool's canonical notation, e.g. ``4d6kh3``."""
    sides: int
    """Faces per die (0 for Fudge dice)."""
    dice: tuple[DieRoll, ...]
    """Each die, in the order rolled."""
    value: int
    """What the pool contributes to the expression."""


class SubRoll(NamedTuple):
    """One sub-roll of a group ``{a, b}``: its total and what the group made of it."""

    value: int | Fraction
    """The sub-roll's total (a fraction only inside a function's parentheses)."""
    kept: bool = True
    """False if the group's keep/drop dropped it."""
    success: bool | None = None
    """For a group with a target, whether this sub-roll met it; otherwise None."""
    failure: bool = False
    """For a group that counts failures (``f``), whether this sub-roll counted −1."""


@dataclass(frozen=True, slots=True)
class GroupRoll:
    """The roll of one group of sub-rolls (``{4d6+3d8, 3d20+3}kh1``)."""

    notation: str
    """The group's canonical notation."""
    items: tuple[SubRoll, ...]
    """Each sub-roll, in the order written."""
    value: int | Fraction
    """What the group contributes to the expression."""


@dataclass(frozen=True, slots=True)
class RollResult:
    """An immutable, self-explaining roll of a dice expression."""

    expression: str
    """The expression as written, without its label."""
    label: str | None
    """The text after ``#``, if any."""
    total: int
    """The result."""
    groups: tuple[DiceGroup, ...]
    """Each pool, left to right."""
    parsed: Expression
    """The parsed expression."""
    subrolls: tuple[GroupRoll, ...] = ()
    """Each group of sub-rolls, innermost first, then left to right."""

    @property
    def dice(self) -> tuple[DieRoll, ...]:
        """Every die of every pool, left to right."""
        return tuple(d for g in self.groups for d in g.dice)

    @property
    def text(self) -> str:
        """A one-line rendering, e.g. ``4d6kh3 = [6, 5, 1 (dropped), 4] = 15``."""
        return roll_text(self)


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
