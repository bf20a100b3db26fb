"""GURPS combat (issue 40): hit locations against B398 and brute-force 3d6, the
critical tables, attack and defense options, the exchange's exact odds against
enumeration, its draws against its steps, and every GCS fixture's weapons."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee import commands, seeded
from referee.errors import RefereeError, RuleError
from referee.rng import RecordingSource, ReplaySource
from referee.roller import draw_faces
from referee.systems.gurps.criticals import CRITICAL_HIT, CRITICAL_MISS
from referee.systems.gurps.damage import read_damage
from referee.systems.gurps.exchange import Target, exchange
from referee.systems.gurps.locations import (
    LOCATIONS,
    RANDOM_TABLE,
    cripples,
    location_injury,
    location_odds,
    location_wounding,
)
from referee.systems.gurps.melee import (
    AttackOptions,
    DefenseOptions,
    attack,
    defend,
    defense_modifiers,
)

GCS = Path(__file__).parent / "data" / "gcs"
THREE_D6 = list(itertools.product(range(1, 7), repeat=3))

# ----------------------------------------------------------------- hit locations


def test_the_random_location_table_is_exact_against_3d6() -> None:
    counts = Counter(RANDOM_TABLE[sum(d)] for d in THREE_D6)
    assert {k: Fraction(v, 216) for k, v in counts.items()} == location_odds()
    # B398's rows, as counts of 216: 3-4 skull, 9-10 torso, 17-18 neck ...
    assert counts["skull"] == 1 + 3 and counts["torso"] == 25 + 27 and counts["neck"] == 3 + 1
    assert counts["right leg"] == 10 + 15 and counts["hand"] == 10 and counts["foot"] == 6
    assert "vitals" not in counts and "eye" not in counts  # aimed only


B398_PENALTIES = {
    "torso": 0, "vitals": -3, "skull": -7, "eye": -9, "face": -5, "neck": -5,
    "groin": -3, "arm": -2, "leg": -2, "hand": -4, "foot": -4,
}  # fmt: skip

B398_WOUNDING = [
    ("skull", "cr", 4), ("skull", "cut", 4), ("skull", "imp", 4), ("skull", "tox", 1),
    ("eye", "pi", 4), ("vitals", "imp", 3), ("vitals", "pi-", 3), ("vitals", "pi++", 3),
    ("vitals", "cr", 1), ("vitals", "cut", Fraction(3, 2)), ("neck", "cr", Fraction(3, 2)),
    ("neck", "cor", Fraction(3, 2)), ("neck", "cut", 2), ("neck", "imp", 2),
    ("face", "cor", Fraction(3, 2)), ("face", "cut", Fraction(3, 2)),
    ("arm", "imp", 1), ("leg", "pi+", 1), ("hand", "pi++", 1), ("arm", "cut", Fraction(3, 2)),
    ("foot", "pi-", Fraction(1, 2)), ("torso", "imp", 2), ("groin", "pi+", Fraction(3, 2)),
]  # fmt: skip


def test_penalties_match_b398() -> None:
    for key, penalty in B398_PENALTIES.items():
        assert LOCATIONS[key].penalty == penalty, key


@pytest.mark.parametrize(("where", "kind", "times"), B398_WOUNDING)
def test_wounding_at_each_location_matches_b398(where: str, kind: str, times: Any) -> None:
    assert location_wounding(where, kind) == Fraction(times)


def test_limbs_cap_injury_at_crippling() -> None:
    assert cripples("arm", 10) == 6 and cripples("hand", 10) == 4 and cripples("torso", 10) is None
    assert location_injury(20, "cut", "leg", 10) == 6  # over HP/2 cripples; the rest is lost
    assert location_injury(20, "cut", "foot", 12) == 5  # over HP/3
    assert location_injury(20, "cut", "torso", 10) == 30
    assert location_injury(2, "cr", "skull", 10) == 8 and location_injury(0, "cr", "skull", 10) == 0


# ------------------------------------------------------------- critical tables


def test_the_critical_tables_cover_3d6_and_mirror() -> None:
    assert set(CRITICAL_HIT) == set(CRITICAL_MISS) == set(range(3, 19))
    b556 = {
        3: "triple", 4: "half_dr", 5: "double", 6: "max", 7: "major", 8: "double_shock",
        9: "normal", 10: "normal", 11: "normal", 12: "drop", 13: "major", 14: "major",
        15: "max", 16: "double", 17: "half_dr", 18: "triple",
    }  # fmt: skip
    assert {k: e.effect for k, e in CRITICAL_HIT.items()} == b556
    assert CRITICAL_MISS[3].effect == CRITICAL_MISS[18].effect == "breaks"


def test_a_critical_success_rolls_the_hit_table_and_a_critical_failure_the_miss_table() -> None:
    crit = attack(12, rng=ReplaySource([(6, 1), (6, 1), (6, 1), (6, 1), (6, 1), (6, 3)]))
    assert crit.critical_hit and crit.critical is not None and crit.critical.total == 5
    assert "critical hit table: rolled 5" in crit.text and "double damage" in crit.text
    fumble = attack(12, rng=ReplaySource([(6, 6)] * 3 + [(6, 3), (6, 3), (6, 3)]))
    assert fumble.critical is not None and fumble.critical.entry.effect == "drops"
    quiet = attack(12, options=AttackOptions(criticals=False), rng=ReplaySource([(6, 1)] * 3))
    assert quiet.critical is None and quiet.critical_hit


# ------------------------------------------------------- attack and defense


def test_attack_options_apply_their_modifiers() -> None:
    r = attack(21, options=AttackOptions(deceptive=2, location="skull"), rng=seeded(1))
    assert r.check.modifiers == (-7, -4) and r.defense_modifier == -2
    r = attack(10, options=AttackOptions(all_out=True, telegraphic=True, rapid=True), rng=seeded(1))
    assert r.check.modifiers == (4, 4, -6) and r.defense_modifier == 2
    with pytest.raises(RuleError, match="unknown hit location"):
        AttackOptions(location="tail")


def test_defense_options_follow_b377_and_friends() -> None:
    def total(kind: str, **kw: Any) -> int:
        return sum(m for _, m in defense_modifiers(kind, DefenseOptions(**kw)))

    assert total("dodge", retreat=True) == 3
    assert total("block", retreat=True) == 1 and total("block", retreat=True, block_retreat=3) == 3
    assert total("parry", retreat=True) == 1 and total("parry", retreat=True, fencing=True) == 3
    assert total("parry", parried=2) == -8 and total("parry", parried=2, fencing=True) == -4
    assert total("block", all_out=True, shield=2) == 4


def test_a_defense_at_2_or_less_is_still_rolled() -> None:
    d = defend("dodge", 2, against=-2, rng=seeded(4))
    assert d.check.effective_skill == 0 and d.check.roll >= 3


# --------------------------------------------------------------- the exchange

ORC = Target("Orc", dodge=8, parry=10, dr=2, hp=12)


@settings(max_examples=150)
@given(
    st.integers(0, 2**31),
    st.integers(10, 18),
    st.sampled_from(["best", "dodge", "parry", "none"]),
    st.booleans(),
    st.sampled_from([None, "skull", "arm", "vitals"]),
    st.booleans(),
)
def test_the_exchange_draws_what_its_steps_draw(
    seed: int, skill: int, choice: str, random_loc: bool, aim: str | None, crits: bool
) -> None:
    options = AttackOptions(
        location=None if random_loc else aim, random_location=random_loc, criticals=crits
    )
    spec = read_damage("2d+1 imp")  # impaling may target the vitals (B399)
    whole = RecordingSource(seeded(seed))
    x = exchange(skill, spec, ORC, options=options, defense=choice, rng=whole)
    steps = RecordingSource(seeded(seed))  # the same source, step by step
    a = attack(skill, options=options, rng=steps)
    assert a.check.dice == x.attack.check.dice
    if a.hit and not a.critical_hit and choice != "none":
        kind = {"best": "parry"}.get(choice, choice)
        level = {"dodge": 8, "parry": 10}[kind]
        d = defend(kind, level, DefenseOptions(), against=a.defense_modifier, rng=steps)
        assert x.defense is not None and d.check.dice == x.defense.check.dice
        defended = d.defended
    else:
        defended = False
    if a.hit and not defended:
        if random_loc:
            draw_faces(steps, 3, 6)
        draw_faces(steps, 2, 6)
        assert x.hurt is not None
    else:
        assert x.hurt is None
    assert steps.draws == whole.draws


def test_the_exchange_calls_for_knockdown_and_consciousness() -> None:
    # 3, 3, 3 hits (9 vs 14); parry 6, 6, 5 fails; torso; 6, 6 + 1 = 13 cut - DR 2 = 11 x1.5 = 16
    draws = [(6, 3)] * 3 + [(6, 6), (6, 6), (6, 5)] + [(6, 6), (6, 6)]
    x = exchange(14, read_damage("2d+1 cut"), ORC, defense="parry", rng=ReplaySource(draws))
    assert x.hurt is not None and x.hurt.injury == 16 and x.hp_after == -4
    assert any("against knockdown" in c for c in x.calls)
    assert any("stay conscious" in c for c in x.calls)
    assert "Orc 12 → -4 HP" in x.text
    dead = Target("Orc", parry=10, dr=0, hp=12, current_hp=-50)  # -50 - 19 passes -5xHP
    x = exchange(14, read_damage("2d+1 cut"), dead, defense="parry", rng=ReplaySource(draws))
    assert any("is dead" in c for c in x.calls)


# ------------------------------------------------ every GCS fixture's weapons


def _saved_weapons(path: Path) -> list[dict[str, Any]]:
    """Every weapon's ``calc`` in a GCS file, read from the JSON directly."""
    found: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for w in node.get("weapons") or []:
                if isinstance(w, dict) and isinstance(w.get("calc"), dict):
                    found.append({"name": node.get("name"), **w, "calc": w["calc"]})
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(json.loads(path.read_text()))
    return found


