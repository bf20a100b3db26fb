"""GURPS contests and automatic results (issue 9, items 1-3 and 7): each verdict
comes from the margins the rolls show.

Sources: ../shared/rules/000 "Quick Contest", "Margin of Victory", "Regular
Contest", "Success Rolls" (3-4 always succeed, 17-18 always fail); 001
"Contests"; 004 "Automatic Success" and "Contests of Skill".
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from conftest import cli_json
from referee import RuleError, seeded
from referee.systems import gurps as g
from referee.systems.gurps import Edition, Floor

BOUNDARY = (3, 4, 15, 16, 17, 20, 25)
TRIPLES = list(itertools.product(range(1, 7), repeat=3))


class Scripted:
    def __init__(self, faces: list[int]) -> None:
        self.faces = iter(faces)

    def randbelow(self, n: int) -> int:
        return next(self.faces) - 1


def _shown(total: int, skill: int) -> tuple[bool, int]:
    """An independent reading of one roll: success and the margin the text shows."""
    success = total <= 4 or (total <= 16 and total <= skill)
    raw = skill - total
    return success, (max(raw, 0) if success else min(raw, -1))


def _verdict(a: tuple[bool, int], b: tuple[bool, int]) -> tuple[int | None, int | None]:
    """Winner and margin of victory from the shown results alone (000, "Quick Contest")."""
    if a[0] != b[0]:
        w = 1 if a[0] else 2
    elif a[1] == b[1]:
        return None, None
    else:
        w = 1 if a[1] > b[1] else 2
    return w, abs(a[1] - b[1])


def _dice_for(total: int) -> list[int]:
    return list(next(t for t in TRIPLES if sum(t) == total))


def test_quick_contest_odds_brute_force_at_boundary_skills() -> None:
    # All 216 x 216 pairs of dice at every pair of boundary skills.
    for a, b in itertools.product(BOUNDARY, repeat=2):
        sa = [_shown(sum(t), a) for t in TRIPLES]
        sb = Counter(_shown(sum(t), b) for t in TRIPLES)
        wins: Counter[int | None] = Counter()
        for ra in sa:
            for rb, count in sb.items():
                wins[_verdict(ra, rb)[0]] += count
        o = g.quick_contest_odds(a, b)
        assert (o.first, o.second, o.tie) == tuple(
            Fraction(wins[k], 216 * 216) for k in (1, 2, None)
        ), (a, b)


def test_quick_contest_verdict_follows_shown_margins_for_every_total() -> None:
    for a, b in itertools.product(BOUNDARY, repeat=2):
        for ta, tb in itertools.product(range(3, 19), repeat=2):
            r = g.quick_contest(a, b, rng=Scripted(_dice_for(ta) + _dice_for(tb)))
            ra, rb = r.rounds[0]
            assert ra is not None and rb is not None
            shown = (ra.success, ra.margin), (rb.success, rb.margin)
            assert shown == (_shown(ta, a), _shown(tb, b))
            assert (r.winner, r.margin_of_victory) == _verdict(*shown)
            if r.winner is not None:
                assert r.margin_of_victory is not None and r.margin_of_victory >= 1
            # an automatic failure (17-18) never beats a success
            if ta >= 17 and rb.success:
                assert r.winner == 2
            if tb >= 17 and ra.success:
                assert r.winner == 1


@pytest.mark.parametrize(
    ("args", "tie"),
    [
        (("20", "10", "--seed", "127"), True),  # 17 at 20 and 11 at 10: both fail by 1
        (("3", "3", "--seed", "227"), True),  # two critical successes by 0
        (("3", "10", "--seed", "775"), False),  # was "wins by 0"
    ],
)
def test_audit_reproductions_are_consistent(args: tuple[str, ...], tie: bool) -> None:
    data = cli_json("gurps", "contest", *args)
    a, b = data["rounds"][0]["first"], data["rounds"][0]["second"]
    verdict = _verdict((a["success"], a["margin"]), (b["success"], b["margin"]))
    assert (data["winner"], data["margin_of_victory"]) == verdict
    assert (data["winner"] is None) == tie
    assert data["margin_of_victory"] != 0


def test_automatic_results_say_so_in_the_text() -> None:
    # Issue 9, item 2: the clamp is stated, not silent.
    r = g.check(20, rng=Scripted([6, 5, 6]))
    assert r.automatic and r.margin == -1
    assert "failure by 1 (17 always fails)" in r.text
    r = g.check(3, rng=Scripted([2, 1, 1]))
    assert r.automatic and r.margin == 0
    assert "critical success by 0 (4 always succeeds)" in r.text
    assert not g.check(12, rng=Scripted([6, 5, 6])).automatic  # 17 > 12 fails anyway
    assert cli_json("gurps", "check", "20", "--seed", "127")["automatic"] is True


def test_no_gurps_roll_is_ever_automatic() -> None:
    # Issue 9, item 7: 004 "Automatic Success" needs no roll only when failure is
    # impossible; 17 and 18 always fail, so every success roll is rolled.
    for skill in range(-10, 1001):
        assert 0 < g.skill_odds(skill).success < 1
    assert g.skill_odds(1000).success == Fraction(212, 216)


def test_shortening_below_3_clamps_and_reports_the_rolled_skill() -> None:
    # Issue 9, item 3: 3e shortening 30 vs 15 gives 14 vs -1; 000 lets skill 3 roll.
    r = g.regular_contest(30, 15, edition=Edition.THIRD, rng=seeded(1))
    assert r.effective_skills == (14, -1) and r.rolled_skills == (14, 3)
    for _a, b in r.rounds:
        assert b is not None and b.effective_skill == 3
    p14, p3 = g.skill_odds(14).success, g.skill_odds(3).success
    w1, w2 = p14 * (1 - p3), p3 * (1 - p14)
    assert r.odds.first == w1 / (w1 + w2)
    data = cli_json("gurps", "contest", "30", "15", "--regular", "--edition", "3e", "--seed", "1")
    assert data["rolled_skills"] == [14, 3] and "side 2 rolls at 3" in data["text"]


def test_auto_fail_floor_of_001() -> None:
    # 001 "Contests": "auto-fail if they have 3 or less E.S."
    r = g.regular_contest(30, 15, edition=Edition.THIRD, floor=Floor.AUTO_FAIL, rng=seeded(1))
    assert r.rolled_skills == (14, None) and r.odds.second == 0 and r.winner == 1
    assert all(b is None for _, b in r.rounds)
    q = g.quick_contest(3, 10, floor=Floor.AUTO_FAIL, rng=Scripted([6, 6, 5]))  # 10 fails at 17
    assert q.rounds[0][0] is None and q.winner == 2 and q.margin_of_victory is None
    assert g.quick_contest_odds(3, 10, floor=Floor.AUTO_FAIL).second == 1
    assert g.quick_contest_odds(3, 3, floor=Floor.AUTO_FAIL).tie == 1
    with pytest.raises(RuleError, match="never ends"):
        g.regular_contest(3, 3, edition=Edition.NONE, floor=Floor.AUTO_FAIL)
    with pytest.raises(RuleError, match="below 3"):
        g.quick_contest(2, 10)  # 000: no roll below 3 under the default floor


def test_regular_contest_with_auto_fail_matches_odds() -> None:
    rng = seeded("floor")
    n = 3000
    wins = Counter(
        g.regular_contest(5, 4, edition=Edition.NONE, floor=Floor.AUTO_FAIL, rng=rng).winner
        for _ in range(n)
    )
    o = g.regular_contest(5, 4, edition=Edition.NONE, floor=Floor.AUTO_FAIL, rng=rng).odds
    assert abs(wins[1] / n - float(o.first)) < 4 * (float(o.first * o.second) / n) ** 0.5
