"""Stars Without Number from sheets in a fight (issue 40): a skill checked by name with
no attribute takes the skill's usual attribute or is refused, listing each
``Attribute/Skill`` pair with its total (never an unsaid +0); ``swn attack --vs
SHEET`` takes the target's AC and HP from its sheet, and its resolved command rolls
the same with no sheet; ``swn attack --mod`` is a modifier to hit.

Every expected number is worked out here from the rules (the rules ``README.md``,
"Stars Without Number (revised)"; ``003``, "Skill Checks", "Attack Resolution",
"Shock Damage", "Mortal Wounds") and the sheets' TOML, read with :mod:`tomllib`.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from referee import commands, seeded
from referee.cli.local import LOCAL
from referee.commands.result import BUILTIN
from referee.errors import CommandError, RuleError
from referee.sheets import Sheet, read_sheet

EXAMPLES = Path(__file__).parent.parent / "examples" / "sheets"
VEX_FILE = EXAMPLES / "vex.toml"
VEX_TEXT = VEX_FILE.read_text()
VEX_TOML = tomllib.loads(VEX_TEXT)
FOUNDRY = Path(__file__).parent / "data" / "sheets" / "vex-foundry.json"

ORC = """system = "swn"
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
ORC_TOML = tomllib.loads(ORC)


def mod(score: int) -> int:
    """The rules README's attribute modifier: 3 -2, 4-7 -1, 8-13 0, 14-17 +1, 18 +2."""
    return -2 if score == 3 else -1 if score <= 7 else 0 if score <= 13 else 1 if score <= 17 else 2


def attr_mod(doc: dict[str, Any], key: str) -> int:
    return mod(int(doc["attributes"][key]))


def local(line: str, seed: int = 1) -> commands.CommandResult:
    """A CLI-like run: the files named are read."""
    return commands.run(line, seeded(seed), resources=LOCAL)


# --- a skill with no attribute ------------------------------------------------------


@pytest.mark.parametrize("skill", ["Pilot", "Shoot"])
def test_a_skill_alone_with_no_usual_attribute_is_refused_listing_the_pairs(skill: str) -> None:
    # Pilot is not on Vex's sheet (untrained, -1); Shoot is, at 1. The sheet names
    # neither skill's usual attribute, so the check asks: every pair, with its total.
    level = VEX_TOML["skills"].get(skill.lower(), -1)
    with pytest.raises(RuleError) as refused:
        local(f"swn check {skill} --difficulty 8 --sheet {VEX_FILE}")
    message = str(refused.value)
    assert message.startswith(f"{skill} has no usual attribute on Vex Ortega's sheet")
    pairs = re.findall(r"(\w+)/" + skill + r" \(([+-]\d+)\)", message)
    assert [(a.lower(), int(t)) for a, t in pairs] == [
        (key, level + attr_mod(VEX_TOML, key)) for key in ("str", "dex", "con", "int", "wis", "cha")
    ]
    assert "+0" not in message.split(":")[0] and "assumed" not in message


def test_the_refusal_is_what_a_room_sees_and_no_roll_is_made() -> None:
    vex = read_sheet(VEX_FILE.read_bytes())
    with pytest.raises(RuleError, match=r"swn check Attribute/Pilot: Str/Pilot \(-1\)"):
        commands.resolve("swn check Pilot", vex)
    with pytest.raises(RuleError, match="no usual attribute"):
        commands.run("swn check Pilot", seeded(1), resources=commands.with_sheet(vex))