@pytest.mark.parametrize("path", sorted(GCS.glob("*.gcs")), ids=lambda p: p.stem)
def test_every_weapon_attacks_and_parries_at_the_level_gcs_saved(path: Path) -> None:
    from referee.sheets import read_sheet

    sheet = read_sheet(path.read_bytes())
    saved = _saved_weapons(path)
    levels = sorted(w["calc"].get("level") for w in saved if w["calc"].get("level") is not None)
    assert sorted(a.level for a in sheet.attacks if a.level is not None) == levels
    resources = commands.with_sheet(sheet)
    for a in sheet.attacks:
        if a.level is None or a.level < 3:
            continue
        r = commands.run(["gurps", "attack", a.full_name], seeded(1), resources=resources)
        if r.data.get("skill") != a.level and "several" in r.text:
            continue  # an ambiguous name (two items, one usage): listed, not rolled
        assert r.data["skill"] == a.level, (a.full_name, r.data)
        for kind in ("parry", "block"):
            value = getattr(a, kind)
            if value and value[:1].isdigit():
                d = commands.run(
                    ["gurps", "defend", kind, a.full_name], seeded(1), resources=resources
                )
                assert d.data["level"] == int("".join(c for c in value if c.isdigit()))


# ------------------------------------------- rolls by weapon and defense name


