"""Stars Without Number rolls from a character sheet: ``swn save physical --sheet vex.toml``,
``swn check Dex/Shoot``, ``swn attack "Laser Rifle"``, ``swn stabilize``, ``swn initiative
--sheet a --sheet b`` and their odds twins, through the command layer (files and the
library's :func:`with_sheet`) and the CLI.

Every expected value is worked out here from the rules (the rules ``README.md``,
Stars Without Number; ``003``) and the sheet's TOML, read with :mod:`tomllib`, not
with referee's reader.
"""

from __future__ import annotations

import itertools
import json
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from referee import commands, seeded
from referee.cli.app import app
from referee.cli.local import LOCAL
from referee.commands.result import with_sheet
from referee.errors import CommandError, RuleError, SheetError
from referee.sheets import read_sheet
from referee.systems.swn import PSYCHIC_SKILLS, SKILLS

EXAMPLES = Path(__file__).parent.parent / "examples" / "sheets"
VEX_FILE = EXAMPLES / "vex.toml"
JUNO_FILE = EXAMPLES / "juno.toml"
PARTY = Path(__file__).parent.parent / "examples" / "swn" / "party.toml"
DAI = Path(__file__).parent / "data" / "gcs" / "Dai Blackthorn.gcs"
VEX_TOML = tomllib.loads(VEX_FILE.read_text())
JUNO_TOML = tomllib.loads(JUNO_FILE.read_text())
VEX = read_sheet(VEX_FILE.read_bytes())
JUNO = read_sheet(JUNO_FILE.read_bytes())
runner = CliRunner()

SAVES = {"physical": ("str", "con"), "evasion": ("dex", "int"), "mental": ("cha", "wis")}
"""``003``, "Saving Throw Mechanics": each save's two attributes."""


def mod(score: int) -> int:
    """The rules README's attribute modifier table: 3 -2, 4-7 -1, 8-13 0, 14-17 +1, 18 +2."""
    if score == 3:
        return -2
    if score <= 7:
        return -1
    if score <= 13:
        return 0
    return 1 if score <= 17 else 2


def score(doc: dict[str, Any], attribute: str) -> int:
    return int(doc["attributes"][attribute])


def skill(doc: dict[str, Any], name: str) -> int | None:
    """The sheet's skill level, or None when the sheet does not list it (untrained)."""
    found = doc["skills"].get(name)
    return None if found is None else int(found)


def two_d6_at_least(need: int) -> Fraction:
    """P(2d6 >= need), counted over the 36 outcomes."""
    rolls = list(itertools.product(range(1, 7), repeat=2))
    return Fraction(sum(1 for a, b in rolls if a + b >= need), 36)


def save_odds(target: int) -> Fraction:
    """P(1d20 >= target), a natural 1 failing and a natural 20 succeeding."""
    return Fraction(sum(1 for d in range(1, 21) if d == 20 or (d != 1 and d >= target)), 20)


def frac(text: str) -> Fraction:
    top, bottom = text.split("/")
    return Fraction(int(top), int(bottom))


def local(line: str, seed: int = 1) -> commands.CommandResult:
    """A CLI-like run: files are read (``--sheet``)."""
    return commands.run(line, seeded(seed), resources=LOCAL)


def library(line: str, seed: int = 1, sheet: Any = VEX) -> commands.CommandResult:
    """The library's run: the sheet is the caller's (no file)."""
    return commands.run(line, seeded(seed), resources=with_sheet(sheet))


def cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    res = runner.invoke(app, list(args), env=env)
    assert "Traceback" not in res.output
    return res.exit_code, res.output


def test_the_example_sheets_hold_what_the_tests_assume() -> None:
    assert VEX.name == "Vex Ortega" and VEX_TOML["level"] == 3
    assert VEX_TOML["skills"] == {"shoot": 1, "heal": 2, "notice": 0}
    assert VEX_TOML["combat"]["attack_bonus"] == 1
    assert [w["name"] for w in VEX_TOML["weapons"]] == ["Laser Rifle", "Knife"]
    assert JUNO.name == "Juno Reyes" and "stab" in JUNO_TOML["skills"]
    assert len(SKILLS) == 19 and len(PSYCHIC_SKILLS) == 6
    assert {"Exert", "Shoot", "Stab", "Talk", "Sneak", "Heal"} <= set(SKILLS)  # 003's


