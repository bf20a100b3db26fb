"""The exact distributions of groups of sub-rolls and of functions.

Part of stage 3 (:mod:`referee.odds`). Inside a function's parentheses
arithmetic is exact, so these distributions may have fractions as outcomes
(``7/2``); a function makes whole numbers of them (``floor``, ``ceil``,
``round``), and :mod:`referee.odds` rounds down whatever fraction is left at
the top level, as the roller does.

* A group without keep/drop is the sum of its sub-rolls' scores (their totals,
  or +1/−1/0 against a target).
* A group with keep/drop follows the sub-rolls one at a time, keeping only the
  sorted values that can still fall in the kept window of ranks (the highest
  ones, or the lowest, whichever is fewer); the size of that table is checked
  against the limits as it grows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from .ast import Group, window
from .errors import DiceEvalError, DiceLimitError
from .limits import Limits
from .pools import _convolve

__all__ = ["FUNCTIONS", "apply_function", "combine", "group_counts"]

AnyCounts = dict[Any, int]
"""Outcome counts whose outcomes are ``int`` (or ``Fraction`` inside a function)."""

_PAIR_COST = 20
"""One pair of outcomes combined in Python costs about this many steps of work."""


def _whole(counts: AnyCounts) -> bool:
    return all(type(o) is int for o in counts)


def combine(a: AnyCounts, b: AnyCounts, op: str, limits: Limits, what: str = "") -> AnyCounts:
    """The distribution of ``a op b`` for independent ``a`` and ``b``; ``/`` is exact
    division (a fraction unless it divides evenly). ``what`` names the divisor."""
    if op in "+-" and _whole(a) and _whole(b):
        return _convolve(a, {-o if op == "-" else o: c for o, c in b.items()}, limits)
    bits = max(a.values()).bit_length() + max(b.values()).bit_length()
    work = len(a) * len(b) * _PAIR_COST * (1 + bits // 256)
    if work > limits.odds_work:
        raise DiceLimitError(
            f"exact odds would combine {len(a):,} by {len(b):,} outcomes; that is more than "
            f"the limit of {limits.odds_work:,} steps of work (try sample instead)"
        )
    if op == "/" and b.get(0):
        raise DiceEvalError(f"division by zero is possible: {what} can be 0")
    fn = _OPS[op]
    out: AnyCounts = {}
    for x, cx in a.items():
        for y, cy in b.items():
            v = _normal(fn(x, y))
            out[v] = out.get(v, 0) + cx * cy
    return out


def _normal(value: int | Fraction) -> int | Fraction:
    """Whole fractions as ints, so that ``7/7`` and ``1`` are one outcome."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    return value


_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "*": lambda x, y: x * y,
    "/": lambda x, y: Fraction(x, y) if type(x) is int and type(y) is int else x / y,
}


def _round(value: Any) -> int:
    """Halves round up, as the peers do: ``round(5/2) == 3``, ``round(-5/2) == -2``."""
    return int(math.floor(value + Fraction(1, 2)))


FUNCTIONS: dict[str, Callable[[Sequence[Any]], Any]] = {
    "floor": lambda v: math.floor(v[0]),
    "ceil": lambda v: math.ceil(v[0]),
    "round": lambda v: _round(v[0]),
    "abs": lambda v: abs(v[0]),
    "min": min,
    "max": max,
}
"""What each function does to its arguments' values (the roller uses the same table)."""


def apply_function(name: str, args: list[AnyCounts], limits: Limits) -> AnyCounts:
    """The distribution of ``name(args...)`` for independent arguments."""
    fn = FUNCTIONS[name]
    if len(args) == 1:
        out: AnyCounts = {}
        for v, c in args[0].items():
            r = _normal(fn([v]))
            out[r] = out.get(r, 0) + c
        return out
    acc = args[0]
    for nxt in args[1:]:
        work = len(acc) * len(nxt) * _PAIR_COST
        if work > limits.odds_work:
            raise DiceLimitError(
                f"exact odds of {name}() would combine {len(acc):,} by {len(nxt):,} outcomes "
                "(try sample instead)"
            )
        step: AnyCounts = {}
        for x, cx in acc.items():
            for y, cy in nxt.items():
                r = fn([x, y])
                step[r] = step.get(r, 0) + cx * cy
        acc = step
    return acc


def group_counts(items: list[AnyCounts], node: Group, limits: Limits) -> AnyCounts:
    """The distribution of a group's value, from its sub-rolls' distributions."""
    n = len(items)
    lo, hi = window(node.keep, n)
    if (lo, hi) == (0, n):
        acc: AnyCounts = {0: 1}
        for counts in items:
            scored: AnyCounts = {}
            for v, c in counts.items():
                s = node.score(v)
                scored[s] = scored.get(s, 0) + c
            acc = combine(acc, scored, "+", limits)
        return acc
    top = hi <= n - lo  # track the highest values, else the lowest
    size = hi if top else n - lo
    budget = limits.odds_work // 16
    table: dict[tuple[Any, ...], int] = {(): 1}
    work = 0
    for counts in items:
        # Counted before the step, so a step too big is never begun.
        work += len(table) * len(counts) * (size + 1)
        if work > budget:
            raise DiceLimitError(
                "exact odds of keeping or dropping these sub-rolls would take too long (try sample)"
            )
        nxt: dict[tuple[Any, ...], int] = {}
        for state, c in table.items():
            for v, w in counts.items():
                key = tuple(sorted((*state, v), reverse=top)[:size])
                nxt[key] = nxt.get(key, 0) + c * w
        if len(nxt) > limits.odds_outcomes:
            raise DiceLimitError(
                "exact odds of keeping or dropping these sub-rolls would take too long (try sample)"
            )
        table = nxt
    out: AnyCounts = {}
    for state, c in table.items():
        kept = state[lo:hi] if top else state[n - hi : n - lo]
        total = _normal(sum((node.score(v) for v in kept), 0))
        out[total] = out.get(total, 0) + c
    return out
