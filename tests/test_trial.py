"""Issue 25: what a GM's and a bot developer's trial found (the reader, the prompt, the
API a bot needs, and results that read oddly). Each test failed before the fix."""

from __future__ import annotations

import importlib.metadata
import json
import sys
from collections.abc import Iterator

import pytest
from typer.core import TyperCommand
from typer.testing import CliRunner

import referee
from referee import commands, seeded
from referee.cli.app import app
from referee.cli.repl import handle
from referee.commands.reader import find, load, valued_options
from referee.commands.registry import COMMANDS
from referee.errors import CommandError, DiceLimitError, RefereeError
from referee.rng import RecordingSource

runner = CliRunner()
load()


def _valued() -> Iterator[tuple[str, str]]:
    """Every (command, option that takes a value) of every command."""
    for path in sorted(COMMANDS):
        _, cmd, _ = find(list(path))
        assert isinstance(cmd, TyperCommand)
        for option in sorted(valued_options(cmd)):
            yield " ".join(path), option


VALUED = list(_valued())


def test_every_command_has_its_valued_options_listed() -> None:
    # the parametrisation below covers something: options of every kind of command
    names = {c for c, _ in VALUED}
    assert {"roll", "gurps check", "swn save", "fudge roll", "gurps contest"} <= names
    assert ("gurps check", "--label") in VALUED and ("fudge roll", "--vs") in VALUED
    assert len(VALUED) > 60


@pytest.mark.parametrize(("name", "option"), VALUED)
def test_an_option_without_its_value_is_refused(name: str, option: str) -> None:
    """``gurps check 12 --label`` took the reader's ``--`` as the label, with exit 0."""
    for line in (f"{name} 12 {option}", f"{name} {option}"):
        with pytest.raises(CommandError) as info:
            commands.run(line, seeded(1))
        assert str(info.value) == f"{option} needs a value"
        assert info.value.command == name


@pytest.mark.parametrize(("name", "option"), VALUED)
def test_an_option_without_its_value_exits_2_on_the_command_line(name: str, option: str) -> None:
    res = runner.invoke(app, [*name.split(), "12", option])
    assert res.exit_code == 2, res.output
    assert f"error: {option} needs a value" in res.output
    assert "Traceback" not in res.output


@pytest.mark.parametrize("option", ["--seed", "-n"])
def test_the_command_lines_own_options_need_their_values(option: str) -> None:
    res = runner.invoke(app, ["gurps", "check", "12", option])
    assert res.exit_code == 2 and f"{option} needs a value" in res.output


def test_an_option_never_takes_the_next_option_as_its_value() -> None:
    with pytest.raises(CommandError, match="--label needs a value"):
        commands.run("gurps check 12 --label --defense", seeded(1))
    res = runner.invoke(app, ["gurps", "check", "12", "--label", "--defense"])
    assert res.exit_code == 2 and "--label needs a value" in res.output
    # a negative number is a value, not an option
    assert commands.run("gurps check 12 --mod -2", seeded(1)).data["effective_skill"] == 10


def _main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from referee.cli import main

    old = sys.argv
    sys.argv = ["referee", *argv]
    try:
        with pytest.raises(SystemExit) as info:
            main()
    finally:
        sys.argv = old
    out = capsys.readouterr()
    return int(info.value.code or 0), out.out, out.err