@pytest.mark.parametrize("run", [local, library], ids=["file", "library"])
@pytest.mark.parametrize("kind", sorted(SAVES))
@pytest.mark.parametrize("seed", range(6))
def test_a_save_uses_the_sheets_level_and_better_attribute(run: Any, kind: str, seed: int) -> None:
    doc = VEX_TOML
    best = max(mod(score(doc, a)) for a in SAVES[kind])
    target = 16 - doc["level"] - best
    line = f"swn save {kind}" + (f" --sheet {VEX_FILE}" if run is local else "")
    r = run(line, seed)
    d = r.data
    assert d["target"] == target and frac(d["odds"]["success"]) == save_odds(target)
    (die,) = d["dice"]
    assert d["success"] == (die == 20 or (die != 1 and die >= target))
    assert d["sheet"] == "Vex Ortega" and d["level"] == 3 and d["overrides"] == []
    names = {a["name"]: a["level"] for a in d["attributes"]}
    assert names == {a.title(): score(doc, a) for a in SAVES[kind]}
    assert "from Vex Ortega's sheet: level 3, " in r.text
    odds = run(line.replace("swn save", "swn odds save"), seed)
    assert odds.data["target"] == target and odds.data["odds"] == d["odds"]
    assert odds.draws == ()


@pytest.mark.parametrize("run", [local, library], ids=["file", "library"])
@pytest.mark.parametrize(
    ("name", "attribute", "skill_name"),
    [("Dex/Shoot", "dex", "shoot"), ("Int/Heal", "int", "heal"), ("Wis/Notice", "wis", "notice")],
)
@pytest.mark.parametrize("difficulty", [6, 8, 10, 12])
def test_a_check_by_attribute_and_skill(
    run: Any, name: str, attribute: str, skill_name: str, difficulty: int
) -> None:
    level = skill(VEX_TOML, skill_name)
    assert level is not None
    bonus = level + mod(score(VEX_TOML, attribute))
    sheet = f" --sheet {VEX_FILE}" if run is local else ""
    r = run(f"swn check {name} --difficulty {difficulty}{sheet}")
    d = r.data
    assert d["target"] == difficulty
    assert frac(d["odds"]["success"]) == two_d6_at_least(difficulty - bonus)
    assert d["total"] == sum(d["dice"]) + bonus
    assert d["success"] == (sum(d["dice"]) + bonus >= difficulty)
    assert d["trait"] == {"name": skill_name, "specialization": None, "level": level,
                          "kind": "skill", "sheet": "Vex Ortega"}  # fmt: skip
    assert d["attribute"] == {"name": attribute.title(), "specialization": None,
                              "level": score(VEX_TOML, attribute), "kind": "attribute",
                              "sheet": "Vex Ortega"}  # fmt: skip
    assert d["label"] == f"{name} check" and r.text.startswith(f"{name} check: rolled ")
    shown = f"{attribute.title()} {score(VEX_TOML, attribute)}"
    assert (
        f"from Vex Ortega's sheet: {shown} " in r.text and f"{skill_name.title()} {level}" in r.text
    )


def test_a_skill_alone_takes_its_usual_attribute_or_asks_for_one(tmp_path: Path) -> None:
    # The trial: a skill clicked alone rolled "+0, no attribute given". Now a sheet
    # that names no usual attribute is asked for one, with each pair's total.
    with pytest.raises(RuleError, match="Shoot has no usual attribute on Vex Ortega") as no:
        local(f"swn check Shoot --difficulty 8 --sheet {VEX_FILE}")
    assert "Dex/Shoot (+2)" in str(no.value) and "Wis/Shoot (+1)" in str(no.value)
    usual = tmp_path / "vex-usual.toml"
    usual.write_text(
        VEX_FILE.read_text().replace("shoot = 1", 'shoot = { level = 1, attribute = "dex" }')
    )
    d = local(f"swn check Shoot --difficulty 8 --sheet {usual}").data
    assert d["modifiers"] == {"skill": 1, "attribute": mod(score(VEX_TOML, "dex"))}
    assert not any("no attribute" in a for a in d.get("assumed", []))
    assert d["text"].startswith("Dex/Shoot check: rolled ")
    assert frac(d["odds"]["success"]) == two_d6_at_least(8 - 1 - mod(score(VEX_TOML, "dex")))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), difficulty=st.integers(2, 16))
