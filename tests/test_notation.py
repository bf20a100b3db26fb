"""Notation as the peers read it (issue 16): failures, critical markers, sorting, the
drop shorthand, keep/drop in sequence, groups of sub-rolls and functions.

Three independent checks for each construct:

* the exact odds equal a brute-force enumeration of every sequence of draws the
  roller can make (the roller itself is the oracle, run on every path);
* a compatibility table of notations whose mean and range are worked out here,
  by hand or by plain enumeration, without the engine;
* seeded rolls that show what the text and the JSON say.

(The chi-square tests of the roller and the sampler against the exact odds are in
``test_roller.py`` and ``test_sampling.py``, with every construct of this file.)
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from conftest import Fixed, cli_json
from referee import DiceLimitError, DiceSyntaxError, Limits, odds, parse, roll, sample, seeded
from referee.render.dice import roll_json

SMALL = Limits(explosions=2)


class _More(Exception):
    """The roller asked for one more draw than the script holds."""

    def __init__(self, n: int) -> None:
        self.n = n


class _Script:
    def __init__(self, draws: tuple[tuple[int, int], ...]) -> None:
        self.draws = draws
        self.i = 0

    def randbelow(self, n: int) -> int:
        if self.i == len(self.draws):
            raise _More(n)
        value, size = self.draws[self.i]
        assert size == n
        self.i += 1
        return value


def every_roll(expr: str, limits: Limits = SMALL) -> dict[int, Fraction]:
    """The distribution of the roller's total over every sequence of draws it can make."""
    out: dict[int, Fraction] = {}
    stack: list[tuple[tuple[int, int], ...]] = [()]
    while stack:
        draws = stack.pop()
        try:
            total = roll(expr, rng=_Script(draws), limits=limits).total
        except _More as more:
            stack.extend((*draws, (v, more.n)) for v in range(more.n))
            continue
        weight = Fraction(1, math.prod(n for _, n in draws))
        out[total] = out.get(total, Fraction(0)) + weight
    return out


@pytest.mark.parametrize(
    "expr",
    [
        "3d4>2f1",
        "3d4>=3f<=1kh2",
        "2d4cs>3cf1",
        "3d4sd",
        "4d4d2",
        "4d4k3",
        "3d4kh2dl1",
        "4d4kh3kl2",
        "4d3dl1dh1",
        "3d3!dl1dh1",
        "{1d4+1, 2d3}kh1",
        "{1d4, 1d4, 1d6}kh2dl1",
        "{1d4, 1d3, 1d2}kl1",
        "{2d3+1}>4",
        "{1d4, 1d6, 1d3}>2f1",
        "{1d3, 1d4}",
        "{3d3!!}>4",
        "{2d3!}>=3",
        "{1d3, {1d3, 1d2}kh1}kl1",
        "floor(2d4/3)",
        "ceil(1d6/4)",
        "round(1d5/2)",
        "round(-1d5/2)",
        "abs(1d4-1d6)",
        "min(1d4, 1d6, 2)",
        "max(1d4, 1d6) - 1",
        "floor(abs(1d4/3 - 1d3/2) * 2)",
        "abs(1d4/3) * 3",
        "floor({1d4/2, 1d3}kh1 * 2)",
        "2 * ceil(max(1d3, 1d4) / 2) + {1d2, 1d2}kh1",
    ],
)
def test_exact_odds_equal_every_roll(expr: str) -> None:
    if "!" in expr and "dl1dh1" in expr:
        with pytest.raises(Exception, match="try sample"):
            odds(expr, SMALL)
        return
    assert odds(expr, SMALL).distribution == every_roll(expr)


def test_the_enumeration_can_fail() -> None:
    # The oracle is not the odds code: a wrong distribution is told apart.
    assert every_roll("{1d4, 1d4}kh1") != odds("{1d4, 1d4}kl1").distribution
    assert every_roll("round(1d5/2)") != odds("floor(1d5/2)").distribution


# ------------------------------------------------------------- compatibility


