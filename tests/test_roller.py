"""The roller: reproducible sources, no bias, results that explain themselves, and
seeded chi-square tests against the exact odds for every construct."""

from __future__ import annotations

from collections import Counter

import pytest

from conftest import Fixed, chi_square_ok
from referee import DiceEvalError, Limits, RandomSource, odds, roll, seeded
from referee.rng import SystemSource, default_source

CONSTRUCTS = [
    "3d6",
    "1d20+5",
    "d%",
    "3d-3",
    "4dF",
    "4d6kh3",
    "4d6kl1",
    "4d6dh1",
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
    "2d6r<3",
    "d20ro1",
    "6d10>=8",
    "2d6*1d4 - 1d3",
    "(2d6+3)/1d3",
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


@pytest.mark.slow  # make check leaves it to make test
@pytest.mark.parametrize("expr", CONSTRUCTS)
def test_roller_matches_exact_odds(expr: str) -> None:
    rng = seeded(f"chi-square {expr}")
    n = 20_000
    seen = Counter(roll(expr, rng=rng).total for _ in range(n))
    assert chi_square_ok(seen, odds(expr).distribution, n)


def test_chi_square_detects_a_biased_roller() -> None:
    # The statistical check must be able to fail: a d6 that never shows 6.
    seen = Counter({1: 2000, 2: 2000, 3: 2000, 4: 2000, 5: 2000})
    assert not chi_square_ok(seen, odds("1d6").distribution, 10_000)


def test_seeded_is_reproducible_and_seed_dependent() -> None:
    a = [roll("3d6", rng=seeded(42)).total for _ in range(3)]
    b = [roll("3d6", rng=seeded(42)).total for _ in range(3)]
    assert a == b
    s1, s2 = seeded(1), seeded(2)
    assert [s1.randbelow(1000) for _ in range(20)] != [s2.randbelow(1000) for _ in range(20)]


def test_seeded_stream_is_stable_across_versions() -> None:
    # Pinned output: if this changes, every recorded seed in the wild changes meaning.
    src = seeded(42)
    assert [src.randbelow(6) + 1 for _ in range(10)] == _PINNED_42


_PINNED_42 = [int(c) for c in "2345526146"]  # measured once, then frozen


def test_randbelow_is_uniform_for_large_ranges() -> None:
    src = seeded("wide")
    n = 30_000
    buckets = Counter(src.randbelow(1_000_000) * 10 // 1_000_000 for _ in range(n))
    from fractions import Fraction

    assert chi_square_ok(buckets, {k: Fraction(1, 10) for k in range(10)}, n)


def test_system_source_is_default_and_protocol() -> None:
    assert isinstance(default_source(), SystemSource)
    assert isinstance(seeded(1), RandomSource)
    faces = {roll("1d4").total for _ in range(400)}
    assert faces == {1, 2, 3, 4}
    with pytest.raises(ValueError):
        SystemSource().randbelow(0)


def test_result_explains_itself() -> None:
    r = roll("4d6kh3 # stats", rng=seeded(3))
    assert r.label == "stats"
    assert len(r.dice) == 4 and sum(not d.kept for d in r.dice) == 1
    assert r.total == sum(d.value for d in r.dice if d.kept)
    assert r.text.startswith("stats: 4d6kh3 = [") and r.text.endswith(f"= {r.total}")
    assert "(dropped)" in r.text


def test_rightmost_equal_die_is_dropped() -> None:
    r = roll("3d6kh2", rng=Fixed([3, 3, 3]))
    assert [d.kept for d in r.dice] == [True, True, False]
    assert r.text == "3d6kh2 = [4, 4, 4 (dropped)] = 8"


def test_explosions_rerolls_and_successes_are_recorded() -> None:
    r = roll("1d6!!", rng=Fixed([5, 5, 1]))  # compounding: one die, the chain's sum
    assert r.total == 14 and r.dice[0].faces == (6, 6, 2) and r.dice[0].exploded
    r = roll("1d6!", rng=Fixed([5, 5, 1]))  # issue 16: each explosion is a die of its own
    assert r.total == 14 and [d.faces for d in r.dice] == [(6,), (6,), (2,)]
    assert [(d.exploded, d.added) for d in r.dice] == [(True, False), (True, True), (False, True)]
    assert r.text == "1d6! = [6!, 6!, 2] = 14"
    r = roll("1d6!p", rng=Fixed([5, 5, 1]))  # penetrating: each added die counts one less
    assert r.total == 6 + 5 + 1 and r.text == "1d6!p = [6!, 6!-1, 2-1] = 12"
    r = roll("2d4!kh2", rng=Fixed([3, 0, 1]))  # 4!, then 1 (added), then 2: keep 4 and 2
    assert r.total == 6 and [d.kept for d in r.dice] == [True, False, True]
    r = roll("1d20r<3", rng=Fixed([0, 1, 9]))
    assert r.total == 10 and r.dice[0].rerolled == (1, 2)
    r = roll("1d20ro1", rng=Fixed([0, 0]))
    assert r.total == 1 and r.dice[0].rerolled == (1,)
    r = roll("3d10>=8", rng=Fixed([9, 6, 7]))
    assert r.total == 2 and [d.success for d in r.dice] == [True, False, True]
    assert r.text == "3d10>=8 = [10 (success), 7, 8 (success)] = 2"
    r = roll("1d6!!", rng=Fixed([5] * 10 + [0]), limits=Limits(explosions=3))
    assert r.dice[0].faces == (6, 6, 6, 6)
    r = roll("1d6!", rng=Fixed([5] * 10 + [0]), limits=Limits(explosions=3))
    assert len(r.dice) == 4 and r.dice[-1].exploded is False


def test_division_by_zero_when_it_happens() -> None:
    with pytest.raises(DiceEvalError, match="division by zero"):
        roll("6/(1d6-1)", rng=Fixed([0]))


def test_failures_markers_sorting_and_shorthand() -> None:
    # Issue 16: read as Roll20 and rpg-dice-roller read them.
    r = roll("4d6>5f<=2", rng=Fixed([5, 0, 3, 1]))  # 6 success, 1 and 2 failures, 4 neither
    assert r.total == 1 - 2 and [d.failure for d in r.dice] == [False, True, False, True]
    assert r.text == "4d6>5f<=2 = [6 (success), 1 (failure), 4, 2 (failure)] = -1"
    r = roll("3d6cs>5cf1", rng=Fixed([5, 0, 2]))  # markers only: the total is the sum
    assert r.total == 6 + 1 + 3 and [d.critical for d in r.dice] == ["success", "failure", None]
    assert r.text == "3d6cs>5cf1 = [6 (critical success), 1 (critical failure), 3] = 10"
    r = roll("4d6sd", rng=Fixed([1, 5, 3, 0]))
    assert r.text == "4d6sd = [6, 4, 2, 1] = 13" and [d.value for d in r.dice] == [2, 6, 4, 1]
    r = roll("4d6d1", rng=Fixed([1, 5, 3, 0]))  # Roll20: d1 drops the lowest
    assert r.total == 12 and r.dice[3].kept is False
    r = roll("2d8r1r3r5r7", rng=Fixed([0, 2, 7, 4, 6, 1]))  # 1, 3 rerolled; 8; 5, 7 rerolled; 2
    assert [d.value for d in r.dice] == [8, 2] and r.dice[0].rerolled == (1, 3)
