"""The exact distribution of a pool whose explosions add dice (``!`` and ``!p``).

Part of stage 3 (:mod:`referee.odds`). Each roll of an explosion chain is a die
of its own, so keep/drop and success counting see every die, as the roller
rolls them (:mod:`referee.roller`): the chain's first die counts its face, each
added die its face less the penalty (1 for ``!p``), and a die explodes on its
face while the explosion cap allows.

* Without keep/drop, the pool is the sum of independent chains: the
  distribution of one chain's contribution (its dice's values, or how many of
  them meet the success target) is built level by level, then raised to the
  number of dice.
* With keep/drop, the pool size varies, so a dynamic programme follows the
  dice one roll at a time, keeping only what decides the result: the tracked
  dice (the kept ones for ``kh``/``kl``, the dropped ones for ``dh``/``dl``) and
  the sum of the others' contributions. Its size is checked against the
  limits as it grows; beyond them it is refused (try ``sample``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .ast import Dice
from .errors import DiceLimitError
from .limits import Limits
from .pools import Counts, _convolve, _Dist, _power, _roll_counts

__all__ = ["added_dice_pool"]


def added_dice_pool(dice: Dice, limits: Limits) -> _Dist:
    """The exact distribution of a pool with ``!`` or ``!p`` explosions."""
    counts, denom = _roll_counts(dice.sides, dice.reroll)
    cond = dice.explode_cond
    assert cond is not None
    cap = limits.explosions
    if not any(cond.test(f) for f in counts):  # nothing explodes: a plain pool
        cap = 0
    g = dice.score
    if not dice.keep:
        chain, chain_denom = _chain(counts, denom, cond.test, dice.penalty, g, cap, limits)
        return _Dist(_power(chain, dice.count, limits, cap > 0), chain_denom**dice.count, cap > 0)
    return _Dist(
        _kept(dice, counts, denom, cond.test, g, cap, limits),
        denom ** ((cap + 1) * dice.count),
        cap > 0,
    )


def _chain(
    counts: Counts,
    denom: int,
    explodes: Callable[[int], bool],
    penalty: int,
    g: Callable[[int], int],
    cap: int,
    limits: Limits,
) -> tuple[Counts, int]:
    """One chain's contribution, over ``denom ** (cap + 1)``.

    ``added[L]`` is the contribution of a chain that starts with an added die
    and may explode ``L`` more times; the chain's first die counts its face.
    """

    def level(first: bool, after: tuple[Counts, int] | None) -> tuple[Counts, int]:
        less = 0 if first else penalty

        def value(f: int) -> int:
            return g(f - less)

        if after is None:
            out: Counts = {}
            for f, c in counts.items():
                out[value(f)] = out.get(value(f), 0) + c
            return out, denom
        rest_counts, rest_denom = after
        boom: Counts = {}
        out = {}
        for f, c in counts.items():
            if explodes(f):
                boom[value(f)] = boom.get(value(f), 0) + c
            else:
                out[value(f)] = out.get(value(f), 0) + c * rest_denom
        for v, c in _convolve(boom, rest_counts, limits, True).items():
            out[v] = out.get(v, 0) + c
        return out, denom * rest_denom

    added: tuple[Counts, int] | None = None
    for _ in range(cap):
        added = level(False, added)
    return level(True, added)


def _kept(
    dice: Dice,
    counts: Counts,
    denom: int,
    explodes: Callable[[int], bool],
    g: Callable[[int], int],
    cap: int,
    limits: Limits,
) -> Counts:
    """Keep/drop over every die of the pool, chains included; over ``denom ** ((cap+1) n)``."""
    if len(dice.keep) > 1:
        raise DiceLimitError(
            "exact odds of several keep/drop rules over dice that explosions add are not "
            "computed (try sample, or one rule such as kh2)"
        )
    (keep,) = dice.keep
    size, high, drop = keep.count, keep.highest, keep.drop
    penalty = dice.penalty
    budget = limits.odds_work // 16
    values = {f - p for f in counts for p in {0, penalty}}
    states = math.comb(len(values) + size, size)
    if drop:  # the others' contributions add up: one state per possible sum
        states *= dice.count * (cap + 1) * max(abs(g(v)) for v in values) + 1
    if states * (cap + 1) * len(counts) * dice.count > budget:
        raise DiceLimitError(
            f"exact odds of {'dropping' if drop else 'keeping'} dice that explosions add "
            f"would take too long here (try sample)"
        )
    work = 0

    def insert(state: tuple[tuple[int, ...], int], v: int) -> tuple[tuple[int, ...], int]:
        tracked, acc = state
        t = sorted((*tracked, v), reverse=high)  # the tracked side: best first
        if len(t) > size:
            out = t.pop()  # leaves the tracked dice: dropped (keep), or kept (drop)
            if drop:
                acc += g(out)
        return tuple(t), acc

    table: dict[tuple[tuple[int, ...], int], int] = {((), 0): 1}
    for _ in range(dice.count):
        done: dict[tuple[tuple[int, ...], int], int] = {}
        active = table
        for level in range(cap + 1):
            left = cap - level
            pad = denom**left
            nxt: dict[tuple[tuple[int, ...], int], int] = {}
            for state, c in active.items():
                for f, w in counts.items():
                    s2 = insert(state, f - (penalty if level else 0))
                    if left and explodes(f):
                        nxt[s2] = nxt.get(s2, 0) + c * w
                    else:
                        done[s2] = done.get(s2, 0) + c * w * pad
            work += len(active) * len(counts)
            if work > budget or len(done) + len(nxt) > limits.odds_outcomes:
                raise DiceLimitError(
                    "exact odds of keeping or dropping dice that explosions add would take "
                    "too long (try sample)"
                )
            active = nxt
            if not active:
                break
        table = done
    out: Counts = {}
    for (tracked, acc), c in table.items():
        total = acc if drop else sum(g(v) for v in tracked)
        out[total] = out.get(total, 0) + c
    return out
