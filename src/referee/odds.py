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

from .ast import Dice, Expression, Literal, Neg, Node
from .errors import DiceEvalError, DiceLimitError
from .limits import DEFAULT_LIMITS, Limits
from .parser import format_expr, parse

__all__ = ["Odds", "bounds", "die_distribution", "odds"]

Counts = dict[int, int]
Big = Any
"""A GMP integer (``gmpy2.mpz``): big products are many times faster than with ``int``."""


_GMP_BYTES = 2048
"""Packed integers at least this large use GMP; smaller ones stay ``int`` (no import cost)."""


def _mpz(value: int, size: int = _GMP_BYTES) -> Big:
    if size < _GMP_BYTES:
        return value
    from gmpy2 import mpz  # type: ignore[import-untyped]

    return mpz(value)


_DIRECT = 4096
"""Below this many outcome pairs a convolution is done directly, not packed."""


@dataclass(frozen=True, slots=True)
class _Dist:
    counts: Counts
    denominator: int
    capped: bool = False


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
        return _pool(node, limits)
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


# ------------------------------------------------------------ packed integers


def _width(bound: int) -> int:
    """Bytes per slot so that every coefficient up to ``bound`` fits."""
    return max(1, (bound.bit_length() + 8) // 8)


def _pack(counts: Counts, lo: int, slots: int, width: int) -> Big:
    """Pack counts into one GMP integer, ``width`` bytes per outcome from ``lo`` up."""
    buf = bytearray(slots * width)
    for o, c in counts.items():
        i = (o - lo) * width
        buf[i : i + width] = c.to_bytes(width, "little")
    return _mpz(int.from_bytes(buf, "little"), len(buf))


def _unpack(packed: Big, lo: int, width: int) -> Counts:
    value = int(packed)
    raw = value.to_bytes((value.bit_length() + 7) // 8 + width, "little")
    out: Counts = {}
    for slot in range(len(raw) // width):
        c = int.from_bytes(raw[slot * width : (slot + 1) * width], "little")
        if c:
            out[lo + slot] = c
    return out


def _check_size(slots: int, width: int, limits: Limits) -> None:
    if slots > limits.odds_outcomes:
        raise DiceLimitError(
            f"exact odds would need {slots:,} outcomes; the limit is "
            f"{limits.odds_outcomes:,} (try sample instead)"
        )
    if slots * width * 8 > limits.odds_work:
        raise DiceLimitError(
            f"exact odds would need {slots * width * 8:,} bits of exact arithmetic; the limit is "
            f"{limits.odds_work:,} (try sample, or a lower explosion cap)"
        )


def _convolve(a: Counts, b: Counts, limits: Limits) -> Counts:
    """The distribution of the sum of two independent distributions."""
    if len(a) * len(b) <= _DIRECT:
        out: Counts = {}
        for x, cx in a.items():
            for y, cy in b.items():
                out[x + y] = out.get(x + y, 0) + cx * cy
        return out
    alo, ahi, blo, bhi = min(a), max(a), min(b), max(b)
    bound = sum(a.values()) * sum(b.values())
    width = _width(bound)
    _check_size(ahi - alo + bhi - blo + 1, width, limits)
    pa = _pack(a, alo, ahi - alo + 1, width)
    pb = _pack(b, blo, bhi - blo + 1, width)
    return _unpack(pa * pb, alo + blo, width)


def _power(d: Counts, n: int, limits: Limits) -> Counts:
    """The distribution of the sum of ``n`` independent copies of ``d``."""
    if n == 0:
        return {0: 1}
    if len(d) == 1:
        ((o, c),) = d.items()
        return {o * n: c**n}
    if n == 1:
        return dict(d)
    lo, hi = min(d), max(d)
    width = _width(sum(d.values()) ** n)
    _check_size(n * (hi - lo) + 1, width, limits)
    return _unpack(_pack(d, lo, hi - lo + 1, width) ** n, lo * n, width)


# ------------------------------------------------------------------ one die


def die_distribution(dice: Dice, limits: Limits = DEFAULT_LIMITS) -> tuple[Counts, int, bool]:
    """One die's value with rerolls and explosions: ``(counts, denominator, capped)``.

    Rerolls apply to every roll and are exact (``r`` conditions the die on not
    matching; ``ro`` rerolls once); explosions compound and stop at the cap in
    ``limits``, exactly as :mod:`referee.roller` rolls them.
    """
    return _die_cached(dice.sides, dice.reroll, dice.explode_cond, limits)


@functools.lru_cache(maxsize=256)
def _die_cached(
    sides: int, reroll: object, explode: object, limits: Limits
) -> tuple[Counts, int, bool]:
    from .ast import Compare, Reroll

    faces = (-1, 0, 1) if sides == 0 else range(1, sides + 1)
    counts: Counts = dict.fromkeys(faces, 1)
    denom = len(counts)
    capped = False
    if isinstance(reroll, Reroll):
        match = {f for f in counts if reroll.cond.test(f)}
        m = len(match)
        if m and reroll.once:
            # ro: a matching face is rolled again once and the second face stands:
            # P(f) = (1 + m/D) / D for a face that does not match, (m/D) / D for one that does.
            counts = {f: (m if f in match else denom + m) * c for f, c in counts.items()}
            denom = denom * denom
        elif m:
            # r: the die conditioned on not matching, uniform on the other faces.
            counts = {f: c for f, c in counts.items() if f not in match}
            denom = len(counts)
    if isinstance(explode, Compare):
        boom = {f: c for f, c in counts.items() if explode.test(f)}
        if boom:
            rest = {f: c for f, c in counts.items() if f not in boom}
            span = max(abs(f) for f in counts) * (limits.explosions + 1)
            _check_size(2 * span + 1, _width(denom ** (limits.explosions + 1)), limits)
            value = dict(counts)
            vden = denom
            for _ in range(limits.explosions):
                # One more level of explosion: a non-exploding first face stands,
                # an exploding one adds a whole (shorter-capped) chain.
                new = _convolve(boom, value, limits)
                for f, c in rest.items():
                    new[f] = new.get(f, 0) + c * vden
                value, vden = new, vden * denom
            counts, denom = value, vden
            capped = True
    return counts, denom, capped


# ---------------------------------------------------------------------- pools


def _pool(dice: Dice, limits: Limits) -> _Dist:
    die, denom, capped = die_distribution(dice, limits)
    n = dice.count
    if dice.success is not None:
        test = dice.success.test

        def contribution(v: int) -> int:
            return 1 if test(v) else 0
    else:

        def contribution(v: int) -> int:
            return v

    if dice.keep is None or dice.keep.kept_range(n)[1] == n:
        single: Counts = {}
        for v, c in die.items():
            g = contribution(v)
            single[g] = single.get(g, 0) + c
        return _Dist(_power(single, n, limits), denom**n, capped)
    highest, k = dice.keep.kept_range(n)
    return _Dist(_keep(die, n, k, highest, contribution, limits), denom**n, capped)


_STEP_OVERHEAD = 256
"""A step of the keep/drop programme costs at least this many byte operations."""


def _keep(
    die: Counts, n: int, k: int, highest: bool, g: Callable[[int], int], limits: Limits
) -> Counts:
    """Sum of ``g`` over the ``k`` best of ``n`` dice, as packed-integer dynamic programming.

    Values are visited from the best down. ``state[m]`` is a polynomial (packed
    in one integer, the exponent being the kept sum so far) counting the ways
    to place ``m < k`` dice on the values visited so far. Placing ``c`` more
    dice on value ``v`` multiplies by ``C(n - m, c) * w_v**c``; once ``k`` dice
    are placed, the other ``n - m - c`` dice all lie strictly below ``v``,
    which multiplies by ``(weight below v) ** (n - m - c)``.
    """
    if k == 0:
        return {0: sum(die.values()) ** n}
    if len(die) == 1:  # one face (a d1): the kept sum is certain
        ((face, weight),) = die.items()
        return {g(face) * k: weight**n}
    order = sorted(die, reverse=highest)
    gs = {v: g(v) for v in order}
    gmin = min(gs.values())
    span = max(gs.values()) - gmin
    total_weight = sum(die.values())
    width = _width(total_weight**n)
    slots = k * span + 1
    _check_size(slots, width, limits)
    # Each step multiplies and shifts a packed integer of up to slots * width bytes,
    # and costs at least as much as a couple of hundred bytes in Python overhead.
    cost = len(order) * k * n * max(slots * width, _STEP_OVERHEAD)
    if cost > limits.odds_work * 100:
        raise DiceLimitError(
            f"exact keep/drop odds would take about {cost:,} byte operations; the limit is "
            f"{limits.odds_work * 100:,} (try sample, or a lower explosion cap)"
        )
    shift = width * 8
    size = slots * width
    zero = _mpz(0, size)
    state: list[Big] = [zero] * k
    state[0] = _mpz(1, size)
    result = zero
    below = total_weight
    for v in order:
        w = die[v]
        below -= w
        step = (gs[v] - gmin) * shift
        new = [zero] * k
        for m in range(k):
            poly = state[m]
            if not poly:
                continue
            free = n - m
            wc = 1
            for c in range(free + 1):
                coef = math.comb(free, c) * wc
                if m + c < k:
                    new[m + c] += (poly * coef) << (step * c)
                else:
                    rest = free - c
                    result += (poly * coef * below**rest) << (step * (k - m))
                wc *= w
        state = new
    return _unpack(result, k * gmin, width)


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
    if node.success is not None:
        kept = node.keep.kept_range(node.count)[1] if node.keep else node.count
        return 0, kept
    fmin, fmax = faces[0], faces[-1]
    cond = node.explode_cond
    if cond is not None and any(cond.test(f) for f in faces):
        chain = limits.explosions + 1
        fmin = min(fmin, fmin * chain)
        fmax = max(fmax, fmax * chain)
    kept = node.keep.kept_range(node.count)[1] if node.keep else node.count
    return kept * fmin, kept * fmax