def test_a_check_by_name_rolls_exactly_as_its_levels(seed: int, difficulty: int) -> None:
    for name, typed in (
        ("Dex/Shoot", f"--skill 1 --dex {score(VEX_TOML, 'dex')}"),
        ("Int/Heal", f"--skill 2 --int {score(VEX_TOML, 'int')}"),
    ):
        by_name = local(f"swn check {name} --difficulty {difficulty} --sheet {VEX_FILE}", seed)
        plain = local(f"swn check {typed} --difficulty {difficulty} --label {name}/x", seed)
        assert by_name.draws == plain.draws
        for key in ("dice", "total", "success", "target", "odds", "modifiers", "assumed"):
            assert by_name.data[key] == plain.data[key], key
        assert library(f"swn check {name} --difficulty {difficulty}", seed).draws == plain.draws


@pytest.mark.parametrize("run", [local, library], ids=["file", "library"])
@pytest.mark.parametrize("ac", [10, 13, 15, 16, 20])
@pytest.mark.parametrize("seed", range(4))
def test_an_attack_with_the_sheets_weapon(run: Any, ac: int, seed: int) -> None:
    doc, rifle = VEX_TOML, VEX_TOML["weapons"][0]
    shoot = skill(doc, rifle["skill"])
    attribute = mod(score(doc, rifle["attribute"]))
    bonus = doc["combat"]["attack_bonus"] + (shoot if shoot is not None else -2) + attribute
    sheet = f" --sheet {VEX_FILE}" if run is local else ""
    r = run(f"swn attack 'Laser Rifle' --ac {ac}{sheet}", seed)
    d = r.data
    assert frac(d["odds"]["success"]) == Fraction(
        sum(1 for x in range(1, 21) if x + bonus >= ac), 20
    )
    (die,) = d["dice"]
    assert d["hit"] == (die + bonus >= ac) and d["total"] == die + bonus
    amount, limit = (int(x) for x in rifle["shock"].split("/"))
    if d["hit"]:
        assert d["damage"] == max(sum(d["damage_dice"]) + attribute, amount + attribute)
        assert all(1 <= x <= 10 for x in d["damage_dice"])
    else:
        assert d["damage"] == (amount + attribute if ac <= limit else 0)
    assert d["weapon"] == {
        "name": "Laser Rifle", "damage": "1d10", "skill": "shoot", "attributes": ["dex"],
        "shock": "2/15", "attack_bonus": 0, "sheet": "Vex Ortega",
    }  # fmt: skip
    assert d["trait"]["name"] == "shoot" and d["trait"]["level"] == 1
    assert d["attribute"]["name"] == "Dex" and d["attribute"]["level"] == 16
    assert r.text.startswith("Laser Rifle: rolled ") and "Shoot 1" in r.text
    odds = run(f"swn odds attack 'Laser Rifle' --ac {ac}{sheet}", seed)
    assert odds.data["odds"]["success"] == d["odds"]["success"]
    assert odds.data["weapon"] == d["weapon"] and "shock" in odds.data["odds"]
    assert odds.data["damage_distribution"] == d["damage_distribution"]


