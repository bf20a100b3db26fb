"""Character sheets (issue 26): GCS files against their own computed values, referee's
TOML sheets, name matching, and every bad input refused in a player's words.

The GCS fixtures are real files of GCS's master library (``tests/data/gcs/SOURCE.md``).
The expected values are read from each file here, by this test's own walk of the
JSON, and never copied into the test.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.errors import RuleError, SheetError
from referee.sheets import Kind, Sheet, find_attack, find_trait, read_sheet
from referee.sheets.formats import MAX_BYTES, MAX_DEPTH
from referee.systems.gurps.damage import read_damage

GCS = Path(__file__).parent / "data" / "gcs"
FILES = sorted(GCS.glob("*.gcs"))
EXAMPLES = Path(__file__).parent.parent / "examples" / "sheets"


def test_there_are_enough_fixtures() -> None:
    assert len(FILES) >= 10
    versions = {json.loads(f.read_bytes())["version"] for f in FILES}
    assert {2, 4, 5} <= versions
    assert len(list((GCS.parent / "gcs").glob("*.gcs"))) == len(FILES)
    assert (GCS / "LICENSE").read_text().startswith("Mozilla Public License Version 2.0")


def _walk(items: Any) -> Iterator[dict[str, Any]]:
    for item in items or []:
        yield item
        yield from _walk(item.get("children"))


def _expected(doc: dict[str, Any]) -> list[tuple[str, int, str]]:
    """(full name, level, kind) of every rollable skill, technique and spell, as GCS saved
    them: read here independently of the reader."""
    v5 = doc["version"] >= 5
    out = []
    for item in _walk(doc.get("skills", [])):
        kind = item["id"][0] if v5 else item.get("type")
        level = item.get("calc", {}).get("level")
        if not isinstance(level, int):
            continue
        if kind in ("s", "skill"):
            spec = item.get("specialization")
            out.append((f"{item['name']} ({spec})" if spec else item["name"], level, "skill"))
        elif kind in ("q", "technique"):
            d = item["default"]
            skill = d.get("name", d["type"])
            if d.get("specialization"):
                skill += f" ({d['specialization']})"
            out.append((f"{item['name']} ({skill})", level, "technique"))
    for item in _walk(doc.get("spells", [])):
        kind = item["id"][0] if v5 else item.get("type")
        level = item.get("calc", {}).get("level")
        if kind in ("p", "r", "spell", "ritual_magic_spell") and isinstance(level, int):
            out.append((item["name"], level, "spell"))
    return out


def _attributes(doc: dict[str, Any]) -> dict[str, int]:
    names = {a["id"]: a for a in doc["settings"].get("attributes", [])}
    out = {}
    for a in doc["attributes"]:
        info = names.get(a["attr_id"], {})
        if info.get("type", "integer") != "integer" or a["attr_id"] == "basic_move":
            continue
        if "calc" not in a or "current" in a["calc"]:
            continue
        out[info.get("name", a["attr_id"].upper())] = a["calc"]["value"]
    return out


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_every_trait_resolves_to_the_files_own_level(path: Path) -> None:
    doc = json.loads(path.read_bytes())
    sheet = read_sheet(path.read_bytes())
    assert sheet.system == "gurps" and sheet.name == doc["profile"]["name"]
    assert sheet.source == f"GCS version {doc['version']}"
    expected = _expected(doc)
    assert expected, "a fixture with nothing to roll tests nothing"
    names = [n for n, _, _ in expected]
    for name, level, kind in expected:
        if names.count(name) > 1:  # the same name twice: refused, listing both
            with pytest.raises(SheetError, match="matches"):
                find_trait(sheet, name)
            continue
        found = find_trait(sheet, name)
        assert (found.full_name, found.level, found.kind.value) == (name, level, kind)
        assert find_trait(sheet, name.upper()).level == level  # case does not matter
    for name, value in _attributes(doc).items():
        found = find_trait(sheet, name, (Kind.ATTRIBUTE,))
        assert found.level == value, name
    assert find_trait(sheet, "Dodge").level == doc["calc"]["dodge"][0]
    assert (sheet.swing, sheet.thrust) == (doc["calc"]["swing"], doc["calc"]["thrust"])


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_every_weapon_is_read_with_its_computed_damage(path: Path) -> None:
    doc = json.loads(path.read_bytes())
    sheet = read_sheet(path.read_bytes())
    weapons = [
        (item, w)
        for key in ("skills", "spells", "traits", "advantages", "equipment", "other_equipment")
        for item in _walk(doc.get(key, []))
        for w in item.get("weapons", [])
        if w.get("calc", {}).get("damage")
    ]
    assert len(sheet.attacks) == len(weapons)
    for attack, (item, w) in zip(sheet.attacks, weapons, strict=True):
        assert attack.damage == w["calc"]["damage"]
        assert attack.level == w["calc"].get("level")
        assert attack.usage == (w.get("usage") or None)
        assert attack.name == (item.get("name") or item.get("description"))
        try:
            spec = read_damage(attack.damage)
        except RuleError as exc:  # not dice+adds and a type: refused, never guessed
            assert "cannot roll the damage" in str(exc)
            continue
        assert spec.expression.split("d")[0] == attack.damage.split("d")[0]


def test_the_versions_of_one_character_agree() -> None:
    v5, v4, v2 = (
        read_sheet((GCS / f"Dai Blackthorn{s}.gcs").read_bytes())
        for s in ("", " (version 4)", " (version 2)")
    )
    assert v5.traits == v4.traits == v2.traits
    assert [a.damage for a in v5.attacks] == [a.damage for a in v2.attacks]
    assert (v2.source, v4.source) == ("GCS version 2", "GCS version 4")


# --- matching -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def dai() -> Sheet:
    return read_sheet((GCS / "Dai Blackthorn.gcs").read_bytes())


def test_names_match_as_players_type_them(dai: Sheet) -> None:
    assert find_trait(dai, "stealth").level == 16
    assert find_trait(dai, "Fast-Draw (Knife)").level == 15
    assert find_trait(dai, "fast-draw(knife)").full_name == "Fast-Draw (Knife)"
    assert find_trait(dai, "Fast-D").full_name == "Fast-Draw (Knife)"  # a unique prefix
    assert find_trait(dai, "per").kind is Kind.ATTRIBUTE  # exact wins over "Pickpocket"
    assert find_trait(dai, "Guns").full_name == "Guns (Pistol)"  # its only specialization
    assert find_attack(dai, "Punch").damage == "1d-4 cr"
    assert find_attack(dai, "natural attacks (kick)").damage == "1d-3 cr"


def test_a_name_that_matches_several_is_refused_with_each_level(dai: Sheet) -> None:
    with pytest.raises(SheetError) as many:
        find_trait(dai, "F")
    message = str(many.value)
    assert "matches" in message and "Fast-Draw (Knife) 15" in message
    assert "Fast-Talk 12" in message and "Filch 14" in message
    with pytest.raises(SheetError, match="Natural Attacks \\(Bite\\) 1d-4 cr"):
        find_attack(dai, "Natural Attacks")


def test_an_unknown_name_names_the_character(dai: Sheet) -> None:
    with pytest.raises(SheetError) as info:
        find_trait(dai, "Stelth")
    assert str(info.value) == "Dai Blackthorn has no trait 'Stelth': did you mean 'Stealth'?"
    with pytest.raises(SheetError, match="Dai Blackthorn has no attack 'Sword'"):
        find_attack(dai, "Sword")


# --- TOML sheets --------------------------------------------------------------------


def test_the_example_sheets_read() -> None:
    vex = read_sheet((EXAMPLES / "vex.toml").read_bytes())
    assert (vex.system, vex.level, vex.attack_bonus, vex.ac, vex.hp) == ("swn", 3, 1, 15, 14)
    assert find_trait(vex, "dex").level == 16 and find_trait(vex, "Shoot").level == 1
    rifle = find_attack(vex, "laser")
    assert (rifle.damage, rifle.skill, rifle.attributes, rifle.shock) == (
        "1d10", "shoot", ("dex",), "2/15",
    )  # fmt: skip
    assert find_attack(vex, "Knife").attributes == ("str", "dex")
    ron = read_sheet((EXAMPLES / "ron.toml").read_bytes())
    assert (ron.system, ron.ladder, find_trait(ron, "ranged combat").level) == (
        "fudge", "psi-punk", 1,
    )  # fmt: skip
    dai = read_sheet((EXAMPLES / "dai.toml").read_bytes())
    assert find_trait(dai, "Stealth").level == 16 and dai.swing == "1d-2"
    assert find_attack(dai, "Knife (Thrust)").damage == "1d-3 imp"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'system = "swn"\nname = "X"\nlevel = 1\n[attributes]\ndex = 25',
            "dex: 25 is outside 3 to 18 (line 5)",
        ),
        ('system = "swn"\nname = "X"\n[attributes]\ndex = 12', "level: an SWN sheet needs"),
        ('system = "swn"\nlevel = 1\n[skills]\nshoot = 7', "shoot: 7 is outside 0 to 4 (line 4)"),
        ('system = "swn"\nlevel = 1\nlevle = 2', "levle: unknown key"),
        (
            'system = "swn"\nlevel = 1\n[[weapons]]\nname = "Gun"\ndamage = "1d8"\nshock = "x"',
            "write Shock as AMOUNT/AC",
        ),
        ('system = "fudge"\n[traits]\nNotice = "Astonishing"', "Notice"),
        (
            'system = "fudge"\nladder = "dnd"\n[traits]\nNotice = "Good"',
            "'dnd' is not a built-in ladder",
        ),
        ('system = "gurps"\n[skills]\nStealth = "high"', "should be a whole number"),
        ('system = "hero"\nname = "X"', "system 'hero'"),
        ('name = "X"', "no system"),
        ('system = "gurps"\nname = "X\n', "not valid TOML"),
        ('system = "gurps"\n[skills\nStealth = 12', "(line 2"),
    ],
)  # fmt: skip
def test_bad_toml_sheets_are_refused_by_key_and_line(text: str, message: str) -> None:
    with pytest.raises(SheetError) as info:
        read_sheet(text.encode())
    assert message in str(info.value)


# --- files that are not sheets ------------------------------------------------------


def test_xml_and_version_1_say_how_to_convert() -> None:
    for name in ("Dai Blackthorn (XML).gcs", "Dai Blackthorn (version 1).gcs"):
        with pytest.raises(SheetError) as info:
            read_sheet((GCS / "old" / name).read_bytes())
        message = str(info.value)
        assert "GCS before 4.30" in message and "open it in a current GCS" in message


def test_other_json_is_refused() -> None:
    doc = json.loads((GCS / "Iotha.gcs").read_bytes())
    doc["version"] = 6
    with pytest.raises(SheetError, match="version 6, newer than referee reads \\(2 to 5\\)"):
        read_sheet(json.dumps(doc).encode())
    with pytest.raises(SheetError, match="neither a GCS character file nor a Foundry"):
        read_sheet(b'{"hello": "world"}')
    with pytest.raises(SheetError, match="not valid JSON: .* \\(line 3, column"):
        read_sheet(b'{\n "version": 5,\n "profile": }')
    with pytest.raises(SheetError, match="not UTF-8"):
        read_sheet(b'{"version": 5, "profile": {"name": "\xff"}}')


def test_size_and_depth_are_bounded_before_parsing() -> None:
    with pytest.raises(SheetError, match="at most 5,242,880"):
        read_sheet(b" " * (MAX_BYTES + 1))
    deep = b'{"a": ' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1)
    with pytest.raises(SheetError, match=f"nests {MAX_DEPTH + 1} levels deep"):
        read_sheet(deep)
    hostile = b"[" * 200_000  # would exhaust json's recursion
    with pytest.raises(SheetError, match="nests 200000 levels"):
        read_sheet(hostile)
    toml_deep = b"a = " + b"[" * 100 + b"]" * 100
    with pytest.raises(SheetError, match="nests 100 levels"):
        read_sheet(toml_deep)
    # brackets inside strings do not count
    assert read_sheet(b'system = "fudge"\nname = "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["')