def _sum_of(*dice: int, plus: int = 0) -> dict[int, Fraction]:
    """The distribution of a sum of dice, by plain enumeration one die at a time: each
    face of the next die added to each total so far. (Every sequence of faces at once,
    6**4 * 8**3 of them for ``A``, took 2-3 s at each collection: issue 53.)"""
    out = {plus: Fraction(1)}
    for sides in dice:
        grown: dict[int, Fraction] = {}
        for total, chance in out.items():
            for face in range(1, sides + 1):
                grown[total + face] = grown.get(total + face, Fraction(0)) + chance / sides
        out = grown
    return out


def _top_k_mean(n: int, sides: int, k: int) -> Fraction:
    """E[sum of the k highest of n dS]: the sum counts, for each x, min(k, #dice >= x)."""
    total = Fraction(0)
    for x in range(1, sides + 1):
        p = Fraction(sides - x + 1, sides)
        total += sum(min(k, j) * math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(n + 1))
    return total


def _max_mean(a: dict[int, Fraction], b: dict[int, Fraction]) -> Fraction:
    return sum(
        (max(x, y) * px * py for (x, px), (y, py) in itertools.product(a.items(), b.items())),
        Fraction(0),
    )


_CAP = 100  # the default explosion cap
_GEOMETRIC = sum(Fraction(1, 6) ** i for i in range(_CAP + 1))  # 1 + 1/6 + ... + 1/6**100


def _penetrating_chain_mean() -> Fraction:
    added = Fraction(5, 2)  # an added die that may not explode again: 1..6 less one
    for _ in range(_CAP - 1):
        added = Fraction(5, 2) + Fraction(1, 6) * added
    return Fraction(7, 2) + Fraction(1, 6) * added


A = _sum_of(6, 6, 6, 6, 8, 8, 8)
B = _sum_of(20, 20, 20, plus=3)

COMPATIBILITY: list[tuple[str, Fraction, int, int]] = [
    # notation, exact mean, least, greatest (worked out without the engine)
    ("3d6>3f<2", Fraction(1), -3, 3),  # per die: 1/2 success less 1/6 failure
    ("4d6>5f<=2", Fraction(-2, 3), -4, 4),  # 1/6 - 2/6 per die
    ("1d20cs>19", Fraction(21, 2), 1, 20),  # markers change nothing
    ("3d6cs>3cf<3", Fraction(21, 2), 3, 18),
    ("4d6s", Fraction(14), 4, 24),  # sorting is display only
    ("8d6sd", Fraction(28), 8, 48),
    ("8d100d3", _top_k_mean(8, 100, 5), 5, 500),  # drops the lowest 3: keeps 5
    ("8d100k4", _top_k_mean(8, 100, 4), 4, 400),
    ("3d6kh2dl1", 6 - Fraction(225, 216), 1, 6),  # the highest die: 6 - sum(((x-1)/6)**3)
    ("5d6kh4dl1", _top_k_mean(5, 6, 3), 3, 18),
    ("2d8r1r3r5r7", Fraction(10), 4, 16),  # each die uniform on 2, 4, 6, 8
    ("2d6!", 2 * Fraction(7, 2) * _GEOMETRIC, 2, 2 * 6 * (_CAP + 1)),
    ("2d6!!", 2 * Fraction(7, 2) * _GEOMETRIC, 2, 2 * 6 * (_CAP + 1)),
    ("2d6!p", 2 * _penetrating_chain_mean(), 2, 2 * (6 + 5 * _CAP)),
    (  # "9-again": P(success) 3/10 a die, each 9 or 10 adds a die
        "6d10!>=9>=8",
        6 * Fraction(3, 10) * sum(Fraction(2, 10) ** i for i in range(_CAP + 1)),
        0,
        6 * (_CAP + 1),
    ),
    ("{4d6+3d8, 3d20+3}kh1", _max_mean(A, B), 7, 63),  # max(7.., 6..)
    ("{3d20+5}>21", 1 - Fraction(math.comb(16, 3), 8000), 0, 1),  # 3d20 <= 16 in C(16,3) ways
    ("{5d6!!}>8", 5 * Fraction(1, 6) * Fraction(4, 6), 0, 5),  # a 6, then 3 or more
    ("{1d6, 1d8}kl1", Fraction(133, 48), 1, 6),  # sum of P(min >= x)
    ("floor(7/2)", Fraction(3), 3, 3),
    ("ceil(7/2)", Fraction(4), 4, 4),
    ("round(5/2)", Fraction(3), 3, 3),  # halves round up
    ("round(-5/2)", Fraction(-2), -2, -2),
    ("7/2", Fraction(3), 3, 3),  # top-level / rounds down
    ("abs(1d6-1d6)", Fraction(70, 36), 0, 5),  # 2 * sum d * (6 - d) / 36
    ("min(1d6, 1d8)", Fraction(133, 48), 1, 6),
    ("max(1d6, 1d8)", 8 - Fraction(133, 48), 1, 8),  # E[a] + E[b] - E[min]
    ("floor(1d6/2)", Fraction(3, 2), 0, 3),  # 0, 1, 1, 2, 2, 3
    ("round(1d6/4)", Fraction(1), 0, 2),  # 0, 1, 1, 1, 1, 2
    ("abs(7/2)", Fraction(3), 3, 3),  # a fraction leaving a function rounds down
]


