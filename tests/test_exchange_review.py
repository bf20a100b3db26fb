"""Issue 66 §1: the GURPS exchange's results an expert review found wrong, each against
the rule's words and page, and each option's odds against the exchange itself run on
every outcome of its dice (:func:`test_exchange_odds._runs`).

The rules, as the Basic Set (4th edition) and *GURPS Martial Arts* state them:

- B365, "Feint": "If you succeed and your foe fails", your margin of success comes off
  his defense; if both succeed and you by more, your margin of victory.
- B376, "Parrying": −4 for each parry after the first with the same weapon; thrown
  weapons are parried at −1 (−2 for small ones); missiles cannot be parried.
- B399, "Skull": "None of these effects apply to toxic damage" (DR +2, ×4, knockdown).
- B557, "Unarmed Critical Miss Table": for bites, claws, kicks, punches and the like.
- B110, "Armor Divisor": with a divisor under 1, "targets that have DR 0 (e.g., bare
  flesh) get DR 1 against your attack".
- MA97, "All-Out Attack (Long)": a swing −2 damage or −1 a die, whichever is worse; a
  thrust loses nothing. (B365 has no Long.)
- B399, "Hit Location": an aimed attack that misses by 1 hits the torso.
- B556, Critical Head Blow Table, rows 6-7: "If the attack targeted the face or skull,
  treat it as an eye hit ... If an eye hit is impossible ... treat as 4."
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from referee import commands, fight, seeded
from referee.errors import RuleError
from referee.fight.exchange import TOXIC_RULES, through_dr
from referee.rng import ReplaySource
from referee.systems.gurps.allout import feint_odds, feint_penalty, long_damage
from referee.systems.gurps.contest import quick_contest
from referee.systems.gurps.criticals import CRITICAL_MISS_UNARMED, EyeRow, unarmed_name
from referee.systems.gurps.damage import armor_dr, damage, read_damage
from referee.systems.gurps.exchange import Target, exchange, exchanges
from referee.systems.gurps.exchange_odds import double_odds, exchange_odds
from referee.systems.gurps.melee import (
    AttackOptions,
    DefenseOptions,
    RangedKind,
    TorsoMiss,
    attack,
    misses_by_one,
)
from referee.systems.gurps.success import margin, outcome, skill_odds
from test_exchange_odds import _check, _runs

EXAMPLES = Path(__file__).parents[1] / "src" / "referee" / "examples" / "sheets"


def _replay(*faces: int) -> ReplaySource:
    return ReplaySource([(6, f) for f in faces])


def _sheet(path: Path) -> Any:
    from referee.sheets import read_sheet

    return read_sheet(path.read_bytes())


# ------------------------------------------------------------------- 1. Feint (B365)


def _book_penalty(a: int, b: int, skill: int, resisting: int) -> int:
    """B365's words on one pair of 3d6 totals, with ``000``'s success and margins."""
    win_a, win_b = outcome(a, skill).success, outcome(b, resisting).success
    if not win_a:
        return 0
    if not win_b:
        return margin(a, skill)  # "If you succeed and your foe fails": margin of success
    return max(margin(a, skill) - margin(b, resisting), 0)  # both: margin of victory


def test_a_feint_against_a_foe_who_fails_takes_its_margin_of_success_b365() -> None:
    """B365: "If you succeed and your foe fails, deduct your margin of success from
    his active defense"; the reviewer's line said "feint wins by 6 ... Parry 10−6 = 4"."""
    line = "gurps attack 14 --feint 12 --damage '2d cut' --target-name Orc --parry 10 --hp 12"
    got = commands.run(line, seeded(1))
    assert "success by 4" in got.text and "wins by 6" in got.text  # the contest as rolled
    assert "(Orc's defense -4, B365)" in got.text and "Orc's Parry 10-4 = 6" in got.text
    # both succeed: the margin of victory; the feint fails: nothing
    both = quick_contest(14, 12, resistance=True, rng=_replay(1, 2, 3, 3, 3, 4))  # 6 vs 10
    assert feint_penalty(both) == 8 - 2  # success by 8 against success by 2
    lost = quick_contest(14, 12, resistance=True, rng=_replay(5, 5, 5, 1, 1, 1))
    assert feint_penalty(lost) == 0


