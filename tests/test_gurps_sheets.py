"""GURPS rolls by trait name (issue 26): from GCS files and TOML sheets, through the
command layer and the CLI, with every bad input refused with exit 2."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from referee import commands, seeded
from referee.cli.app import app
from referee.cli.local import LOCAL
from referee.commands.result import Resources, with_sheet
from referee.errors import CommandError, NoSheetError, RefereeError, SheetError
from referee.sheets import Kind, Sheet, read_sheet
from referee.systems.gurps.damage import read_damage

GCS = Path(__file__).parent / "data" / "gcs"
FILES = sorted(GCS.glob("*.gcs"))
DAI = GCS / "Dai Blackthorn.gcs"
TOML = Path(__file__).parent.parent / "examples" / "sheets" / "dai.toml"
runner = CliRunner()


def _sheet(path: Path) -> Sheet:
    return read_sheet(path.read_bytes())


SHEETS = {p.stem: _sheet(p) for p in [*FILES, TOML]}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '\\"') + '"'


def _unique(sheet: Sheet) -> Iterator[tuple[str, int, Kind]]:
    names = [t.full_name.casefold() for t in sheet.traits]
    for t in sheet.traits:
        if names.count(t.full_name.casefold()) == 1 and t.kind is not Kind.TRAIT:
            yield t.full_name, t.level, t.kind


@pytest.mark.parametrize("stem", sorted(SHEETS))
def test_every_trait_checks_at_the_sheets_level(stem: str) -> None:
    sheet = SHEETS[stem]
    res = with_sheet(sheet)
    checked = 0
    for name, level, kind in _unique(sheet):
        line = f"gurps check {_quote(name)}"
        if level < 3 and kind is not Kind.DEFENSE:
            with pytest.raises(RefereeError, match="below 3"):
                commands.run(line, seeded(1), resources=res)
            continue
        r = commands.run(line, seeded(1), resources=res)
        assert r.data["effective_skill"] == level and r.data["base_skill"] == level
        assert r.data["trait"] == {
            "name": r.data["trait"]["name"],
            "specialization": r.data["trait"]["specialization"],
            "level": level,
            "kind": kind.value,
            "sheet": sheet.name,
        }
        assert r.text.startswith(f"{name} {level}: rolled ")
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_every_weapon_rolls_its_computed_damage(path: Path) -> None:
    sheet = SHEETS[path.stem]
    full = [a.full_name.casefold() for a in sheet.attacks]
    for attack in sheet.attacks:
        if full.count(attack.full_name.casefold()) > 1:
            continue  # the same item and usage twice: refused as ambiguous, tested below
        line = f"gurps damage {_quote(attack.full_name)}"
        try:
            spec = read_damage(attack.damage)
        except RefereeError:
            with pytest.raises(RefereeError, match="cannot roll the damage"):
                commands.run(line, seeded(1), resources=with_sheet(sheet))
            continue
        r = commands.run(line, seeded(1), resources=with_sheet(sheet))
        count = int(spec.expression.split("d")[0])
        assert len(r.draws) == count and all(n == 6 for n, _ in r.draws)
        adds = int(spec.expression.split("d")[1] or 0)
        minimum = 0 if spec.damage_type == "cr" else 1
        assert r.data["basic_damage"] == max(sum(v for _, v in r.draws) + adds, minimum)
        assert r.data["damage_type"] == spec.damage_type
        assert r.data["attack"] == {
            "name": attack.name,
            "usage": attack.usage,
            "damage": attack.damage,
            "sheet": sheet.name,
        }


def _traits(sheet: Sheet) -> list[str]:
    return [n for n, lv, k in _unique(sheet) if lv >= 3 or k is Kind.DEFENSE]


@settings(max_examples=150, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32), mod=st.integers(-5, 5))
def test_a_check_by_name_rolls_as_its_level_with_the_name_as_label(
    data: st.DataObject, seed: int, mod: int
) -> None:
    sheet = data.draw(st.sampled_from(sorted(SHEETS.values(), key=lambda s: s.source + s.name)))
    name = data.draw(st.sampled_from(_traits(sheet)))
    trait = next(t for t in sheet.traits if t.full_name == name)
    defense = " --defense" if trait.kind is Kind.DEFENSE else ""
    shown = f" {mod:+d}" if mod else ""
    try:
        by_name = commands.run(
            f"gurps check {_quote(name)}{shown}", seeded(seed), resources=with_sheet(sheet)
        )
    except RefereeError as exc:  # below 3 after the modifier: both refuse
        with pytest.raises(RefereeError) as again:
            commands.run(f"gurps check {trait.level}{shown} --label {_quote(name)}{defense}")
        assert str(again.value) == str(exc)
        return
    by_level = commands.run(
        f"gurps check {trait.level}{shown} --label {_quote(name)}{defense}", seeded(seed)
    )
    assert by_name.draws == by_level.draws
    assert {k: v for k, v in by_name.data.items() if k != "trait"} == by_level.data
    assert by_name.text == by_level.text


def _never(path: str | None) -> Sheet | None:
    raise AssertionError("no sheet may be read for a typed level")


def test_the_typed_form_keeps_its_meaning_and_reads_no_sheet() -> None:
    res = Resources(sheet=_never)
    r = commands.run("gurps check Broadsword-14", seeded(1), resources=res)
    assert (r.data["effective_skill"], r.data["label"]) == (14, "Broadsword")
    assert "trait" not in r.data
    assert commands.run("gurps check 14 -4", seeded(1), resources=res).data["effective_skill"] == 10
    assert commands.run("gurps damage 2d+1 --type cut", seeded(1), resources=res).data
    # a name with a space before its modifier is a name: it needs a sheet
    with pytest.raises(CommandError, match="there is no sheet"):
        commands.run("gurps check Broadsword -2", seeded(1))


def test_names_spells_techniques_attributes_and_dodge() -> None:
    mage = with_sheet(SHEETS["Mage - Wizard-Scholar"])
    r = commands.run("gurps check Fireball", seeded(1), resources=mage)
    assert r.data["trait"]["kind"] == "spell"
    ninja = with_sheet(SHEETS["Master Ninja"])
    r = commands.run("gurps check 'Jump Kick (Karate)' -1", seeded(1), resources=ninja)
    assert r.data["trait"]["kind"] == "technique" and r.data["modifiers"] == [-1]
    dai = with_sheet(SHEETS["Dai Blackthorn"])
    per = commands.run("gurps check Per -2", seeded(1), resources=dai).data
    assert per["effective_skill"] == 13
    dodge = commands.run("gurps check Dodge -8", seeded(1), resources=dai).data
    assert dodge["effective_skill"] == 2  # a defense roll is allowed below 3
    r = commands.run("gurps check 'Fast-Draw (Knife)' -2", seeded(1), resources=dai)
    assert r.text.startswith("Fast-Draw (Knife) 15-2 = 13: rolled ")
    assert r.data["trait"]["specialization"] == "Knife"


def test_contest_retry_and_odds_by_name() -> None:
    dai = with_sheet(SHEETS["Dai Blackthorn"])
    c = commands.run("gurps contest Stealth 12", seeded(1), resources=dai).data
    assert c["skills"] == [16, 12] and c["traits"][0]["name"] == "Stealth"
    assert c["traits"][1] is None and c["names"][0] == "Stealth"
    retry = commands.run("gurps retry Lockpicking --max 3", resources=dai).data
    assert retry["effective_skill"] == 15 and retry["trait"]["name"] == "Lockpicking"
    odds = commands.run("gurps odds Stealth -2", resources=dai).data
    assert odds["effective_skill"] == 14 and odds["trait"]["level"] == 16


def test_damage_from_swing_thrust_and_armor_divisors() -> None:
    dai = with_sheet(SHEETS["Dai Blackthorn"])  # swing 1d-2, thrust 1d-3
    r = commands.run("gurps damage sw+2 cut", seeded(1), resources=dai)
    assert r.data["damage_type"] == "cut" and len(r.draws) == 1
    assert r.data["basic_damage"] == max(r.draws[0][1], 1)  # 1d-2+2 = 1d
    r = commands.run("gurps damage thr", seeded(1), resources=dai)
    assert r.data["basic_damage"] == max(r.draws[0][1] - 3, 0)
    d = commands.run("gurps damage '4d(3) burn' --dr 9", seeded(1)).data
    assert d["armor_divisor"] == "3/1" and d["basic_damage"] - 3 == d["penetrating"]
    assert "vs DR 9 ÷ 3 = 3" in d["text"] and d["text"].startswith("4d(3) burn")
    over = commands.run("gurps damage Punch --type cut", seeded(1), resources=dai)
    assert over.data["damage_type"] == "cut" and "--type cut over the sheet's cr" in over.text
    with pytest.raises(SheetError, match="matches 3 attacks of Dai Blackthorn"):
        commands.run("gurps damage 'Natural Attacks'", resources=dai)


def _cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    res = runner.invoke(app, list(args), env=env)
    assert "Traceback" not in res.output
    return res.exit_code, res.output


def test_the_cli_reads_sheets_and_the_environment() -> None:
    code, out = _cli("gurps", "check", "Stealth", "-2", "--sheet", str(DAI), "--seed", "1")
    assert code == 0 and out.startswith("Stealth 16-2 = 14: rolled 10 (2, 4, 4)")
    code, env_out = _cli(
        "gurps", "check", "Stealth", "-2", "--seed", "1", env={"REFEREE_SHEET": str(DAI)}
    )
    assert code == 0 and env_out == out
    code, out = _cli("gurps", "check", "Stealth", "--sheet", str(DAI), "--json", "--seed", "1")
    assert json.loads(out)["trait"]["sheet"] == "Dai Blackthorn"
    code, out = _cli("sheet", str(DAI), "--json")
    data = json.loads(out)
    stealth = next(t for t in data["traits"] if t["name"] == "Stealth")
    assert (stealth["level"], stealth["chance"]) == (16, "53/54")
    assert _cli("sheet", str(DAI))[1].startswith("Dai Blackthorn (GURPS, GCS version 5)")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing.gcs", "there is no such file"),
        (lambda d: GCS / "old" / "Dai Blackthorn (XML).gcs", "old XML format"),
        (lambda d: GCS / "old" / "Dai Blackthorn (version 1).gcs", "version 1 (GCS before 4.30)"),
        (lambda d: _write(d / "big.gcs", b" " * (6 * 1024 * 1024)), "at most 5,242,880"),
        (lambda d: _write(d / "deep.json", b"[" * 5000 + b"]" * 5000), "nests 5000 levels"),
        (lambda d: _write(d / "bad.gcs", b'{\n"version": 5,\n"profile": {,}}'), "(line 3, column"),
        (lambda d: _write(d / "bad.toml", b'system = "gurps"\nname = \n'), "not valid TOML"),
        (lambda d: _write(d / "vex.toml", b'system = "swn"\nlevel = 1'), "needs a GURPS sheet"),
        (lambda d: d, "cannot read the sheet"),  # a directory
    ],
)
def test_bad_sheets_exit_2_with_a_message(make: Any, message: str, tmp_path: Path) -> None:
    path = make(tmp_path)
    code, out = _cli("gurps", "check", "Stealth", "--sheet", str(path))
    assert code == 2 and out.startswith("error: ") and message in out, out
    code, out = _cli("sheet", str(path)) if "GURPS" not in message else (2, message)
    assert code == 2 and message in out


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_a_name_on_no_sheet_and_a_sheet_in_a_room() -> None:
    with pytest.raises(NoSheetError, match="there is no sheet to read it from") as info:
        commands.run("gurps check Stealth")
    assert "--sheet" not in str(info.value)  # the front end says how (the CLI's hint below)
    with pytest.raises(CommandError, match="read only on the command line"):
        commands.run(f"gurps check Stealth --sheet {DAI}")
    code, out = _cli("gurps", "check", "Stealth")
    assert code == 2 and "there is no sheet" in out and "give one with --sheet FILE" in out
    assert LOCAL.sheet(str(DAI)) == SHEETS["Dai Blackthorn"]