def test_a_weapon_skill_not_on_the_sheet_is_untrained_at_minus_2() -> None:
    knife = VEX_TOML["weapons"][1]
    assert skill(VEX_TOML, knife["skill"]) is None  # Vex has no Stab
    better = max(mod(score(VEX_TOML, a)) for a in knife["attribute"])
    bonus = VEX_TOML["combat"]["attack_bonus"] - 2 + better
    d = local(f"swn attack Knife --ac 12 --sheet {VEX_FILE}").data
    assert d["modifiers"] == {"attack bonus": 1, "skill": -2, "attribute": better}
    assert frac(d["odds"]["success"]) == Fraction(
        sum(1 for x in range(1, 21) if x + bonus >= 12), 20
    )
    assert "Stab untrained: not on Vex Ortega's sheet" in d["assumed"] and d["trait"] is None
    assert d["attribute"]["name"] == "Dex"  # the better of Str 10 and Dex 16
    # Juno's baton: Stab 0 on the sheet (trained), the better of Str 13 (+0) and Dex 7 (-1)
    j = library("swn attack 'Stun Baton' --ac 12", sheet=JUNO).data
    assert j["modifiers"] == {"attack bonus": 0, "skill": 0, "attribute": 0}
    assert j["attribute"]["name"] == "Str" and j["trait"]["level"] == 0 and j["assumed"] == []


@pytest.mark.parametrize("rounds", [0, 2, 6])
@pytest.mark.parametrize(
    ("sheet", "doc", "path"), [(VEX, VEX_TOML, VEX_FILE), (JUNO, JUNO_TOML, JUNO_FILE)]
)
def test_stabilize_uses_heal_and_the_better_of_int_and_dex(
    sheet: Any, doc: Any, path: Path, rounds: int
) -> None:
    better = max(("int", "dex"), key=lambda a: mod(score(doc, a)))
    heal = skill(doc, "heal")
    assert heal is not None
    bonus = heal + mod(score(doc, better))
    for seed in range(3):
        r = library(f"swn stabilize --rounds {rounds}", seed, sheet)
        d = r.data
        assert d["target"] == 10 + rounds
        assert frac(d["odds"]["success"]) == two_d6_at_least(10 + rounds - bonus)
        assert d["success"] == (sum(d["dice"]) + bonus >= 10 + rounds)
        assert d["trait"]["name"] == "heal" and d["trait"]["level"] == heal
        assert d["attribute"]["name"] == better.title()
        assert r.text.startswith(f"{better.title()}/Heal: Stabilize (none, round {rounds})")
    odds = local(f"swn odds stabilize --rounds {rounds} --sheet {path}")
    assert frac(odds.data["odds"]["success"]) == two_d6_at_least(10 + rounds - bonus)


def test_initiative_for_several_sheets_and_a_party() -> None:
    line = f"swn initiative {PARTY} --sheet {VEX_FILE} --sheet {JUNO_FILE}"
    for seed in range(5):
        d = local(line, seed).data
        rows = {row["name"]: row for row in d["order"]}
        for name, doc in (("Vex Ortega", VEX_TOML), ("Juno Reyes", JUNO_TOML)):
            row = rows[name]
            assert row["pc"] and row["modifiers"] == {"dex": mod(score(doc, "dex"))}
            assert row["total"] == row["natural"] + mod(score(doc, "dex"))
            assert 1 <= row["natural"] <= 8
        assert len(d["order"]) == 8  # 3 PCs and 3 raiders from the party file, 2 sheets
        totals = [(row["total"], row["pc"]) for row in d["order"]]
        assert totals == sorted(totals, key=lambda t: (-t[0], not t[1]))
        assert d["sheets"] == ["Vex Ortega", "Juno Reyes"]
        assert [t["level"] for t in d["traits"]] == [16, 7]
    alone = local(f"swn initiative --sheet {VEX_FILE} --sheet {JUNO_FILE}").data
    assert {row["name"] for row in alone["order"]} == {"Vex Ortega", "Juno Reyes"}
    only = library("swn initiative").data  # the caller's sheet, when nothing is named
    assert [row["name"] for row in only["order"]] == ["Vex Ortega"]
    with pytest.raises(CommandError, match="needs someone to roll for"):
        commands.run("swn initiative", seeded(1))
    with pytest.raises(SheetError, match="needs a Stars Without Number sheet"):
        local(f"swn initiative --sheet {VEX_FILE} --sheet '{DAI}'")


