"""Stars Without Number fixes from the rules audit (issue 9, items 8-10).

Source: ../shared/rules/003 "Morale", "Saving Throw Mechanics", "Skill Checks",
"Recovery"; the rules README.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from conftest import Fixed, cli_json
from referee import RuleError, seeded
from referee.systems import swn
from referee.systems.swn import Condition, DeathWindow, Health
from referee.systems.swn.encounter import encounter_from_data
from referee.systems.swn.oracle import run_once
from referee.systems.swn.simulate import simulate, wilson

FLEE = Fraction(15, 36)  # P(2d6 > 7): one morale check at score 7 fails


def _one_blow() -> dict[str, Any]:
    """A PC who fells a thug with every blow, against two thugs who can never hurt it.

    The first thug to fall is both the side's first casualty and 50% of its losses;
    the survivor must check morale once, so it flees with P(2d6 > 7) = 15/36. The
    second fall is no new trigger (2 of 2 was already past 50%).
    """
    return {
        "sides": {"hero": {"target": "random"}, "thugs": {"flee": True}},
        "combatants": [
            {"name": "Warrior", "side": "hero", "pc": True, "hp": 10, "ac": 10,
             "attack_bonus": 50, "damage": "1d4+10"},
            {"name": "Thug", "side": "thugs", "count": 2, "hp": 4, "ac": 10,
             "attack_bonus": -50, "damage": "1d4", "morale": 7},
        ],
    }  # fmt: skip


def test_coinciding_triggers_give_one_morale_check_in_the_simulator() -> None:
    # Issue 9, item 8: two rolls gave 1 - (21/36)^2 = 66%; one event is one check: 41.7%.
    assert swn.morale_triggers(2, 0, 1) == ["first casualty", "50% losses"]
    sim = simulate(encounter_from_data(_one_blow()), 100_000, seed=9)
    lo, hi = wilson(sum(sim.fled), sim.runs, z=4.0)
    assert lo <= float(FLEE) <= hi


def test_coinciding_triggers_give_one_morale_check_in_the_oracle() -> None:
    enc = encounter_from_data(_one_blow())
    rng = seeded("one-check")
    n = 6000
    fled = sum(sum(run_once(enc, rng).fled) for _ in range(n))
    lo, hi = wilson(fled, n, z=4.0)
    assert lo <= float(FLEE) <= hi


def test_morale_text_is_true_and_names_what_breaking_means() -> None:
    # 003 "Morale": "Greater = flee/withdraw/surrender"; the comparison shown must hold.
    r = swn.morale(1, roll_anyway=True, rng=Fixed([1, 3]))  # 2 + 4 = 6 > 1
    assert "rolled 6 (2, 4) > 1: breaks (flees, withdraws or surrenders)" in r.text
    sure = swn.morale(1, rng=Fixed([]))  # certain: no die drawn, and the text still says so
    assert "certain to break (flees, withdraws or surrenders), no roll needed" in sure.text
    assert "≤" in swn.morale(8, rng=Fixed([1, 3])).text


def test_save_with_one_attribute_takes_the_other_as_plus_0() -> None:
    # Issue 9, item 9: `swn save physical --str 3` needed 17; Con not given counts +0.
    r = swn.save("physical", attributes={"str": -2}, rng=Fixed([13]))
    assert r.target == 15 and r.assumed == ("con +0 (not given)",)
    assert "assumed con +0 (not given)" in r.text
    both = swn.save("physical", attributes={"str": -2, "con": 0}, rng=Fixed([13]))
    assert both.target == 15 and both.assumed == ()
    none = swn.save("physical", attributes={}, rng=Fixed([13]))
    assert none.assumed == ("+0, no attribute given",)
    data = cli_json("swn", "save", "physical", "--str", "3", "--seed", "1")
    assert data["target"] == 15 and data["assumed"] == ["con +0 (not given)"]
    assert cli_json("swn", "save", "physical", "--str", "3", "--con", "10")["assumed"] == []
    with pytest.raises(RuleError, match="dex does not apply"):
        swn.save("physical", attributes={"dex": 1})


def test_technical_skills_cannot_be_attempted_untrained() -> None:
    # Issue 9, item 10; 003 "Skill Checks": "Some technical skills cannot be attempted untrained".
    with pytest.raises(RuleError, match="cannot be attempted untrained"):
        swn.skill_check(skill=None, technical=True, rng=Fixed([]))  # no die drawn
    assert swn.skill_check(skill=0, technical=True, rng=Fixed([3, 3])).total == 8
    assert swn.skill_check(skill=None, rng=Fixed([3, 3])).total == 7  # others: -1


def test_death_window_options() -> None:
    # Issue 9, item 10; 003 "Recovery": "Further damage before recovery = instant death".
    stable = Health(0, 8, Condition.STABILIZED)
    assert swn.take_damage(stable, 1).condition is Condition.DEAD
    after = swn.wait_minutes(stable, 10)  # 1 HP, a week to wait
    assert after.hp == 1 and after.wait_nights == 7
    hurt = swn.take_damage(after, 1)  # default: recovery was the 1 HP
    assert hurt.condition is Condition.MORTALLY_WOUNDED
    assert swn.take_damage(after, 1, window=DeathWindow.WEEK).condition is Condition.DEAD
    rested = after
    for _ in range(7):
        rested = swn.rest_night(rested, 1)
    assert rested.wait_nights == 0
    assert swn.take_damage(rested, 1, window=DeathWindow.WEEK).condition is not Condition.DEAD
