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

from .ast import Dice, Expression, Literal, Neg, Node
from .errors import DiceEvalError, DiceLimitError
from .explode import added_dice_pool
from .limits import DEFAULT_LIMITS, Limits
from .parser import format_expr, parse
from .pools import Counts, _convolve, _Dist, _pool, die_distribution

__all__ = ["Odds", "bounds", "die_distribution", "odds"]


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
    return _odds_cached(parsed.root, limits)


@functools.lru_cache(maxsize=1024)
def _odds_cached(root: Node, limits: Limits) -> Odds:
    dist = _dist(root, limits)
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


def _dist(node: Node, limits: Limits) -> _Dist:
    if isinstance(node, Literal):
        return _Dist({node.value: 1}, 1)
    if isinstance(node, Dice):
        return added_dice_pool(node, limits) if node.adds_dice else _pool(node, limits)
    if isinstance(node, Neg):
        inner = _dist(node.operand, limits)
        return _Dist({-o: c for o, c in inner.counts.items()}, inner.denominator, inner.capped)
    acc = _dist(node.first, limits)
    for op, sub in node.rest:
        right = _dist(sub, limits)
        if op == "-":
            right = _Dist({-o: c for o, c in right.counts.items()}, right.denominator, right.capped)
        if op in "+-":
            counts = _convolve(acc.counts, right.counts, limits)
        else:
            counts = _pairwise(acc.counts, right.counts, op, sub, limits)
        acc = _Dist(counts, acc.denominator * right.denominator, acc.capped or right.capped)
    return acc


_PAIR_COST = 20
"""One pair of outcomes multiplied or divided in Python costs about this many
elementary steps of :attr:`Limits.odds_work`, plus one per 256 bits of its counts."""


def _pairwise(a: Counts, b: Counts, op: str, sub: Node, limits: Limits) -> Counts:
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
    if isinstance(node, Literal):
        return node.value, node.value
    if isinstance(node, Neg):
        lo, hi = bounds(node.operand, limits)
        return -hi, -lo
    if isinstance(node, Dice):
        return _dice_bounds(node, limits)
    lo, hi = bounds(node.first, limits)
    for op, sub in node.rest:
        blo, bhi = bounds(sub, limits)
        if op == "+":
            lo, hi = lo + blo, hi + bhi
        elif op == "-":
            lo, hi = lo - bhi, hi - blo
        elif op == "*":
            products = (lo * blo, lo * bhi, hi * blo, hi * bhi)
            lo, hi = min(products), max(products)
        else:
            divisors = [d for d in (blo, bhi, -1, 1) if d != 0 and blo <= d <= bhi]
            if not divisors:
                raise DiceEvalError(f"division by zero: {format_expr(sub)} is always 0")
            quotients = [x // d for x in (lo, hi) for d in divisors]
            lo, hi = min(quotients), max(quotients)
    return lo, hi


def _dice_bounds(node: Dice, limits: Limits) -> tuple[int, int]:
    faces = node.faces
    cond = node.explode_cond
    grows = cond is not None and node.adds_dice and any(cond.test(f) for f in node.faces)
    most = node.count * (limits.explosions + 1) if grows else node.count  # dice in the pool
    if node.success is not None:
        if node.keep is None:
            kept = most
        elif node.keep.drop:
            kept = most - node.keep.count
        else:
            kept = node.keep.count
        return (-kept if node.failure is not None else 0), kept
    fmin, fmax = faces[0], faces[-1]
    if grows:  # each die of a chain counts on its own (less the penalty, for !p)
        fmin = min(fmin, fmin - node.penalty)
        least = (
            node.count if node.keep is None or not node.keep.drop else node.count - node.keep.count
        )
        kept_lo = node.keep.count if node.keep is not None and not node.keep.drop else least
        kept_hi = (
            most
            if node.keep is None
            else (most - node.keep.count if node.keep.drop else node.keep.count)
        )
        ends = [k * f for k in (kept_lo, kept_hi) for f in (fmin, fmax)]
        return min(ends), max(ends)
    if cond is not None and any(cond.test(f) for f in faces):
        chain = limits.explosions + 1
        fmin = min(fmin, fmin * chain)
        fmax = max(fmax, fmax * chain)
    kept = node.keep.kept_range(node.count)[1] if node.keep else node.count
    return kept * fmin, kept * fmax
