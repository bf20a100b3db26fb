"""Fudge rolls by trait name from a character sheet: ``fudge roll "Ranged Combat" --sheet
ron.toml``, its odds twin, and ``fudge oppose`` with a sheet for each side."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from referee import commands, seeded
from referee.cli.app import app
from referee.cli.local import LOCAL
from referee.commands.result import Resources, with_sheet
from referee.errors import RuleError, SheetError
from referee.sheets import Sheet, read_sheet
from referee.systems.fudge import PSI_PUNK

EXAMPLES = Path(__file__).parent.parent / "examples" / "sheets"
RON_FILE = EXAMPLES / "ron.toml"
BOUNCER_FILE = EXAMPLES / "bouncer.toml"
DAI = Path(__file__).parent / "data" / "gcs" / "Dai Blackthorn.gcs"
RON = read_sheet(RON_FILE.read_bytes())
BOUNCER = read_sheet(BOUNCER_FILE.read_bytes())
FATE = read_sheet(
    b'system = "fudge"\nname = "Sam"\nladder = "fate-core"\n'
    b'[traits]\nAthletics = "Great"\nNotice = "Fair"\n'
)
runner = CliRunner()

RON_LEVELS = {"Ranged Combat": "Good", "Notice": "Fair", "Focus": "Great", "Mind": "Mediocre"}
"""Ron as examples/sheets/ron.toml writes him (psi-punk ladder)."""


def _dice() -> list[int]:
    """The 81 equally likely sums of 4dF."""
    return [sum(faces) for faces in itertools.product((-1, 0, 1), repeat=4)]


def _at_least(need: int) -> Fraction:
    """P(4dF >= need), counted over the 81 outcomes."""
    return Fraction(sum(1 for d in _dice() if d >= need), 81)


def _fraction(text: str) -> Fraction:
    top, bottom = text.split("/")
    return Fraction(int(top), int(bottom))


def _local(line: str, seed: int = 1) -> commands.CommandResult:
    return commands.run(line, seeded(seed), resources=LOCAL)


def test_the_example_sheets_hold_what_the_tests_assume() -> None:
    assert RON.name == "Ron" and RON.ladder == "psi-punk"
    assert {t.name: PSI_PUNK.name_of(t.level) for t in RON.traits} == RON_LEVELS
    assert BOUNCER.name == "Bouncer" and BOUNCER.ladder == "psi-punk"
    assert FATE.ladder == "fate-core"


def test_a_roll_by_name_uses_the_sheets_level_and_names_the_trait() -> None:
    r = commands.run('fudge roll "Ranged Combat" --vs Great', seeded(1), resources=with_sheet(RON))
    # Good (+1) vs Great (+2): success when 4dF >= +1.
    assert _fraction(r.data["odds"]["success"]) == _at_least(1) == Fraction(31, 81)
    assert r.data["trait"] == {"name": "Good", "value": 1}  # the level, as before
    assert r.data["difficulty"] == {"name": "Great", "value": 2}
    assert r.data["sheet_trait"] == {
        "name": "Ranged Combat",
        "specialization": None,
        "level": 1,
        "kind": "trait",
        "sheet": "Ron",
    }
    assert r.text.startswith("Ron's Ranged Combat (Good), rolled [")
    assert r.data["text"] == r.text
    values = {"+": 1, "0": 0, "-": -1}
    assert r.data["result"]["value"] == 1 + sum(values[d] for d in r.data["dice"])


def test_the_file_the_cli_reads_gives_the_same_roll() -> None:
    line = f'fudge roll "Ranged Combat" --vs Great --mod +1 --sheet {RON_FILE}'
    r = _local(line, 7)
    library = commands.run(
        'fudge roll "Ranged Combat" --vs Great --mod +1', seeded(7), resources=with_sheet(RON)
    )
    assert r.data == library.data and r.draws == library.draws
    assert r.text.startswith("Ron's Ranged Combat (Good) +1, rolled [")
    assert _fraction(r.data["odds"]["success"]) == _at_least(0)


@pytest.mark.parametrize(("name", "level"), sorted(RON_LEVELS.items()))
def test_odds_by_name_match_the_81_outcomes(name: str, level: str) -> None:
    value = PSI_PUNK.parse(level).value
    for vs in ("Great", "Fair", "Poor", "Superb"):
        target = PSI_PUNK.parse(vs).value
        o = _local(f'fudge odds "{name}" --vs {vs} --sheet {RON_FILE}').data
        assert _fraction(o["success"]) == _at_least(target - value)
        assert o["trait"] == {"name": level, "value": value}
        assert o["sheet_trait"]["name"] == name and o["sheet_trait"]["level"] == value
        counted = {value + d: Fraction(_dice().count(d), 81) for d in set(_dice())}
        assert {v: _fraction(p) for v, p in o["distribution"]} == counted
        assert o["text"].startswith(f"Ron's {name} ({level}) vs {vs}: ")
    twin = _local(f'fudge odds roll "{name}" --vs Great --sheet {RON_FILE}').data
    assert twin == _local(f'fudge odds "{name}" --vs Great --sheet {RON_FILE}').data


def test_odds_against_a_level_by_name() -> None:
    o = _local(f'fudge odds "Ranged Combat" --against Great --sheet {RON_FILE}').data
    pairs = [(1 + a, 2 + b) for a in _dice() for b in _dice()]
    win = Fraction(sum(1 for a, b in pairs if a > b), len(pairs))
    tie = Fraction(sum(1 for a, b in pairs if a == b), len(pairs))
    assert _fraction(o["odds"]["first"]) == win and _fraction(o["odds"]["tie"]) == tie
    assert o["against"] == {"name": "Great", "value": 2}
    assert o["text"].startswith("Ron's Ranged Combat (Good) vs Great: Ron wins ")
    level = commands.run("fudge odds Good --against Great").data
    assert o["odds"] == level["odds"] and o["distribution"] == level["distribution"]


@settings(max_examples=120, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    name=st.sampled_from(sorted(RON_LEVELS)),
    vs=st.sampled_from(["Great", "Fair", "Poor", "Superb", "none"]),
    mod=st.integers(-3, 3),
    reroll=st.sampled_from(["", " --reroll +1", " --reroll -1", " --reroll +2"]),
)
def test_a_roll_by_name_rolls_exactly_as_its_level(
    seed: int, name: str, vs: str, mod: int, reroll: str
) -> None:
    level = RON_LEVELS[name]
    rest = f" --vs {vs} --mod {mod:+d}{reroll} --roll-anyway"
    by_name = commands.run(f'fudge roll "{name}"{rest}', seeded(seed), resources=with_sheet(RON))
    by_level = commands.run(f"fudge roll {level}{rest}", seeded(seed))
    assert by_name.draws == by_level.draws
    assert by_name.data["result"] == by_level.data["result"]
    same = {k: v for k, v in by_name.data.items() if k not in ("sheet_trait", "text")}
    assert same == {k: v for k, v in by_level.data.items() if k != "text"}
    head = level + (f"{mod:+d}" if mod else "")
    shown = f"Ron's {name} ({level})" + (f" {mod:+d}" if mod else "")
    assert by_level.text.startswith(head)
    assert by_name.text == shown + by_level.text[len(head) :]


def test_a_level_keeps_its_meaning_with_a_sheet_given() -> None:
    plain = commands.run("fudge roll Good --vs Great", seeded(3))
    with_file = _local(f"fudge roll Good --vs Great --sheet {RON_FILE}", 3)
    assert with_file.data == plain.data and with_file.text == plain.text
    assert "sheet_trait" not in with_file.data
    for level in ("gr", "Great+1", "+2", "0", "-1"):
        a = commands.run(f"fudge roll {level}", seeded(4), resources=with_sheet(RON))
        assert a.data == commands.run(f"fudge roll {level}", seeded(4)).data


def _never(path: str | None) -> Sheet | None:
    raise AssertionError("a typed level read a sheet")


def test_a_typed_level_opens_no_default_sheet() -> None:
    res = Resources(sheet=_never)
    assert commands.run("fudge roll Good --vs Great", seeded(1), resources=res).data
    assert commands.run("fudge odds gr --against Fair", resources=res).data
    assert commands.run("fudge oppose Great Good", seeded(1), resources=res).data


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_a_trait_named_like_a_level_wins_only_on_a_sheet_given(tmp_path: Path) -> None:
    # "Super" is a prefix of the level Superb.
    path = _write(
        tmp_path / "sam.toml", 'system = "fudge"\nname = "Sam"\n[traits]\nSuper = "Good"\n'
    )
    r = _local(f"fudge roll Super --vs Great --sheet {path}")
    assert r.data["trait"] == {"name": "Good", "value": 1}
    assert r.data["sheet_trait"]["name"] == "Super"
    assert r.text.startswith("Sam's Super (Good), rolled")
    assert r.text.endswith(
        "'Super' is Sam's trait, not the level Superb (write +3 to roll the level)"
    )
    # Written another way, it is the level.
    assert _local(f"fudge roll +3 --sheet {path}").data["trait"]["name"] == "Superb"
    # The default sheet is not read for a level: Super is Superb.
    sam = read_sheet(path.read_bytes())
    level = commands.run("fudge roll Super", seeded(1), resources=with_sheet(sam)).data
    assert level["trait"] == {"name": "Superb", "value": 3} and "sheet_trait" not in level


def test_oppose_with_a_sheet_for_each_side() -> None:
    line = f'fudge oppose "Ranged Combat" Notice --sheet {RON_FILE} --sheet2 {BOUNCER_FILE}'
    r = _local(line, 5)
    assert r.data["names"] == ["Ron", "Bouncer"]
    first, second = r.data["traits"]
    assert (first["name"], first["level"], first["sheet"]) == ("Ranged Combat", 1, "Ron")
    assert (second["name"], second["level"], second["sheet"]) == ("Notice", 1, "Bouncer")
    lines = r.text.splitlines()
    assert lines[0].startswith("Ron: Ranged Combat (Good), rolled [")
    assert lines[1].startswith("Bouncer: Notice (Good), rolled [")
    level = commands.run("fudge oppose Good Good --names Ron,Bouncer", seeded(5))
    assert r.draws == level.draws
    assert {k: v for k, v in r.data.items() if k not in ("traits", "text")} == {
        k: v for k, v in level.data.items() if k != "text"
    }
    # Good vs Good: each side wins with P(X > Y) over two 4dF rolls.
    pairs = [(a, b) for a in _dice() for b in _dice()]
    win = Fraction(sum(1 for a, b in pairs if a > b), len(pairs))
    assert _fraction(r.data["odds"]["first"]) == _fraction(r.data["odds"]["second"]) == win
    odds = _local(line.replace("fudge oppose", "fudge odds oppose")).data
    assert odds["traits"] == r.data["traits"] and odds["odds"] == r.data["odds"]
    assert odds["text"].startswith(
        "Ron's Ranged Combat (Good) vs Bouncer's Notice (Good): Ron wins"
    )


def test_oppose_from_one_sheet_names_the_traits() -> None:
    r = commands.run("fudge oppose Focus Mind --mod2 +1", seeded(2), resources=with_sheet(RON))
    assert r.data["names"] == ["Focus", "Mind"]
    assert [t["level"] for t in r.data["traits"]] == [2, -1]
    assert r.text.startswith("Focus: Great, rolled [")
    mixed = commands.run("fudge oppose Notice Good", seeded(2), resources=with_sheet(RON))
    assert mixed.data["names"] == ["Ron", "side 2"] and mixed.data["traits"][1] is None
    named = commands.run(
        "fudge oppose Focus Mind --names A,B", seeded(2), resources=with_sheet(RON)
    )
    assert named.text.startswith("A: Focus (Great), rolled [")
    # the second side comes from the first sheet when --sheet2 is not given
    r = _local(f"fudge oppose Focus Notice --sheet {RON_FILE}")
    assert [t["sheet"] for t in r.data["traits"]] == ["Ron", "Ron"]
    with pytest.raises(SheetError, match="Ron has no trait 'Brawling'"):
        _local(f"fudge oppose Focus Brawling --sheet {RON_FILE}")


def test_the_sheets_ladder_unless_ladder_is_given() -> None:
    sam = with_sheet(FATE)
    r = commands.run("fudge roll Athletics --vs Great", seeded(1), resources=sam)
    assert r.data["ladder"] == "Fate Core"
    assert r.data["trait"] == {"name": "Great", "value": 4}  # Great is +4 on Fate Core
    assert r.data["difficulty"] == {"name": "Great", "value": 4}
    assert _fraction(r.data["odds"]["success"]) == _at_least(0)
    assert r.text.startswith("Sam's Athletics (Great), rolled") and "over the sheet" not in r.text
    over = commands.run(
        "fudge roll Athletics --vs Great --ladder psi-punk", seeded(1), resources=sam
    )
    assert over.data["ladder"] == "Psi-punk"
    assert over.data["trait"] == {"name": "Wonderful", "value": 4}  # the value is kept
    assert over.text.endswith(
        "; --ladder psi-punk over the sheet's fate-core (Athletics +4 is Wonderful)"
    )
    same = commands.run("fudge roll Athletics --ladder fate", seeded(1), resources=sam)
    assert "over the sheet" not in same.text
    ron = _local(f"fudge roll Focus --ladder fate-core --sheet {RON_FILE}")
    assert "--ladder fate-core over the sheet's psi-punk" in ron.text
    odds = commands.run("fudge odds Notice --vs Great", resources=sam).data
    assert _fraction(odds["success"]) == _at_least(2)  # Fair +2 vs Great +4


def test_a_level_is_read_on_the_ladder_of_the_sheet_given(tmp_path: Path) -> None:
    path = _write(tmp_path / "sam.toml", 'system = "fudge"\nname = "Sam"\nladder = "fate"\n')
    r = _local(f"fudge roll Good --vs Great --sheet {path}").data
    assert r["ladder"] == "Fate Core" and r["trait"] == {"name": "Good", "value": 3}
    assert "sheet_trait" not in r
    # The default sheet is not read for a level: Psi-punk, as without a sheet.
    level = commands.run("fudge roll Good", seeded(1), resources=with_sheet(FATE)).data
    assert level["ladder"] == "Psi-punk"


def test_two_sheets_on_two_ladders_need_ladder(tmp_path: Path) -> None:
    sam = _write(
        tmp_path / "sam.toml",
        'system = "fudge"\nname = "Sam"\nladder = "fate-core"\n[traits]\nAthletics = "Great"\n',
    )
    line = f"fudge oppose Athletics Notice --sheet {sam} --sheet2 {BOUNCER_FILE}"
    with pytest.raises(RuleError, match="give --ladder to roll both on one"):
        _local(line)
    r = _local(line + " --ladder fate-core")
    assert r.data["first"]["ladder"] == "Fate Core"
    assert "--ladder fate-core over Bouncer's psi-punk (Notice +1 is Average)" in r.text


def test_unknown_and_ambiguous_names() -> None:
    with pytest.raises(SheetError, match="Ron has no trait 'Sneak'"):
        commands.run("fudge roll Sneak", seeded(1), resources=with_sheet(RON))
    with pytest.raises(SheetError, match="Ron has no trait 'Sneak'"):
        commands.run("fudge odds Sneak", resources=with_sheet(RON))
    with pytest.raises(SheetError) as many:
        commands.run("fudge roll B", seeded(1), resources=with_sheet(BOUNCER))
    message = str(many.value)
    assert "'B' matches 2 traits of Bouncer" in message
    assert "Brawling: Great (+2)" in message and "Bluff: Mediocre (-1)" in message
    # With no sheet at all, a bad level's error is as before.
    with pytest.raises(RuleError, match="unknown level 'Sneak'"):
        commands.run("fudge roll Sneak", seeded(1))


def _cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    res = runner.invoke(app, list(args), env=env)
    assert "Traceback" not in res.output
    return res.exit_code, res.output


def test_a_gurps_or_swn_sheet_is_refused_with_exit_2() -> None:
    code, out = _cli("fudge", "roll", "Ranged Combat", "--sheet", str(DAI))
    assert code == 2 and out.startswith("error: ")
    assert "is a GURPS sheet" in out and "needs a Fudge sheet" in out
    code, out = _cli("fudge", "odds", "Focus", "--sheet", str(EXAMPLES / "vex.toml"))
    assert code == 2 and "Stars Without Number sheet" in out and "Fudge sheet" in out
    code, out = _cli("fudge", "oppose", "Focus", "Notice", "--sheet", str(RON_FILE),
                     "--sheet2", str(DAI))  # fmt: skip
    assert code == 2 and "is a GURPS sheet" in out
    code, out = _cli("fudge", "roll", "Sneak", "--sheet", str(RON_FILE))
    assert code == 2 and "Ron has no trait 'Sneak'" in out


def test_the_cli_reads_the_sheet_and_the_environment() -> None:
    args = ["fudge", "roll", "Ranged Combat", "--vs", "Great", "--seed", "1"]
    code, out = _cli(*args, "--sheet", str(RON_FILE))
    assert code == 0 and out.startswith("Ron's Ranged Combat (Good), rolled [")
    code, env_out = _cli(*args, env={"REFEREE_SHEET": str(RON_FILE)})
    assert code == 0 and env_out == out
    code, out = _cli(*args, "--sheet", str(RON_FILE), "--json")
    assert json.loads(out)["sheet_trait"]["sheet"] == "Ron"
    code, out = _cli("fudge", "roll", "Ranged Combat")
    assert code == 2 and "there is no sheet" not in out  # no sheet: the level's error
    assert "unknown level 'Ranged Combat'" in out and "--sheet FILE" in out
