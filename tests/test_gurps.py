"""GURPS rules, each test citing its clause (../shared/rules/000, 001, 004 and README)."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from conftest import chi_square_ok
from referee import RuleError, seeded
from referee.systems import gurps as g
from referee.systems.gurps import Edition, Outcome

# Source: ../shared/rules/README.md, "3d6, count of rolls of N or less", out of 216.
PUBLISHED_3D6_AT_MOST = [1, 4, 10, 20, 35, 56, 81, 108, 135, 160, 181, 196, 206, 212, 215, 216]


# ---- critical tables: 000 "Critical Success and Failure", 001 tables, README


def test_3_and_4_are_always_critical_success() -> None:
    for skill in (3, 10, 20):
        assert g.outcome(3, skill) is Outcome.CRITICAL_SUCCESS
        assert g.outcome(4, skill) is Outcome.CRITICAL_SUCCESS


def test_5_is_critical_success_at_15_plus() -> None:
    assert g.outcome(5, 15) is Outcome.CRITICAL_SUCCESS
    assert g.outcome(5, 14) is Outcome.SUCCESS


def test_6_is_critical_success_at_16_plus() -> None:
    assert g.outcome(6, 16) is Outcome.CRITICAL_SUCCESS
    assert g.outcome(6, 15) is Outcome.SUCCESS


def test_18_is_always_critical_failure() -> None:
    assert g.outcome(18, 30) is Outcome.CRITICAL_FAILURE


def test_17_is_critical_failure_at_15_or_less_else_failure() -> None:
    assert g.outcome(17, 15) is Outcome.CRITICAL_FAILURE
    assert g.outcome(17, 16) is Outcome.FAILURE
    assert g.outcome(17, 25) is Outcome.FAILURE  # 17 always fails (000 "Success Rolls")


def test_10_or_more_over_skill_is_critical_failure() -> None:
    assert g.outcome(16, 6) is Outcome.CRITICAL_FAILURE
    assert g.outcome(15, 5) is Outcome.CRITICAL_FAILURE
    assert g.outcome(15, 6) is Outcome.FAILURE


def test_success_at_or_under_skill() -> None:
    assert g.outcome(12, 12) is Outcome.SUCCESS
    assert g.outcome(13, 12) is Outcome.FAILURE
    assert g.outcome(16, 19) is Outcome.SUCCESS


def test_success_odds_match_published_table() -> None:
    for skill, count in zip(range(3, 17), PUBLISHED_3D6_AT_MOST, strict=False):
        if skill >= 5:
            assert g.skill_odds(skill).success == Fraction(count, 216), skill
    # 3 and 4 always succeed; 17-18 always fail: never more than 212/216.
    assert g.skill_odds(3).success == Fraction(4, 216)
    assert g.skill_odds(40).success == Fraction(212, 216)


def test_odds_against_brute_force_over_all_dice() -> None:
    for skill in range(3, 21):
        tally: Counter[Outcome] = Counter()
        for dice in itertools.product(range(1, 7), repeat=3):
            tally[g.outcome(sum(dice), skill)] += 1
        o = g.skill_odds(skill)
        assert o.critical_success == Fraction(tally[Outcome.CRITICAL_SUCCESS], 216)
        assert o.critical_failure == Fraction(tally[Outcome.CRITICAL_FAILURE], 216)


# ---- success roll: 000 "Modifiers", "Base Skill vs Effective Skill"


def test_skill_expression_and_text() -> None:
    assert g.parse_skill("9-5+10") == (9, (-5, 10))
    r = g.check("9-5+10", label="Lockpicking", rng=seeded(3))
    assert r.effective_skill == 14 and r.roll == sum(r.dice)
    assert r.text.startswith(f"Lockpicking 9-5+10 = 14: rolled {r.roll} (")
    assert r.text.endswith("90.7% to succeed")
    assert (r.margin > 0) == r.success or r.margin == 0


def test_below_3_refused_unless_defense() -> None:
    with pytest.raises(RuleError, match="below 3"):
        g.check("12-10")
    assert g.check("12-10", defense=True, rng=seeded(1)).effective_skill == 2


@pytest.mark.parametrize("bad", ["", "twelve", "12-", "12*2", "1001", "12+5000"])
def test_bad_skill_expressions(bad: str) -> None:
    with pytest.raises(RuleError):
        g.parse_skill(bad)


def test_check_outcomes_match_odds_statistically() -> None:
    rng = seeded("gurps check")
    n = 20_000
    seen = Counter(g.check(12, rng=rng).outcome for _ in range(n))
    o = g.skill_odds(12)
    expected = {
        0: o.critical_success,
        1: o.success - o.critical_success,
        2: 1 - o.success - o.critical_failure,
        3: o.critical_failure,
    }
    order = list(Outcome)
    assert chi_square_ok(Counter({order.index(k): v for k, v in seen.items()}), expected, n)


# ---- repeated attempts: 004 "Repeated Attempts on Success Rolls" (c)


def test_retry_odds_rule_c() -> None:
    p12, p11 = g.skill_odds(12).success, g.skill_odds(11).success
    assert g.retry_odds(12, 2, stop_on_critical=False) == 1 - (1 - p12) * (1 - p11)
    assert g.retry_odds(3, 5) == g.skill_odds(3).success  # no attempts below 3


def test_retry_stops_after_critical_failure_by_default() -> None:
    # Issue 9, item 4: a critical failure is "always something bad" (000), so (c) stops there.
    o12, p11 = g.skill_odds(12), g.skill_odds(11).success
    carry_on = 1 - o12.success - o12.critical_failure
    assert g.retry_odds(12, 2) == o12.success + carry_on * p11
    crit = [6, 6, 6]  # 18
    stopped = g.repeated_attempts(12, max_attempts=5, rng=Scripted(crit + [1, 1, 1]))
    assert len(stopped.attempts) == 1 and stopped.stopped_by_critical and not stopped.success
    went_on = g.repeated_attempts(
        12, max_attempts=5, stop_on_critical=False, rng=Scripted(crit + [1, 1, 1])
    )
    assert len(went_on.attempts) == 2 and went_on.success and not went_on.stopped_by_critical


def test_retry_odds_match_repeated_attempts_by_enumeration() -> None:
    # Walk every run of up to 3 attempts at 9, 8, 7, each 3d6 total weighted by its count.
    totals = Counter(sum(d) for d in itertools.product(range(1, 7), repeat=3))

    def p_success(i: int, stop: bool) -> Fraction:
        if i == 3:
            return Fraction(0)
        p = Fraction(0)
        for t, c in totals.items():
            o = g.outcome(t, 9 - i)
            if o.success:
                p += Fraction(c, 216)
            elif not (stop and o is Outcome.CRITICAL_FAILURE):
                p += Fraction(c, 216) * p_success(i + 1, stop)
        return p

    for stop in (True, False):
        assert p_success(0, stop) == g.retry_odds(9, 3, stop_on_critical=stop)


# ---- contests: 000 "Quick Contest", "Margin of Victory", "Regular Contest"


def _quick_brute(a: int, b: int) -> tuple[Fraction, Fraction, Fraction]:
    wins = [0, 0, 0]
    totals = Counter(sum(d) for d in itertools.product(range(1, 7), repeat=3))
    for ra, ca in totals.items():
        for rb, cb in totals.items():
            sa, sb = g.outcome(ra, a).success, g.outcome(rb, b).success
            # margins as shown: an automatic success counts 0, an automatic failure -1
            ma = max(a - ra, 0) if sa else min(a - ra, -1)
            mb = max(b - rb, 0) if sb else min(b - rb, -1)
            if sa != sb:
                w = 0 if sa else 1
            else:
                w = 2 if ma == mb else (0 if ma > mb else 1)
            wins[w] += ca * cb
    return tuple(Fraction(x, 216 * 216) for x in wins)  # type: ignore[return-value]


@pytest.mark.parametrize(("a", "b"), [(14, 12), (10, 10), (3, 18), (16, 9)])
def test_quick_contest_odds_brute_force(a: int, b: int) -> None:
    o = g.quick_contest_odds(a, b)
    assert (o.first, o.second, o.tie) == _quick_brute(a, b)


class Scripted:
    def __init__(self, faces: list[int]) -> None:
        self.faces = iter(faces)

    def randbelow(self, n: int) -> int:
        return next(self.faces) - 1


def test_margin_of_victory_both_succeed() -> None:
    r = g.quick_contest(14, 12, rng=Scripted([2, 2, 2, 3, 3, 3]))  # 6 vs 9
    assert r.winner == 1 and r.margin_of_victory == (14 - 6) - (12 - 9)


def test_margin_of_victory_one_succeeds() -> None:
    r = g.quick_contest(14, 12, rng=Scripted([3, 3, 3, 5, 5, 5]))  # 9 vs 15
    assert r.winner == 1 and r.margin_of_victory == (14 - 9) + (15 - 12)


def test_margin_of_victory_both_fail_and_tie() -> None:
    r = g.quick_contest(8, 9, rng=Scripted([4, 4, 4, 5, 5, 5]))  # 12 vs 15
    assert r.winner == 1 and r.margin_of_victory == (15 - 9) - (12 - 8)
    r = g.quick_contest(10, 10, rng=Scripted([3, 3, 3, 3, 3, 3]))
    assert r.winner is None and r.margin_of_victory is None


def test_resistance_ties_go_to_defender() -> None:
    r = g.quick_contest(10, 10, resistance=True, rng=Scripted([3, 3, 3, 3, 3, 3]))
    assert r.winner == 2
    o = g.quick_contest_odds(10, 10, resistance=True)
    assert o.tie == 0 and o.first + o.second == 1


def test_shortening_fourth_edition() -> None:
    # README, Basic Set p. B349: both over 14 -> lower to 10; both 6 or less -> lower to 10.
    assert g.shorten(18, 16) == (12, 10)
    assert g.shorten(5, 4) == (11, 10)
    assert g.shorten(15, 14) == (15, 14)


def test_shortening_third_edition() -> None:
    # 004 "Contests of Skill": both over 14 -> higher to 14, lower by the same.
    assert g.shorten(18, 16, Edition.THIRD) == (14, 12)
    assert g.shorten(5, 4, Edition.THIRD) == (5, 4)
    assert g.shorten(18, 16, Edition.NONE) == (18, 16)


def test_regular_contest_closed_form_and_rounds() -> None:
    r = g.regular_contest(12, 10, rng=seeded(5))
    pa, pb = g.skill_odds(12).success, g.skill_odds(10).success
    w1, w2 = pa * (1 - pb), pb * (1 - pa)
    assert r.odds.first == w1 / (w1 + w2) and r.expected_rounds == 1 / (w1 + w2)
    pairs = [(x, y) for x, y in r.rounds if x is not None and y is not None]
    assert len(pairs) == len(r.rounds)  # both sides roll at 12 and 10
    assert pairs[-1][0].success != pairs[-1][1].success
    assert all(x.success == y.success for x, y in pairs[:-1])
    capped = g.regular_contest(10, 10, max_rounds=1, rng=Scripted([1, 1, 1, 1, 1, 1]))
    assert capped.capped and capped.winner is None


def test_regular_contest_wins_match_odds() -> None:
    rng = seeded("regular")
    n = 4000
    wins = Counter(g.regular_contest(11, 9, rng=rng).winner for _ in range(n))
    o = g.regular_contest(11, 9, rng=rng).odds
    assert chi_square_ok(Counter({1: wins[1], 2: wins[2]}), {1: o.first, 2: o.second}, n)


# ---- reactions: 000 "Reaction Table" (bands from the README)


@pytest.mark.parametrize(
    ("total", "band"),
    [
        (0, "Disastrous"),
        (1, "Very Bad"),
        (3, "Very Bad"),
        (4, "Bad"),
        (6, "Bad"),
        (7, "Poor"),
        (9, "Poor"),
        (10, "Neutral"),
        (12, "Neutral"),
        (13, "Good"),
        (15, "Good"),
        (16, "Very Good"),
        (18, "Very Good"),
        (19, "Excellent"),
        (-5, "Disastrous"),
    ],
)
def test_reaction_band_boundaries(total: int, band: str) -> None:
    assert g.reaction_band(total) == band


def test_reaction_modifier_applies_to_roll_and_is_secret() -> None:
    r = g.reaction(3, rng=seeded(1))
    assert r.total == r.roll + 3 and g.SECRET_BY_DEFAULT  # the rule's default; the caller decides
    assert sum(r.odds.values()) == 1
    assert r.odds["Excellent"] == Fraction(10, 216)  # 3d6 >= 16


# ---- damage: 000 "Damage Rolls"; README minimums and DR


def test_damage_minimums() -> None:
    assert g.damage_odds("1d-4", damage_type="cr")[0] == Fraction(4, 6)  # rolls 1-4
    assert min(g.damage_odds("1d-4", damage_type="cut")) == 1
    assert g.damage_odds("1d-4", damage_type="cut", dr=1)[0] == Fraction(5, 6)


def test_damage_roll_and_errors() -> None:
    d = g.damage("3d-3", dr=2, damage_type="cut", rng=seeded(1))
    assert d.basic_damage == max(sum(d.dice) - 3, 1)
    assert d.penetrating == max(d.basic_damage - 2, 0)
    with pytest.raises(RuleError, match="unknown damage type"):
        g.damage("2d", damage_type="zap")
    with pytest.raises(RuleError, match="dice\\+adds"):
        g.damage("2d8")


def test_repeated_attempts_three_cases() -> None:
    # 004 "Repeated Attempts on Success Rolls": (a) first failure ends it.
    fail = [5, 5, 6]  # 16: an ordinary failure at 12
    a = g.repeated_attempts(12, rule=g.RetryRule.FIRST_FAILURE_ENDS, rng=Scripted(fail * 3))
    assert len(a.attempts) == 1 and not a.success
    # (b) each failure does harm, assessed by the caller; no penalty.
    b = g.repeated_attempts(
        12, rule=g.RetryRule.HARM, harm=lambda r: r.roll - 12, rng=Scripted(fail * 2 + [1, 1, 1])
    )
    assert b.harm == (4, 4) and b.success and b.attempts[-1].effective_skill == 12
    with pytest.raises(RuleError, match="harm"):
        g.repeated_attempts(12, rule=g.RetryRule.HARM)
    # (c) each attempt after the first at -1, cumulative; none below 3.
    c = g.repeated_attempts(5, max_attempts=10, rng=Scripted([4, 4, 4] * 10))  # 12: no critical
    assert [x.effective_skill for x in c.attempts] == [5, 4, 3]


def test_quick_contest_results_match_odds() -> None:
    rng = seeded("quick")
    n = 6000
    seen = Counter(g.quick_contest(13, 11, rng=rng).winner for _ in range(n))
    o = g.quick_contest_odds(13, 11)
    observed = Counter({0: seen[None], 1: seen[1], 2: seen[2]})
    assert chi_square_ok(observed, {0: o.tie, 1: o.first, 2: o.second}, n)
