"""The command line and the interactive prompt, through typer's in-process runner."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from referee import commands, seeded
from referee.cli.app import app
from referee.cli.repl import handle, run_repl

runner = CliRunner()


def test_roll_text_and_seed() -> None:
    a = runner.invoke(app, ["roll", "4d6kh3", "--seed", "9"])
    b = runner.invoke(app, ["roll", "4d6kh3", "--seed", "9"])
    assert a.exit_code == 0 and a.output == b.output
    assert a.output.startswith("4d6kh3 = [") and "to roll this or better" in a.output


def test_roll_json_contract() -> None:
    res = runner.invoke(app, ["roll", "1d20+5 # attack", "--seed", "1", "--json"])
    data = json.loads(res.output)
    assert set(data) >= {"expression", "label", "total", "dice", "text"}
    assert data["label"] == "attack" and data["dice"][0]["pool"] == "1d20"
    assert data["total"] == data["dice"][0]["value"] + 5


def test_bad_expression_exit_2_with_caret() -> None:
    res = runner.invoke(app, ["roll", "3d6x"])
    assert res.exit_code == 2
    assert "unexpected character 'x' (column 4)" in res.output
    assert "\n     ^" in res.output
    assert "Traceback" not in res.output


def test_odds_table_and_json() -> None:
    res = runner.invoke(app, ["odds", "3d6", "--at-least", "15"])
    assert res.exit_code == 0 and "5/54" in res.output
    data = json.loads(runner.invoke(app, ["odds", "2d6", "--at-least", "8", "--json"]).output)
    assert data["probability"] == "5/12"
    assert data["distribution"][0] == [2, "1/36"] and data["mean"] == "7/1"
    assert runner.invoke(app, ["odds", "1d6", "--at-least", "1", "--at-most", "2"]).exit_code == 2


def test_sample_summary() -> None:
    res = runner.invoke(app, ["sample", "3d6", "-n", "50000", "--seed", "3", "--json"])
    data = json.loads(res.output)
    assert data["n"] == 50000 and abs(data["mean"] - 10.5) < 0.1
    assert sum(c for _, c in data["histogram"]) == 50000
    assert runner.invoke(app, ["sample", "3d6", "-n", "-5"]).exit_code == 2


def test_repl() -> None:
    assert "Dice notation" in handle("help")
    assert handle("3d6x").startswith("error: unexpected character")
    assert "mean 7.000" in handle("odds 2d6")
    lines = iter(["2d6", "quit"])
    run_repl(lambda prompt: next(lines))


def test_fast_path_matches_typer(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from referee.cli import _fast_roll_args, main

    assert _fast_roll_args(["roll", "3d6", "-n", "2", "--seed", "4", "--json"]) == (
        ["3d6"],
        2,
        4,
        True,
        False,
    )
    assert _fast_roll_args(["roll", "3d6", "+", "2", "1d20"]) == (
        ["3d6+2", "1d20"],
        1,
        None,
        False,
        False,
    )
    assert _fast_roll_args(["roll", "--help"]) is None
    assert _fast_roll_args(["odds", "3d6"]) is None
    monkeypatch.setattr("sys.argv", ["referee", "roll", "4d6kh3", "--seed", "9"])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 0
    typer_out = runner.invoke(app, ["roll", "4d6kh3", "--seed", "9"]).output
    assert capsys.readouterr().out == typer_out
    monkeypatch.setattr("sys.argv", ["referee", "roll", "3d6x"])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 2
    assert "column 4" in capsys.readouterr().err


@pytest.mark.parametrize(
    "words",
    [
        ["odds", "3d6"],
        ["odds", "4d6kh3", "--json"],
        ["odds", "--json", "2d10+5"],
        ["odds", "1d20!"],
    ],
)
def test_odds_fast_path_matches_typer(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], words: list[str]
) -> None:
    """``referee odds EXPR [--json]`` is answered without typer (issue 74), as typer
    answers it; anything else (an option, a bad expression) is typer's."""
    from referee.cli import _fast_odds_args, main

    assert _fast_odds_args(words) is not None
    monkeypatch.setattr("sys.argv", ["referee", *words])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 0
    assert capsys.readouterr().out == runner.invoke(app, words).output


