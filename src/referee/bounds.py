"""The range of values a dice expression can take, from the expression alone.

A game room logs every result as JSON that any language reads exactly, so no
number in it may pass ±(2**53 − 1) (the rooms' contract, "The log"). A roll that
*could* pass it must be refused before any die is drawn: refused after the draw,
its refusal would tell the roller something of dice the log does not hold. So
:func:`largest` bounds every value a roll shows (its total, each sub-roll of a
group) by interval arithmetic over the tree, never by rolling.

>>> from referee.parser import parse
>>> largest(parse("1d20*1000000000*1000000000").root)
20000000000000000000
>>> largest(parse("4d6kh3+2").root)
20
"""

from __future__ import annotations

import math
from fractions import Fraction

from .ast import FUDGE, Dice, Func, Group, Literal, Neg, Node, window
from .limits import DEFAULT_LIMITS, Limits

__all__ = ["largest", "value_range", "zero_divisor"]

_Range = tuple[Fraction, Fraction]


class _Seen(list[_Range]):
    """The ranges of the values a roll shows, and the divisors whose range holds 0."""

    def __init__(self) -> None:
        super().__init__()
        self.zeros: list[Node] = []


class _Unbounded(Exception):
    """A division by a range that holds 0 and fractions near it: no bound is known."""


def largest(node: Node, limits: Limits = DEFAULT_LIMITS) -> int | None:
    """The largest magnitude any value a roll of ``node`` shows can have (its total, and
    each sub-roll of a group), rounded up; None when no bound is known (a division
    by a fraction that can come near 0, inside a function's parentheses)."""
    seen = _Seen()
    try:
        seen.append(_range(node, limits, False, seen))
    except _Unbounded:
        return None
    return max(math.ceil(max(abs(lo), abs(hi))) for lo, hi in seen)


def value_range(node: Node, limits: Limits = DEFAULT_LIMITS) -> tuple[Fraction, Fraction] | None:
    """``(lowest, highest)`` a roll of ``node`` can total (a range that holds every
    total, perhaps wider); None when no bound is known.

    >>> from referee.parser import parse
    >>> value_range(parse("2d6-3").root)
    (Fraction(-1, 1), Fraction(9, 1))
    """
    try:
        return _range(node, limits, False, _Seen())
    except _Unbounded:
        return None


def _dice(node: Dice, limits: Limits) -> _Range:
    low, high = (-1, 1) if node.sides == FUDGE else (1, node.sides)
    most = node.count  # dice in the pool, at most
    cond = node.explode_cond
    if cond is not None and node.matching(cond):
        if node.adds_dice:
            most *= limits.explosions + 1
            low -= node.penalty
        else:  # compounding: one die's value is its whole chain
            high *= limits.explosions + 1
    kept_lo, kept_hi = window(node.keep, node.count)
    least = kept_hi - kept_lo  # dice kept, at least (explosions only add)
    if node.success is not None:
        return Fraction(-most if node.failure is not None else 0), Fraction(most)
    kept = least if most == node.count else most  # more dice only where explosions add them
    return Fraction(least * low if low >= 0 else kept * low), Fraction(max(0, kept * high))


def _range(node: Node, limits: Limits, exact: bool, seen: _Seen) -> _Range:
    """The range of ``node``; ``exact`` inside a function (``/`` is exact division)."""
    if isinstance(node, Literal):
        return Fraction(node.value), Fraction(node.value)
    if isinstance(node, Dice):
        return _dice(node, limits)
    if isinstance(node, Neg):
        lo, hi = _range(node.operand, limits, exact, seen)
        return -hi, -lo
    if isinstance(node, Group):
        items = [_range(i, limits, exact, seen) for i in node.items]
        seen.extend(items)  # each sub-roll's total is shown
        if node.success is not None:
            return Fraction(-len(items)), Fraction(len(items))
        zero = Fraction(0)
        if node.keep:  # k of the sub-rolls: at least the k lowest lows, at most the k highest highs
            first, last = window(node.keep, len(items))
            k = last - first
            lows = sorted(lo for lo, _ in items)[:k]
            highs = sorted((hi for _, hi in items), reverse=True)[:k]
            return sum(lows, zero), sum(highs, zero)
        return sum((lo for lo, _ in items), zero), sum((hi for _, hi in items), zero)
    if isinstance(node, Func):
        args = [_range(a, limits, True, seen) for a in node.args]
        return _function(node.name, args, exact)
    lo, hi = _range(node.first, limits, exact, seen)
    for op, sub in node.rest:
        right = _range(sub, limits, exact, seen)
        if op == "/" and right[0] <= 0 <= right[1]:
            seen.zeros.append(sub)
        lo, hi = _arith(op, (lo, hi), right, exact)
    return lo, hi


def zero_divisor(node: Node, limits: Limits = DEFAULT_LIMITS) -> Node | None:
    """The first divisor in ``node`` that a roll could bring to 0 (``1d2-1`` in
    ``10/(1d2-1)``), or None. A room refuses such a roll before drawing: whether the
    division fails would depend on the dice.

    >>> from referee.parser import parse
    >>> from referee.notation import format_expr
    >>> format_expr(zero_divisor(parse("10/(1d2-1)").root))
    '1d2 - 1'
    >>> zero_divisor(parse("10/1d2").root) is None
    True
    """
    seen = _Seen()
    try:
        _range(node, limits, False, seen)
    except _Unbounded:
        pass
    return seen.zeros[0] if seen.zeros else None


def _function(name: str, args: list[_Range], exact: bool) -> _Range:
    lo, hi = args[0]
    if name == "min":
        lo, hi = min(a[0] for a in args), min(a[1] for a in args)
    elif name == "max":
        lo, hi = max(a[0] for a in args), max(a[1] for a in args)
    elif name == "abs":
        top = max(abs(lo), abs(hi))
        lo, hi = (Fraction(0) if lo <= 0 <= hi else min(abs(lo), abs(hi))), top
    elif name in ("floor", "ceil", "round"):
        lo, hi = Fraction(math.floor(lo)), Fraction(math.ceil(hi))
    if not exact:  # a fraction leaving a function at the top level rounds down
        lo, hi = Fraction(math.floor(lo)), Fraction(math.floor(hi))
    return lo, hi


def _arith(op: str, left: _Range, right: _Range, exact: bool) -> _Range:
    (a, b), (c, d) = left, right
    if op == "+":
        return a + c, b + d
    if op == "-":
        return a - d, b - c
    if op == "*":
        corners = (a * c, a * d, b * c, b * d)
        return min(corners), max(corners)
    # "/": exact inside a function, else rounding down. A divisor that is 0 fails when
    # it happens, so only its other values bound the quotient.
    if c <= 0 <= d:
        if exact:
            raise _Unbounded
        top = max(abs(a), abs(b))  # a whole divisor other than 0 is at least 1 in size
        return -top, top
    corners = (a / c, a / d, b / c, b / d)
    lo, hi = min(corners), max(corners)
    return (lo, hi) if exact else (Fraction(math.floor(lo)), Fraction(math.floor(hi)))
