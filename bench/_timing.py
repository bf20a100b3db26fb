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
    fn: Callable[[], object],
    repeat: int = 9,
    reset: Callable[[], object] | None = None,
    budget: float = 2.0,
) -> float:
    """Best single-call seconds of ``fn``, calling ``reset`` (untimed) before each call.

    Stops early, after at least three calls, once ``budget`` seconds have been spent.
    """
    times: list[float] = []
    spent = 0.0
    while len(times) < repeat and (len(times) < 3 or spent < budget):
        if reset is not None:
            reset()
        times.append(_timed(fn, 1))
        spent += times[-1]
    return min(times)


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
