"""Stars Without Number rules (003 and the rules README): named tests per clause,
exact odds against enumeration, seeded statistics."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from conftest import Fixed, chi_square_ok
from referee import RuleError, seeded
from referee.systems import swn
from referee.systems.swn import Condition, Health, Weapon

D6 = range(1, 7)


def _roll2d6() -> list[int]:
    return [a + b for a, b in itertools.product(D6, D6)]


# --- attributes, saves ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "mod"), [(3, -2), (4, -1), (7, -1), (8, 0), (13, 0), (14, 1), (17, 1), (18, 2)]
)
def test_attribute_table_edges(score: int, mod: int) -> None:
    assert swn.attribute_modifier(score) == mod


@pytest.mark.parametrize("score", [2, 19, -1])
def test_attribute_scores_outside_3_to_18_are_refused(score: int) -> None:
    with pytest.raises(RuleError, match=f"dex score {score} is outside 3-18"):
        swn.attribute_modifier(score, "dex")
    with pytest.raises(RuleError, match="either str or str-mod"):
        swn.resolve_modifier("str", 14, 1)


def test_save_target() -> None:
    assert swn.save_target(1) == 15  # "a level-1 character with no bonus needs 15"
    assert swn.save_target(3, 1) == 12
    assert swn.save_target(hit_dice=5) == 13 and swn.save_target(hit_dice=1) == 15


def test_natural_1_always_fails_and_natural_20_always_succeeds() -> None:
    low = swn.save("physical", level=10, attributes=(2,), rng=Fixed([0]))  # target 4
    assert low.dice == (1,) and low.total == 1 and not low.success and "natural 1" in low.note
    high = swn.save("mental", level=1, modifier=-5, rng=Fixed([19]))  # 20 - 5 = 15 vs 15
    assert high.success and "natural 20" in high.note
    hopeless = swn.save("evasion", level=1, modifier=-30, rng=Fixed([19]))
    assert hopeless.success and hopeless.total < hopeless.target


@pytest.mark.parametrize(("target", "mod"), [(15, 0), (2, 0), (25, 0), (12, 3), (10, -4)])
def test_save_odds_match_enumeration(target: int, mod: int) -> None:
    wins = sum(1 for d in range(1, 21) if d == 20 or (d != 1 and d + mod >= target))
    assert swn.save_odds(target, mod) == Fraction(wins, 20)


# --- skill checks and aid ------------------------------------------------------------


def test_difficulties_by_name() -> None:
    names = {"easy": 6, "normal": 8, "hard": 10, "very hard": 12, "very-hard": 12}
    for name, value in names.items():
        assert swn.difficulty_value(name) == value
    assert swn.difficulty_value("impossible") == swn.difficulty_value("near impossible") == 14
    assert swn.difficulty_value("9") == 9
    with pytest.raises(RuleError, match="unknown difficulty 'tricky'"):
        swn.difficulty_value("tricky")


def test_untrained_peripheral_and_situational() -> None:
    c = swn.skill_check(skill=None, attribute=1, difficulty="hard", peripheral=True,
                        modifier=2, rng=Fixed([3, 3]))  # fmt: skip
    assert dict(c.modifiers) == {"skill": -1, "attribute": 1, "situational": 2}
    assert c.target == 12 and c.total == 10 and not c.success
    with pytest.raises(RuleError, match=r"situational modifier \+3 is beyond ±2"):
        swn.skill_check(modifier=3)
    assert swn.skill_check(modifier=3, force=True).modifiers[-1] == ("situational", 3)
    with pytest.raises(RuleError, match="skill level 5 is outside 0-4"):
        swn.skill_check(skill=5)


def test_aid_gives_plus_one_however_many_helpers_succeed() -> None:
    # Two helpers both roll 12 (success), then the actor rolls 7: +1 once, not +2.
    c = swn.skill_check(difficulty=8, helpers=[swn.Helper()] * 2, rng=Fixed([5, 5, 5, 5, 3, 2]))
    assert [a.success for a in c.aid] == [True, True]
    assert dict(c.modifiers)["aid"] == 1 and c.total == 8 and c.success
    c = swn.skill_check(difficulty=8, helpers=[swn.Helper()], rng=Fixed([0, 0, 3, 2]))
    assert "aid" not in dict(c.modifiers) and not c.success


@pytest.mark.slow  # make check leaves it to make test
@pytest.mark.parametrize("helpers", [(), (0,), (1, -1), (2, 0, 0)])
def test_aided_skill_odds_match_enumeration(helpers: tuple[int, ...]) -> None:
    bonus, difficulty = 1, 10
    wins = total = 0
    for rolls in itertools.product(_roll2d6(), repeat=len(helpers) + 1):
        *helper_rolls, own = rolls
        aid = any(r + h >= difficulty for r, h in zip(helper_rolls, helpers, strict=True))
        wins += own + bonus + aid >= difficulty
        total += 1
    assert swn.skill_odds(bonus, difficulty, helpers) == Fraction(wins, total)


def test_opposed_ties_go_to_the_pc_or_to_the_defender() -> None:
    tie = [2, 2, 2, 2]  # both roll 6
    assert swn.oppose((0, True), (0, False), rng=Fixed(tie)).winner == 1
    assert swn.oppose((0, False), (0, True), rng=Fixed(tie)).winner == 2
    assert swn.oppose((0, True), (0, False), ties="defender", rng=Fixed(tie)).winner == 2
    assert swn.oppose((0, False), (0, False), rng=Fixed(tie)).winner == 2


@pytest.mark.parametrize(("b1", "b2", "pc1", "ties"), [(0, 0, True, "pc"), (2, 1, True, "defender"),
                                                        (0, 3, False, "pc")])  # fmt: skip
def test_opposed_odds_match_enumeration(b1: int, b2: int, pc1: bool, ties: str) -> None:
    wins = sum(
        1
        for x, y in itertools.product(_roll2d6(), _roll2d6())
        if x + b1 > y + b2 or (x + b1 == y + b2 and pc1 and ties == "pc")
    )
    assert swn.oppose((b1, pc1), (b2, False), ties=ties).odds == Fraction(wins, 36 * 36)


# --- morale --------------------------------------------------------------------------


def test_morale_holds_at_or_below_the_score() -> None:
    assert swn.morale(8, rng=Fixed([3, 3])).success  # 4 + 4 = 8
    assert not swn.morale(8, rng=Fixed([3, 4])).success  # 9
    for score in range(0, 14):
        wins = sum(1 for r in _roll2d6() if r <= score)
        assert swn.morale_odds(score) == Fraction(wins, 36)


def test_morale_triggers_first_casualty_and_half_losses() -> None:
    assert swn.morale_triggers(3, 0, 1) == ["first casualty"]
    assert swn.morale_triggers(3, 1, 2) == ["50% losses"]  # 2 of 3 is past half
    assert swn.morale_triggers(4, 1, 2) == ["50% losses"]
    assert swn.morale_triggers(4, 2, 3) == []
    assert swn.morale_triggers(2, 0, 1) == ["first casualty", "50% losses"]
    assert swn.morale_triggers(1, 0, 1) == ["first casualty", "50% losses"]


# --- attacks, Shock ------------------------------------------------------------------


def test_attack_modifiers() -> None:
    assert swn.attack_modifier(1, 1, 1) == 3
    assert swn.attack_modifier(0, None, 0) == -2  # untrained combat skill
    assert swn.attack_modifier(0, 0, 0, snap=True) == -4
    a = swn.attack(ac=13, weapon=Weapon("1d8"), total_defense=True, rng=Fixed([13, 0]))
    assert a.check.target == 15 and a.check.total == 14 and not a.hit


def test_shock_only_on_a_miss_and_only_within_the_ac_limit() -> None:
    pistol = Weapon.make("1d8", "2/15")
    miss_in = swn.attack(ac=15, weapon=pistol, attribute=1, damage_bonus=1, rng=Fixed([0]))
    assert not miss_in.hit and miss_in.shock and miss_in.damage == 4  # 2 + 1 + 1
    miss_out = swn.attack(ac=16, weapon=pistol, attribute=1, rng=Fixed([0]))
    assert not miss_out.hit and not miss_out.shock and miss_out.damage == 0
    hit = swn.attack(ac=10, weapon=pistol, rng=Fixed([19, 6]))
    assert hit.hit and not hit.shock and hit.damage == 7


def test_a_hit_never_does_less_than_shock() -> None:
    knife = Weapon.make("1d4", "2/13")
    low = swn.attack(ac=10, weapon=knife, rng=Fixed([19, 0]))  # rolled 1
    assert low.hit and low.damage == 2 and low.shock
    # Option: only within the AC limit.
    armoured = swn.attack(ac=14, weapon=knife, shock_floor="within-limit", rng=Fixed([19, 0]))
    assert armoured.hit and armoured.damage == 1 and not armoured.shock
    default = swn.attack(ac=14, weapon=knife, rng=Fixed([19, 0]))
    assert default.damage == 2


@pytest.mark.parametrize(
    ("weapon", "bonus", "ac", "extra", "floor"),
    [(Weapon.make("1d8", "2/15"), 3, 13, 1, "always"), (Weapon.make("1d4", "2/13"), 0, 14, 0,
     "within-limit"), (Weapon.make("2d6"), -2, 18, -1, "always"),
     (Weapon.make("1d6", "1/20"), 5, 12, -3, "always")],
)  # fmt: skip
def test_damage_distribution_matches_enumeration(
    weapon: Weapon, bonus: int, ac: int, extra: int, floor: str
) -> None:
    count, sides = (int(x) for x in weapon.damage.split("d"))
    tally: Counter[int] = Counter()
    for d20 in range(1, 21):
        for faces in itertools.product(range(1, sides + 1), repeat=count):
            if d20 + bonus >= ac:
                dmg = max(0, sum(faces) + extra)
                if weapon.shock is not None and (floor == "always" or ac <= (weapon.shock_ac or 0)):
                    dmg = max(dmg, weapon.shock + extra, 0)
            elif weapon.shock is not None and ac <= (weapon.shock_ac or 0):
                dmg = max(0, weapon.shock + extra)
            else:
                dmg = 0
            tally[dmg] += 1
    total = sum(tally.values())
    expected = {k: Fraction(v, total) for k, v in tally.items()}
    got = dict(swn.damage_distribution(weapon, bonus, ac, extra, swn.ShockFloor(floor)))
    assert got == expected
    assert swn.hit_odds(bonus, ac) == Fraction(sum(1 for d in range(1, 21) if d + bonus >= ac), 20)


def test_seeded_attacks_match_the_damage_distribution() -> None:
    rng = seeded("swn-attacks")
    weapon = Weapon.make("1d8", "2/15")
    n = 20_000
    seen = Counter(swn.attack(ac=13, weapon=weapon, attack_bonus=1, attribute=1, rng=rng).damage
                   for _ in range(n))  # fmt: skip
    expected = dict(swn.damage_distribution(weapon, 2, 13, 1))
    assert chi_square_ok(seen, expected, n)


def test_seeded_saves_and_checks_match_their_odds() -> None:
    rng = seeded("swn-checks")
    n = 20_000
    saves = sum(swn.save("physical", level=2, rng=rng).success for _ in range(n))
    p = float(swn.save_odds(14))
    assert chi_square_ok(Counter({1: saves, 0: n - saves}), {1: Fraction(p), 0: Fraction(1 - p)}, n)
    team = [swn.Helper(0, 0)] * 2
    ok = sum(swn.skill_check(difficulty=9, helpers=team, rng=rng).success for _ in range(n))
    q = swn.skill_odds(0, 9, (0, 0))
    assert chi_square_ok(Counter({1: ok, 0: n - ok}), {1: q, 0: 1 - q}, n)


# --- initiative and turns ------------------------------------------------------------


def test_initiative_pcs_win_ties_and_npc_ties_follow_the_seed() -> None:
    # d8 values 4 for all (randbelow 3), tie-breaks 5, 1, 9.
    order = swn.initiative([("npc", 0, False), ("pc", 0, True), ("npc2", 0, False)],
                           rng=Fixed([3, 5, 3, 1, 3, 9]))  # fmt: skip
    assert [e.name for e in order] == ["pc", "npc", "npc2"]
    order = swn.initiative([("npc", 0, False), ("npc2", 0, False)], rng=Fixed([3, 5, 3, 1]))
    assert [e.name for e in order] == ["npc2", "npc"]
    roster = [(f"n{i}", 0, False) for i in range(6)]
    a = [e.name for e in swn.initiative(roster, rng=seeded(5))]
    assert a == [e.name for e in swn.initiative(roster, rng=seeded(5))]


def test_impossible_turns_are_refused() -> None:
    assert swn.plan_turn(["move", "attack", "speak", "fall prone"]).moves == 1
    assert swn.plan_turn(["move", "second-move", "move"]).moves == 2
    with pytest.raises(RuleError, match="attack and reload each need the Main Action"):
        swn.plan_turn(["attack", "reload"])
    with pytest.raises(RuleError, match="snap-attack and attack"):
        swn.plan_turn(["snap-attack", "attack"])
    with pytest.raises(RuleError, match="2 Move actions, but only 1"):
        swn.plan_turn(["move", "move"])
    with pytest.raises(RuleError, match="unknown action 'dance'"):
        swn.plan_turn(["dance"])


# --- injury --------------------------------------------------------------------------


def test_zero_hp_lethal_is_mortal_nonlethal_is_unconscious() -> None:
    h = Health(5, 5)
    assert swn.take_damage(h, 3).hp == 2
    assert swn.take_damage(h, 9).condition is Condition.MORTALLY_WOUNDED
    out = swn.take_damage(h, 5, lethal=False)
    assert out.condition is Condition.UNCONSCIOUS and out.hp == 0
    assert swn.take_damage(out, 1).condition is Condition.MORTALLY_WOUNDED
    with pytest.raises(RuleError, match="hp -1 is negative"):
        Health(-1, 5)


def test_six_round_death_clock() -> None:
    h = swn.take_damage(Health(3, 3), 3)  # down in this round: rounds_down 0
    for rounds in range(1, 7):
        h = swn.end_round(h)
        assert h.condition is Condition.MORTALLY_WOUNDED and h.rounds_down == rounds
    assert swn.end_round(h).condition is Condition.DEAD  # the end of the 6th full round


def test_stabilize_difficulty_and_lazarus_patch_used_up_on_failure() -> None:
    assert swn.stabilize_difficulty("none", 2) == 12
    assert swn.stabilize_difficulty("medkit", 2) == 10
    assert swn.stabilize_difficulty("Lazarus patch", 2) == 8
    victim = swn.take_damage(Health(3, 3), 5)
    fail = swn.stabilize(victim=victim, tool="lazarus", rng=Fixed([0, 0]))
    assert not fail.check.success and fail.patch_used and fail.health == victim
    ok = swn.stabilize(victim=victim, tool="medkit", skill=1, rng=Fixed([3, 3]))
    assert ok.check.success and not ok.patch_used
    assert ok.health is not None and ok.health.condition is Condition.STABILIZED
    with pytest.raises(RuleError, match="unknown tool 'bandage'"):
        swn.stabilize(rounds=1, tool="bandage")


def test_stabilized_then_further_damage_is_instant_death() -> None:
    stable = Health(0, 6, Condition.STABILIZED)
    assert swn.take_damage(stable, 1).condition is Condition.DEAD


def test_recovery() -> None:
    stable = Health(0, 6, Condition.STABILIZED, pc=True)
    assert swn.wait_minutes(stable, 9) == stable
    up = swn.wait_minutes(stable, 10)
    assert up.hp == 1 and up.condition is Condition.UP and up.wait_nights == 7
    for _ in range(7):
        up = swn.rest_night(up, level=3)
        assert up.hp == 1  # a stabilized PC waits a week
    assert swn.rest_night(up, level=3).hp == 4
    npc = swn.wait_minutes(Health(0, 6, Condition.STABILIZED, pc=False), 10)
    assert swn.rest_night(npc, level=2).hp == 3
    assert swn.rest_night(Health(5, 6), level=3).hp == 6  # never above the maximum


def test_seeded_stabilize_matches_odds() -> None:
    rng = seeded("swn-stabilize")
    n = 20_000
    ok = sum(swn.stabilize(rounds=1, tool="medkit", skill=1, rng=rng).check.success
             for _ in range(n))  # fmt: skip
    p = swn.skill_odds(1, 9)
    assert chi_square_ok(Counter({1: ok, 0: n - ok}), {1: p, 0: 1 - p}, n)


def test_save_text_shows_how_the_target_was_reached() -> None:
    text = swn.save("physical", level=3, attributes=(1,), rng=Fixed([11])).text
    assert text.startswith("Physical save (16 - level 3 - 1 attribute): rolled 12 ≥ 12: success")
    npc = swn.save("evasion", hit_dice=5, rng=Fixed([11])).text
    assert npc.startswith("Evasion save (15 - 5 HD / 2): rolled 12 < 13: failure")
