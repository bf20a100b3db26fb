"""Exact odds against published tables, brute-force enumeration and icepool."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import icepool
import pytest

from referee import DEFAULT_LIMITS, DiceEvalError, DiceLimitError, Limits, odds, parse
from referee.ast import Dice, ExplodeMode
from referee.odds import bounds

DATA = Path(__file__).parent / "data" / "published.txt"


def _published() -> list[tuple[str, str, str, list[tuple[int, int]], int]]:
    rows = []
    for line in DATA.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, expr, op, values, denom = (part.strip() for part in line.split("|"))
        pairs = [tuple(map(int, v.split(":"))) for v in values.split()]
        rows.append((name, expr, op, [(a, b) for a, b in pairs], int(denom)))
    return rows


@pytest.mark.parametrize(("name", "expr", "op", "pairs", "denom"), _published())
def test_published_tables(
    name: str, expr: str, op: str, pairs: list[tuple[int, int]], denom: int
) -> None:
    o = odds(expr)
    for value, count in pairs:
        assert o.p(op, value) == Fraction(count, denom), (name, value)


def test_gurps_success_roll_bounds() -> None:
    # README: skill 10 succeeds 108/216, and never more than 212/216 (17 and 18 fail).
    assert odds("3d6").at_most(10) == Fraction(108, 216)
    assert odds("3d6").at_most(16) == Fraction(212, 216)


# ------------------------------------------------------------ brute force


def _die_brute(dice: Dice, limits: Limits) -> dict[tuple[int, ...], Fraction]:
    """One die by walking every sequence of rolls (independent of referee.odds): the dice it
    puts in the pool, as a tuple of values. A compounding chain (``!!``) is one die, the sum
    of its faces; with ``!``/``!p`` each roll is a die, added dice counting face − penalty."""
    faces = dice.faces
    p = Fraction(1, len(faces))

    def one_roll() -> dict[int, Fraction]:
        out: dict[int, Fraction] = {}
        if dice.reroll is not None and not dice.reroll.once:
            # r: reroll until no match, so P(f) = P(f and no match) / P(no match).
            standing = [f for f in faces if not dice.reroll.cond.test(f)]
            return {f: Fraction(1, len(standing)) for f in standing}

        # ro (or no reroll): try, and while the face matches and a reroll remains, roll again.
        def walk(left: int, weight: Fraction) -> None:
            for f in faces:
                if dice.reroll is not None and left > 0 and dice.reroll.cond.test(f):
                    walk(left - 1, weight * p)
                else:
                    out[f] = out.get(f, Fraction(0)) + weight * p

        walk(0 if dice.reroll is None else 1, Fraction(1))
        return out

    roll1 = one_roll()
    cond = dice.explode_cond
    adds = dice.explode is not None and dice.explode.mode is not ExplodeMode.COMPOUND
    penalty = 1 if dice.explode is not None and dice.explode.mode is ExplodeMode.PENETRATE else 0
    result: dict[tuple[int, ...], Fraction] = {}

    def chain(faces: tuple[int, ...], weight: Fraction, booms: int) -> None:
        for f, pf in roll1.items():
            here = (*faces, f)
            if cond is not None and booms < limits.explosions and cond.test(f):
                chain(here, weight * pf, booms + 1)
                continue
            if adds:
                key = (here[0], *(x - penalty for x in here[1:]))
            else:
                key = (sum(here),)
            result[key] = result.get(key, Fraction(0)) + weight * pf

    chain((), Fraction(1), 0)
    return result


def _pool_brute(dice: Dice, limits: Limits) -> dict[int, Fraction]:
    die = _die_brute(dice, limits)
    # Whole numbers over one denominator, and each face's and each pool size's answers
    # asked once: the same sums as Fractions and calls in the loop, several times faster.
    scale = math.lcm(*(w.denominator for w in die.values()))
    whole = [(chain, int(w * scale)) for chain, w in die.items()]
    faces = {v for chain in die for v in chain}
    scores = dict.fromkeys(faces, 0)
    if dice.success is not None:
        for v in faces:
            fails = dice.failure is not None and dice.failure.test(v)
            scores[v] = 1 if dice.success.test(v) else -1 if fails else 0
    ranges: dict[tuple[int, int], tuple[bool, int]] = {}
    counts: dict[int, int] = {}
    for combo in itertools.product(whole, repeat=dice.count):
        kept = [v for chain, _ in combo for v in chain]
        weight = math.prod(w for _, w in combo)
        for i, rule in enumerate(dice.keep):  # each rule acts on what the ones before kept
            if (i, len(kept)) not in ranges:
                ranges[i, len(kept)] = rule.kept_range(len(kept))
            highest, k = ranges[i, len(kept)]
            kept = sorted(kept, reverse=highest)[: max(k, 0)]
        total = sum(scores[v] for v in kept) if dice.success is not None else sum(kept)
        counts[total] = counts.get(total, 0) + weight
    return {total: Fraction(n, scale**dice.count) for total, n in counts.items()}


SMALL = Limits(explosions=3)


@pytest.mark.slow  # make check leaves it to make test
@pytest.mark.parametrize(
    "expr",
    [
        "3d6",
        "2d4kh1",
        "4d4kl2",
        "4d6dh1",
        "4d6dl1",
        "3d6kh2",
        "4dF",
        "3dFkh2",
        "2d6!",
        "2d6!!",
        "2d6!p",
        "2d4!>=3",
        "3d4!kh2",
        "3d4!!kh2",
        "2d4!pkl1",
        "2d4!dh1",
        "3d6!>=5>=5",
        "3d6!!>=5>=5",
        "3d4!p>=3kh2>=3",
        "3d6>3f<2",
        "4d6>5f<=2",
        "3d4>3f1kh2",
        "2d8r1r3r5r7",
        "3d6cs>5cf1",
        "4d6s",
        "5d4d2",
        "1d6r1",
        "2d6r<3",
        "2d6ro1",
        "2d6ro<3!",
        "5d6>=5",
        "4d10kh2>=6",
        "3d6!kh2",
        "2dFr-1",
        "3d4<=2",
    ],
)
def test_pools_match_brute_force(expr: str) -> None:
    node = parse(expr).root
    assert isinstance(node, Dice)
    assert odds(expr, SMALL).distribution == _pool_brute(node, SMALL)


def test_arithmetic_matches_brute_force() -> None:
    expected: dict[int, Fraction] = {}
    for a, b, c in itertools.product(range(1, 7), range(1, 5), range(1, 4)):
        v = -((a * 3 - b) // c)
        expected[v] = expected.get(v, Fraction(0)) + Fraction(1, 72)
    assert odds("-((1d6 * 3 - 1d4) / 1d3)").distribution == expected


# ---------------------------------------------------------------- icepool

FUDGE_DIE = icepool.Die([-1, 0, 1])


def _ice(die: Any) -> dict[int, Fraction]:
    d = die.denominator()
    return {int(o): Fraction(q, d) for o, q in die.items() if q}


ICEPOOL_CASES: list[tuple[str, Callable[[], Any]]] = [
    ("3d6", lambda: 3 @ icepool.d6),
    ("100d6", lambda: 100 @ icepool.d6),
    ("d%", lambda: icepool.d100),
    ("3d-3", lambda: 3 @ icepool.d6 - 3),
    ("4dF", lambda: 4 @ FUDGE_DIE),
    ("4d6kh3", lambda: icepool.d6.highest(4, 3)),
    ("10d10kh3", lambda: icepool.d10.highest(10, 3)),
    ("20d20kh5", lambda: icepool.d20.highest(20, 5)),
    ("4d6kl1", lambda: icepool.d6.lowest(4, 1)),
    ("4d6dh1", lambda: icepool.d6.lowest(4, 3)),
    ("4d6dl1", lambda: icepool.d6.highest(4, 3)),
    ("8d6!", lambda: 8 @ icepool.d6.explode(depth=3)),  # the same sum either way
    ("8d6!!", lambda: 8 @ icepool.d6.explode(depth=3)),
    ("2d10!>=9", lambda: 2 @ icepool.d10.explode([9, 10], depth=3)),
    ("d20r1", lambda: icepool.d20.reroll([1], depth="inf")),
    ("d20r<3", lambda: icepool.d20.reroll([1, 2], depth="inf")),
    ("3d6r1kh2", lambda: icepool.d6.reroll([1], depth="inf").highest(3, 2)),
    ("d20ro1", lambda: icepool.d20.reroll([1], depth=1)),
    ("6d10>=8", lambda: 6 @ (icepool.d10 >= 8)),
    ("2d6*1d4", lambda: (2 @ icepool.d6) * icepool.d4),
    ("(2d6+3)/1d3", lambda: (2 @ icepool.d6 + 3) // icepool.d3),
    ("-1d8", lambda: -icepool.d8),
]


@pytest.mark.parametrize(("expr", "build"), ICEPOOL_CASES, ids=[c[0] for c in ICEPOOL_CASES])
def test_agrees_with_icepool(expr: str, build: Callable[[], Any]) -> None:
    assert odds(expr, SMALL).distribution == _ice(build())


# ---------------------------------------------------------------- contract


def test_odds_summary_values() -> None:
    o = odds("2d6")
    assert o.mean == 7
    assert o.variance == Fraction(35, 6)
    assert o.p("<", 7) == o.p(">", 7) == Fraction(15, 36)
    assert sum(o.distribution.values()) == 1
    with pytest.raises(ValueError, match="unknown comparison"):
        o.p("!=", 3)


def test_cap_is_reported() -> None:
    assert odds("d6!").capped and odds("d6!").notes
    assert not odds("d20r1").capped and not odds("d20r1").notes
    assert not odds("d20ro1").capped and not odds("4d6kh3").capped


def test_reroll_is_the_conditioned_die() -> None:
    # Issue 10: r has no cap; d20r1 is exactly uniform on 2..20.
    assert odds("d20r1").distribution == {f: Fraction(1, 19) for f in range(2, 21)}
    assert odds("d6r<3").distribution == {f: Fraction(1, 4) for f in range(3, 7)}
    # ro rerolls once: a 1 stands only if rolled twice.
    assert odds("d20ro1").probability(1) == Fraction(1, 400)


def test_work_is_bounded() -> None:
    with pytest.raises(DiceLimitError, match="sample"):
        odds("10000d1000000")
    with pytest.raises(DiceLimitError):
        odds("1d1000000*1d1000000")
    with pytest.raises(DiceEvalError, match="division by zero"):
        odds("1/(1d6-1)")


def test_products_are_bounded_by_their_real_cost() -> None:
    # 81,724 outcomes of d6!*d6! times 506 of d6!, with ~800-bit counts: refused
    # before the loop, not after minutes and gigabytes.
    with pytest.raises(DiceLimitError, match="combine 81,724 by 506 outcomes"):
        odds("d6!*d6!*d6!")
    assert len(odds("d6!*d6!").outcomes) == 81_724  # within the default budget


def test_roll_odds_use_a_small_budget() -> None:
    from referee.commands.rolling import ROLL_ODDS_LIMITS, chance

    assert ROLL_ODDS_LIMITS.odds_work * 10 == DEFAULT_LIMITS.odds_work
    assert chance("d6!*d6!", 8) is None  # costly: the roll shows no percentage
    assert chance("3d6", 18) == Fraction(1, 216)
    assert chance("1/(1d6-1)", 1) is None  # could divide by zero


def test_bounds() -> None:
    assert bounds(parse("3d6-3").root) == (0, 15)
    assert bounds(parse("-(2d4)*1d3").root) == (-24, -2)
    assert bounds(parse("6d10>=8").root) == (0, 6)


def test_keep_drop_work_is_bounded_before_it_starts() -> None:
    # A keep over 50 exploding dice would take minutes: refused at once instead.
    with pytest.raises(DiceLimitError, match="byte operations"):
        odds("50d6!!kh3")
    with pytest.raises(DiceLimitError, match="would take too long here"):
        odds("150d6!kh3")  # each explosion a die: refused before any work


@pytest.mark.slow  # make check leaves it to make test
def test_trivial_or_hopeless_work_is_quick() -> None:
    # One face: the kept sum is certain, whatever the pool size.
    assert odds("10000d1kh5000").distribution == {5000: Fraction(1)}
    # Explosions are convolved packed, and a pool too large is refused from its size.
    with pytest.raises(DiceLimitError, match="bits of exact arithmetic"):
        odds("99d100!>=2")
    # Keep/drop counts Python's per-step overhead, not only the bytes.
    with pytest.raises(DiceLimitError, match="byte operations"):
        odds("3000d2kh1500")
