"""Foundry VTT swnr actor exports: both layouts read to the same sheet, and bad data
is refused with a SheetError that names the field."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.errors import SheetError
from referee.sheets.foundry import STATS, is_foundry_swnr, read_foundry_swnr
from referee.sheets.model import Attack, Kind, Sheet, Trait
from referee.systems.swn.attributes import attribute_modifier

DATA = Path(__file__).parent / "data" / "sheets"
FIXTURES = ["vex-foundry.json", "vex-foundry-v9.json"]
"""Foundry 13 with swnr 2.3 (``system``), and Foundry 9 with swnr 0.7 (``data``)."""


def load(name: str) -> dict[str, Any]:
    doc = json.loads((DATA / name).read_text(encoding="utf-8"))
    assert isinstance(doc, dict)
    return doc


def body(doc: dict[str, Any]) -> dict[str, Any]:
    """The actor's (or an item's) data, in either layout."""
    data = doc["system"] if "system" in doc else doc["data"]
    assert isinstance(data, dict)
    return data


def of_type(doc: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [i for i in doc["items"] if i["type"] == kind]


def expected(doc: dict[str, Any]) -> Sheet:
    """The sheet a fixture should read to, worked out from its JSON here."""
    data = body(doc)
    scores = {k: s["base"] + s["boost"] + s.get("temp", 0) for k, s in data["stats"].items()}
    traits = [Trait(STATS[k], None, scores[k], Kind.ATTRIBUTE) for k in STATS]
    skills = {s["_id"]: s["name"] for s in of_type(doc, "skill")}
    traits += [
        Trait(s["name"], None, body(s)["rank"], Kind.SKILL, attribute=body(s).get("defaultStat"))
        for s in of_type(doc, "skill")
        if body(s)["rank"] >= 0
    ]
    attacks = []
    for w in of_type(doc, "weapon"):
        wd = body(w)
        stats = tuple(s for s in (wd["stat"], wd["secondStat"]) if s in STATS)
        attacks.append(
            Attack(
                name=w["name"],
                usage=None,
                damage=wd["damage"],
                skill=skills[wd["skill"]].lower(),
                attributes=stats,
                shock=f"{wd['shock']['dmg']}/{wd['shock']['ac']}",
                attack_bonus=int(wd.get("ab") or 0),  # the weapon's own (swnr's @weapon.ab)
            )
        )
    worn = [
        body(a)["ac"]
        for a in of_type(doc, "armor")
        if body(a)["use"] and body(a)["location"] == "readied"
    ]
    return Sheet(
        system="swn",
        name=doc["name"],
        source="Foundry swnr actor",
        traits=tuple(traits),
        attacks=tuple(attacks),
        level=data["level"]["value"],
        attack_bonus=data["ab"],
        ac=max([data["baseAc"], *worn]) + attribute_modifier(scores["dex"]),
        hp=data["health"]["max"],
    )


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_reads_as_its_json_says(name: str) -> None:
    doc = load(name)
    assert is_foundry_swnr(doc)
    assert read_foundry_swnr(doc) == expected(doc)


def test_both_layouts_read_to_the_same_sheet() -> None:
    new, old = (read_foundry_swnr(load(n)) for n in FIXTURES)
    assert "system" in load(FIXTURES[0]) and "data" in load(FIXTURES[1])
    assert new == old
    assert new.notes == ()


def test_the_fixture_is_the_character_described() -> None:
    """One check against the character sheet itself, so that a fixture and the
    reader cannot drift together."""
    sheet = read_foundry_swnr(load(FIXTURES[0]))
    assert {t.name: t.level for t in sheet.traits} == {
        "Str": 10, "Dex": 16, "Con": 12, "Int": 14, "Wis": 9, "Cha": 11,
        "Shoot": 1, "Heal": 2, "Notice": 0,
    }  # fmt: skip
    assert (sheet.level, sheet.attack_bonus, sheet.ac, sheet.hp) == (3, 1, 15, 14)
    assert [
        (a.name, a.damage, a.skill, a.attributes, a.shock, a.attack_bonus) for a in sheet.attacks
    ] == [
        ("Laser Rifle", "1d10", "shoot", ("dex",), "2/15", 1),
        ("Knife", "1d4", "stab", ("str", "dex"), "1/15", 0),
    ]


@pytest.mark.parametrize("name", FIXTURES)
def test_untrained_skills_are_left_out(name: str) -> None:
    doc = load(name)
    untrained = {s["name"] for s in of_type(doc, "skill") if body(s)["rank"] == -1}
    assert untrained == {"Pilot", "Stab"}
    sheet = read_foundry_swnr(doc)
    assert not untrained & {t.name for t in sheet.of_kind(Kind.SKILL)}
    # a weapon still names its skill when the character is untrained in it
    assert sheet.attacks[1].skill == "stab"


def test_is_foundry_swnr_refuses_other_json() -> None:
    assert not is_foundry_swnr({"version": 5, "profile": {}})
    assert not is_foundry_swnr({"name": "Vex", "level": 3})
    assert not is_foundry_swnr({})
    assert not is_foundry_swnr([load(FIXTURES[0])])
    ship = load(FIXTURES[0]) | {"type": "ship"}
    assert not is_foundry_swnr(ship)


# Bad data: each edit of the Foundry 13 fixture, and words the message must hold.

Edit = Callable[[dict[str, Any]], None]


def _parent(doc: dict[str, Any], path: str) -> tuple[Any, Any]:
    """The container of the value at a dotted path (list places as numbers), and its key."""
    node: Any = doc
    keys: list[Any] = [int(k) if k.isdigit() else k for k in path.split(".")]
    for key in keys[:-1]:
        node = node[key]
    return node, keys[-1]


def _set(path: str, value: Any) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        node, key = _parent(doc, path)
        node[key] = value

    return edit


def _drop(path: str) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        node, key = _parent(doc, path)
        del node[key]

    return edit


def _npc(doc: dict[str, Any]) -> None:
    doc["type"] = "npc"
    del body(doc)["stats"]


def _item(name: str) -> int:
    return next(i for i, item in enumerate(load(FIXTURES[0])["items"]) if item["name"] == name)


KNIFE, SHOOT, ARMOR = _item("Knife"), _item("Shoot"), _item("Security Armor")

BAD: dict[str, tuple[Edit, tuple[str, ...]]] = {
    "missing stats": (_drop("system.stats"), ("has no stats", "system.stats")),
    "missing one stat": (_drop("system.stats.dex"), ("stat 'dex' has no score",)),
    "stat without base": (_drop("system.stats.wis.base"), ("stat 'wis' has no score",)),
    "score of 25": (_set("system.stats.str.base", 25), ("Str score is 25", "3 to 18")),
    "score of 2": (_set("system.stats.cha.base", 2), ("Cha score is 2", "3 to 18")),
    "text score": (_set("system.stats.con.base", "high"), ("'con'", "'high'", "whole number")),
    "boost not a number": (_set("system.stats.dex.boost", [2]), ("'dex' boost", "whole number")),
    "non-number level": (_set("system.level.value", "three"), ("level", "'three'")),
    "level true": (_set("system.level.value", True), ("level", "whole number")),
    "level 0": (_set("system.level.value", 0), ("level", "1 to 20")),
    "no level": (_drop("system.level"), ("has no level", "system.level.value")),
    "items not a list": (_set("items", {"a": 1}), ("item list", "not a list")),
    "item not an object": (_set("items.0", "Shoot"), ("item 1", "not an object")),
    "weapon without damage": (
        _drop(f"items.{KNIFE}.system.damage"),
        ("weapon 'Knife' has no damage", "system.damage"),
    ),
    "weapon with blank damage": (
        _set(f"items.{KNIFE}.system.damage", " "),
        ("weapon 'Knife' has no damage",),
    ),
    "weapon with a made-up stat": (
        _set(f"items.{KNIFE}.system.secondStat", "luck"),
        ("'Knife'", "'luck'", "str, dex"),
    ),
    "shock damage not a number": (
        _set(f"items.{KNIFE}.system.shock.dmg", [1]),
        ("'Knife'", "shock damage"),
    ),
    "skill rank 5": (_set(f"items.{SHOOT}.system.rank", 5), ("skill 'Shoot'", "-1 to 4")),
    "skill rank -2": (_set(f"items.{SHOOT}.system.rank", -2), ("skill 'Shoot'", "-1 to 4")),
    "skill without rank": (_drop(f"items.{SHOOT}.system.rank"), ("'Shoot' has no rank",)),
    "skill without name": (_drop(f"items.{SHOOT}.name"), ("skill item", "has no name")),
    "armor AC as text": (
        _set(f"items.{ARMOR}.system.ac", "heavy"),
        ("'Security Armor'", "AC", "'heavy'"),
    ),
    "attack bonus as text": (_set("system.ab", "+1 vs"), ("attack bonus", "system.ab")),
    "hit points as an object": (_set("system.health.max", {}), ("maximum hit points",)),
    "no name": (_drop("name"), ("has no name",)),
    "another system": (_set("_stats.systemId", "dnd5e"), ("'dnd5e'", "not swnr")),
    "an NPC": (_npc, ("NPC", "character")),
    "a ship": (_set("type", "ship"), ("'ship'", "not a character")),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_bad_data_is_refused_naming_the_field(case: str) -> None:
    edit, words = BAD[case]
    doc = load(FIXTURES[0])
    edit(doc)
    with pytest.raises(SheetError) as err:
        read_foundry_swnr(doc)
    for word in words:
        assert word in str(err.value), (case, str(err.value))


def test_the_old_layout_names_its_own_fields() -> None:
    doc = load(FIXTURES[1])
    doc["data"]["level"]["value"] = "three"
    with pytest.raises(SheetError, match=r"data\.level\.value"):
        read_foundry_swnr(doc)


# What a sheet can hold that referee reads differently: notes, not errors.


def test_damage_referee_cannot_roll_leaves_the_weapon_out_with_a_note() -> None:
    doc = load(FIXTURES[0])
    body(doc["items"][KNIFE])["damage"] = "1d4+@str.mod"
    sheet = read_foundry_swnr(doc)
    assert [a.name for a in sheet.attacks] == ["Laser Rifle"]
    assert any("'Knife'" in n and "1d4+@str.mod" in n for n in sheet.notes)


def test_a_weapon_skill_that_is_not_on_the_actor_is_unset_with_a_note() -> None:
    doc = load(FIXTURES[0])
    body(doc["items"][KNIFE])["skill"] = "NoSuchSkillId000"
    sheet = read_foundry_swnr(doc)
    assert sheet.attacks[1].skill is None
    assert any("'Knife'" in n and "does not have" in n for n in sheet.notes)


@pytest.mark.parametrize("value", ["", "ask", None])
def test_a_weapon_without_a_chosen_skill_has_none(value: str | None) -> None:
    doc = load(FIXTURES[0])
    body(doc["items"][KNIFE])["skill"] = value
    sheet = read_foundry_swnr(doc)
    assert sheet.attacks[1].skill is None and sheet.notes == ()


def test_weapon_stats_old_and_new_forms() -> None:
    doc = load(FIXTURES[1])
    knife = body(doc["items"][KNIFE])
    knife["stat"], knife["secondStat"] = "str/dex", None  # before swnr 0.4.0
    assert read_foundry_swnr(doc).attacks[1].attributes == ("str", "dex")
    doc = load(FIXTURES[0])
    body(doc["items"][KNIFE])["stat"] = "ask"  # swnr 2: ask at each roll
    assert read_foundry_swnr(doc).attacks[1].attributes == ()


@pytest.mark.parametrize("dmg", [0, "0", "", None])
def test_no_shock(dmg: object) -> None:
    doc = load(FIXTURES[0])
    body(doc["items"][KNIFE])["shock"]["dmg"] = dmg
    assert read_foundry_swnr(doc).attacks[1].shock is None


def test_a_shield_adds_its_bonus_and_the_dex_bonus_counts() -> None:
    doc = load(FIXTURES[0])
    plain = read_foundry_swnr(doc).ac
    assert plain is not None
    shield = copy.deepcopy(doc["items"][ARMOR])
    shield.update(_id="shieldShield0001", name="Shield")
    body(shield).update(ac=13, shield=True, shieldACBonus=1)
    doc["items"].append(shield)
    assert read_foundry_swnr(doc).ac == plain + 1
    body(shield)["shieldACBonus"] = None  # swnr 2 leaves a new shield's bonus empty: none
    assert read_foundry_swnr(doc).ac == plain
    del body(shield)["shieldACBonus"]  # before swnr 1.0.4 every shield gave +1
    assert read_foundry_swnr(doc).ac == plain + 1
    body(doc["items"][ARMOR])["location"] = "stowed"  # only the shield is worn: AC 13
    dex = read_foundry_swnr(doc).ac
    assert dex == 13 + plain - 14
    body(doc)["stats"]["dex"]["bonus"] = 1
    sheet = read_foundry_swnr(doc)
    assert sheet.ac == dex + 1
    assert any("+1 to the Dex modifier" in n for n in sheet.notes)


def test_temp_counts_in_the_score() -> None:
    doc = load(FIXTURES[0])
    body(doc)["stats"]["str"]["temp"] = -2
    assert read_foundry_swnr(doc).traits[0] == Trait("Str", None, 8, Kind.ATTRIBUTE)


def test_current_hit_points_make_a_note() -> None:
    doc = load(FIXTURES[0])
    body(doc)["health"]["value"] = 9
    sheet = read_foundry_swnr(doc)
    assert sheet.hp == 14
    assert any("9 of 14" in n for n in sheet.notes)


def test_active_effects_make_a_note() -> None:
    doc = load(FIXTURES[0])
    doc["effects"] = [
        {"name": "Stim", "disabled": False, "changes": [{"key": "system.ab", "value": "1"}]},
        {"name": "Off", "disabled": True, "changes": [{"key": "system.ab", "value": "1"}]},
    ]
    notes = read_foundry_swnr(doc).notes
    assert len(notes) == 1 and "Stim" in notes[0] and "Off" not in notes[0]


# Never anything but a SheetError, whatever a field holds.


def _paths(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*path, i))


ODD: list[object] = [None, True, "x", "", -1, 10**12, 2.5, float("nan"), [], {}, [None], {"a": []}]


@pytest.mark.slow  # make check leaves it to make test
@pytest.mark.parametrize("name", FIXTURES)
def test_any_value_anywhere_reads_or_raises_a_sheet_error(name: str) -> None:
    original = load(name)
    paths = [p for p in _paths(original) if p and p[0] not in ("prototypeToken", "token")]
    assert len(paths) > 300
    doc = copy.deepcopy(original)
    for path in paths:
        node: Any = doc
        for key in path[:-1]:
            node = node[key]
        kept = node[path[-1]]
        for odd in ODD:
            # One value changed in place and put back (a copy of the whole sheet for each
            # was most of this test's time); the reader changes nothing it is given.
            node[path[-1]] = copy.deepcopy(odd)
            try:
                read_foundry_swnr(doc)
            except SheetError:
                pass
        node[path[-1]] = kept
        assert doc == original, path
