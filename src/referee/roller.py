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
  rightmost dice are dropped first. Several (``kh2dl1``) apply in turn, each to
  the dice the ones before kept.
* ``>=8`` after a pool makes the pool's value the number of kept dice meeting
  it, less the kept dice meeting ``f`` (failures).
* A group ``{a, b}`` rolls each sub-roll; keep/drop and a target act on the
  sub-rolls' totals as they do on dice.
* ``/`` is integer division rounding down; inside a function's parentheses it
  is exact, and ``floor``/``ceil``/``round`` (halves up) make a whole number of
  it. A fraction that leaves a function at the top level rounds down. Division
  by zero raises :class:`~referee.errors.DiceEvalError`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import NamedTuple

from .ast import FUDGE, Arith, Compare, Dice, Expression, Func, Group, Keep, Literal, Neg, Node
from .errors import DiceEvalError
from .exact import FUNCTIONS
from .faces import draw_faces
from .limits import DEFAULT_LIMITS, Limits
from .parser import format_expr, parse
from .rng import RandomSource, resolve
from .rolls import (
    DiceGroup,
    DieRoll,
    GroupRoll,
    RollResult,
    SubRoll,
    die_text,
    group_text,
    roll_text,
)

__all__ = [
    "DiceGroup",
    "DieRoll",
    "GroupRoll",
    "SubRoll",
    "RollResult",
    "compile_expr",
    "die_text",
    "draw_faces",
    "group_text",
    "roll",
    "roll_text",
]


Num = int | Fraction
"""A value while rolling: whole, except inside a function's parentheses."""
_Records = list["DiceGroup | GroupRoll"]
_Eval = Callable[[RandomSource, _Records], Num]
_REJECTION_GUARD = 1_000_000


def _compile(node: Node, limits: Limits, exact: bool = False) -> _Eval:
    if isinstance(node, (Arith, Neg, Group, Func)):
        return _COMPILERS[type(node)](node, limits, exact)
    return _COMPILERS[type(node)](node, limits)


def _literal(node: Node, limits: Limits) -> _Eval:
    assert isinstance(node, Literal)
    value = node.value

    def run(src: RandomSource, groups: _Records) -> Num:
        return value

    return run


def _neg(node: Node, limits: Limits, exact: bool) -> _Eval:
    assert isinstance(node, Neg)
    inner = _compile(node.operand, limits, exact)

    def run(src: RandomSource, groups: _Records) -> Num:
        return -inner(src, groups)

    return run


def _arith(node: Node, limits: Limits, exact: bool) -> _Eval:
    assert isinstance(node, Arith)
    first = _compile(node.first, limits, exact)
    rest = [(op, _compile(n, limits, exact), n) for op, n in node.rest]
    if len(rest) == 1 and rest[0][0] == "+":
        second = rest[0][1]

        def add2(src: RandomSource, groups: _Records) -> Num:
            return first(src, groups) + second(src, groups)

        return add2

    def run(src: RandomSource, groups: _Records) -> Num:
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
            elif exact:
                acc = Fraction(acc) / value
            else:
                acc //= value
        return acc

    return run


def _kept_flags(values: Sequence[Num], keeps: tuple[Keep, ...]) -> list[bool]:
    """Which values the keep/drop rules keep, each rule acting on what the ones before
    kept. Among equal values the leftmost rank first, so the rightmost drop first."""
    kept = [True] * len(values)
    for rule in keeps:
        alive = [i for i, k in enumerate(kept) if k]
        highest, k = rule.kept_range(len(alive))
        sign = -1 if highest else 1
        order = sorted(alive, key=lambda i: sign * values[i])  # stable
        for i in order[max(k, 0) :]:
            kept[i] = False
    return kept


def _group(node: Node, limits: Limits, exact: bool) -> _Eval:
    assert isinstance(node, Group)
    items = [_compile(i, limits, exact) for i in node.items]
    notation = format_expr(node)
    keeps, success, failure = node.keep, node.success, node.failure

    def run(src: RandomSource, groups: _Records) -> Num:
        values = [fn(src, groups) for fn in items]
        kept = _kept_flags(values, keeps)
        subs = []
        for v, k in zip(values, kept, strict=True):
            hit = None if success is None else k and success.test(v)
            miss = bool(k and not hit and failure is not None and failure.test(v))
            subs.append(SubRoll(v, k, hit, miss))
        total: Num = 0
        for v, k in zip(values, kept, strict=True):
            if k:
                total += node.score(v)
        groups.append(GroupRoll(notation, tuple(subs), total))
        return total

    return run


def _func(node: Node, limits: Limits, exact: bool) -> _Eval:
    assert isinstance(node, Func)

    args = [_compile(a, limits, exact=True) for a in node.args]
    apply = FUNCTIONS[node.name]

    def run(src: RandomSource, groups: _Records) -> Num:
        value: Num = apply([a(src, groups) for a in args])
        return value if exact else math.floor(value)

    return run


def _plain(node: Dice, notation: str) -> _Eval:
    """A pool with no modifiers: the fast path."""
    count, sides = node.count, node.sides
    n, offset = (3, -1) if sides == FUDGE else (sides, 1)
    rng_count = range(count)

    def run(src: RandomSource, groups: _Records) -> Num:
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
    if plain and not node.keep and node.crit_success is None and node.crit_failure is None:
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
    keep_rules = node.keep
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

    def run(src: RandomSource, groups: _Records) -> Num:
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
        if len(keep_rules) == 1:  # the common case, kept on its own fast path
            highest, k = keep_rules[0].kept_range(len(dice))
            sign = -1 if highest else 1
            order = sorted(range(len(dice)), key=lambda i: sign * dice[i].value)  # stable
            for i in order[max(k, 0) :]:
                dice[i] = dice[i]._replace(kept=False)
        elif keep_rules:
            flags = _kept_flags([d.value for d in dice], keep_rules)
            dice = [d if k else d._replace(kept=False) for d, k in zip(dice, flags, strict=True)]
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


_COMPILERS: dict[type, Callable[..., _Eval]] = {
    Literal: _literal,
    Dice: _dice,
    Neg: _neg,
    Arith: _arith,
    Group: _group,
    Func: _func,
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
    records: _Records = []
    try:
        total = compiled.run(src, records)
    except DiceEvalError as exc:
        exc.text = compiled.text
        raise
    assert isinstance(total, int)  # a fraction leaves a function only rounded down
    label, parsed = compiled.parsed.label, compiled.parsed
    if "{" not in compiled.text:  # no groups: every record is a pool
        return RollResult(compiled.text, label, total, tuple(records), parsed)  # type: ignore[arg-type]
    pools = tuple(r for r in records if isinstance(r, DiceGroup))
    subrolls = tuple(r for r in records if isinstance(r, GroupRoll))
    return RollResult(compiled.text, label, total, pools, parsed, subrolls)