def _sheet(path: Path) -> Any:
    from referee.sheets import read_sheet

    return read_sheet(path.read_bytes())


def test_a_weapon_and_its_defenses_roll_by_name_as_the_trial_asked() -> None:
    ninja = _sheet(GCS / "Master Ninja.gcs")
    res = commands.with_sheet(ninja)
    sai = next(a for a in ninja.attacks if a.full_name == "Sai (Swing)")
    r = commands.run(["gurps", "check", "Sai (Swing)"], seeded(1), resources=res)
    assert r.data["base_skill"] == sai.level and r.text.startswith("Sai (Swing) ")
    p = commands.run(["gurps", "check", "Parry", "Sai (Swing)"], seeded(1), resources=res)
    assert p.data["base_skill"] == int(str(sai.parry).rstrip("FU"))
    assert p.data["trait"]["kind"] == "defense"
    with pytest.raises(RefereeError, match="matches 5 attacks"):
        commands.run(["gurps", "check", "Parry", "Sai"], seeded(1), resources=res)


@pytest.mark.parametrize(
    "line",
    [
        "gurps check Parry -1",
        "gurps check 'Knife (Swung)' -2",
        "gurps attack 'Knife (Swung)' --deceptive 1 --location arm",
        "gurps defend parry --retreat",
        "gurps attack 'Knife (Swung)' --target-name Orc --parry 9 --dodge 8 --hp 10",
    ],
)
def test_a_resolved_combat_roll_rolls_the_same_with_no_sheet(line: str) -> None:
    dai = _sheet(Path(__file__).parents[1] / "examples" / "sheets" / "dai.toml")
    resolved = commands.resolve(line, dai)
    assert "Knife" in resolved or "Parry" in resolved
    for seed in range(5):
        with_sheet = commands.run(line, seeded(seed), resources=commands.with_sheet(dai))
        bare = commands.run(resolved, seeded(seed))
        mine, theirs = dict(with_sheet.data), dict(bare.data)
        mine.pop("trait", None)
        theirs.pop("trait", None)
        assert mine == theirs and with_sheet.draws == bare.draws


