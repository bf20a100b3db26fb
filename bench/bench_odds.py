"""referee.odds against icepool and dyce: exact distributions, computed cold.

Every library caches, so before each timed call referee's caches are cleared,
icepool's global caches are cleared and fresh dice are built for both
references (dyce keeps no cache across calls). Each case is first checked to
give the same distribution in all three, so like is compared with like.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

import icepool
from dyce import H, P, explode_n

import referee
from _timing import best_of, fmt, row, verdict

Make = Callable[[], Any]


def ice_cases() -> dict[str, Make]:
    def d(sides: int) -> Any:
        return icepool.Die(range(1, sides + 1))  # a fresh die: no per-die caches carried over

    return {
        "3d6": lambda: 3 @ d(6),
        "4d6kh3": lambda: d(6).pool(4).highest(3).sum(),
        "10d10kh3": lambda: d(10).pool(10).highest(3).sum(),
        "8d6!": lambda: 8 @ d(6).explode(depth=3),
        "4dF": lambda: 4 @ icepool.Die([-1, 0, 1]),
        "20d20kh5": lambda: d(20).pool(20).highest(5).sum(),
        "100d6": lambda: 100 @ d(6),
    }


DYCE: dict[str, Make] = {
    "3d6": lambda: 3 @ H(6),
    "4d6kh3": lambda: (4 @ P(6)).at(slice(-3, None)),
    "10d10kh3": lambda: (10 @ P(10)).at(slice(-3, None)),
    "8d6!": lambda: 8 @ explode_n(H(6), n=3),
    "4dF": lambda: 4 @ H((-1, 0, 1)),
    "20d20kh5": lambda: (20 @ P(20)).at(slice(-5, None)),
    "100d6": lambda: 100 @ H(6),
}

CAP3 = referee.Limits(explosions=3)


def clear_referee() -> None:
    from referee.odds import _odds_or_refusal  # referee.odds is the function
    from referee.pools import _die_cached

    _odds_or_refusal.cache_clear()
    _die_cached.cache_clear()


def clear_icepool() -> None:
    icepool.Pool.clear_cache()
    icepool.d.cache_clear()
    icepool.math.comb_row_cache.clear()
    for obj in vars(icepool.evaluator).values():  # module-level evaluators keep a _cache
        cache = getattr(obj, "_cache", None)
        if isinstance(cache, dict):
            cache.clear()


def dist(items: Iterable[tuple[Any, Any]]) -> dict[int, Fraction]:
    pairs = [(int(o), int(c)) for o, c in items if c]
    total = sum(c for _, c in pairs)
    return {o: Fraction(c, total) for o, c in pairs}


def referee_odds(expr: str, limits: referee.Limits = referee.DEFAULT_LIMITS) -> Make:
    return lambda: referee.odds(expr, limits=limits)


def main() -> None:
    warnings.simplefilter("ignore")  # dyce marks explode_n experimental
    print("== odds: exact distribution, cold (caches cleared before each call), best call ==")
    for warm in (lambda: referee.odds("2d4kh1+1d4!"), lambda: ice_cases()["4d6kh3"](), DYCE["3d6"]):
        warm()  # one-time lazy imports and set-up, not part of any case
    ice = ice_cases()
    row("case", "referee", "icepool", "dyce", "ratio", "target (vs faster reference)")
    for expr in ice:
        ours = referee_odds(expr, CAP3 if "!" in expr else referee.DEFAULT_LIMITS)
        o = ours()
        same = dist(zip(o.outcomes, o.counts, strict=True))
        for name, got in (("icepool", ice[expr]().items()), ("dyce", DYCE[expr]().items())):
            if dist(got) != same:
                print(f"{expr}: {name} gives a different distribution; case skipped")
                break
        else:
            calls = (ours, clear_referee), (ice[expr], clear_icepool), (DYCE[expr], None)
            t_ref, t_ice, t_dyce = best_of(*calls)
            ratio = min(t_ice, t_dyce) / t_ref
            name = f"{expr} (cap 3)" if "!" in expr else expr
            cells = (fmt(t_ref), fmt(t_ice), fmt(t_dyce), f"{ratio:.2f}x", verdict(ratio, 1))
            row(name, *cells)
    [t_cap] = best_of((referee_odds("8d6!"), clear_referee))
    row("8d6! (cap 100)", fmt(t_cap), "-", "-", "-", "referee only, default explosion cap")


if __name__ == "__main__":
    main()
