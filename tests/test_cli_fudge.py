"""``referee fudge ...`` through typer's runner: JSON contracts and bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from conftest import cli_json
from referee.cli.app import app

runner = CliRunner()


def _json(*args: str) -> dict[str, Any]:
    return cli_json("fudge", *args)


def test_roll_contract() -> None:
    data = _json("roll", "Good", "--mod", "+1", "--vs", "Great", "--reroll", "+1", "--seed", "2")
    assert set(data) >= {
        "system", "kind", "trait", "modifier", "dice", "natural", "rerolls", "result",
        "difficulty", "degree", "success", "odds", "secret", "text",
    }  # fmt: skip
    assert data["system"] == "fudge" and data["kind"] == "action"
    assert data["trait"] == {"name": "Good", "value": 1} and data["modifier"] == 1
    assert data["difficulty"] == {"name": "Great", "value": 2}
    assert all(d in ("+", "0", "-") for d in data["dice"]) and len(data["dice"]) == 4
    assert data["natural"]["total"] == sum(
        {"+": 1, "0": 0, "-": -1}[d] for d in data["natural"]["dice"]
    )
    values = {"+": 1, "0": 0, "-": -1}
    assert data["result"]["value"] == 2 + sum(values[d] for d in data["dice"])
    assert data["degree"] == data["result"]["value"] - 2
    assert data["success"] == (data["degree"] >= 0)
    dist = data["odds"]["distribution"]
    assert sum(int(p.split("/")[0]) / int(p.split("/")[1]) for _, p in dist) == pytest.approx(1)
    for r in data["rerolls"]:
        assert (
            data["natural"]["dice"][r["index"]] == r["from"] and data["dice"][r["index"]] == r["to"]
        )


def test_roll_without_difficulty_and_seed_reproduces() -> None:
    a = _json("roll", "gr", "--vs", "none", "--seed", "7")
    assert a["difficulty"] is None and a["degree"] is None and a["success"] is None
    assert a["odds"]["success"] is None
    assert a == _json("roll", "gr", "--vs", "none", "--seed", "7")


def test_oppose_contract() -> None:
    data = _json("oppose", "Great", "Good", "--ties", "defender", "--seed", "3")
    assert data["kind"] == "oppose" and data["ties"] == "defender"
    assert data["degree"] == data["first"]["result"]["value"] - data["second"]["result"]["value"]
    assert data["winner"] == (1 if data["degree"] > 0 else 2)
    assert data["odds"]["tie"] == "0/1"


def test_odds_command() -> None:
    data = _json("odds", "Good", "--vs", "Great", "--reroll", "1")
    assert data["success"] == "146/243"  # the best reroll for Great (issue 9, item 5)
    data = _json("odds", "Good", "--against", "Good")
    assert data["odds"]["first"] == data["odds"]["second"]
    res = runner.invoke(app, ["fudge", "odds", "Good", "--vs", "Great"])
    assert res.exit_code == 0 and "Good vs Great: 38.3% to succeed (31/81)" in res.output


def test_ladder_command(tmp_path: Path) -> None:
    assert [lv["name"] for lv in _json("ladder")["levels"]][0] == "Astonishing"
    assert _json("ladder", "--ladder", "fate-core")["default_difficulty"] == 2
    path = tmp_path / "l.toml"
    path.write_text("[levels]\nHigh = 1\nLow = 0\n")
    assert _json("ladder", "--ladder", str(path))["name"] == "l"
    res = runner.invoke(app, ["fudge", "roll", "High", "--ladder", str(path), "--seed", "1"])
    assert res.exit_code == 0 and res.output.startswith("High, rolled [")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["roll", "G"], "'G' is ambiguous on the Psi-punk ladder: Great, Good"),
        (["roll", "Heroic"], "unknown level 'Heroic'"),
        (["roll", "Good", "--mod", "4"], "modifier +4 is beyond ±3"),
        (["roll", "Good", "--reroll", "+5"], "a reroll bonus of 5dF is more than the 4 dice"),
        (["roll", "Good", "--reroll", "lots"], "cannot read reroll 'lots'"),
        (["oppose", "Good", "Gx"], "unknown level 'Gx'"),
        (["odds", "Good", "--ladder", "nope"], "unknown ladder 'nope'"),
    ],
)
def test_bad_input_is_one_line_exit_2(args: list[str], message: str) -> None:
    res = runner.invoke(app, ["fudge", *args])
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {message}")


def test_malformed_ladder_file_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[levels]\nGood = 1\nFair = 'x'\n")
    res = runner.invoke(app, ["fudge", "ladder", "--ladder", str(path)])
    assert res.exit_code == 2 and "line 3, field 'Fair'" in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_extreme_allows_large_modifiers() -> None:
    assert _json("roll", "Good", "--mod", "5", "--extreme", "--seed", "1")["modifier"] == 5


def test_systems_register_by_name_and_alias() -> None:
    from referee.errors import RuleError
    from referee.systems import SYSTEMS, get_system

    assert set(SYSTEMS) == {"gurps", "fudge", "swn"}
    assert get_system("Psi-Punk").name == "fudge" and get_system("fate").name == "fudge"
    assert get_system("stars-without-number").load().__name__ == "referee.systems.swn"
    with pytest.raises(RuleError, match="unknown rule system 'dnd'.*fudge, gurps, swn"):
        get_system("dnd")
    res = runner.invoke(app, ["psi-punk", "ladder", "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["name"] == "Psi-punk"


def test_roll_needs_no_dice_when_the_outcome_is_certain() -> None:
    # Issue 9, item 7: `referee fudge roll Poor --vs Astonishing+2` says so, and rolls nothing.
    data = _json("roll", "Poor", "--vs", "Astonishing+2")
    assert data["rolled"] is False and data["dice"] == [] and data["result"] is None
    assert data["success"] is False and data["odds"]["success"] == "0/1"
    assert data["natural"] is None
    assert "no roll needed" in data["text"]
    anyway = _json("roll", "Poor", "--vs", "Astonishing+2", "--roll-anyway", "--seed", "1")
    assert anyway["rolled"] is True and len(anyway["dice"]) == 4


def test_fate_core_degrees_are_fate_outcomes() -> None:
    # Issue 9, item 6: `fudge roll Good --vs Fair --ladder fate-core --seed 7`.
    data = _json("roll", "Good", "--vs", "Fair", "--ladder", "fate-core", "--seed", "7")
    assert data["degree"] == 2 and data["degree_name"] == "succeed"
    assert "(Fair)" not in data["text"]
    assert _json("ladder", "--ladder", "fate-core")["degrees"] == "fate"