def test_a_feints_odds_follow_b365_by_enumeration() -> None:
    """:func:`feint_odds` over every pair of 3d6 totals, read by B365's words; the
    reviewer's exchange defends 26.01% by the book (24.14% before)."""
    for skill, resisting in ((14, 12), (13, 11), (10, 16), (20, 9)):
        want: dict[int, Fraction] = {}
        for a, b in itertools.product(range(3, 19), repeat=2):
            p = _ways3(a) * _ways3(b)
            m = _book_penalty(a, b, skill, resisting)
            want[m] = want.get(m, Fraction(0)) + p
        assert feint_odds(skill, resisting) == tuple(sorted(want.items()))
    o = exchange_odds(14, read_damage("2d cut"), Target("Orc", parry=10, hp=12),
                      AttackOptions(feint=12))  # fmt: skip
    normal = skill_odds(14).success - skill_odds(14).critical_success
    held = sum((p * skill_odds(10 - m).success for m, p in feint_odds(14, 12)), Fraction(0))
    assert o.defended == normal * held and f"{float(o.defended):.4f}" == "0.2601"


def _ways3(total: int) -> Fraction:
    return Fraction(sum(1 for d in itertools.product(range(1, 7), repeat=3) if sum(d) == total),
                    216)  # fmt: skip


# --------------------------------------------- 2. Double and repeated parries (B376)


def test_doubles_second_parry_is_at_minus_4_b376() -> None:
    """B376: "−4 for each parry after the first with the same weapon"; the reviewer's
    second attack was parried at 12 where the book gives 12−4 = 8."""
    line = "gurps attack 14 --double --damage '2d cut' --target-name Orc --parry 12 --hp 12"
    got = commands.run(line, seeded(2))
    first, second = got.text.split("\n")
    assert "Orc's Parry 12:" in first and "Orc's Parry 12-4 = 8:" in second
    odds = commands.run(line.replace("gurps attack", "gurps odds attack"))
    assert "either injures 71.8%, both 16.1%" in odds.text
    # A parry that fails still counts; a miss or a critical hit draws none; with "best",
    # the second turns to a Dodge the −4 leaves better (Dodge 10 against Parry 12−4).
    foe = Target("Orc", dodge=10, parry=12, hp=12)
    spec = read_damage("1d cr")
    miss = exchanges(14, spec, foe, options=AttackOptions(double=True),
                     rng=_replay(6, 6, 4, 2, 2, 2, 2, 2, 2))  # fmt: skip
    assert miss[0].defense is None and miss[1].defense is not None
    assert miss[1].defense.check.effective_skill == 12  # no parry drawn before it
    held = exchanges(14, spec, foe, options=AttackOptions(double=True),
                     rng=_replay(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2))  # fmt: skip
    assert held[1].defense is not None and held[1].defense.defense == "dodge"
    fenced = exchanges(14, spec, replace(foe, dodge=None, fencing=True),
                       options=AttackOptions(double=True),
                       rng=_replay(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2))  # fmt: skip
    assert fenced[1].defense is not None and fenced[1].defense.check.effective_skill == 10
    with pytest.raises(RuleError, match="21 earlier parries"):
        exchanges(14, spec, foe, options=AttackOptions(double=True),
                  defense_options=DefenseOptions(parried=20), rng=_replay())  # fmt: skip


def test_a_doubles_odds_with_a_parry_equal_enumeration() -> None:
    """Either and both, against the first exchange run on every outcome of its dice
    and the second on every outcome of its own, at the HP the first left and at −4
    when the first drew a parry (B376)."""
    spec, foe = read_damage("1d cr"), Target("Orc", parry=10, hp=5)
    opts = AttackOptions(double=True, criticals=False)
    first = exchange_odds(12, spec, foe, opts, "parry")
    either, both = double_odds(first, 12, spec, foe, opts, "parry")
    seconds: dict[tuple[int | None, bool], Fraction] = {}
    neither = two = Fraction(0)
    for p, x in _runs(12, spec, foe, opts, "parry"):
        drew = x.defense is not None and x.defense.defense == "parry"
        key = (x.hp_after, drew)
        if key not in seconds:
            after = replace(foe, current_hp=x.hp_after)
            seconds[key] = sum((q for q, y in _runs(12, spec, after, opts, "parry",
                                defense_options=DefenseOptions(parried=int(drew)))
                                if y.success), Fraction(0))  # fmt: skip
        if x.success:
            two += p * seconds[key]
        else:
            neither += p * (1 - seconds[key])
    assert (either, both) == (1 - neither, two)
    assert either != 1 - (1 - first.injures) ** 2  # the −4 counts


