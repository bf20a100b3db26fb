"""Timing and reporting helpers shared by the benchmarks.

Standard library only: ``bench_roll.py`` also runs under ``bench/.venv-d20``,
where referee is not installed.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


def _timed(fn: Callable[[], object], loops: int) -> float:
    enabled = gc.isenabled()
    gc.disable()  # as timeit does: a collection landing in one run is noise
    try:
        start = time.perf_counter()
        for _ in range(loops):
            fn()
        return time.perf_counter() - start
    finally:
        if enabled:
            gc.enable()


def per_call(fn: Callable[[], object], repeat: int = 7, min_time: float = 0.05) -> float:
    """Best-of-``repeat`` seconds per call of a fast ``fn``, timed in loops of >= ``min_time``."""
    fn()  # warm up
    loops = 1
    while _timed(fn, loops) < min_time:
        loops *= 2
    return min(_timed(fn, loops) for _ in range(repeat)) / loops


def best_of(
    *calls: tuple[Callable[[], object], Callable[[], object] | None],
    repeat: int = 9,
    budget: float = 3.0,
) -> list[float]:
    """Best single-call seconds of each ``(fn, reset)``; ``reset`` (if any) runs untimed first.

    The calls take turns, so every one sees the same machine load. Stops early,
    after at least three turns, once ``budget`` seconds have been spent.
    """
    times: list[list[float]] = [[] for _ in calls]
    spent = 0.0
    for turn in range(repeat):
        if turn >= 3 and spent >= budget:
            break
        for (fn, reset), mine in zip(calls, times, strict=True):
            if reset is not None:
                reset()
            mine.append(_timed(fn, 1))
            spent += mine[-1]
    return [min(t) for t in times]


def fmt(seconds: float) -> str:
    """A duration with a readable unit."""
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def row(*cells: str) -> None:
    """Print one table row: a wide first column, then fixed-width cells."""
    print(f"{cells[0]:<16}" + "".join(f"{c:>12}" for c in cells[1:-1]) + f"   {cells[-1]}")


def verdict(ratio: float, target: float) -> str:
    """``PASS``/``MISS`` against a target ratio (reference time / referee time)."""
    return f">= {target:g}  {'PASS' if ratio >= target else 'MISS'}"
