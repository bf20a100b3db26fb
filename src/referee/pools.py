"""The exact distribution of one die and of one pool, on packed big integers.

Part of stage 3 (:mod:`referee.odds`). A distribution is integer counts over a
common denominator. Sums of dice use Kronecker substitution: a distribution is
packed into one big integer and big-integer multiplication (GMP for large
ones) does the convolution. Keep/drop pools use a dynamic programme over the
faces from the best down (:func:`_keep`), also on packed integers. Rerolls are
exact; explosions follow the roller's cap. Every step is bounded by
:class:`~referee.limits.Limits` before it starts.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .ast import FUDGE, Compare, Dice, Reroll, window
from .errors import DiceLimitError
from .limits import DEFAULT_LIMITS, Limits

__all__ = ["Counts", "die_distribution"]

Counts = dict[int, int]
Big = Any
"""A GMP integer (``gmpy2.mpz``): big products are many times faster than with ``int``."""


_GMP_BYTES = 2048
"""Packed integers at least this large use GMP; smaller ones stay ``int`` (no import cost)."""


def _mpz(value: int, size: int = _GMP_BYTES) -> Big:
    if size < _GMP_BYTES:
        return value
    # here, not at the top: 42 ms of start-up otherwise (issue 53)
    from gmpy2 import mpz  # type: ignore[import-untyped]  # (only for very big counts)

    return mpz(value)


_DIRECT = 4096
"""Below this many outcome pairs a convolution is done directly, not packed."""


@dataclass(frozen=True, slots=True)
class _Dist:
    counts: Counts
    denominator: int
    capped: bool = False


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


def _try(explodes: bool) -> str:
    """What to try instead of too much exact work; a lower explosion cap only helps
    when something explodes."""
    return "try sample, or a lower explosion cap" if explodes else "try sample instead"


def _check_size(slots: int, width: int, limits: Limits, explodes: bool = False) -> None:
    """Refuse packed arithmetic over more than the limits allow; ``explodes`` says
    whether exploding dice are part of the work (and a lower cap would help)."""
    if slots > limits.odds_outcomes:
        raise DiceLimitError(
            f"exact odds would need {slots:,} outcomes; the limit is "
            f"{limits.odds_outcomes:,} (try sample instead)"
        )
    if slots * width * 8 > limits.odds_work:
        raise DiceLimitError(
            f"exact odds would need {slots * width * 8:,} bits of exact arithmetic; the limit is "
            f"{limits.odds_work:,} ({_try(explodes)})"
        )


def _convolve(a: Counts, b: Counts, limits: Limits, explodes: bool = False) -> Counts:
    """The distribution of the sum of two independent distributions (``explodes``: either
    holds exploding dice, for the advice if it is too large)."""
    if len(a) * len(b) <= _DIRECT:
        out: Counts = {}
        for x, cx in a.items():
            for y, cy in b.items():
                out[x + y] = out.get(x + y, 0) + cx * cy
        return out
    alo, ahi, blo, bhi = min(a), max(a), min(b), max(b)
    bound = sum(a.values()) * sum(b.values())
    width = _width(bound)
    _check_size(ahi - alo + bhi - blo + 1, width, limits, explodes)
    pa = _pack(a, alo, ahi - alo + 1, width)
    pb = _pack(b, blo, bhi - blo + 1, width)
    return _unpack(pa * pb, alo + blo, width)


def _power(d: Counts, n: int, limits: Limits, explodes: bool = False) -> Counts:
    """The distribution of the sum of ``n`` independent copies of ``d`` (``explodes``: ``d``
    holds exploding dice, for the advice if it is too large)."""
    if n == 0:
        return {0: 1}
    if len(d) == 1:
        ((o, c),) = d.items()
        return {o * n: c**n}
    if n == 1:
        return dict(d)
    lo, hi = min(d), max(d)
    width = _width(sum(d.values()) ** n)
    _check_size(n * (hi - lo) + 1, width, limits, explodes)
    return _unpack(_pack(d, lo, hi - lo + 1, width) ** n, lo * n, width)


# ------------------------------------------------------------------ one die


def die_distribution(dice: Dice, limits: Limits = DEFAULT_LIMITS) -> tuple[Counts, int, bool]:
    """One die's value with rerolls and compounding explosions: ``(counts, denominator,
    capped)``.

    Rerolls apply to every roll and are exact (``r`` conditions the die on not
    matching; ``ro`` rerolls once); explosions compound (the die's value is the
    sum of its chain, as ``!!``) and stop at the cap in ``limits``, exactly as
    :mod:`referee.roller` rolls them.
    """
    return _die_cached(dice.sides, dice.reroll, dice.explode_cond, limits)


@functools.lru_cache(maxsize=256)
def _roll_counts(sides: int, reroll: object) -> tuple[Counts, int]:
    """One roll of a die, after its rerolls: ``(counts, denominator)``."""
    faces = (-1, 0, 1) if sides == 0 else range(1, sides + 1)
    counts: Counts = dict.fromkeys(faces, 1)
    denom = len(counts)
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
    return counts, denom


@functools.lru_cache(maxsize=256)
def _die_cached(
    sides: int, reroll: object, explode: object, limits: Limits
) -> tuple[Counts, int, bool]:

    counts, denom = _roll_counts(sides, reroll)
    capped = False
    if isinstance(explode, Compare):
        boom = {f: c for f, c in counts.items() if explode.test(f)}
        if boom:
            rest = {f: c for f, c in counts.items() if f not in boom}
            span = max(abs(f) for f in counts) * (limits.explosions + 1)
            _check_size(2 * span + 1, _width(denom ** (limits.explosions + 1)), limits, True)
            value = dict(counts)
            vden = denom
            for _ in range(limits.explosions):
                # One more level of explosion: a non-exploding first face stands,
                # an exploding one adds a whole (shorter-capped) chain.
                new = _convolve(boom, value, limits, True)
                for f, c in rest.items():
                    new[f] = new.get(f, 0) + c * vden
                value, vden = new, vden * denom
            counts, denom = value, vden
            capped = True
    return counts, denom, capped


# ---------------------------------------------------------------------- pools


def _pool(dice: Dice, limits: Limits) -> _Dist:
    """A pool whose dice compound (or do not explode); ``!``/``!p`` are in :mod:`.explode`."""
    n = dice.count
    lo, hi = window(dice.keep, n)
    plain = (lo, hi) == (0, n) and dice.success is None and n > 1
    if plain and dice.explode_cond is None and dice.reroll is None:
        # A plain sum of plain dice: refuse a costly one before building the die.
        _check_size(n * (3 - 1 if dice.sides == FUDGE else dice.sides - 1) + 1, 1, limits)
    die, denom, capped = die_distribution(dice, limits)
    contribution = dice.score
    if (lo, hi) == (0, n):
        if plain:
            _check_size(n * (max(die) - min(die)) + 1, 1, limits, capped)
        single: Counts = {}
        for v, c in die.items():
            g = contribution(v)
            single[g] = single.get(g, 0) + c
        return _Dist(_power(single, n, limits, capped), denom**n, capped)
    # Count ranks from whichever end the window is nearer: fewer dice to place.
    if hi <= n - lo:
        counts = _keep(die, n, hi - lo, True, contribution, limits, skip=lo, explodes=capped)
    else:
        counts = _keep(die, n, hi - lo, False, contribution, limits, skip=n - hi, explodes=capped)
    return _Dist(counts, denom**n, capped)


_STEP_OVERHEAD = 256
"""A step of the keep/drop programme costs at least this many byte operations."""


def _keep(
    die: Counts,
    n: int,
    k: int,
    highest: bool,
    g: Callable[[int], int],
    limits: Limits,
    skip: int = 0,
    explodes: bool = False,
) -> Counts:
    """Sum of ``g`` over the ``k`` best of ``n`` dice after the ``skip`` best (a window of
    ranks, as ``kh2dl1`` keeps), as packed-integer dynamic programming.

    Values are visited from the best down. ``state[m]`` is a polynomial (packed
    in one integer, the exponent being the kept sum so far) counting the ways
    to place ``m < skip + k`` dice on the values visited so far. Placing ``c``
    more dice on value ``v`` multiplies by ``C(n - m, c) * w_v**c`` and keeps
    those of ranks ``m .. m + c - 1`` that fall in the window; once ``skip + k``
    dice are placed, the other ``n - m - c`` dice all lie strictly below ``v``,
    which multiplies by ``(weight below v) ** (n - m - c)``. ``explodes`` says the die
    explodes, for the advice when the work is too large.
    """
    if k == 0:
        return {0: sum(die.values()) ** n}
    if len(die) == 1:  # one face (a d1): the kept sum is certain
        ((face, weight),) = die.items()
        return {g(face) * k: weight**n}
    end = skip + k
    order = sorted(die, reverse=highest)
    gs = {v: g(v) for v in order}
    gmin = min(gs.values())
    span = max(gs.values()) - gmin
    total_weight = sum(die.values())
    width = _width(total_weight**n)
    slots = k * span + 1
    _check_size(slots, width, limits, explodes)
    # Each step multiplies and shifts a packed integer of up to slots * width bytes,
    # and costs at least as much as a couple of hundred bytes in Python overhead.
    cost = len(order) * end * n * max(slots * width, _STEP_OVERHEAD)
    if cost > limits.odds_work * 100:
        raise DiceLimitError(
            f"exact keep/drop odds would take about {cost:,} byte operations; the limit is "
            f"{limits.odds_work * 100:,} ({_try(explodes)})"
        )
    shift = width * 8
    size = slots * width
    zero = _mpz(0, size)
    state: list[Big] = [zero] * end
    state[0] = _mpz(1, size)
    result = zero
    below = total_weight
    for v in order:
        w = die[v]
        below -= w
        step = (gs[v] - gmin) * shift
        new = [zero] * end
        for m in range(end):
            poly = state[m]
            if not poly:
                continue
            free = n - m
            wc = 1
            for c in range(free + 1):
                coef = math.comb(free, c) * wc
                kept = max(0, min(m + c, end) - max(m, skip))  # of ranks m .. m+c-1
                if m + c < end:
                    new[m + c] += (poly * coef) << (step * kept)
                else:
                    rest = free - c
                    result += (poly * coef * below**rest) << (step * kept)
                wc *= w
        state = new
    return _unpack(result, k * gmin, width)
