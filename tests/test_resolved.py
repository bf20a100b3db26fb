"""A command resolved against a character's sheet (issue 27, contract v1.1's
``resolved``): it rolls the same with no sheet, for every trait, attack and weapon of
every example sheet and GCS fixture."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from referee import commands, seeded
from referee.errors import CommandError, NoSheetError, RefereeError, SheetError
from referee.rng import ReplaySource
from referee.sheets import Kind, Sheet, read_sheet
from referee.sheets.match import find_trait

ROOT = Path(__file__).resolve().parents[1]
SHEETS = sorted(
    [
        *(ROOT / "examples" / "sheets").glob("*.toml"),
        *(ROOT / "tests" / "data" / "gcs").glob("*.gcs"),
        *(ROOT / "tests" / "data" / "sheets").glob("*.json"),
        *(ROOT / "tests" / "data" / "sheets").glob("*.toml"),
    ]
)
SHEET_ONLY = {
    "text", "label", "trait", "traits", "attack", "sheet_trait", "sheet", "overrides",
    "attribute", "attributes", "weapon", "level", "assumed", "names",
}  # fmt: skip
"""What a result says of the sheet it read, or in words: the rest must be equal."""


def _core(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _core(v) for k, v in value.items() if k not in SHEET_ONLY}
    if isinstance(value, list):
        return [_core(v) for v in value]
    return value


def _lines(sheet: Sheet) -> list[str]:
    """Every rolling command a player would make of this sheet, by name."""
    q = shlex.quote
    out: list[str] = []
    if sheet.system == "gurps":
        for t in sheet.traits:
            if t.kind in (Kind.ATTRIBUTE, Kind.SKILL, Kind.DEFENSE) and t.level >= 5:
                out += [f"gurps check {q(t.full_name)}", f"gurps check {q(t.full_name)} -2"]
        for a in sheet.attacks:
            out.append(f"gurps damage {q(a.full_name)} --dr 2")
        if sheet.swing:
            out.append("gurps damage sw+1 cut")
        skills = [t for t in sheet.of_kind(Kind.SKILL) if t.level >= 3][:2]
        if len(skills) == 2:
            out.append(f"gurps contest {q(skills[0].full_name)} {q(skills[1].full_name)}")
    elif sheet.system == "fudge":
        for t in sheet.of_kind(Kind.TRAIT):
            name = q(t.full_name)
            out += [f"fudge roll {name} --vs Great", f"fudge oppose {name} Fair"]
    else:
        for kind in ("physical", "evasion", "mental"):
            out.append(f"swn save {kind}")
        for t in sheet.of_kind(Kind.SKILL):
            out += [f"swn check {q(t.full_name)}", f"swn check Dex/{q(t.full_name)} --difficulty 9"]
        for a in sheet.attacks:
            out.append(f"swn attack {q(a.full_name)} --ac 14")
        out += ["swn attack --ac 12", "swn stabilize --rounds 1", "swn check Pilot"]
    return out


CASES = [
    pytest.param(path, line, id=f"{path.name}: {line}")
    for path in SHEETS
    for line in _lines(read_sheet(path.read_bytes()))
]


def test_there_are_cases_for_every_system() -> None:
    systems = {read_sheet(p.read_bytes()).system for p in SHEETS}
    assert systems == {"gurps", "fudge", "swn"}
    assert len(CASES) > 300


@pytest.mark.parametrize(("path", "line"), CASES)
def test_a_resolved_command_rolls_the_same_with_no_sheet(path: Path, line: str) -> None:
    sheet = read_sheet(path.read_bytes())
    try:
        resolved = commands.resolve(line, sheet)
    except RefereeError as exc:  # the same error the command gives with the sheet
        with pytest.raises(type(exc)):
            commands.run(line, seeded(1), resources=commands.with_sheet(sheet))
        return
    assert "--sheet" not in resolved
    assert commands.resolve(resolved, sheet) == resolved  # stable: nothing left to read
    for k in range(3):
        made = commands.run(line, seeded(k), resources=commands.with_sheet(sheet))
        again = commands.run(resolved, ReplaySource(made.draws))  # no sheet
        assert again.draws == made.draws
        assert _core(again.data) == _core(made.data), (resolved, made.text, again.text)


def test_the_contracts_example() -> None:
    dai = read_sheet(b'system = "gurps"\nname = "Dai"\n[skills]\nStealth = 15\n')
    assert commands.resolve("gurps check Stealth -2", dai) == "gurps check 15 -2 --label Stealth"


def test_labels_names_and_quotes_survive() -> None:
    dai = read_sheet((ROOT / "examples" / "sheets" / "dai.toml").read_bytes())
    level = find_trait(dai, "Fast-Draw (Knife)").level
    got = commands.resolve("gurps check 'Fast-Draw (Knife)' -1 # from the sleeve", dai)
    assert got == f"gurps check {level} -1 --label 'Fast-Draw (Knife): from the sleeve'"
    assert commands.run(got, seeded(1)).text.startswith("Fast-Draw (Knife): from the sleeve")
    quoted = read_sheet(b'system = "gurps"\nname = "Q"\n[skills]\n"Bob\'s Trick" = 12\n')
    got = commands.resolve('gurps check "Bob\'s Trick"', quoted)
    assert got == "gurps check 12 --label 'Bob'\"'\"'s Trick'"
    assert commands.run(got, seeded(1)).data["label"] == "Bob's Trick"


def test_commands_that_read_nothing_come_back_as_typed() -> None:
    dai = read_sheet((ROOT / "examples" / "sheets" / "dai.toml").read_bytes())
    assert commands.resolve("3d6+2", dai) == "roll 3d6+2"
    assert commands.resolve("gurps  check 12 --mod -1", dai) == "gurps check 12 --mod -1"
    assert commands.resolve("gurps reaction +2", dai) == "gurps reaction +2"


def test_errors() -> None:
    dai = read_sheet((ROOT / "examples" / "sheets" / "dai.toml").read_bytes())
    vex = read_sheet((ROOT / "examples" / "sheets" / "vex.toml").read_bytes())
    with pytest.raises(CommandError, match="does not roll"):
        commands.resolve("gurps odds check Stealth", dai)
    with pytest.raises(SheetError, match="Swimming"):
        commands.resolve("gurps check Swimming", dai)
    with pytest.raises(SheetError, match="Stars Without Number sheet"):
        commands.resolve("swn check Shoot", dai)
    with pytest.raises(CommandError, match="initiative"):
        commands.resolve("swn initiative", vex)
    with pytest.raises(NoSheetError):
        commands.run("gurps check Stealth", seeded(1))