# ---------------------------------------------------- 3. Toxic at the skull (B399)


def _gurps(**values: int) -> fight.Fight:
    f = fight.begin("gurps")
    return fight.step(f, {"kind": "add", "combatant": "orc", "values": values}).fight


def test_toxic_damage_at_the_skull_in_a_fight_gets_none_of_its_effects_b399() -> None:
    """B399, skull: "None of these effects apply to toxic damage": 8 basic toxic at the
    skull of a 10-HP foe is injury 8 (no DR 2, no ×4) and a plain HT roll for the major
    wound (no −10), as the exchange gives, from rules 5; a log of rules 4 replays as it
    was written (DR 2: 6 injury, and −10)."""
    hit = {"kind": "damage", "combatant": "orc", "basic": 8, "type": "tox", "location": "skull"}
    f = _gurps(hp_max=10, ht=11)
    now = fight.step(f, hit, rules=TOXIC_RULES).fight
    assert now.combatants["orc"].values["hp"] == 2
    assert [c.command for c in now.calls] == ["gurps check 11 --label 'HT (knockdown)'"]
    old = fight.step(f, hit, rules=TOXIC_RULES - 1).fight
    assert old.combatants["orc"].values["hp"] == 4
    assert [c.command for c in old.calls] == ["gurps check 11 -10 --label 'HT (knockdown)'"]
    x = exchange(30, read_damage("2d tox"), Target("Orc", hp=10),
                 options=AttackOptions(location="skull", criticals=False), defense="none",
                 rng=_replay(3, 3, 3, 4, 4))  # fmt: skip
    assert x.hurt is not None and x.hurt.wound is not None  # the fight's blow, B399
    assert (x.hurt.injury, x.hurt.wound.knockdown) == (8, 0)
    cut = fight.step(f, {**hit, "type": "cut"}, rules=TOXIC_RULES).fight
    assert cut.combatants["orc"].values["hp"] == 10 - 24  # (8 − 2) × 4: the skull's own


# ------------------------------------------------- 4. Unarmed critical misses (B557)


def test_an_unarmed_critical_miss_reads_the_unarmed_table_b557() -> None:
    """B557: the Unarmed Critical Miss Table is for bites, kicks, punches and the like;
    the reviewer's punch read "The weapon turns in your hand" (B556's weapon table)."""
    dai = commands.with_sheet(_sheet(EXAMPLES / "dai.gcs"))
    got = commands.run("gurps attack Punch --mod -9", seeded(29), resources=dai)
    assert "unarmed critical miss table: rolled 12" in got.text and "You trip" in got.text
    assert "turns in your hand" not in got.text
    armed = commands.run("gurps attack Punch --mod -9 --armed", seeded(29), resources=dai)
    assert "turns in your hand" in armed.text
    resolved = commands.resolve("gurps attack Punch --mod -9", _sheet(EXAMPLES / "dai.gcs"))
    assert "--unarmed" in resolved and commands.run(resolved, seeded(29)).text == got.text
    rows = {t: e.effect for t, e in CRITICAL_MISS_UNARMED.items()}
    assert rows[3] == rows[18] == "knocks self out" and rows[4] == rows[17] == "strains limb"
    assert rows[5] == rows[16] == "hits object" and rows[6] == "hits object (half)"
    assert rows[7] == rows[14] == "stumbles" and rows[8] == "falls"
    assert {rows[9], rows[10], rows[11]} == {"off balance"} and rows[12] == "trips"
    assert rows[13] == "drops guard" and rows[15] == "tears muscle"
    assert [unarmed_name(n) for n in ("Natural Attacks (Bite)", "Kick", "Broadsword")] == [
        True, True, False,
    ]  # fmt: skip
    a = attack(10, options=AttackOptions(unarmed=True), rng=_replay(6, 6, 6, 1, 1, 1))
    assert a.critical is not None and a.critical.table == "unarmed critical miss"


