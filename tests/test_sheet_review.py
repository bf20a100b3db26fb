"""What a new user's review of sheets found (issue 26), each fixed and held here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee import commands, seeded
from referee.cli.app import app
from referee.commands.registry import COMMANDS
from referee.errors import SheetError
from referee.sheets import read_sheet

ROOT = Path(__file__).parent.parent
GCS = ROOT / "tests" / "data" / "gcs"
runner = CliRunner()


def _sheet(path: Path) -> commands.Resources:
    return commands.with_sheet(read_sheet(path.read_bytes()))


def test_swing_and_thrust_spelled_out_name_attacks() -> None:
    # "gurps damage Swing" rolled the sheet's basic swing, hiding Sai (Swing).
    ninja = _sheet(GCS / "Master Ninja.gcs")
    r = commands.run("gurps damage Swing", seeded(1), resources=ninja).data
    assert r["attack"]["name"] == "Sai" and r["attack"]["damage"] == "1d+2 cr"
    dai = _sheet(ROOT / "examples" / "sheets" / "dai.toml")
    r = commands.run("gurps damage Thrust", seeded(1), resources=dai).data
    assert r["damage_type"] == "imp" and r["attack"]["usage"] == "Thrust"
    # the abbreviations stay the sheet's basic damage
    assert "attack" in commands.run("gurps damage thr", seeded(1), resources=dai).data
    assert commands.run("gurps damage thr", seeded(1), resources=dai).data["attack"]["name"] is None


def test_the_same_skill_at_two_tech_levels_is_named_by_its_tl() -> None:
    xing = _sheet(GCS / "Xing La.gcs")
    with pytest.raises(SheetError) as info:
        commands.run("gurps check 'Navigation (Sea)'", resources=xing)
    message = str(info.value)
    assert "Navigation/TL2 (Sea) 15" in message and "Navigation/TL7 (Sea) 14" in message
    r = commands.run("gurps check 'Navigation/TL7 (Sea)'", seeded(1), resources=xing).data
    assert r["effective_skill"] == 14


def test_an_entry_written_twice_is_one_entry() -> None:
    robot = _sheet(GCS / "C31R07.gcs")
    r = commands.run("gurps damage 'Innate Attack (Chain Gun)'", seeded(1), resources=robot)
    assert r.data["attack"]["damage"].startswith("15d")


def test_resources_none_is_the_builtin() -> None:
    assert commands.run("3d6", seeded(1), resources=None).data["total"] == 10
    limited = commands.run("3d6", seeded(1), resources=None, limits=commands.SHARED_TABLE)
    assert limited.data["total"] == 10


def test_a_default_sheet_of_another_game_does_not_block_a_command() -> None:
    env = {"REFEREE_SHEET": str(GCS / "Dai Blackthorn.gcs")}
    res = runner.invoke(app, ["swn", "save", "physical", "--level", "2", "--seed", "1"], env=env)
    assert res.exit_code == 0 and "Physical save" in res.output
    # given explicitly, a sheet of another game is refused
    res = runner.invoke(
        app, ["swn", "save", "physical", "--sheet", str(GCS / "Dai Blackthorn.gcs")]
    )
    assert res.exit_code == 2 and "needs a Stars Without Number sheet" in res.output


def test_a_foundry_weapons_own_attack_bonus_counts() -> None:
    vex = _sheet(ROOT / "tests" / "data" / "sheets" / "vex-foundry.json")
    plain = _sheet(ROOT / "examples" / "sheets" / "vex.toml")
    line = "swn attack 'Laser Rifle' --ac 15"
    foundry = commands.run(line, seeded(1), resources=vex)
    toml = commands.run(line, seeded(1), resources=plain)
    assert foundry.draws == toml.draws
    assert foundry.data["total"] == toml.data["total"] + 1  # the rifle's own +1 (swnr ab)
    assert "Laser Rifle's own attack bonus +1" in foundry.text


def test_the_prompt_leaves_quietly_when_its_reader_does() -> None:
    lines = "roll 1d6 -n 2000\n" * 3 + "quit\n"
    proc = subprocess.run(
        [sys.executable, "-c", "from referee.cli import main; main()"],
        input=lines,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    shell = subprocess.run(
        f"printf '{lines.encode('unicode_escape').decode()}' | "
        f"{sys.executable} -c 'from referee.cli import main; main()' | head -2",
        shell=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in shell.stderr and "BrokenPipe" not in shell.stderr


@pytest.mark.slow  # make check leaves it to make test
def test_help_examples_stay_on_one_line() -> None:
    for meta in COMMANDS.values():
        res = runner.invoke(app, [*meta.path, "--help"], terminal_width=80)
        shown = [line.strip() for line in res.output.splitlines()]
        for line in (meta.epilog or "").splitlines():
            line = line.strip()
            if line.startswith("referee "):
                assert line in shown, (meta.name, line)


def test_the_prompt_names_what_it_does_not_run() -> None:
    from referee.cli.repl import handle

    assert handle("serve").startswith("'serve' runs from the command line")
    assert "give one with --sheet FILE" in handle("gurps check Stealth")
