"""``referee gurps ...`` through typer's runner: JSON contracts and bad input."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from conftest import cli_json
from referee.cli.app import app

runner = CliRunner()


def _json(*args: str) -> dict[str, Any]:
    return cli_json("gurps", *args)


def test_check_contract() -> None:
    data = _json("check", "9-5+10", "--label", "Lockpicking", "--seed", "1")
    assert data["kind"] == "success" and data["effective_skill"] == 14
    assert data["modifiers"] == [-5, 10] and data["odds"]["success"] == "49/54"  # 196/216
    assert data["outcome"] in ("critical success", "success", "failure", "critical failure")


def test_odds_contest_reaction_damage_contracts() -> None:
    assert _json("odds", "12-5")["odds"]["success"] == "35/216"
    c = _json("contest", "18", "16", "--regular", "--edition", "3e", "--seed", "2")
    assert c["kind"] == "regular_contest" and c["effective_skills"] == [14, 12]
    assert "expected_rounds" in c and c["winner"] in (1, 2)
    q = _json("contest", "14", "12", "--seed", "1")
    assert q["kind"] == "quick_contest" and set(q["odds"]) == {"first", "second", "tie"}
    r = _json("reaction", "2", "--seed", "1")
    assert r["secret"] is True and r["total"] == r["roll"] + 2
    d = _json("damage", "3d-3", "--dr", "2", "--type", "cut", "--seed", "1")
    assert d["penetrating"] == max(d["basic_damage"] - 2, 0)
    assert _json("retry", "12", "--max", "2")["within"][0] == "20/27"


@pytest.mark.parametrize(
    "args",
    [
        ["check", "twelve"],
        ["check", "12-10"],
        ["check", "5000"],
        ["damage", "3d", "--type", "zap"],
        ["damage", "2d8"],
        ["contest", "2", "12"],
        ["retry", "12-10"],
    ],
)
def test_bad_input_exit_2(args: list[str]) -> None:
    res = runner.invoke(app, ["gurps", *args])
    assert res.exit_code == 2
    assert res.output.startswith("error:") and "Traceback" not in res.output
