"""referee.sample against the raw numpy bound: roll an (n, k) matrix of faces and sum rows.

The bound is what a hand-written numpy simulation of kdS costs; referee also
parses the expression and checks limits. Both seed a fresh generator per call.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

import referee
from _timing import best_of, fmt, row, verdict

N = 10_000_000
CASES = (("3d6", 3, 0.7), ("10d6", 10, 1.0))  # expression, dice, target ratio


def bound(dice: int) -> Any:
    rng = np.random.default_rng(1)
    return rng.integers(1, 7, (N, dice), dtype=np.int8).sum(axis=1, dtype=np.int16)


def main() -> None:
    print(f"== sample: n = {N:,}, best of 5 calls ==")
    row("case", "referee", "numpy bound", "ratio", "target")
    for expr, dice, target in CASES:
        referee.sample(expr, 1000, seed=1)  # warm up: parse, tables, imports
        got = referee.sample(expr, N, seed=1)
        assert got.shape == (N,) and np.min(got) >= dice and np.max(got) <= 6 * dice, expr
        del got
        ours = partial(referee.sample, expr, N, seed=1)
        t_ref, t_np = best_of((ours, None), (partial(bound, dice), None), repeat=5)
        ratio = t_np / t_ref
        row(expr, fmt(t_ref), fmt(t_np), f"{ratio:.2f}x", verdict(ratio, target))


if __name__ == "__main__":
    main()