def test_a_skill_alone_takes_the_usual_attribute_the_sheet_names(tmp_path: Path) -> None:
    text = VEX_TEXT.replace("heal = 2", 'heal = { level = 2, attribute = "int" }')
    usual = tmp_path / "vex-usual.toml"
    usual.write_text(text)
    heal, int_mod = 2, attr_mod(VEX_TOML, "int")
    for seed in range(5):
        d = local(f"swn check Heal --difficulty 10 --sheet {usual}", seed).data
        assert d["text"].startswith("Int/Heal check: rolled ")
        assert d["modifiers"] == {"skill": heal, "attribute": int_mod}
        assert d["total"] == sum(d["dice"]) + heal + int_mod
        assert not any("attribute" in a for a in d["assumed"])
        wins = sum(1 for a, b in itertools.product(range(1, 7), repeat=2)
                   if a + b + heal + int_mod >= 10)  # fmt: skip
        assert Fraction(d["odds"]["success"]) == Fraction(wins, 36)
    # the resolved command types the attribute, and rolls the same with no sheet
    sheet = read_sheet(text.encode())
    resolved = commands.resolve("swn check Heal --difficulty 10 --mod 1", sheet)
    assert resolved == (
        f"swn check --skill {heal} --difficulty 10 --mod 1 --label 'Int/Heal check' "
        f"--int-mod {int_mod}"
    )
    mine = commands.run("swn check Heal --difficulty 10 --mod 1", seeded(4),
                        resources=commands.with_sheet(sheet)).data  # fmt: skip
    bare = commands.run(resolved, seeded(4)).data
    assert bare["total"] == mine["total"] and bare["success"] == mine["success"]
    assert bare["text"] == mine["text"].split("; from ")[0]


def test_a_foundry_skill_uses_its_default_stat_and_an_option_overrides_it() -> None:
    d = local(f"swn check Heal --difficulty 8 --sheet '{FOUNDRY}'").data
    assert d["text"].startswith("Int/Heal check: rolled ")
    # an attribute typed with the skill alone is the one used
    d = local(f"swn check Heal --dex-mod 2 --difficulty 8 --sheet '{FOUNDRY}'").data
    assert d["modifiers"]["attribute"] == 2


# --- an attack against a target's sheet --------------------------------------------

LASER = next(w for w in VEX_TOML["weapons"] if w["name"] == "Laser Rifle")
DEX = attr_mod(VEX_TOML, "dex")
TO_HIT = VEX_TOML["combat"]["attack_bonus"] + VEX_TOML["skills"]["shoot"] + DEX
SHOCK = int(LASER["shock"].split("/")[0]) + DEX  # 2/15, +1 Dex


def expected_damage(d20: int, die: int | None, ac: int) -> int:
    """``003``, "Attack Resolution" and "Shock Damage": on a hit 1d10 + Dex, at least
    Shock; on a miss Shock, as the Laser Rifle's Shock harms AC 15 or less."""
    if d20 + TO_HIT >= ac:
        assert die is not None
        return max(SHOCK, die + DEX)
    return SHOCK if ac <= 15 else 0


def test_attack_vs_a_file_takes_its_ac_and_gives_its_hp_after(tmp_path: Path) -> None:
    orc = tmp_path / "orc.toml"
    orc.write_text(ORC)
    ac, hp = ORC_TOML["combat"]["ac"], ORC_TOML["combat"]["hp"]
    seen = set()
    for seed in range(12):
        d = local(f"swn attack 'Laser Rifle' --vs {orc} --sheet {VEX_FILE}", seed).data
        (d20,) = d["dice"]
        die = d["damage_dice"][0] if d["damage_dice"] else None
        dealt = expected_damage(d20, die, ac)
        assert d["target"] == ac and d["hit"] == (d20 + TO_HIT >= ac)
        assert d["damage"] == dealt and d["target_name"] == "Orc"
        assert d["hp_after"] == max(0, hp - dealt)  # 003: HP never fall below 0
        down = ", mortally wounded" if hp - dealt <= 0 else ""
        assert f"(Orc HP {hp} → {max(0, hp - dealt)}{down})" in d["text"]
        assert d["target_condition"] == ("mortally wounded" if down else "up")
        seen.add(bool(down))
    assert seen == {True, False}  # both a survivor and a mortal wound were checked
    # 1d20 + 3 >= 13: 11 of 20; 3 damage on a miss (Shock) or a hit of 1-2 on the d10
    d = local(f"swn attack 'Laser Rifle' --vs {orc} --sheet {VEX_FILE}").data
    assert Fraction(d["odds"]["success"]) == Fraction(11, 20)
    dist = {v: Fraction(p) for v, p in d["damage_distribution"]}
    assert dist[3] == Fraction(9, 20) + Fraction(11, 20) * Fraction(2, 10)
    assert dist[11] == Fraction(11, 20) * Fraction(1, 10)