@pytest.mark.parametrize(("expr", "mean", "least", "greatest"), COMPATIBILITY)
def test_compatibility_table(expr: str, mean: Fraction, least: int, greatest: int) -> None:
    exact = odds(expr)
    assert exact.mean == mean
    assert (exact.outcomes[0], exact.outcomes[-1]) == (least, greatest)
    # The sampler reads the notation the same way.
    values = sample(expr, 20_000, seed=sum(map(ord, expr)))
    assert least <= int(np.min(values)) and int(np.max(values)) <= greatest
    sd = max(exact.stdev, 1e-9)
    assert abs(float(values.mean()) - float(mean)) < 5 * sd / math.sqrt(20_000) + 1e-9


def test_the_table_is_wide_enough() -> None:
    assert len(COMPATIBILITY) >= 20
    # Every construct of the issue is in it.
    for mark in ("f<", "cs", "s", "d3", "kh2dl1", "r1r3", "!!", "!p", "{", "floor", "ceil"):
        assert any(mark in expr for expr, *_ in COMPATIBILITY), mark
    for name in ("round", "abs", "min", "max"):
        assert any(expr.startswith(name) for expr, *_ in COMPATIBILITY), name


def test_issue_figures_for_explosions() -> None:
    # The issue's two figures: peers give 2.26 and 14.0 by simulation.
    assert abs(float(odds("6d10!>=9>=8").mean) - 2.25) < 1e-9
    values = sample("8d4kh4!", 200_000, seed=16)
    assert abs(float(values.mean()) - 14.0) < 0.05


# ----------------------------------------------------------------- seeded


def test_failures_count_minus_one_and_show() -> None:
    # faces 1, 6, 3 (randbelow 0, 5, 2): 6 is a success, 1 a failure, 3 neither.
    result = roll("3d6>5f<2", rng=Fixed([0, 5, 2]))
    assert result.total == 0
    assert result.text == "3d6>5f<2 = [1 (failure), 6 (success), 3] = 0"


def test_critical_markers_mark_without_counting() -> None:
    result = roll("3d6cs>5cf1+1", rng=Fixed([5, 0, 3]))
    assert result.total == 6 + 1 + 4 + 1
    assert result.text == "3d6cs>5cf1+1 = [6 (critical success), 1 (critical failure), 4] + 1 = 12"
    assert [d["critical"] for d in roll_json(result)["dice"]] == ["success", "failure", None]


def test_sorting_is_display_only() -> None:
    up = roll("4d6s", rng=Fixed([3, 0, 5, 1]))
    down = roll("4d6sd", rng=Fixed([3, 0, 5, 1]))
    assert up.total == down.total == 4 + 1 + 6 + 2
    assert up.text == "4d6s = [1, 2, 4, 6] = 13"
    assert down.text == "4d6sd = [6, 4, 2, 1] = 13"
    assert [d.value for d in up.dice] == [4, 1, 6, 2]  # the record keeps the order rolled


def test_drop_shorthand_and_sequences() -> None:
    assert parse("8d100d3") == parse("8d100dl3")
    assert parse("8d100k4") == parse("8d100kh4")
    result = roll("3d6kh2dl1", rng=Fixed([1, 4, 2]))  # 2, 5, 3: keep 5 and 3, then drop 3
    assert result.total == 5
    assert result.text == "3d6kh2dl1 = [2 (dropped), 5, 3 (dropped)] = 5"


