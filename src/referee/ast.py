"""The dice AST: immutable nodes produced by :mod:`referee.parser`.

Every node is a frozen, slotted dataclass, so expressions can be hashed,
cached and shared. :func:`referee.parser.format_expr` turns any node back into
notation, and parsing that text gives an equal node.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import TypeAlias

from .faces import FUDGE  # a Fudge die's sides, where dice are drawn

__all__ = [
    "FUDGE",
    "FUNCTIONS",
    "Arith",
    "AnyOf",
    "Compare",
    "Dice",
    "Explode",
    "ExplodeMode",
    "Expression",
    "Func",
    "Group",
    "Keep",
    "Literal",
    "Neg",
    "Node",
    "Reroll",
    "window",
]


class CompareOp(StrEnum):
    """A comparison of a face against a number."""

    EQ = "="
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="


@dataclass(frozen=True, slots=True)
class Compare:
    """A condition on one face, e.g. ``>=8`` or ``=1``."""

    op: CompareOp
    """How the face is compared."""
    value: int
    """The number it is compared with."""

    def test(self, face: int | Fraction) -> bool:
        """Whether ``face`` (or a sub-roll's total) meets the condition."""
        op = self.op
        if op is CompareOp.EQ:
            return face == self.value
        if op is CompareOp.LT:
            return face < self.value
        if op is CompareOp.LE:
            return face <= self.value
        if op is CompareOp.GT:
            return face > self.value
        return face >= self.value

    def span(self) -> tuple[float, float]:
        """The integers that meet the condition, as an inclusive range (ends may be infinite)."""
        op, v = self.op, self.value
        if op is CompareOp.EQ:
            return v, v
        if op is CompareOp.LT:
            return -math.inf, v - 1
        if op is CompareOp.LE:
            return -math.inf, v
        if op is CompareOp.GT:
            return v + 1, math.inf
        return v, math.inf

    def count(self, lo: int, hi: int) -> int:
        """How many of the faces ``lo..hi`` meet the condition (without testing each)."""
        return _count_union([self.span()], lo, hi)


@dataclass(frozen=True, slots=True)
class AnyOf:
    """Several conditions, any of which matches: ``r1r3r5`` rerolls a 1, a 3 or a 5."""

    conds: tuple[Compare, ...]
    """The conditions, in the order written."""

    def test(self, face: int | Fraction) -> bool:
        """Whether ``face`` meets any of the conditions."""
        return any(c.test(face) for c in self.conds)

    def count(self, lo: int, hi: int) -> int:
        """How many of the faces ``lo..hi`` meet any of the conditions (without testing each)."""
        return _count_union([c.span() for c in self.conds], lo, hi)


def _count_union(spans: list[tuple[float, float]], lo: int, hi: int) -> int:
    """How many integers of ``lo..hi`` lie in any of the inclusive ``spans``."""
    clipped = sorted((max(a, lo), min(b, hi)) for a, b in spans)
    total = 0
    reached = lo - 1  # the highest integer counted so far
    for a, b in clipped:
        start = max(a, reached + 1)
        if b >= start:
            total += int(b - start) + 1
            reached = int(b)
    return total


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep or drop the highest or lowest dice of a pool (``kh3``, ``kl1``, ``dh1``, ``dl1``)."""

    highest: bool
    """Whether the highest dice are the ones named (else the lowest)."""
    drop: bool
    """Whether the named dice are dropped (else they are kept)."""
    count: int
    """How many dice are named."""

    def kept_range(self, pool: int) -> tuple[bool, int]:
        """``(highest, k)``: the pool keeps its ``k`` highest (or lowest) dice."""
        if self.drop:
            return (not self.highest, pool - self.count)
        return (self.highest, self.count)


def window(keeps: tuple[Keep, ...], pool: int) -> tuple[int, int]:
    """The ranks a sequence of keep/drop rules leaves, as ``[lo, hi)`` counted from the
    highest die (rank 0). Each rule applies to the dice the previous ones kept, so
    ``3d6kh2dl1`` keeps rank 0 only: ``window((kh2, dl1), 3) == (0, 1)``."""
    lo, hi = 0, pool
    for keep in keeps:
        highest, k = keep.kept_range(hi - lo)
        k = max(0, min(k, hi - lo))
        if highest:
            hi = lo + k
        else:
            lo = hi - k
    return lo, hi


@dataclass(frozen=True, slots=True)
class Reroll:
    """Reroll a die whose face matches (``r1``, ``r<3``; ``ro1`` rerolls once)."""

    cond: Compare | AnyOf
    """Which faces are rerolled (several, as ``r1r3``, any of which matches)."""
    once: bool
    """Reroll at most once (``ro``) instead of until the face no longer matches."""


class ExplodeMode(StrEnum):
    """What an explosion does (as Roll20, Foundry, Avrae and rpg-dice-roller read it)."""

    ADD = "!"
    """Each explosion is a new die, kept, dropped, counted and shown on its own."""
    COMPOUND = "!!"
    """The explosions add into the die that exploded: one die, the sum of its chain."""
    PENETRATE = "!p"
    """As ``!``, but each added die counts one less (HackMaster); a die explodes on
    the face it shows before the one is taken off."""


@dataclass(frozen=True, slots=True)
class Explode:
    """Roll again when a face matches (``!`` on the maximum, ``!>=9``, ``!!``, ``!p``)."""

    cond: Compare | None
    """Which faces explode; ``None`` means the die's maximum face."""
    mode: ExplodeMode = ExplodeMode.ADD
    """New dice (``!``), compounding (``!!``) or penetrating (``!p``)."""


@dataclass(frozen=True, slots=True)
class Literal:
    """An integer constant."""

    value: int
    """The constant, never negative (``-3`` is ``Neg(Literal(3))``)."""


@dataclass(frozen=True, slots=True)
class Dice:
    """A pool of identical dice with its modifiers, e.g. ``4d6kh3`` or ``6d10>=8``."""

    count: int
    """How many dice are rolled."""
    sides: int
    """Number of faces (1..sides), or :data:`FUDGE` for a Fudge die."""
    reroll: Reroll | None = None
    """Reroll rule applied to every roll of a die."""
    explode: Explode | None = None
    """Explosion rule (:class:`ExplodeMode`)."""
    keep: tuple[Keep, ...] = ()
    """Keep/drop rules applied to the pool, each to the dice the ones before kept."""
    success: Compare | None = None
    """If set, the pool's value is the number of (kept) dice meeting this condition."""
    failure: Compare | None = None
    """With ``success``: each (kept) die meeting this counts −1 (``3d6>3f<2``)."""
    crit_success: Compare | None = None
    """Marks dice as critical successes (``cs>19``): shown, never counted."""
    crit_failure: Compare | None = None
    """Marks dice as critical failures (``cf<3``): shown, never counted."""
    sort: str | None = None
    """``"a"`` or ``"d"``: show the dice sorted up or down (``s``/``sa``, ``sd``)."""

    @property
    def faces(self) -> tuple[int, ...]:
        """The faces of one die, lowest first."""
        if self.sides == FUDGE:
            return (-1, 0, 1)
        return tuple(range(1, self.sides + 1))

    def matching(self, cond: Compare | AnyOf) -> int:
        """How many faces of one die meet ``cond`` (counted, not tested one by one)."""
        if self.sides == FUDGE:
            return cond.count(-1, 1)
        return cond.count(1, self.sides)

    def score(self, value: int) -> int:
        """What one (kept) die of value ``value`` adds to the pool: the value itself, or in
        a success-counting pool +1 for a success, −1 for a failure (success first), else 0."""
        if self.success is None:
            return value
        if self.success.test(value):
            return 1
        return -1 if self.failure is not None and self.failure.test(value) else 0

    @property
    def adds_dice(self) -> bool:
        """Whether explosions add dice to the pool (``!`` and ``!p``, not ``!!``)."""
        return self.explode is not None and self.explode.mode is not ExplodeMode.COMPOUND

    @property
    def penalty(self) -> int:
        """What each added die counts less than its face: 1 for ``!p``, else 0."""
        return 1 if self.explode is not None and self.explode.mode is ExplodeMode.PENETRATE else 0

    @property
    def explode_cond(self) -> Compare | None:
        """The explosion condition with ``!`` resolved to "equals the maximum face"."""
        if self.explode is None:
            return None
        if self.explode.cond is None:
            return Compare(CompareOp.EQ, self.faces[-1])
        return self.explode.cond


@dataclass(frozen=True, slots=True)
class Neg:
    """Unary minus."""

    operand: Node
    """The negated expression."""


@dataclass(frozen=True, slots=True)
class Arith:
    """A left-to-right chain of one precedence level: ``a + b - c`` or ``a * b / c``.

    ``/`` is integer division rounding down.
    """

    first: Node
    """The leftmost operand."""
    rest: tuple[tuple[str, Node], ...]
    """``(operator, operand)`` pairs; the operators are all ``+``/``-`` or all ``*``/``/``."""

    @property
    def additive(self) -> bool:
        """Whether this chain is a sum (``+``/``-``) rather than a product."""
        return self.rest[0][0] in "+-"


@dataclass(frozen=True, slots=True)
class Group:
    """Sub-rolls in braces, ``{4d6+3d8, 3d20+3}kh1``: keep/drop and success counting act
    on whole sub-rolls. Without modifiers the group is the sum of its sub-rolls.

    (A group of one pool, ``{5d6!!}>8``, is read as that pool with the modifiers, so the
    parser never builds a Group around a single :class:`Dice`.)"""

    items: tuple[Node, ...]
    """The sub-rolls, in the order written."""
    keep: tuple[Keep, ...] = ()
    """Keep/drop rules over the sub-rolls' totals."""
    success: Compare | None = None
    """If set, the group's value is the number of (kept) sub-rolls whose total meets it."""
    failure: Compare | None = None
    """With ``success``: each (kept) sub-roll meeting this counts −1."""

    def score(self, value: int | Fraction) -> int | Fraction:
        """What one (kept) sub-roll of total ``value`` adds, as :meth:`Dice.score`."""
        if self.success is None:
            return value
        if self.success.test(value):
            return 1
        return -1 if self.failure is not None and self.failure.test(value) else 0


FUNCTIONS = ("floor", "ceil", "round", "abs", "min", "max")
"""The functions of the notation. Arithmetic inside their parentheses is exact."""


@dataclass(frozen=True, slots=True)
class Func:
    """A function call, ``floor(7/2)`` or ``max(1d6, 1d8)``.

    Inside a function's parentheses ``/`` is exact division; ``floor``, ``ceil`` and
    ``round`` (halves up) make a whole number of it. A fraction that reaches the top
    level (``abs(7/2)``) rounds down, as a top-level ``/`` does."""

    name: str
    """One of :data:`FUNCTIONS`."""
    args: tuple[Node, ...]
    """The arguments: one, or for ``min``/``max`` one or more."""


Node: TypeAlias = Literal | Dice | Neg | Arith | Group | Func


@dataclass(frozen=True, slots=True)
class Expression:
    """A whole parsed expression: the tree and its optional trailing label."""

    root: Node
    """The arithmetic tree."""
    label: str | None = None
    """The text after ``#``, stripped, or ``None``."""
