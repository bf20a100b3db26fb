"""Combat options the Basic Set allows (issue 52 §2), each checked against its page:
reeling and very tired halve Dodge (B419, B426), repeated and fencing parries (B376,
B377), a weapon whose usages share a Parry, and the CLI that reaches them.

Source: *GURPS Basic Set*, 4th edition.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from referee import commands, fight, seeded
from referee.errors import RefereeError, RuleError
from referee.rng import ReplaySource
from referee.systems.gurps.damage import read_damage
from referee.systems.gurps.exchange import Target, exchange, injury_chance
from referee.systems.gurps.locations import location_wounding
from referee.systems.gurps.melee import (
    AttackOptions,
    DefenseOptions,
    attack_modifiers,
    defense_modifiers,
    halved_dodge,
    strong_damage,
)
from referee.systems.gurps.success import skill_odds
from referee.systems.gurps.wounds import wound_effects

THREE_D6 = list(itertools.product(range(1, 7), repeat=3))


# ------------------------------------------------ reeling and very tired (B419, B426)


def test_reeling_and_very_tired_halve_dodge_rounding_up() -> None:
    """B419: "If you have less than 1/3 your HP remaining, you are reeling ... Halve your
    Move and Dodge (round up)"; B426: very tired, "Halve your Move, Dodge, and ST
    (round up)"."""
    for dodge in range(0, 20):
        up = (dodge + 1) // 2
        assert halved_dodge(dodge) == dodge
        assert halved_dodge(dodge, reeling=True) == up
        assert halved_dodge(dodge, very_tired=True) == up
        assert halved_dodge(dodge, reeling=True, very_tired=True) == (up + 1) // 2


@pytest.mark.parametrize("hp_now", range(-3, 13))
def test_the_exchange_halves_dodge_under_a_third_of_hp(hp_now: int) -> None:
    target = Target("Orc", dodge=10, hp=12, current_hp=hp_now)
    assert target.reeling == (3 * hp_now < 12)
    assert target.level("dodge") == (5 if 3 * hp_now < 12 else 10)
    p = injury_chance(14, read_damage("1d cr"), target, defense="dodge")
    level = 5 if target.reeling else 10
    hit = skill_odds(14).success - skill_odds(14).critical_success
    crit = skill_odds(14).critical_success
    assert p == hit * (1 - skill_odds(level).success) + crit


def test_the_issues_reeling_orc_defends_at_5() -> None:
    res = commands.run(
        "gurps attack 14 --damage '1d cr' --dodge 10 --hp 12 --hp-now 3 --defense dodge",
        seeded(3),
    )
    assert res.data["defense"]["effective"] == 5
    assert "Dodge (halved: reeling) 5" in res.text
    tired = commands.run(
        "gurps attack 14 --damage '1d cr' --dodge 10 --hp 12 --defense dodge --very-tired",
        seeded(3),
    )
    assert tired.data["defense"]["effective"] == 5


def test_gurps_defend_halves_dodge_and_refuses_it_elsewhere() -> None:
    res = commands.run("gurps defend dodge 9 --reeling --very-tired", seeded(1))
    assert res.data["effective"] == 3
    with pytest.raises(RuleError, match="halve Dodge only"):
        commands.run("gurps defend parry 9 --reeling", seeded(1))


# ------------------------------------------------- repeated and fencing parries (B376)


def test_repeated_parries_are_minus_four_each_and_fencing_minus_two() -> None:
    """B376: "−4 for each parry after the first" with the same weapon; a fencing weapon
    "−2 per parry after the first"; B377: retreat +3 to a fencing parry, +1 otherwise."""
    for parried in range(0, 6):
        plain = sum(m for _, m in defense_modifiers("parry", DefenseOptions(parried=parried)))
        fenced = DefenseOptions(parried=parried, fencing=True, retreat=True)
        assert plain == -4 * parried
        assert sum(m for _, m in defense_modifiers("parry", fenced)) == 3 - 2 * parried
        dodge = sum(m for _, m in defense_modifiers("dodge", DefenseOptions(parried=parried)))
        assert dodge == 0  # only a parry