@pytest.mark.parametrize("expr", ["", "   "])
def test_an_empty_roll_is_an_error(expr: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _main(["roll", expr], capsys)  # the fast path
    assert code == 2 and out == "" and err.startswith("error: ")
    res = runner.invoke(app, ["roll", expr, "--label", "x"])  # through typer
    assert res.exit_code == 2 and "error: " in res.output
    with pytest.raises(RefereeError):
        commands.run(["roll", expr])


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    installed = importlib.metadata.version("referee")
    assert referee.__version__ == installed
    assert "__version__" in referee.__all__
    code, out, _ = _main(["--version"], capsys)
    assert code == 0 and out == f"referee {installed}\n"


def test_command_error_is_exported() -> None:
    assert referee.CommandError is CommandError and "CommandError" in referee.__all__
    with pytest.raises(referee.CommandError):
        commands.run("nonsense")


# --- the prompt ---------------------------------------------------------------------


def test_the_prompt_takes_n_and_seed() -> None:
    six = handle("4d6kh3 -n 6 --seed 7").splitlines()
    assert len(six) == 6 and all(line.startswith("4d6kh3 = [") for line in six)
    assert handle("4d6kh3 -n 6 --seed 7").splitlines() == six  # reproducible
    rng = seeded(7)
    expected = [commands.run("4d6kh3", rng).text for _ in range(6)]
    assert six == expected
    assert handle("roll 3d6 -n 0").startswith("error: -n must be 1 to 10,000")
    assert handle("roll 3d6 --seed x").startswith("error: --seed needs a whole number")


def test_the_prompt_takes_json_and_says_what_is_secret() -> None:
    data = json.loads(handle("gurps check 12 --json --seed 1"))
    assert data["kind"] == "success" and data["secret"] is False
    both = json.loads(handle("roll 3d6 -n 2 --json"))
    assert isinstance(both, list) and len(both) == 2
    assert json.loads(handle("odds 2d6 --json"))["expression"] == "2d6"
    assert handle("gurps reaction +2").startswith("(secret) Reaction 3d6+2")
    assert handle("gurps reaction +2 --open").startswith("Reaction 3d6+2")
    assert handle("gurps check 12 --secret").startswith("(secret) 12: rolled")
    # a command's own -n and --seed stay its own
    assert handle("sample 3d6 -n 1000 --seed 3") == handle("sample 3d6 -n 1000 --seed 3")


def test_help_in_the_prompt() -> None:
    assert "Usage: gurps check" in handle("gurps check --help")
    text = handle("help roll")
    assert "-n 3 --seed 7" in text  # its examples work in the prompt now
    assert not handle("roll 3d6 -n 3 --seed 7").startswith("error")


@pytest.mark.parametrize(
    ("line", "suggestion"),
    [
        ("gurps chek 12", "did you mean 'check'?"),
        ("swn sav physical", "did you mean 'save'?"),
        ("fudge rol Good", "did you mean 'roll'?"),
        ("rol 3d6", "did you mean 'roll'?"),
        ("gurp check 12", "did you mean 'gurps'?"),
    ],
)
def test_a_mistyped_command_gets_a_suggestion(line: str, suggestion: str) -> None:
    assert suggestion in handle(line)
    with pytest.raises(CommandError, match=suggestion.replace("?", r"\?")):
        commands.run(line)


# --- what a bot needs ---------------------------------------------------------------


def test_errors_read_well_outside_the_cli() -> None:
    for line in (
        "roll 3d6 -n 3",
        "gurps check 12 --seed 1",
        "gurps check",
        "gurps check 12 --bogus",
        "gurps check 12 --help",
    ):
        with pytest.raises(CommandError) as info:
            commands.run(line)
        message = str(info.value)
        assert "help" not in message.replace("--help", "").replace("the help of", "")
        assert "command line" not in message and "(see" not in message, message
    # the front ends add their own hint
    assert "(see 'help gurps check')" in handle("gurps check 12 --bogus")
    res = runner.invoke(app, ["gurps", "check", "12", "--label"])
    assert "(see 'referee gurps check --help')" in res.output


def test_only_rolls_refuses_what_does_not_roll() -> None:
    for line in ("odds 3d6", "sample 3d6 -n 10", "gurps table", "swn odds save physical"):
        with pytest.raises(CommandError, match="does not roll dice"):
            commands.run(line, only_rolls=True)
    assert commands.run("3d6", seeded(1), only_rolls=True).data["total"] == 10


def test_every_result_says_whether_it_is_secret() -> None:
    r = commands.run("gurps reaction +2", seeded(1))
    assert r.secret is True and r.data["secret"] is True
    r = commands.run("gurps reaction +2", seeded(1), secret=False)
    assert r.secret is False and r.data["secret"] is False
    r = commands.run("roll 3d6 2d6", seeded(1))
    assert r.secret is False and [d["secret"] for d in r.data] == [False, False]
    assert commands.run("gurps check 12", seeded(1), secret=True).data["secret"] is True
    odds = commands.run("odds 3d6")
    assert odds.secret is None and "secret" not in odds.data


def test_limits_cap_what_one_command_may_cost() -> None:
    big = "roll 20000d1000000"
    rec = RecordingSource(seeded(1))
    with pytest.raises(DiceLimitError, match="at most 200 dice"):
        commands.run(big, rec, limits=commands.SHARED_TABLE)
    with pytest.raises(DiceLimitError, match="at most 2 dice"):  # a d20, then 2d6 damage
        commands.run("swn attack --damage 2d6 --ac 1", limits=commands.CommandLimits(dice=2))
    with pytest.raises(DiceLimitError, match="at most 5 dice"):
        commands.run("roll 6d6", limits=commands.CommandLimits(dice=5))
    assert commands.run("roll 5d6", limits=commands.CommandLimits(dice=5)).data["total"] >= 5
    # explosions count as they are drawn, not by their worst case
    assert commands.run("roll 3d6!", seeded(1), limits=commands.SHARED_TABLE).data["total"] > 0
    with pytest.raises(CommandError, match="the limit here is 100"):
        commands.run("roll 60d6", limits=commands.CommandLimits(characters=100))
    with pytest.raises(DiceLimitError, match="exact odds"):
        commands.run("odds 100d100", limits=commands.CommandLimits(work=10_000))
    with pytest.raises(CommandError, match="would simulate 300,000 dice"):
        commands.run("sample 3d6 -n 100000", limits=commands.CommandLimits(work=10_000))
    # without limits the same lines run
    assert len(commands.run("roll 60d6", seeded(1)).text) > 100


def test_the_rooms_cap_is_the_command_layers() -> None:
    from referee.rooms.rolling.reading import read_command, room_limits
    from referee.rooms.state import ApiError, RoomsLimits

    assert room_limits() == commands.CommandLimits(
        dice=RoomsLimits.draws,
        characters=commands.SHARED_TABLE.characters,
        work=commands.SHARED_TABLE.work,
        integers=2**53 - 1,
    )
    assert commands.SHARED_TABLE.dice == RoomsLimits.draws
    with pytest.raises(ApiError, match="at most 200 dice"):
        read_command("roll 201d6")
    with pytest.raises(ApiError, match="at most 10 dice"):
        read_command("roll 11d6", 10)
    assert read_command("roll 3d6!")[0] == "roll 3d6!"


# --- smaller --------------------------------------------------------------------------


def test_label_on_roll() -> None:
    r = commands.run("roll 1d20+5 --label 'Sneak attack'", seeded(1))
    assert r.data["label"] == "Sneak attack" and r.text.startswith("Sneak attack: 1d20+5")
    assert r.data["total"] == commands.run("roll 1d20+5", seeded(1)).data["total"]
    assert commands.run("roll 1d6 --label other # mine", seeded(1)).data["label"] == "mine"
    both = commands.run("roll 1d6 1d8 --label Both", seeded(1)).data
    assert [d["label"] for d in both] == ["Both", "Both"]
    res = runner.invoke(app, ["roll", "3d6", "--label", "Stat", "--seed", "1"])
    assert res.exit_code == 0 and res.output.startswith("Stat: 3d6 = [2, 4, 4] = 10")


@pytest.mark.parametrize("typed", ["CUT", "Cut", " cut", "PI++"])
def test_damage_types_ignore_case(typed: str) -> None:
    canon = typed.strip().lower()
    r = commands.run(["gurps", "damage", "2d", "--type", typed], seeded(1))
    assert r.data == commands.run(f"gurps damage 2d --type {canon}", seeded(1)).data


def test_a_degree_beyond_the_ladder_is_only_a_number() -> None:
    text = commands.run("fudge roll Poor --vs Astonishing+2 --roll-anyway", seeded(1)).text
    assert "degree -14" in text and "Abysmal-" not in text.split("degree")[1]
    from referee.systems.fudge import PSI_PUNK

    assert PSI_PUNK.degree_name(2) == "Great" and PSI_PUNK.degree_name(-14) is None
    for seed in range(30):  # a degree within the ladder keeps its name
        r = commands.run("fudge roll Good --vs Fair", seeded(seed)).data
        name = PSI_PUNK.degree_name(r["degree"])
        assert name is None or f"({name})" in r["text"]


def _resistance_texts() -> Iterator[str]:
    for seed in range(60):
        yield commands.run(
            "gurps contest 14 12 --resistance --names Wizard,Victim", seeded(seed)
        ).text


def test_a_resistance_roll_reads_as_one() -> None:
    texts = list(_resistance_texts())
    assert all("tie" not in t.split("odds:")[1] for t in texts)
    assert all("wins by 0" not in t and "wins by -" not in t for t in texts)
    assert any("Victim resists (a tie goes to the resisting side)" in t for t in texts)
    assert any("Victim resists (Wizard failed)" in t for t in texts)
    assert any("Wizard wins by" in t for t in texts)
    data = commands.run("gurps contest 14 12 --resistance", seeded(3)).data
    assert data["odds"]["tie"] == "0/1"


def _examples() -> Iterator[str]:
    import shlex

    for meta in COMMANDS.values():
        for line in (meta.epilog or "").splitlines():
            line = line.strip()
            if line.startswith("referee "):
                yield " ".join(shlex.split(line)[1:2]) + "|" + line


@pytest.mark.parametrize("example", sorted(_examples()))
def test_every_help_example_runs(example: str) -> None:
    """Each example under ``--help`` runs as shown, from the repository's root."""
    import os
    import shlex
    from pathlib import Path

    line = example.split("|", 1)[1]
    root = Path(__file__).parent.parent
    here = os.getcwd()
    os.chdir(root)
    try:
        res = runner.invoke(app, shlex.split(line)[1:])
    finally:
        os.chdir(here)
    assert res.exit_code == 0, (line, res.output)
    assert "error" not in res.output.split("\n", 1)[0].lower(), (line, res.output)


# --- issue 27 (in part): a trailing '# label' after every command ----------------------


@pytest.mark.parametrize(
    "line",
    [
        "gurps check 14 -2",
        "gurps contest 14 12",
        "gurps damage 2d+1 --type cut",
        "swn save physical --level 2",
        "swn morale 8 --roll-anyway",
        "fudge roll Good --vs Great",
        "fudge oppose Good Fair",
    ],
)
def test_a_hash_label_is_the_label_of_any_command(line: str) -> None:
    by_hash = commands.run(f"{line} # Broadsword", seeded(1))
    by_option = commands.run(f"{line} --label Broadsword", seeded(1))
    assert by_hash.data == by_option.data and by_hash.text == by_option.text
    assert "Broadsword" in by_hash.text
    res = runner.invoke(app, [*line.split(), "# Broadsword", "--seed", "1"])
    assert res.exit_code == 0 and res.output.strip() == by_option.text


def test_a_hash_label_is_refused_where_it_means_nothing() -> None:
    with pytest.raises(CommandError, match="takes no label"):
        commands.run("gurps table # x")
    with pytest.raises(CommandError, match="give the label once"):
        commands.run("gurps check 12 --label a # b")
    with pytest.raises(CommandError, match="write the label after it"):
        commands.run("gurps check 12 #")
    # roll keeps its labels inside its expressions: the last one's
    both = commands.run("roll 1d20+5 2d6 # attack", seeded(1)).data
    assert [d["label"] for d in both] == [None, "attack"]