def test_groups_keep_and_count_whole_sub_rolls() -> None:
    # {2d6+1, 1d20}kh1 with 2d6 = 3, 4 and the d20 = 9: 8 against 9.
    result = roll("{2d6+1, 1d20}kh1", rng=Fixed([2, 3, 8]))
    assert result.total == 9
    assert result.text == "{2d6+1, 1d20}kh1 = {[3, 4] + 1 = 8 (dropped), [9]}kh1 = 9"
    (group,) = roll_json(result)["groups"]
    assert [(s["value"], s["kept"]) for s in group["subrolls"]] == [(8, False), (9, True)]
    counted = roll("{3d20+5}>21", rng=Fixed([9, 4, 2]))  # 10 + 5 + 3 + 5 = 23
    assert counted.total == 1
    assert counted.text == "{3d20+5}>21 = {[10, 5, 3] + 5 = 23 (success)}>21 = 1"


def test_one_pool_in_braces_takes_the_modifiers() -> None:
    # Shadowrun: {5d6!!}>8 compares each compounded die with 8, not the explosion.
    assert parse("{5d6!!}>8").root == parse("5d6>8!!").root
    with pytest.raises(DiceSyntaxError, match="no face"):
        parse("5d6!!>8")  # without braces: explode on more than 8, which no d6 does
    result = roll("{2d6!!}>8", rng=Fixed([5, 3, 1]))  # 6 then 4 = 10; 2
    assert result.total == 1
    assert result.text == "{2d6!!}>8 = [6!+4 (success), 2] = 1"


def test_functions_divide_exactly_inside() -> None:
    assert roll("floor(7/2)").total == 3
    assert roll("ceil(7/2)").total == 4
    assert roll("round(5/2)").total == 3
    assert roll("round(-5/2)").total == -2
    assert roll("7/2").total == 3
    assert roll("floor(abs(7/2) + 1/2)").total == 4  # exact all the way inside
    assert roll("abs(7/2)").total == 3  # and rounded down on the way out
    result = roll("max(1d6, 1d8) + min(2, 1d4)", rng=Fixed([4, 6, 0]))
    assert result.total == 7 + 1
    assert result.text == "max(1d6, 1d8) + min(2, 1d4) = max([5], [7]) + min(2, [1]) = 8"


def test_rolls_replay_through_the_cli() -> None:
    first = cli_json("roll", "{4d6+3d8, 3d20+3}kh1", "--seed", "16", "--json")
    again = cli_json("roll", "{4d6+3d8, 3d20+3}kh1", "--seed", "16", "--json")
    assert first == again
    assert first["groups"][0]["group"] == "{4d6 + 3d8, 3d20 + 3}kh1"
    kept = [s for s in first["groups"][0]["subrolls"] if s["kept"]]
    assert len(kept) == 1 and kept[0]["value"] == first["total"]


def test_seeded_rolls_of_every_new_construct_are_reproducible() -> None:
    exprs = [e for e, *_ in COMPATIBILITY]
    a = [roll(e, rng=seeded(9)).text for e in exprs]
    b = [roll(e, rng=seeded(9)).text for e in exprs]
    assert a == b
    assert Counter(roll("{1d6, 1d6}kh1", rng=seeded(i)).total for i in range(50)).keys() <= set(
        range(1, 7)
    )


@pytest.mark.parametrize("expr", ["{{{1d6}}}", "floor(floor(floor(1d6)))", "{1, {2, {3, 1d6}}}"])
def test_groups_and_functions_nest_like_parentheses(expr: str) -> None:
    parens = "(((1d6)))"
    with pytest.raises(DiceLimitError, match="nests 3 deep") as paren_err:
        parse(parens, Limits(nesting=2))
    with pytest.raises(DiceLimitError, match="nests 3 deep") as err:
        parse(expr, Limits(nesting=2))
    assert err.value.column is not None and paren_err.value.column is not None
    assert parse(expr, Limits(nesting=3)) is not None


def test_group_and_function_dice_count_towards_the_limits() -> None:
    with pytest.raises(DiceLimitError, match="could roll 20,001 dice"):
        parse("{10000d6, max(1d6, 10000d6)}")