def test_typed_options_override_the_targets_sheet(tmp_path: Path) -> None:
    orc = tmp_path / "orc.toml"
    orc.write_text(ORC)
    line = f"swn attack 'Laser Rifle' --vs {orc} --sheet {VEX_FILE} --ac 16 --target-hp 2"
    d = local(line, 2).data
    assert d["target"] == 16 and d["target_name"] == "Orc"
    assert d["hp_after"] == max(0, 2 - d["damage"])
    # AC 16 is above the Laser Rifle's Shock limit (15): a miss does nothing
    assert d["hit"] or d["damage"] == 0


def test_a_target_with_no_hp_gives_none(tmp_path: Path) -> None:
    orc = tmp_path / "orc.toml"
    orc.write_text(ORC.replace("hp = 9\n", ""))
    d = local(f"swn attack 'Laser Rifle' --vs {orc} --sheet {VEX_FILE}").data
    assert d["target_name"] == "Orc" and d["hp_after"] is None and "HP" not in d["text"]


def test_attack_vs_another_systems_sheet_is_refused() -> None:
    with pytest.raises(Exception, match="needs a Stars Without Number sheet"):
        local(f"swn attack 'Laser Rifle' --vs {EXAMPLES / 'bouncer.toml'} --sheet {VEX_FILE}")


def _resources(roller: Sheet, targets: dict[str, Sheet]) -> Any:
    """As a room does it: the roller's sheet for None, a target's by the name given."""

    def sheet(name: str | None) -> Sheet | None:
        if name is None:
            return roller
        if name in targets:
            return targets[name]
        raise CommandError(f"no sheet {name!r}")

    return dataclasses.replace(BUILTIN, sheet=sheet)


def test_the_resolved_attack_rolls_the_same_with_no_sheet() -> None:
    vex, orc = read_sheet(VEX_TEXT.encode()), read_sheet(ORC.encode())
    res = _resources(vex, {"@orc": orc})
    line = "swn attack 'Laser Rifle' --vs @orc --mod -1"
    resolved = commands.resolve(line, vex, others={"@orc": orc})
    assert resolved == (
        "swn attack --ac 13 --attack-bonus 1 --skill 1 --damage 1d10 --shock 2/15 --mod -1 "
        "--target-name Orc --target-hp 9 --label 'Laser Rifle' --dex-mod 1"
    )
    for seed in range(8):
        mine = commands.run(line, seeded(seed), resources=res).data
        bare = commands.run(resolved, seeded(seed)).data
        for key in ("dice", "total", "target", "hit", "damage", "hp_after", "target_name",
                    "modifiers", "odds", "damage_distribution"):  # fmt: skip
            assert mine[key] == bare[key], key
        assert mine["text"].startswith(bare["text"])
        assert mine["modifiers"]["modifier"] == -1 and mine["total"] == mine["dice"][0] + TO_HIT - 1


def test_attack_mod_moves_the_hit_roll_and_its_odds() -> None:
    for m in (-2, 0, 3):
        d = commands.run(f"swn attack --ac 13 --mod {m}", seeded(1)).data
        assert Fraction(d["odds"]["success"]) == Fraction(min(20, max(0, 20 - (13 - m) + 1)), 20)
        assert d["total"] == d["dice"][0] + m
        assert ("modifier" in d["modifiers"]) == (m != 0)
    odds = commands.run("swn odds attack --ac 13 --mod 3").data
    assert "55.0% to hit" in odds["text"]  # 1d20 + 3 >= 13: 10 to 20, 11 of 20
    with pytest.raises(CommandError):
        commands.run("swn attack --ac 13 --mod 21", seeded(1))


def test_a_negative_target_hp_is_refused() -> None:
    with pytest.raises(CommandError):
        commands.run("swn attack --ac 13 --target-name Orc --target-hp -1", seeded(1))
