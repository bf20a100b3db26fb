"""Bulk simulation: agrees with the exact odds, respects limits and seeds."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from conftest import chi_square_ok
from referee import DiceEvalError, DiceLimitError, Limits, odds, sample
from referee.sampling import iter_samples

CONSTRUCTS = [
    "3d6",  # whole-expression table
    "10d6",  # chunked tables
    "1d20+5",
    "4dF",
    "4d6kh3",
    "4d6dl1",
    "3d6!",
    "3d6!!",
    "2d6!p",
    "4d6!kh2",
    "3d4!kl2",
    "6d10!>=9>=8",
    "8d4!kh4",
    "3d6>3f<2",
    "2d8r1r3r5r7",
    "8d6d3",
    "2d10!>=9",
    "d20r1",
    "2d6ro<3",
    "6d10>=8",
    "2d6*1d4 - 1d3",
    "d1000000",
    "3d6kh2dl1",
    "5d6kh4kl2dh1",
    "1d20cs>19",
    "3d6cs>3cf<3",
    "4d6s",
    "8d6sd",
    "{4d6+3d8, 3d20+3}kh1",
    "{3d20+5}>21",
    "{5d6!!}>8",
    "{2d6, 1d12, 3d4}kh2dl1",
    "{1d6, 1d8, 1d10}>4f1",
    "floor(3d6/4)",
    "ceil(2d6/3)",
    "round(1d10/4)",
    "abs(1d6-1d6)",
    "min(1d6, 1d8)",
    "max(2d6, 1d12) + 1",
    "floor(abs(1d6/4 - 1d4/3) * 3)",
]


@pytest.mark.parametrize("expr", CONSTRUCTS)
def test_sample_matches_exact_odds(expr: str) -> None:
    n = 200_000
    values = sample(expr, n, seed=12345)
    assert len(values) == n
    exact = odds(expr)
    if len(exact.outcomes) > 10_000:
        # Too many outcomes for a chi-square on raw values: compare deciles instead.
        edges = np.quantile(values, [0.1, 0.5, 0.9])
        assert abs(edges[1] - 500_000) < 10_000
        return
    assert chi_square_ok(Counter(values.tolist()), exact.distribution, n)


def test_seed_reproducible_and_dtype_minimal() -> None:
    a = sample("4d6kh3", 1000, seed=5)
    assert np.array_equal(a, sample("4d6kh3", 1000, seed=5))
    assert a.dtype == np.int8
    assert sample("100d6", 10, seed=1).dtype == np.int16


def test_chunks_cover_n_exactly() -> None:
    chunks = list(iter_samples("3d6!", 5_000_001, seed=1))
    assert sum(len(c) for c in chunks) == 5_000_001
    assert len(chunks) > 1


def test_limits_and_errors() -> None:
    with pytest.raises(DiceLimitError, match="limit"):
        sample("3d6", 10**9 + 1)
    with pytest.raises(DiceLimitError, match="whole number"):
        sample("3d6", -1)
    with pytest.raises(DiceLimitError):
        sample("3d6", 100, limits=Limits(sample_n=10))
    with pytest.raises(DiceEvalError):
        sample("6/(1d6-1)", 10_000, seed=1)
    assert len(sample("3d6", 0)) == 0


def test_any_integer_or_string_seeds_numpy() -> None:
    for seed in (-1, "table-3", b"x", 2**200):
        a = sample("3d6", 50, seed=seed)  # type: ignore[arg-type]
        assert np.array_equal(a, sample("3d6", 50, seed=seed))  # type: ignore[arg-type]
    assert not np.array_equal(sample("3d6", 50, seed=-1), sample("3d6", 50, seed=1))
    with pytest.raises(DiceEvalError, match="a seed must be an integer"):
        sample("3d6", 5, seed=1.5)  # type: ignore[arg-type]