# ------------------------------------------------------ 5. Ranged parries (B376)


@pytest.mark.parametrize(
    ("flag", "shown"),
    [("--ranged", "Dodge 8 defends"), ("--thrown", "Parry 11 defends"),
     ("--thrown-small", "Parry 10 defends")],
)  # fmt: skip
def test_a_missile_is_not_parried_and_a_thrown_weapon_is_at_minus_1_or_2_b376(
    flag: str, shown: str
) -> None:
    """B376: missiles cannot be parried; thrown weapons at −1, small ones at −2. The
    reviewer's missile was parried at a full 12."""
    line = f"gurps odds attack 14 {flag} --damage '2d pi' --target-name X --parry 12 --dodge 8"
    assert shown in commands.run(line + " --hp 10").text


def test_ranged_defenses_refused_and_their_odds_equal_enumeration() -> None:
    missile = AttackOptions(ranged=True)
    with pytest.raises(RuleError, match="missile cannot be parried"):
        exchange_odds(14, read_damage("1d pi"), Target(parry=12, dodge=8), missile, "parry")
    with pytest.raises(RuleError, match="only a Parry"):
        exchange_odds(14, read_damage("1d pi"), Target(parry=12), missile)
    with pytest.raises(RuleError, match="ranged attack"):
        AttackOptions(ranged_kind=RangedKind.THROWN)
    assert "Parry 12-1 = 11" in commands.run("gurps defend parry 12 --thrown", seeded(1)).text
    target = Target("X", dodge=9, parry=12, dr=1, hp=10)
    for kind in RangedKind:
        _check(13, "1d imp", target, AttackOptions(ranged=True, ranged_kind=kind), "best")


# ----------------------------------------- 6. A fractional armor divisor at DR 0 (B110)


def test_dr_0_is_dr_1_against_a_fractional_divisor_b110() -> None:
    """B110: "targets that have DR 0 (e.g., bare flesh) get DR 1 against your attack";
    the reviewer's 1d(0.5) cut penetrated 2 of 2 at DR 0."""
    assert (armor_dr(0, Fraction(1, 2)), armor_dr(0, Fraction(1, 5)), armor_dr(2, Fraction(1, 2)))\
        == (1, 1, 4)  # fmt: skip
    assert armor_dr(0, Fraction(1, 2), bare_dr_one=False) == 0
    r = damage("1d", dr=0, damage_type="cut", divisor=Fraction(1, 2), rng=_replay(2))
    assert (r.basic_damage, r.penetrating) == (2, 1) and "B110" in r.text
    got = commands.run("gurps damage '1d(0.5) cut' --dr 0", _replay(2))
    assert "1 penetrates" in got.text
    _check(12, "1d(0.5) cut", Target("X", dodge=8, hp=10), AttackOptions(), "dodge")
    f = _gurps(hp_max=10, ht=11)
    hit = {"basic": 3, "type": "cut", "divisor": "1/2"}
    c = f.combatants["orc"]
    assert (through_dr(c, hit, TOXIC_RULES), through_dr(c, hit, TOXIC_RULES - 1)) == (3, 4)


# ------------------------------------------------ 7. All-Out Attack (Long), MA97