@pytest.mark.parametrize(
    ("line", "effective"),
    [
        ("--parry 10 --parried 2", 2),
        ("--parry 10 --parried 2 --fencing", 6),
        ("--parry 10F --parried 2", 6),
        ("--parry 10f --parried 1 --retreat", 11),
        ("--parry 10 --parried 1 --retreat", 7),
    ],
)
def test_gurps_attack_takes_parried_and_a_fencing_parry(line: str, effective: int) -> None:
    res = commands.run(
        f"gurps attack 14 --damage '1d cr' --target-name Orc --defense parry {line}",
        ReplaySource([(6, 3), (6, 4), (6, 4), (6, 6), (6, 6), (6, 6), (6, 1)]),
    )
    assert res.data["defense"]["effective"] == effective


def test_a_bad_parry_is_refused() -> None:
    with pytest.raises(RuleError, match="9F for a fencing parry"):
        commands.run("gurps attack 14 --damage '1d cr' --parry 9G", seeded(1))


def test_gurps_defend_reads_9f_as_a_fencing_parry() -> None:
    a = commands.run("gurps defend parry 9F --retreat --parried 1", seeded(1))
    b = commands.run("gurps defend parry 9 --retreat --parried 1 --fencing", seeded(1))
    assert a.data["effective"] == b.data["effective"] == 9 + 3 - 2


# ------------------------------------------------- a weapon whose usages share a Parry


def _resources(path: Path) -> Any:
    from referee.sheets import read_sheet

    return commands.with_sheet(read_sheet(path.read_bytes()))


def test_parry_with_a_weapon_whose_usages_share_it() -> None:
    """dai.toml's Knife parries at 10 swung or thrust: ``Knife`` names it."""
    dai = _resources(Path(__file__).parents[1] / "examples" / "sheets" / "dai.toml")
    res = commands.run("gurps defend parry Knife", seeded(1), resources=dai)
    assert res.data["effective"] == 10 and "Parry (Knife)" in res.text


def test_a_weapon_whose_usages_differ_is_still_asked_which() -> None:
    ninja = _resources(Path(__file__).parent / "data" / "gcs" / "Master Ninja.gcs")
    with pytest.raises(RefereeError, match="Sai"):
        commands.run("gurps defend parry Sai", seeded(1), resources=ninja)
    line = "gurps defend parry 'Sai (Swing - Main-Gauche)' --retreat"
    sai = commands.run(line, seeded(1), resources=ninja)
    assert sai.data["effective"] == 10 + 3  # 10F: a fencing retreat


def test_the_chance_to_injure_counts_a_fencing_target() -> None:
    spec = read_damage("1d cr")
    plain = Target("Orc", parry=10)
    fenced = Target("Orc", parry=10, fencing=True)
    options = DefenseOptions(retreat=True, parried=1)
    a = injury_chance(14, spec, plain, defense="parry", defense_options=options)
    b = injury_chance(14, spec, fenced, defense="parry", defense_options=options)
    hit = skill_odds(14).success - skill_odds(14).critical_success
    crit = skill_odds(14).critical_success
    assert a == hit * (1 - skill_odds(10 + 1 - 4).success) + crit
    assert b == hit * (1 - skill_odds(10 + 3 - 2).success) + crit
    x = exchange(14, spec, fenced, defense="parry", defense_options=options, rng=seeded(2))
    assert x.defense is None or x.defense.check.effective_skill == 11
    assert Fraction(0) < b < a


# ------------------------------------------------------------- vitals and eye (B399)


@pytest.mark.parametrize("where", ["vitals", "eye"])
@pytest.mark.parametrize("kind", ["cr", "cut", "imp", "pi-", "pi", "pi+", "pi++", "burn", "tox"])
def test_only_impaling_piercing_and_tight_beam_burning_target_the_vitals_and_eye(
    where: str, kind: str
) -> None:
    """B399: "Only impaling, piercing, and tight-beam burning attacks can target" them."""
    allowed = kind in ("imp", "pi-", "pi", "pi+", "pi++")
    spec = read_damage(f"1d {kind}")
    options = AttackOptions(location=where)
    if allowed:
        assert injury_chance(20, spec, Target("Orc"), options, "none") > 0
    else:
        with pytest.raises(RuleError, match=rf"cannot target the {where}.*\(B399\)"):
            exchange(20, spec, Target("Orc"), options=options, defense="none", rng=seeded(1))
    beam = AttackOptions(location=where, tight_beam=True)
    if kind == "burn":
        assert injury_chance(20, spec, Target("Orc"), beam, "none") > 0