# ---------------------------------------------------- the target from its sheet


@pytest.mark.parametrize("path", sorted(GCS.glob("*.gcs")), ids=lambda p: p.stem)
def test_gcs_hp_and_dr_are_read_as_saved(path: Path) -> None:
    doc = json.loads(path.read_text())
    sheet = _sheet(path)
    hp = [a["calc"]["value"] for a in doc.get("attributes", []) if a.get("attr_id") == "hp"]
    assert sheet.hp == (hp[0] if hp else None)
    body = (doc.get("settings") or {}).get("body_type") or doc.get("body_type") or {}
    for loc in body.get("locations") or []:
        armor = loc["calc"]["dr"]["all"] - (loc.get("dr_bonus") or 0)
        assert dict(sheet.dr)[loc["id"]] == armor, (loc["id"], armor)


def test_an_exchange_against_a_sheet_uses_its_defenses_dr_and_hp() -> None:
    from referee.commands.gurps_combat import target_of

    ninja = _sheet(GCS / "Master Ninja.gcs")
    target = target_of(ninja)
    parries = [int(a.parry.rstrip("FU")) for a in ninja.attacks if a.parry and a.parry[0].isdigit()]
    assert target.parry == max(parries) and target.hp == 12 and target.dr == 1
    assert target.dr_over("eye") == 0 and target.dr_over("right leg") == 1
    dai = _sheet(Path(__file__).parents[1] / "examples" / "sheets" / "dai.toml")
    line = "gurps attack 'Knife (Thrust)' --vs @ninja --location eye --defense none"
    res = commands.with_sheet(dai, others={"@ninja": ninja})
    resolved = commands.resolve(line, dai, others={"@ninja": ninja})
    assert "@" not in resolved and "--dr-at eye=0" in resolved and "--hp 12" in resolved
    for seed in range(8):
        a = commands.run(line, seeded(seed), resources=res)
        b = commands.run(resolved, seeded(seed))
        assert a.data == b.data
        if a.data["damage"] is not None and a.data["damage"]["location"] == "eye":
            assert a.data["damage"]["dr"] == 0  # the eye: no armor, no skull bonus
        elif a.data["damage"] is not None:  # a miss by 1 hits the torso instead (B399)
            assert a.data["damage"]["location"] == "torso" and a.data["damage"]["dr"] == 1


def test_a_toml_sheet_gives_hp_and_dr_by_location() -> None:
    from referee.errors import SheetError
    from referee.sheets import read_sheet

    text = b'system = "gurps"\nname = "Orc"\nhp = 14\n[dr]\ntorso = 3\nskull = 5\n'
    orc = read_sheet(text)
    assert orc.hp == 14 and orc.dr_at("skull") == 5 and orc.dr_at("hand") == 3
    assert read_sheet(b'system = "gurps"\nname = "Orc"\ndr = 2\n').dr == (("torso", 2),)
    with pytest.raises(SheetError, match="no hit location"):
        read_sheet(b'system = "gurps"\nname = "Orc"\n[dr]\ntail = 2\n')