def test_options_override_the_sheet_and_the_text_says_so() -> None:
    r = local(f"swn save physical --level 5 --con 18 --sheet {VEX_FILE}")
    assert r.data["target"] == 16 - 5 - mod(18) and r.data["level"] == 5
    assert r.data["overrides"] == ["--level 5 over the sheet's 3", "--con 18 over the sheet's 12"]
    assert r.text.endswith("; --level 5 over the sheet's 3; --con 18 over the sheet's 12")
    r = local(f"swn check Dex/Shoot --skill 3 --dex-mod -1 --sheet {VEX_FILE}")
    assert r.data["modifiers"] == {"skill": 3, "attribute": -1}
    assert r.data["overrides"] == ["--dex-mod -1 over the sheet's Dex 16 (+1)",
                                   "--skill 3 over the sheet's 1"]  # fmt: skip
    r = local(f"swn check Dex/Shoot --untrained --sheet {VEX_FILE}")
    assert r.data["modifiers"]["skill"] == -1
    assert "--untrained over the sheet's Shoot 1" in r.text
    r = local(f"swn attack 'Laser Rifle' --attack-bonus 4 --damage 2d6 --shock none --ac 20 "
              f"--sheet {VEX_FILE}")  # fmt: skip
    assert r.data["modifiers"]["attack bonus"] == 4
    assert r.data["overrides"] == ["--attack-bonus 4 over the sheet's 1",
                                   "--damage 2d6 over the sheet's 1d10",
                                   "--shock none over the sheet's 2/15"]  # fmt: skip
    assert r.data["hit"] or r.data["damage"] == 0  # no Shock: a miss deals nothing
    r = local(f"swn attack Knife --str 18 --ac 10 --sheet {VEX_FILE}")
    assert r.data["modifiers"]["attribute"] == 2 and "--str 18 over the sheet's 10" in r.text
    r = local(f"swn stabilize --int 18 --sheet {VEX_FILE}")
    assert r.data["modifiers"]["attribute"] == 2 and "--int 18 over the sheet's 14" in r.text
    same = local(f"swn save physical --level 3 --sheet {VEX_FILE}")  # agrees: nothing to say
    assert same.data["overrides"] == [] and "over the sheet" not in same.text


def test_a_known_skill_not_on_the_sheet_is_untrained_and_said() -> None:
    for name in ("Pilot", "pilot", "Telepathy"):  # Wis 9: +0
        r = local(f"swn check Wis/{name} --difficulty 8 --sheet {VEX_FILE}")
        shown = name.title()
        assert r.data["modifiers"]["skill"] == -1 and r.data["trait"] is None
        assert f"{shown} untrained: not on Vex Ortega's sheet" in r.text
        assert frac(r.data["odds"]["success"]) == two_d6_at_least(8 + 1)
    r = local(f"swn check Cha/Talk --sheet {VEX_FILE}")
    assert r.data["modifiers"] == {"skill": -1, "attribute": mod(score(VEX_TOML, "cha"))}
    assert r.text.startswith("Cha/Talk check: rolled ")
    with pytest.raises(RuleError, match="technical skill cannot be attempted untrained"):
        local(f"swn check Int/Fix --technical --sheet {VEX_FILE}")


def test_an_unknown_name_is_refused_naming_the_character() -> None:
    with pytest.raises(SheetError, match="Vex Ortega has no skill 'Gunnery'"):
        local(f"swn check Gunnery --sheet {VEX_FILE}")
    with pytest.raises(SheetError, match="Vex Ortega has no attack 'Railgun'"):
        library("swn attack Railgun --ac 12")
    with pytest.raises(RuleError, match="'Foo' is not an attribute"):
        library("swn check Foo/Shoot")
    with pytest.raises(RuleError, match="names Dex; --int names another attribute"):
        library("swn check Dex/Shoot --int 14")
    with pytest.raises(CommandError, match="there is no sheet"):
        commands.run("swn check Dex/Shoot", seeded(1))
    code, out = cli("swn", "check", "Gunnery", "--sheet", str(VEX_FILE))
    assert code == 2 and "Vex Ortega has no skill 'Gunnery'" in out


