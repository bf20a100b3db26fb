"""What a roll returns: :class:`RollResult`, made of its pools and groups.

Produced by :mod:`referee.roller`; each record explains itself (``.text``,
written by :mod:`referee.explain`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from .ast import Expression
from .explain import roll_text

__all__ = ["DiceGroup", "DieRoll", "GroupRoll", "RollResult", "SubRoll"]


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