def test_long_costs_a_swing_and_not_a_thrust_ma97() -> None:
    """MA97: Long's swing is at "−2 damage or −1 per die, whichever is worse"; a
    thrust loses nothing. The Basic Set's B365 has no Long."""
    assert [long_damage(d) for d in ("1d", "3d+1")] == ["1d-2", "3d-2"]
    assert [long_damage(d, thrust=True) for d in ("1d", "3d+1")] == ["1d", "3d+1"]
    target = Target("X", dodge=8, hp=10)
    swing = exchange_odds(12, read_damage("1d+1 cut"), target, AttackOptions(long=True))
    thrust = exchange_odds(12, read_damage("1d+1 cut"), target,
                           AttackOptions(long=True, thrust=True))  # fmt: skip
    plain = exchange_odds(12, read_damage("1d+1 cut"), target, AttackOptions())
    assert thrust.injury == plain.injury != swing.injury
    _check(12, "1d+1 imp", target, AttackOptions(long=True, thrust=True), "dodge")
    _check(12, "1d+1 cut", target, AttackOptions(long=True), "dodge")
    dai = _sheet(EXAMPLES / "dai.toml")
    line = "gurps attack 'Knife (Thrust)' --long --target-name X --dodge 8"
    with_sheet = commands.run(line, seeded(3), resources=commands.with_sheet(dai))
    bare = commands.run("gurps attack 17 --long --thrust --damage '1d-3 imp' --target-name X "
                        "--dodge 8", seeded(3))  # fmt: skip
    assert with_sheet.data["odds"] == bare.data["odds"]
    assert "--thrust" in commands.resolve(line, dai)


# --------------------------------------------------- 8. A miss by 1 at 17 (B399)


def test_a_17_at_effective_18_is_a_miss_by_1_by_default_b399() -> None:
    """B399: an aimed attack that misses by 1 hits the torso. A 17 at effective 18
    shows "failure by 1 (17 always fails)"; by default (TorsoMiss.MARGIN) it is that
    miss by 1; TorsoMiss.ROLL takes only the roll one over the skill."""
    assert misses_by_one(17, 18) and not misses_by_one(17, 18, TorsoMiss.ROLL)
    assert misses_by_one(13, 12, TorsoMiss.ROLL) and not misses_by_one(18, 20)
    skull = AttackOptions(location="skull")
    a = attack(25, options=skull, rng=_replay(6, 6, 5))
    assert a.check.margin == -1 and a.torso_instead and "hits the torso instead" in a.text
    b = attack(25, options=replace(skull, torso_miss=TorsoMiss.ROLL), rng=_replay(6, 6, 5))
    assert not b.torso_instead
    target = Target("X", dodge=8, hp=10)
    for reading in TorsoMiss:
        _check(25, "1d cr", target, replace(skull, torso_miss=reading), "dodge")
    line = "gurps odds attack 25 --location skull --damage 1d --target-name X --dodge 8"
    assert "torso" in commands.run(line).text
    assert "torso" not in commands.run(line + " --torso-miss roll").text


# ------------------------------------------ 11. Head blow rows 6-7 at the eye (B556)


def test_head_blow_rows_6_7_at_the_eye_are_an_option_b556() -> None:
    """B556 rows 6-7: "If the attack targeted the face or skull, treat it as an eye hit
    ... If an eye hit is impossible ..., treat as 4." An attack at the eye is neither:
    EyeRow.AS_AIMED (the default) leaves it the eye hit it was; EyeRow.AS_4 reads row 4
    (DR halved, rounded up, and a major wound if any penetrates)."""
    spec, target = read_damage("1d imp"), Target("X", dr=4, hp=30)
    dice = (1, 1, 1, 3, 2, 1, 5)  # a critical hit, row 6, then 5 damage
    aimed = AttackOptions(location="eye")
    x = exchange(20, spec, target, options=aimed, defense="none", rng=_replay(*dice))
    y = exchange(20, spec, target, options=replace(aimed, eye_row=EyeRow.AS_4),
                 defense="none", rng=_replay(*dice))  # fmt: skip
    assert x.hurt is not None and y.hurt is not None
    assert (x.hurt.dr, x.hurt.injury, x.hurt.wound and x.hurt.wound.major) == (4, 4, False)
    assert (y.hurt.dr, y.hurt.injury, y.hurt.wound and y.hurt.wound.major) == (2, 12, True)
    assert "rows 6-7 read as row 4" in y.text
    for reading in EyeRow:
        _check(14, "1d imp", target, replace(aimed, eye_row=reading), "none")
    line = (
        "gurps odds attack 20 --location eye --damage '1d imp' --target-name X --dr 4 "
        "--hp 30 --defense none"
    )
    plain, as_4 = commands.run(line), commands.run(line + " --eye-row as-4")
    assert plain.data["odds"]["major_wound"] != as_4.data["odds"]["major_wound"]