def test_a_cut_at_the_vitals_is_refused_on_the_command_line() -> None:
    line = "gurps attack 14 --damage '2d cut' --location vitals --target-name Orc --hp 10"
    with pytest.raises(RuleError, match="only impaling, piercing and tight-beam burning"):
        commands.run(line, seeded(1))
    beam = commands.run(
        "gurps attack 20 --damage '1d burn' --location vitals --tight-beam --target-name Orc "
        "--hp 30 --defense none",
        ReplaySource([(6, 3), (6, 4), (6, 4), (6, 5)]),
    )
    assert beam.data["damage"]["injury"] == 10  # 5 burning ×2 at the vitals (B399)


def test_tight_beam_burning_is_times_two_to_the_vitals() -> None:
    assert location_wounding("vitals", "burn", tight_beam=True) == 2
    assert location_wounding("vitals", "burn") == 1
    assert location_wounding("torso", "burn", tight_beam=True) == 1


def test_injury_over_a_tenth_of_hp_blinds_the_eye() -> None:
    """B399: injury "over HP/10 blinds the eye"."""
    for hp in range(1, 40):
        for injury in range(1, 12):
            assert wound_effects(injury, "eye", hp).blinded == (10 * injury > hp)
            assert not wound_effects(injury, "skull", hp).blinded
    f = fight.begin("gurps")
    f = fight.step(f, {"kind": "add", "combatant": "orc", "values": {"st": 10}}).fight
    f = fight.step(f, {"kind": "damage", "combatant": "orc", "amount": 2, "location": "eye"}).fight
    assert "blinded eye" in f.combatants["orc"].conditions


# ------------------------------------------------------------------- groin (B399)


def test_a_male_groin_hit_doubles_crushing_shock_and_is_minus_five_on_a_major_wound() -> None:
    """B399: "a male humanoid suffers double the usual shock from crushing damage (max
    −8), and −5 to knockdown rolls"; an option on the target, off by default."""
    for injury in range(1, 12):
        w = wound_effects(injury, "groin", 10, damage_type="cr", male=True)
        assert w.shock == min(8, 2 * injury)
        assert wound_effects(injury, "groin", 10, damage_type="cut", male=True).shock == min(
            4, injury
        )
        assert wound_effects(injury, "groin", 10, damage_type="cr").shock == min(4, injury)
        major = 2 * injury > 10
        assert w.knockdown == (-5 if major else None)
        assert wound_effects(injury, "groin", 10).knockdown == (0 if major else None)
    res = commands.run(
        "gurps attack 20 --damage '2d cr' --location groin --male --target-name Orc --hp 10 "
        "--defense none",
        ReplaySource([(6, 3), (6, 4), (6, 4), (6, 6), (6, 6)]),
    )
    assert any("HT at -5 against knockdown" in c for c in res.data["calls"])
    assert res.data["damage"]["shock"] == 8
    f = fight.begin("gurps")
    f = fight.step(f, {"kind": "add", "combatant": "orc", "values": {"st": 10, "male": 1}}).fight
    hit = {"kind": "damage", "combatant": "orc", "amount": 6, "location": "groin"}
    f = fight.step(f, hit).fight
    assert [c.command for c in f.calls] == ["gurps check 10 -5 --label 'HT (knockdown)'"]


# --------------------------------------------------------------- All-Out Attack (B365)


def test_all_out_attack_determined_is_plus_four_in_melee_and_plus_one_at_range() -> None:
    """B365: Determined, "+4 to hit" in melee; a ranged All-Out Attack (Determined), +1."""
    assert attack_modifiers(AttackOptions(all_out=True)) == [("all-out", 4)]
    assert attack_modifiers(AttackOptions(all_out=True, ranged=True)) == [("all-out", 1)]
    res = commands.run("gurps attack 12 --all-out --ranged", seeded(1))
    assert res.data["effective"] == 13