def test_odds_fast_path_leaves_the_rest_to_typer(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from referee.cli import _fast_odds_args, main

    for words in (["odds", "3d6", "--at-least", "10"], ["odds", "3d6", "+", "2"], ["odds"],
                  ["odds", "--help"], ["roll", "3d6"]):  # fmt: skip
        assert _fast_odds_args(words) is None, words
    monkeypatch.setattr("sys.argv", ["referee", "odds", "3d6x"])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 2
    assert "column 4" in capsys.readouterr().err


def test_sample_refuses_no_rolls_and_takes_negative_seeds() -> None:
    res = runner.invoke(app, ["sample", "d6", "-n", "0"])
    assert res.exit_code == 2 and res.output.strip() == "error: -n 0: sample at least one roll"
    res = runner.invoke(app, ["sample", "d6", "-n", "10", "--seed", "-1", "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["seed"] == -1


def test_costly_roll_leaves_out_the_percentage() -> None:
    res = runner.invoke(app, ["roll", "d6!*d6!*d6!", "--seed", "1", "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["at_least"] is None


def _main(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str
) -> tuple[int, str, str]:
    from referee.cli import main

    monkeypatch.setattr("sys.argv", ["referee", *argv])
    with pytest.raises(SystemExit) as stop:
        main()
    out, err = capsys.readouterr()
    code = stop.value.code
    return (code if isinstance(code, int) else 0), out, err


def test_usage_errors_are_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _main(monkeypatch, capsys, "roll", "--bogus")
    assert code == 2 and err.strip() == "error: No such option: --bogus (see 'referee roll --help')"
    code, out, err = _main(monkeypatch, capsys, "odds")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Missing argument" in err
    code, out, err = _main(monkeypatch, capsys, "fudge", "roll", "Good", "--seed", "x")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--seed" in err
    code, out, err = _main(monkeypatch, capsys, "gurps")
    assert code == 0 and out.startswith("Usage: referee gurps")


def test_expressions_and_levels_may_start_with_minus(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _main(monkeypatch, capsys, "roll", "-5", "--json")  # the fast path
    assert code == 0 and json.loads(out)["total"] == -5
    code, out, _ = _main(monkeypatch, capsys, "odds", "--json", "-d6")
    assert code == 0 and json.loads(out)["distribution"][0] == [-6, "1/6"]
    code, out, _ = _main(monkeypatch, capsys, "odds", "3d6-10", "--at-least", "-3", "--json")
    assert code == 0 and json.loads(out)["probability"] == "49/54"
    code, out, _ = _main(monkeypatch, capsys, "fudge", "roll", "-1", "--mod", "-1", "--json")
    assert code == 0 and json.loads(out)["trait"]["name"] == "Mediocre"


def test_repl_commands() -> None:
    assert "Missing argument 'EXPR'" in handle("odds")
    assert "quit (or exit, q)" in handle("help") and "help COMMAND" in handle("help")
    out = handle("sample 3d6 -n 2000")
    assert out.startswith("3d6: 2,000 rolls, mean ") and len(out.splitlines()) == 17
    assert handle("sample 3d6 -n 0").startswith("error: -n 0: sample at least one roll")
    d100 = handle("odds d100").splitlines()  # 100 totals: more than MAX_ROWS rows
    assert len(d100) == 52 and d100[1].split() == ["1..2", "1/50", "2.0%", "█" * 40]
    # every rolling command, not only dice (issue 10)
    assert "to succeed" in handle("gurps check 12") and "save" in handle("swn save physical")
    assert "Usage: gurps check" in handle("help gurps check")
    assert "gurps check" in handle("help commands")
    # the command line's own options work in the prompt too (issue 25)
    seeded_text = commands.run("gurps check 12", seeded(1)).text
    assert handle("gurps check 12 --seed 1") == seeded_text


def test_long_tables_say_how_they_fold() -> None:
    res = runner.invoke(app, ["sample", "8d6!", "-n", "20000", "--seed", "1"])
    assert res.exit_code == 0
    lines = res.output.splitlines()
    assert lines[-1] == "(totals under 0.1% joined into ranges)"
    assert lines[1].split()[:2] == ["≤", "13"] and lines[-2].split()[:2] == ["≥", "74"]
    table = handle("odds 20d20").splitlines()
    assert table[-1] == "(totals in ranges of 5)" and table[1].split()[:2] == ["≤", "129"]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["roll", "3d6", "+", "2", "--seed", "1"], "3d6+2 = [2, 4, 4] + 2 = 12"),
        (["3d6", "--seed", "1"], "3d6 = [2, 4, 4] = 10"),
        (["d%", "--seed", "2"], "d% = [4] = 4"),
        (["gurps", "check", "14", "-4", "--seed", "1"], "14-4 = 10: rolled 10 (2, 4, 4)"),
        (["gurps", "check", "14", "--seed", "1", "-4"], "14-4 = 10: rolled 10 (2, 4, 4)"),
        (["roll", "1d20+5", "2d6", "--seed", "1"], "2d6 = ["),
    ],
)
def test_command_lines_read_as_players_type_them(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    expected: str,
) -> None:
    # Issue 15: the CLI reads its arguments as the command layer reads a line.
    code, out, err = _main(monkeypatch, capsys, *argv)
    assert code == 0, err
    assert expected in out
    res = runner.invoke(app, argv)
    assert res.exit_code == 0 and expected in res.output


def test_rolling_commands_share_the_cli_options(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _main(monkeypatch, capsys, "swn", "morale", "8", "-n", "3", "--json")
    assert code == 0 and len(json.loads(out)) == 3
    code, out, _ = _main(monkeypatch, capsys, "fudge", "roll", "Good", "--secret", "--seed", "1")
    assert code == 0 and out.startswith("(secret) Good, rolled")
    code, out, _ = _main(monkeypatch, capsys, "gurps", "reaction", "--seed", "1")
    assert code == 0 and out.startswith("(secret) Reaction")
    code, out, _ = _main(monkeypatch, capsys, "gurps", "reaction", "--open", "--seed", "1")
    assert code == 0 and out.startswith("Reaction")
    code, _, err = _main(monkeypatch, capsys, "gurps", "odds", "12", "--seed", "1")
    assert code == 2 and "No such option: --seed" in err


def test_colour_only_on_a_terminal_and_never_with_no_color(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Issue 17: criticals, successes and failures in colour through rich; plain otherwise.
    import io

    from rich.console import Console

    from referee.cli.output import color_wanted, styled

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert color_wanted(Tty()) and not color_wanted(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not color_wanted(Tty())
    monkeypatch.delenv("NO_COLOR")
    out = io.StringIO()
    Console(file=out, force_terminal=True, color_system="standard").print(
        styled("12: rolled 3 (1, 1, 1), critical success by 9 — 74.1% to succeed")
    )
    coloured = out.getvalue()
    assert "\x1b[1;32mcritical" in coloured and "\x1b[1;32msuccess" in coloured
    assert "to succeed" in coloured and "\x1b[32msucceed" not in coloured
    res = runner.invoke(app, ["gurps", "check", "12", "--seed", "3"])  # piped: plain
    assert "\x1b[" not in res.output


def test_help_examples_paste_into_a_shell() -> None:
    # Issue 17: an example typed as shown must not redirect, pipe or comment anything away.
    import shlex

    from referee.commands.registry import COMMANDS

    for meta in COMMANDS.values():
        for line in (meta.epilog or "").splitlines():
            line = line.strip()
            if not line.startswith("referee "):
                continue
            lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
            words = list(lexer)
            assert not any(set(w) <= set("<>|&;()") for w in words), (meta.name, line)
            assert "#" not in line.replace("'#", "").replace("# ", "") or "'" in line, line