def test_a_gcs_sheet_is_refused_with_exit_2_naming_both_systems() -> None:
    for args in (["swn", "save", "physical"], ["swn", "odds", "check", "Dex/Shoot"],
                 ["swn", "attack", "Broadsword"], ["swn", "stabilize"]):  # fmt: skip
        code, out = cli(*args, "--sheet", str(DAI))
        assert code == 2 and out.startswith("error: ")
        assert "is a GURPS sheet" in out and "needs a Stars Without Number sheet" in out


def test_the_cli_reads_the_sheet_and_the_environment() -> None:
    args = ["swn", "check", "Dex/Shoot", "--difficulty", "8", "--seed", "3"]
    code, out = cli(*args, "--sheet", str(VEX_FILE))
    assert code == 0 and out.startswith("Dex/Shoot check: rolled ")
    code, env_out = cli(*args, env={"REFEREE_SHEET": str(VEX_FILE)})
    assert code == 0 and env_out == out
    code, out = cli("swn", "save", "physical", "--seed", "3", env={"REFEREE_SHEET": str(VEX_FILE)})
    assert code == 0 and "from Vex Ortega's sheet: level 3" in out
    code, out = cli("swn", "odds", "check", "Dex/Shoot", "--sheet", str(VEX_FILE), "--json")
    d = json.loads(out)
    assert code == 0 and d["trait"]["name"] == "shoot" and d["attribute"]["name"] == "Dex"
    assert d["text"].startswith("Dex/Shoot check vs 8: ")


def test_without_a_sheet_nothing_changes() -> None:
    for line in ("swn save physical --level 3 --con 14", "swn check --skill 1 --dex 16",
                 "swn attack --attack-bonus 1 --ac 13", "swn stabilize --skill 1 --int 12",
                 f"swn initiative {PARTY}"):  # fmt: skip
        d = local(line).data
        assert "sheet" not in d and "overrides" not in d and "from " not in d["text"]
    d = local("swn save physical --con 14").data
    assert d["target"] == 16 - 1 - 1  # level 1 when not given, as before
    d = local("swn attack --ac 10").data
    assert d["modifiers"]["attack bonus"] == 0 and "weapon" not in d
    assert d["damage_distribution"][-1][0] == 6  # 1d6, as before


def test_a_foundry_skill_rolls_with_its_default_stat() -> None:
    foundry = Path(__file__).parent / "data" / "sheets" / "vex-foundry.json"
    d = local(f"swn check Heal --difficulty 8 --sheet '{foundry}'").data
    assert d["text"].startswith("Int/Heal check: rolled ")
    assert d["modifiers"] == {"skill": 2, "attribute": mod(score(VEX_TOML, "int"))}


ORC_SWN = """system = "swn"
name = "Orc"
level = 1
[attributes]
str = 14
dex = 10
con = 12
int = 8
wis = 10
cha = 8
[combat]
attack_bonus = 1
ac = 13
hp = 9
"""


def test_an_attack_against_a_sheet_takes_its_ac_and_tracks_its_hp(tmp_path: Path) -> None:
    from referee.sheets import read_sheet

    orc_file = tmp_path / "orc.toml"
    orc_file.write_text(ORC_SWN)
    for seed in range(6):
        d = local(f"swn attack 'Laser Rifle' --vs {orc_file} --sheet {VEX_FILE}", seed).data
        assert d["target"] == 13 and d["target_name"] == "Orc"
        assert d["hp_after"] == max(0, 9 - d["damage"])  # never below 0 (003)
    vex, orc = read_sheet(VEX_FILE.read_bytes()), read_sheet(ORC_SWN.encode())
    line = "swn attack 'Laser Rifle' --vs @orc"
    resolved = commands.resolve(line, vex, others={"@orc": orc})
    assert "--ac 13" in resolved and "--target-hp 9" in resolved and "@" not in resolved
    res = commands.with_sheet(vex, others={"@orc": orc})
    for seed in range(4):
        mine = commands.run(line, seeded(seed), resources=res).data
        bare = commands.run(resolved, seeded(seed)).data
        assert "Orc HP 9 → " in bare["text"] and mine["text"].startswith(bare["text"])
        assert {k: v for k, v in mine.items() if k in bare and k != "text"} == {
            k: v for k, v in bare.items() if k != "text"
        }  # the sheet's run adds what it read from the sheet (its traits, the weapon)