def test_all_out_attack_strong_is_plus_two_or_plus_one_a_die() -> None:
    """B365: Strong, "+2 to damage or +1 per die, whichever is better" (melee only)."""
    for count in range(1, 9):
        for adds in range(-3, 4):
            base = f"{count}d{adds:+d}" if adds else f"{count}d"
            got = strong_damage(base)
            want = adds + max(2, count)
            assert got == (f"{count}d{want:+d}" if want else f"{count}d")
    with pytest.raises(RuleError, match="melee attack only"):
        AttackOptions(strong=True, ranged=True)
    with pytest.raises(RuleError, match="not both"):
        AttackOptions(strong=True, all_out=True)
    spec = read_damage("1d-3 cr")  # 1d-3 +2 = 1d-1: penetrates DR 4 on a 6 only
    target = Target("Orc", dr=4)
    quiet = AttackOptions(criticals=False)
    strong = injury_chance(20, spec, target, AttackOptions(strong=True, criticals=False), "none")
    plain = injury_chance(20, spec, target, quiet, "none")
    assert plain == 0 and strong == skill_odds(20).success * Fraction(1, 6)
    x = exchange(
        20, spec, target, options=AttackOptions(strong=True), defense="none",
        rng=ReplaySource([(6, 3), (6, 4), (6, 4), (6, 6)]),
    )  # fmt: skip
    assert x.hurt is not None and x.hurt.basic == 5 and x.hurt.injury == 1


# ---------------------------------------------------------------- knockback (B378)


def test_knockback_is_a_yard_per_full_st_minus_two_of_basic_damage() -> None:
    """B378: crushing (penetrating or not) and cutting that fails to penetrate knock the
    target back one yard per full (ST − 2) of basic damage."""
    from referee.systems.gurps.wounds import knockback

    for st in range(1, 25):
        for basic in range(0, 40):
            for kind in ("cr", "cut", "imp", "pi", "burn"):
                for through in (False, True):
                    pushes = kind == "cr" or (kind == "cut" and not through)
                    want = basic // max(1, st - 2) if pushes else 0
                    assert knockback(basic, kind, through, st) == want
                    assert knockback(basic, kind, through, st, ("nkb",)) == 0
    res = commands.run(
        "gurps attack 14 --damage '3d cr' --target-name Orc --hp 10 --st 12 --defense none",
        ReplaySource([(6, 3), (6, 4), (6, 4), (6, 5), (6, 5), (6, 5)]),
    )
    assert any("knocked back 1 yard and rolls DX" in c for c in res.data["calls"])
    stopped = commands.run(
        "gurps attack 14 --damage '3d cut' --target-name Orc --hp 10 --dr 20 --defense none",
        ReplaySource([(6, 3), (6, 4), (6, 4), (6, 6), (6, 6), (6, 6)]),
    )
    assert stopped.data["damage"]["injury"] == 0
    assert any("knocked back 2 yards" in c for c in stopped.data["calls"])


# ------------------------------------------------------------- blunt trauma (B379)


def test_blunt_trauma_through_flexible_armor() -> None:
    """B379: 1 HP per full 5 points of crushing basic damage, per full 10 of cutting,
    impaling or piercing, when flexible armor stops it all."""
    from referee.systems.gurps.wounds import blunt_trauma

    for basic in range(0, 60):
        for kind in ("cr", "cut", "imp", "pi-", "pi", "pi+", "pi++", "burn", "cor", "tox"):
            per = {"cr": 5, "burn": None, "cor": None, "tox": None}.get(kind, 10)
            want = 0 if per is None else basic // per
            assert blunt_trauma(basic, kind, False) == want
            assert blunt_trauma(basic, kind, True) == 0
    line = "gurps attack 14 --damage '3d cr' --target-name Orc --hp 10 --dr 20 --defense none"
    draws = [(6, 3), (6, 4), (6, 4), (6, 4), (6, 5), (6, 5)]
    soft = commands.run(f"{line} --flexible", ReplaySource(draws))
    hard = commands.run(line, ReplaySource(draws))
    assert any("takes 2 HP of injury through the flexible armor (B379)" in c
               for c in soft.data["calls"])  # fmt: skip
    assert not any("blunt trauma" in c for c in hard.data["calls"])
