"""Whole-column operations for the sampler (:mod:`referee.sampling`).

Conditions tested on arrays of faces, success scores, and exact fractions as
pairs of integer arrays (numerator, positive denominator in lowest terms) for
the values inside a function's parentheses.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .ast import AnyOf, Compare, CompareOp, Dice, Group
from .errors import DiceLimitError

__all__ = ["IntArray", "compare", "never", "rational", "rational_function", "score"]

IntArray = npt.NDArray[np.int64]


def compare(values: npt.NDArray[Any], cond: Compare | AnyOf) -> npt.NDArray[np.bool_]:
    if isinstance(cond, AnyOf):
        out = np.zeros(values.shape, dtype=bool)
        for c in cond.conds:
            out |= compare(values, c)
        return out
    return compare_one(values, cond)


def compare_one(values: npt.NDArray[Any], cond: Compare) -> npt.NDArray[np.bool_]:
    v = cond.value
    op = cond.op
    if op is CompareOp.EQ:
        out = values == v
    elif op is CompareOp.LT:
        out = values < v
    elif op is CompareOp.LE:
        out = values <= v
    elif op is CompareOp.GT:
        out = values > v
    else:
        out = values >= v
    return np.asarray(out, dtype=np.bool_)


_FRACTION_LIMIT = 1 << 62


def rational(
    op: str, a: IntArray, b: IntArray, c: IntArray, d: IntArray
) -> tuple[IntArray, IntArray]:
    """``a/b op c/d`` in lowest terms, refusing what would overflow 64 bits."""
    biggest = max(int(np.abs(x).max(initial=0)) for x in (a, b, c, d))
    if biggest * biggest * 2 >= _FRACTION_LIMIT:
        raise DiceLimitError("these fractions grow too large for the sampler (use exact odds)")
    if op == "+":
        num, den = a * d + c * b, b * d
    elif op == "-":
        num, den = a * d - c * b, b * d
    elif op == "*":
        num, den = a * c, b * d
    else:
        num, den = a * d, b * c
        sign = np.where(den < 0, -1, 1)
        num, den = num * sign, den * sign
    g = np.gcd(num, den)
    g[g == 0] = 1
    return num // g, den // g


def rational_function(
    name: str, args: list[tuple[IntArray, IntArray]]
) -> tuple[IntArray, IntArray]:
    num, den = args[0]
    if name == "floor":
        return num // den, np.ones_like(num)
    if name == "ceil":
        return -(-num // den), np.ones_like(num)
    if name == "round":  # halves up: floor(x + 1/2)
        return (2 * num + den) // (2 * den), np.ones_like(num)
    if name == "abs":
        return np.abs(num), den
    for onum, oden in args[1:]:  # min, max: compare a/b with c/d as a*d with c*b
        rational("*", num, den, onum, oden)  # refuses what would overflow
        left, right = num * oden, onum * den
        pick = left > right if name == "min" else left < right
        num, den = np.where(pick, onum, num), np.where(pick, oden, den)
    return num, den


def score(values: IntArray, node: Dice | Group) -> IntArray:
    """Success counting: +1 a success, −1 a failure (success first), as :meth:`Dice.score`."""
    assert node.success is not None
    hit = compare(values, node.success)
    out = hit.astype(np.int64)
    if node.failure is not None:
        out -= (~hit & compare(values, node.failure)).astype(np.int64)
    return out


def never(node: Dice, cond: Compare) -> int:
    """A value that does not meet ``cond`` (placeholder for dice that stopped exploding)."""
    for candidate in (0, min(node.faces) - 1, max(node.faces) + 1, -(10**9)):
        if not cond.test(candidate):
            return candidate
    raise AssertionError("every condition excludes some integer")
