"""Stage 3 of the pipeline: the exact distribution of any dice expression.

Distributions are integer counts over a common denominator, so every
probability is an exact :class:`~fractions.Fraction`. Sums of dice use
Kronecker substitution: a distribution is packed into one big integer and
Python's big-integer multiplication does the convolution, which is much faster
than convolving outcome by outcome. Keep/drop pools use a dynamic programme
over the faces from the best down (see :func:`_keep`), also on packed
integers. Rerolls are exact (``r`` is the die conditioned on not matching);
exploding dice follow the roller's explosion cap exactly, and the result says
when the cap matters.

Every computation is bounded by :class:`~referee.limits.Limits` and refused
with :class:`~referee.errors.DiceLimitError` before it starts if it would be
too large.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .ast import FUDGE, Dice, Expression, Func, Group, Literal, Neg, Node, window
from .errors import DiceEvalError, DiceLimitError, RefereeError
from .exact import FUNCTIONS, apply_function, combine, group_counts
from .explode import added_dice_pool
from .limits import DEFAULT_LIMITS, Limits
from .parser import format_expr, parse
from .pools import Counts, _convolve, _Dist, _pool, die_distribution

__all__ = ["Odds", "bounds", "die_distribution", "odds", "whole_valued"]


@dataclass(frozen=True, slots=True)
class Odds:
    """The exact distribution of an expression's total.

    Outcomes are listed in increasing order with their integer counts over
    :attr:`denominator`; every probability is an exact ``Fraction``.
    """

    expression: str
    """The expression in canonical notation."""
    outcomes: tuple[int, ...]
    """Every possible total, lowest first."""
    counts: tuple[int, ...]
    """How many of the :attr:`denominator` equally likely cases give each outcome."""
    denominator: int
    """The common denominator; ``sum(counts) == denominator``."""
    capped: bool = False
    """True when the explosion cap changes the distribution (as it does the roller)."""

    @property
    def distribution(self) -> dict[int, Fraction]:
        """``{outcome: probability}``, lowest outcome first."""
        return {
            o: Fraction(c, self.denominator)
            for o, c in zip(self.outcomes, self.counts, strict=False)
        }

    def probability(self, outcome: int) -> Fraction:
        """The exact probability of one total."""
        return self.p("==", outcome)

    def p(self, op: str, value: int) -> Fraction:
        """The probability that the total compares to ``value`` by ``op``.

        ``op`` is one of ``<``, ``<=``, ``==``, ``>=``, ``>``.

        >>> odds("3d6").p("<=", 10)
        Fraction(1, 2)
        """
        test = _OPS.get(op)
        if test is None:
            raise ValueError(f"unknown comparison {op!r}; use one of {', '.join(_OPS)}")
        hits = sum(c for o, c in zip(self.outcomes, self.counts, strict=False) if test(o, value))
        return Fraction(hits, self.denominator)

    def at_least(self, value: int) -> Fraction:
        """P(total >= value)."""
        return self.p(">=", value)

    def at_most(self, value: int) -> Fraction:
        """P(total <= value)."""
        return self.p("<=", value)

    @property
    def mean(self) -> Fraction:
        """The exact expected total."""
        return Fraction(
            sum(o * c for o, c in zip(self.outcomes, self.counts, strict=False)), self.denominator
        )

    @property
    def variance(self) -> Fraction:
        """The exact variance of the total."""
        m = self.mean
        sq = Fraction(
            sum(o * o * c for o, c in zip(self.outcomes, self.counts, strict=False)),
            self.denominator,
        )
        return sq - m * m

    @property
    def stdev(self) -> float:
        """The standard deviation of the total."""
        return math.sqrt(self.variance)

    @property
    def notes(self) -> tuple[str, ...]:
        """Caveats a reader should see with these odds."""
        if self.capped:
            return (
                "exploding dice are capped as the roller caps them "
                "(100 explosions per die by default)",
            )
        return ()


_OPS: dict[str, Callable[[int, int], bool]] = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    "==": lambda a, b: a == b,
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
}


def odds(expr: str | Expression, limits: Limits = DEFAULT_LIMITS) -> Odds:
    """The exact distribution of a dice expression, with mean, deviation and ``p``.

    >>> o = odds("3d6")
    >>> o.p(">=", 10), o.mean
    (Fraction(5, 8), Fraction(21, 2))

    Raises:
        DiceSyntaxError, DiceLimitError: bad notation, or too much work for exact odds.
        DiceEvalError: the expression can divide by zero.
    """
    parsed = expr if isinstance(expr, Expression) else parse(expr, limits)
    found = _odds_or_refusal(parsed.root, limits)
    if isinstance(found, RefereeError):
        raise found
    return found


@functools.lru_cache(maxsize=1024)
def _odds_or_refusal(root: Node, limits: Limits) -> Odds | RefereeError:
    """The odds, or the engine's refusal of them, both kept: a roll refused exact odds
    as too costly is refused again at once, not after the same work (a game room reads
    a command in a worker thread, then rolls it on the event loop)."""
    try:
        return _odds_uncached(root, limits)
    except RefereeError as exc:
        return exc


def _odds_uncached(root: Node, limits: Limits) -> Odds:
    if isinstance(root, Dice):  # a pool alone: its own checks suffice
        dist = _dist(root, limits)
    else:  # a part of a larger whole: refuse a die too big to combine before building it
        dist = _dist(root, limits, part=True)
    g = 0
    for c in dist.counts.values():
        g = math.gcd(g, c)
    g = math.gcd(g, dist.denominator)
    items = sorted((o, c // g) for o, c in dist.counts.items() if c)
    return Odds(
        format_expr(root),
        tuple(o for o, _ in items),
        tuple(c for _, c in items),
        dist.denominator // g,
        dist.capped,
    )


def _dist(node: Node, limits: Limits, exact: bool = False, part: bool = False) -> _Dist:
    """The distribution of ``node``; with ``exact`` (inside a function's parentheses)
    ``/`` is exact and outcomes may be fractions, else every outcome is whole. With
    ``part`` (a node inside a larger expression), a die with more faces than the
    budget's outcomes is refused before its distribution is built: combining it with
    anything would be refused after (``max(1d999000, 1d999001)`` cost seconds so)."""
    if isinstance(node, Literal):
        return _Dist({node.value: 1}, 1)
    if isinstance(node, Dice):
        if part and node.sides != FUDGE and node.sides > limits.odds_outcomes:
            raise DiceLimitError(
                f"exact odds of a d{node.sides} within a larger roll would need more than "
                f"{limits.odds_outcomes:,} outcomes (try sample instead)"
            )
        if node.adds_dice:
            return added_dice_pool(node, limits)
        return _pool(node, limits)
    if isinstance(node, Neg):
        inner = _dist(node.operand, limits, exact, True)
        return _Dist({-o: c for o, c in inner.counts.items()}, inner.denominator, inner.capped)
    # Groups, functions and exact division live in .exact, imported when first needed.
    if isinstance(node, Group):
        seen: dict[Node, _Dist] = {}  # {5d6!!, 5d6!!, ...}: each distinct sub-roll once
        items = [seen[i] if i in seen else seen.setdefault(i, _dist(i, limits, exact, True))
                 for i in node.items]  # fmt: skip
        return _Dist(
            group_counts([i.counts for i in items], node, limits),
            math.prod(i.denominator for i in items),
            any(i.capped for i in items),
        )
    if isinstance(node, Func):
        args = [_dist(a, limits, True, True) for a in node.args]
        counts = apply_function(node.name, [a.counts for a in args], limits)
        if not exact:  # a fraction that leaves a function at the top level rounds down
            counts = _floored(counts)
        return _Dist(counts, math.prod(a.denominator for a in args), any(a.capped for a in args))
    acc = _dist(node.first, limits, exact, True)
    for op, sub in node.rest:
        right = _dist(sub, limits, exact, True)
        whole = not exact or all(type(o) is int for d in (acc, right) for o in d.counts)
        if op in "+-" and whole:
            b = right.counts if op == "+" else {-o: c for o, c in right.counts.items()}
            counts = _convolve(acc.counts, b, limits, acc.capped or right.capped)
        elif op in "*/" and not exact:
            counts = _pairwise(acc.counts, right.counts, op, sub, limits)
        else:
            counts = combine(acc.counts, right.counts, op, limits, format_expr(sub))
        acc = _Dist(counts, acc.denominator * right.denominator, acc.capped or right.capped)
    return acc


def _floored(counts: dict[Any, int]) -> Counts:
    out: Counts = {}
    for o, c in counts.items():
        f = math.floor(o)
        out[f] = out.get(f, 0) + c
    return out


_PAIR_COST = 20
"""One pair of outcomes multiplied or divided in Python costs about this many
elementary steps of :attr:`Limits.odds_work`, plus one per 256 bits of its counts."""


def _pairwise(a: Counts, b: Counts, op: str, sub: Node, limits: Limits) -> Counts:
    """Products, and whole-number division rounding down (outside functions)."""
    bits = max(a.values()).bit_length() + max(b.values()).bit_length()
    work = len(a) * len(b) * _PAIR_COST * (1 + bits // 256)
    if work > limits.odds_work:
        raise DiceLimitError(
            f"exact odds would combine {len(a):,} by {len(b):,} outcomes with "
            f"{bits:,}-bit counts; that is more than the limit of {limits.odds_work:,} "
            "steps of work (try sample instead)"
        )
    if op == "/" and b.get(0):
        raise DiceEvalError(f"division by zero is possible: {format_expr(sub)} can be 0")
    out: Counts = {}
    for x, cx in a.items():
        for y, cy in b.items():
            v = x * y if op == "*" else x // y
            out[v] = out.get(v, 0) + cx * cy
    return out


# ---------------------------------------------------------------------- bounds


def bounds(node: Node, limits: Limits = DEFAULT_LIMITS) -> tuple[int, int]:
    """The least and greatest total ``node`` can roll (interval arithmetic)."""
    lo, hi = _bounds(node, limits, exact=False)
    return math.floor(lo), math.floor(hi)


Bound = int | Fraction


def _bounds(node: Node, limits: Limits, exact: bool) -> tuple[Bound, Bound]:
    if isinstance(node, Literal):
        return node.value, node.value
    if isinstance(node, Neg):
        lo, hi = _bounds(node.operand, limits, exact)
        return -hi, -lo
    if isinstance(node, Dice):
        return _dice_bounds(node, limits)
    if isinstance(node, Group):
        return _group_bounds(node, limits, exact)
    if isinstance(node, Func):
        return _func_bounds(node, limits, exact)
    lo, hi = _bounds(node.first, limits, exact)
    for op, sub in node.rest:
        blo, bhi = _bounds(sub, limits, exact)
        if op == "+":
            lo, hi = lo + blo, hi + bhi
        elif op == "-":
            lo, hi = lo - bhi, hi - blo
        elif op == "*":
            products = (lo * blo, lo * bhi, hi * blo, hi * bhi)
            lo, hi = min(products), max(products)
        else:
            if blo == bhi == 0:
                raise DiceEvalError(f"division by zero: {format_expr(sub)} is always 0")
            if blo < 0 < bhi or 0 in (blo, bhi):
                if not whole_valued(sub, exact):
                    # A fraction can come as near 0 as it likes: no useful bound.
                    raise DiceLimitError(
                        f"cannot bound a division by {format_expr(sub)}, which can be a "
                        "fraction near 0 (divide by a whole number instead)"
                    )
            # A whole divisor is at least 1 away from 0.
            divisors = [d for d in (blo, bhi, -1, 1) if d != 0 and blo <= d <= bhi]
            quotients: list[Bound] = [Fraction(x) / d for x in (lo, hi) for d in divisors]
            if not exact:
                quotients = [math.floor(q) for q in quotients]
            lo, hi = min(quotients), max(quotients)
    return lo, hi


def whole_valued(node: Node, exact: bool) -> bool:
    """Whether every value ``node`` can take is a whole number."""
    if isinstance(node, (Literal, Dice)):
        return True
    if isinstance(node, Neg):
        return whole_valued(node.operand, exact)
    if isinstance(node, Group):
        return all(whole_valued(i, exact) for i in node.items)
    if isinstance(node, Func):
        return (
            node.name in ("floor", "ceil", "round")
            or not exact
            or all(whole_valued(a, True) for a in node.args)
        )
    if exact and any(op == "/" for op, _ in node.rest):
        return False
    return all(whole_valued(n, exact) for n in (node.first, *(n for _, n in node.rest)))


def _group_bounds(node: Group, limits: Limits, exact: bool) -> tuple[Bound, Bound]:
    lo, hi = window(node.keep, len(node.items))
    kept = hi - lo
    if node.success is not None:
        return (-kept if node.failure is not None else 0), kept
    items = [_bounds(i, limits, exact) for i in node.items]
    lows = sorted(b[0] for b in items)
    highs = sorted((b[1] for b in items), reverse=True)
    return sum(lows[:kept], 0), sum(highs[:kept], 0)


def _func_bounds(node: Func, limits: Limits, exact: bool) -> tuple[Bound, Bound]:
    args = [_bounds(a, limits, exact=True) for a in node.args]
    name = node.name
    lo: Bound
    hi: Bound
    if name == "min":
        lo, hi = min(a[0] for a in args), min(a[1] for a in args)
    elif name == "max":
        lo, hi = max(a[0] for a in args), max(a[1] for a in args)
    elif name == "abs":
        alo, ahi = args[0]
        lo = alo if alo >= 0 else (-ahi if ahi <= 0 else 0)
        hi = -alo if -alo > ahi else ahi
    else:  # floor, ceil and round never decrease
        fn = FUNCTIONS[name]
        lo, hi = fn([args[0][0]]), fn([args[0][1]])
    return (lo, hi) if exact else (math.floor(lo), math.floor(hi))


def _dice_bounds(node: Dice, limits: Limits) -> tuple[int, int]:
    cond = node.explode_cond
    grows = cond is not None and node.adds_dice and node.matching(cond) > 0
    most = node.count * (limits.explosions + 1) if grows else node.count  # dice in the pool
    # How many dice are kept grows with the pool (each rule keeps no fewer of more dice).
    kept_lo, kept_hi = (hi - lo for lo, hi in (window(node.keep, n) for n in (node.count, most)))
    if node.success is not None:
        return (-kept_hi if node.failure is not None else 0), kept_hi
    fmin, fmax = (-1, 1) if node.sides == FUDGE else (1, node.sides)
    if grows:  # each die of a chain counts on its own (less the penalty, for !p)
        fmin = min(fmin, fmin - node.penalty)
        ends = [k * f for k in (kept_lo, kept_hi) for f in (fmin, fmax)]
        return min(ends), max(ends)
    if cond is not None and node.matching(cond):
        chain = limits.explosions + 1
        fmin = min(fmin, fmin * chain)
        fmax = max(fmax, fmax * chain)
    return kept_lo * fmin, kept_lo * fmax
