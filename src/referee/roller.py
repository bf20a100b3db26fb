"""Stage 2 of the pipeline: roll a parsed expression with an injected random source.

Each expression is compiled once into a tree of closures (dispatch on node
type through one table, as d20's ``Roller`` does) and cached, so rolling the
same text again costs only the dice.

Semantics, stated once:

* A die's rerolls (``r``/``ro``) apply to every roll of that die, including the
  rolls of an explosion chain. ``r`` rerolls until the face no longer matches:
  the die is exactly the die conditioned on not matching (``d20r1`` is uniform
  on 2..20), drawn by rejection with no cap. ``ro`` rerolls once and the
  second face stands.
* An exploding die is rolled again while its newest face meets the condition,
  at most ``Limits.explosions`` times. With ``!`` each roll of the chain is a
  die of its own, placed right after the die that exploded: keep/drop and
  success counting see every die. ``!p`` is the same, each added die counting
  one less than its face. ``!!`` compounds: the die's value is the sum of its
  chain, and keep/drop and success counting see that sum.
* ``kh``/``kl``/``dh``/``dl`` keep or drop by value; among equal values the
  rightmost dice are dropped first.
* ``>=8`` after a pool makes the pool's value the number of kept dice meeting it.
* ``/`` is integer division rounding down; division by zero raises
  :class:`~referee.errors.DiceEvalError`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from .ast import FUDGE, Arith, Compare, Dice, Expression, Literal, Neg, Node
from .errors import DiceEvalError
from .explain import die_text, group_text, roll_text
from .limits import DEFAULT_LIMITS, Limits
from .parser import format_expr, parse
from .rng import RandomSource, resolve

__all__ = [
    "DiceGroup",
    "DieRoll",
    "RollResult",
    "compile_expr",
    "die_text",
    "draw_faces",
    "group_text",
    "roll",
    "roll_text",
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

    @property
    def dice(self) -> tuple[DieRoll, ...]:
        """Every die of every pool, left to right."""
        return tuple(d for g in self.groups for d in g.dice)

    @property
    def text(self) -> str:
        """A one-line rendering, e.g. ``4d6kh3 = [6, 5, 1 (dropped), 4] = 15``."""
        return roll_text(self)


def draw_faces(rng: RandomSource | None, count: int, sides: int) -> tuple[int, ...]:
    """``count`` plain dice of ``sides`` faces (``FUDGE``, 0, for Fudge dice: -1, 0, +1).

    The one path by which plain dice are drawn, for the roller and the rule
    systems alike: a dN draws ``randbelow(N)`` and shows the value + 1; a dF
    draws ``randbelow(3)`` and shows the value − 1; left to right.

    >>> from referee import seeded
    >>> draw_faces(seeded(1), 3, 6)
    (2, 4, 4)
    """
    rb = resolve(rng).randbelow
    n, offset = (3, -1) if sides == FUDGE else (sides, 1)
    return tuple([rb(n) + offset for _ in range(count)])


_Eval = Callable[[RandomSource, list[DiceGroup]], int]
_REJECTION_GUARD = 1_000_000


def _compile(node: Node, limits: Limits) -> _Eval:
    return _COMPILERS[type(node)](node, limits)


def _literal(node: Node, limits: Limits) -> _Eval:
    assert isinstance(node, Literal)
    value = node.value

    def run(src: RandomSource, groups: list[DiceGroup]) -> int:
        return value

    return run


def _neg(node: Node, limits: Limits) -> _Eval:
    assert isinstance(node, Neg)
    inner = _compile(node.operand, limits)

    def run(src: RandomSource, groups: list[DiceGroup]) -> int:
        return -inner(src, groups)

    return run


def _arith(node: Node, limits: Limits) -> _Eval:
    assert isinstance(node, Arith)
    first = _compile(node.first, limits)
    rest = [(op, _compile(n, limits), n) for op, n in node.rest]
    if len(rest) == 1 and rest[0][0] == "+":
        second = rest[0][1]

        def add2(src: RandomSource, groups: list[DiceGroup]) -> int:
            return first(src, groups) + second(src, groups)

        return add2

    def run(src: RandomSource, groups: list[DiceGroup]) -> int:
        acc = first(src, groups)
        for op, fn, sub in rest:
            value = fn(src, groups)
            if op == "+":
                acc += value
            elif op == "-":
                acc -= value
            elif op == "*":
                acc *= value
            elif value == 0:
                raise DiceEvalError(f"division by zero: the divisor {format_expr(sub)} came to 0")
            else:
                acc //= value
        return acc

    return run


def _plain(node: Dice, notation: str) -> _Eval:
    """A pool with no modifiers: the fast path."""
    count, sides = node.count, node.sides
    n, offset = (3, -1) if sides == FUDGE else (sides, 1)
    rng_count = range(count)

    def run(src: RandomSource, groups: list[DiceGroup]) -> int:
        rb = src.randbelow
        faces = [rb(n) + offset for _ in rng_count]  # as draw_faces, inlined on the hot path
        total = sum(faces)
        groups.append(DiceGroup(notation, sides, tuple([DieRoll(f, (f,)) for f in faces]), total))
        return total

    return run


def _critical(crits: tuple[tuple[str, Compare], ...], value: int) -> str | None:
    for word, cond in crits:
        if cond.test(value):
            return word
    return None


def _dice(node: Node, limits: Limits) -> _Eval:
    assert isinstance(node, Dice)
    notation = format_expr(node)
    plain = node.reroll is None and node.explode is None and node.success is None
    if plain and node.keep is None and node.crit_success is None and node.crit_failure is None:
        return _plain(node, notation)
    count, sides = node.count, node.sides
    n, offset = (3, -1) if sides == FUDGE else (sides, 1)
    reroll = node.reroll
    reroll_test = reroll.cond.test if reroll else None
    # ``r`` is exact rejection; the cap only guards against a broken source (a
    # die that survives with probability p >= 1/sides needs 10**6 tries with
    # probability (1 - p)**(10**6), which is nil for every allowed die).
    reroll_cap = 0 if reroll is None else (1 if reroll.once else _REJECTION_GUARD)
    explode = node.explode_cond
    explode_test = explode.test if explode else None
    explode_cap = limits.explosions
    adds = node.adds_dice
    penalty = node.penalty
    keep_rule = node.keep
    success_test = node.success.test if node.success else None
    failure_test = node.failure.test if node.failure else None
    crits = tuple(
        (word, cond)
        for word, cond in (("success", node.crit_success), ("failure", node.crit_failure))
        if cond is not None
    )

    def draw(rb: Callable[[int], int], rerolled: list[int]) -> int:
        face = rb(n) + offset
        if reroll_test is not None:
            tries = 0
            while tries < reroll_cap and reroll_test(face):
                rerolled.append(face)
                face = rb(n) + offset
                tries += 1
            if tries == _REJECTION_GUARD:
                raise DiceEvalError(f"{notation} rerolled {tries:,} times: the source is broken")
        return face

    def run(src: RandomSource, groups: list[DiceGroup]) -> int:
        rb = src.randbelow
        dice: list[DieRoll] = []
        for _ in range(count):
            rerolled: list[int] = []
            face = draw(rb, rerolled)
            chain = [face]
            if explode_test is not None:
                booms = 0
                while booms < explode_cap and explode_test(face):
                    if adds:  # the die that exploded stands alone; the next is a new die
                        value = face - (penalty if len(chain) > 1 else 0)
                        dice.append(
                            DieRoll(
                                value, (face,), tuple(rerolled), exploded=True, added=len(chain) > 1
                            )  # fmt: skip
                        )
                        rerolled = []
                    face = draw(rb, rerolled)
                    chain.append(face)
                    booms += 1
            if adds and len(chain) > 1:
                dice.append(DieRoll(face - penalty, (face,), tuple(rerolled), added=True))
            else:
                dice.append(
                    DieRoll(sum(chain), tuple(chain), tuple(rerolled), exploded=len(chain) > 1)
                )
        if keep_rule is not None:
            highest, k = keep_rule.kept_range(len(dice))
            # Stable sort: among equal values the leftmost rank first, so the
            # rightmost are dropped first.
            sign = -1 if highest else 1
            order = sorted(range(len(dice)), key=lambda i: sign * dice[i].value)
            dropped = set(order[k:])
            dice = [d._replace(kept=False) if i in dropped else d for i, d in enumerate(dice)]
        if success_test is not None:
            dice = [
                d._replace(success=d.kept and success_test(d.value),
                           failure=d.kept and not success_test(d.value)
                           and failure_test is not None and failure_test(d.value))
                for d in dice
            ]  # fmt: skip
            total = sum(node.score(d.value) for d in dice if d.kept)
        else:
            total = sum(d.value for d in dice if d.kept)
        if crits:
            dice = [d._replace(critical=_critical(crits, d.value)) for d in dice]
        groups.append(DiceGroup(notation, sides, tuple(dice), total))
        return total

    return run


_COMPILERS: dict[type, Callable[[Node, Limits], _Eval]] = {
    Literal: _literal,
    Dice: _dice,
    Neg: _neg,
    Arith: _arith,
}


class Compiled(NamedTuple):
    """A parsed and compiled expression, ready to roll many times."""

    text: str
    parsed: Expression
    run: _Eval


@functools.lru_cache(maxsize=4096)
def compile_expr(text: str, limits: Limits = DEFAULT_LIMITS) -> Compiled:
    """Parse and compile ``text`` once; later calls with the same text are a cache hit."""
    parsed = parse(text, limits)
    shown = text.split("#", 1)[0].strip()  # "#" only ever starts a label
    return Compiled(shown, parsed, _compile(parsed.root, limits))


def roll(
    expr: str | Expression,
    rng: RandomSource | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> RollResult:
    """Roll a dice expression and return an immutable, self-explaining result.

    Args:
        expr: dice notation (``"4d6kh3"``) or an already parsed expression.
        rng: the random source; by default this thread's secure system source.
            Pass :func:`referee.seeded` for reproducible rolls.
        limits: the work limits, checked before anything is rolled.

    >>> from referee import seeded
    >>> result = roll("4d6kh3 # strength", rng=seeded(7))
    >>> result.label, result.total == sum(d.value for d in result.dice if d.kept)
    ('strength', True)

    Raises:
        DiceSyntaxError, DiceLimitError: bad notation or too much work.
        DiceEvalError: a division by zero happened in this roll.
    """
    if isinstance(expr, Expression):
        compiled = compile_expr(format_expr(expr), limits)
    else:
        compiled = compile_expr(expr, limits)
    src = resolve(rng)
    groups: list[DiceGroup] = []
    try:
        total = compiled.run(src, groups)
    except DiceEvalError as exc:
        exc.text = compiled.text
        raise
    return RollResult(compiled.text, compiled.parsed.label, total, tuple(groups), compiled.parsed)
