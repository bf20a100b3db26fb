"""Every example in the help works when pasted (issue 39, finding 7): each ``referee
...`` line of every command's ``--help`` runs from a directory that is not the
checkout, with no ``$REFEREE_SHEET``, and succeeds. The files they name are the
examples shipped with referee (``example:NAME``, :mod:`referee.examples`), which are
kept equal to the repository's own and listed in the package data.

The examples of ``serve`` (a server), ``verify`` (a room's export) and ``rooms``
(a rooms database) name the user's own server, export or database, and are not run;
nor are those of ``discord`` (Discord's API, which these machines cannot reach).
"""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from referee import examples
from referee.cli.app import app
from referee.commands.registry import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "src" / "referee" / "examples"
NOT_RUN = ("serve", "verify", "rooms", "discord")
"""Commands whose examples name the user's own server, export or database."""
_EXAMPLE = re.compile(r"^\s*(?:\w+=\S+\s+)*referee (.+)$")


def _walk(command: Any, path: tuple[str, ...]) -> list[tuple[tuple[str, ...], str]]:
    found = [(path, m.group(1)) for m in map(_EXAMPLE.match, (command.epilog or "").split("\n"))
             if m]  # fmt: skip
    for name in getattr(command, "commands", {}):
        sub = command.commands[name]
        if not sub.hidden:  # the aliases (psi-punk, gurps4e...) are hidden
            found += _walk(sub, (*path, name))
    return found


def help_examples() -> list[tuple[tuple[str, ...], str]]:
    """Every example of every command's help, with the command it is under."""
    return _walk(typer.main.get_command(app), ())


RUN = [(p, e) for p, e in help_examples() if p[:1] not in [(n,) for n in NOT_RUN]]


def test_the_help_has_examples_to_run() -> None:
    assert len(RUN) > 100
    assert {p for p, _ in RUN} >= {("sheet",), ("gurps", "check"), ("swn", "simulate")}
    assert all(not e.startswith(NOT_RUN) for _, e in RUN)


@pytest.mark.slow  # make check leaves it to make test
@pytest.mark.parametrize(("path", "example"), RUN, ids=[e for _, e in RUN])
def test_every_help_example_runs_anywhere(
    path: tuple[str, ...], example: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("REFEREE_SHEET", raising=False)
    words = shlex.split(example)
    meta = COMMANDS.get(path)
    if meta is not None and meta.rolls and "--seed" not in words:
        words += ["--seed", "1"]  # the same dice on every run
    got = CliRunner().invoke(app, words)
    assert got.exit_code == 0, got.output
    assert got.exception is None and "Traceback" not in got.output


# ----------------------------------------------------------------- the examples shipped


def test_the_shipped_examples_are_the_repositorys() -> None:
    originals = {
        "sheets/dai.gcs": ROOT / "tests" / "data" / "gcs" / "Dai Blackthorn.gcs",
        "sheets/dai.gcs.LICENSE": ROOT / "tests" / "data" / "gcs" / "LICENSE",
    }
    for folder in ("sheets", "swn", "gurps", "gurps/sheets"):
        for original in (ROOT / "examples" / folder).glob("*.toml"):
            originals[f"{folder}/{original.name}"] = original
    shipped = {
        str(p.relative_to(SHIPPED)): p
        for p in SHIPPED.rglob("*")
        if p.is_file() and p.parent != SHIPPED and "__pycache__" not in p.parts
    }  # (the package's own bytecode, written when a user's Python caches it, is not data)
    assert sorted(shipped) == sorted(originals)
    for name, original in originals.items():
        assert shipped[name].read_bytes() == original.read_bytes(), name


def test_the_package_data_ships_them() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = project["tool"]["setuptools"]["package-data"]["referee"]
    package = SHIPPED.parent
    for file in SHIPPED.rglob("*"):
        if file.is_file() and file.suffix != ".py" and "__pycache__" not in file.parts:
            name = str(file.relative_to(package))
            assert any(fnmatch.fnmatch(name, p) for p in patterns), f"{name} is not shipped"


def test_sheet_examples_lists_every_example(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    got = CliRunner().invoke(app, ["sheet", "--examples", "--json"])
    assert got.exit_code == 0, got.output
    listed = json.loads(got.output)
    assert [e["example"] for e in listed["sheets"]] == [
        "example:" + n for n in examples.names(examples.SHEETS)
    ]
    assert {"example": "example:dai.gcs", "name": "Dai Blackthorn", "system": "gurps",
            "source": "GCS version 5"} in listed["sheets"]  # fmt: skip
    assert {e["example"] for e in listed["encounters"]} >= {
        "example:party.toml",
        "example:warrior_vs_3_thugs.toml",
    }
    text = CliRunner().invoke(app, ["sheet", "--examples"]).output
    assert "example:vex.toml" in text and "Vex Ortega (Stars Without Number, TOML)" in text


@pytest.mark.parametrize(
    ("words", "listed"),
    [
        (["sheet", "example:dai"], "example:dai.gcs, example:dai.toml"),
        (["gurps", "check", "Stealth", "--sheet", "example:nobody.gcs"], "example:dai.gcs"),
        (["swn", "simulate", "example:party"], "example:party.toml"),
        (["swn", "initiative", "example:vex.toml"], "example:warrior_vs_3_thugs.toml"),
    ],
)
def test_an_unknown_example_lists_the_examples(
    words: list[str], listed: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    got = CliRunner().invoke(app, words)
    assert got.exit_code == 2
    assert "there is no example" in got.output and listed in got.output
    assert got.exception is None or isinstance(got.exception, SystemExit)


def test_a_file_named_like_an_example_is_read_by_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "example:ron.toml").write_bytes(b'system = "fudge"\nname = "Not Ron"\n')
    got = CliRunner().invoke(app, ["sheet", "./example:ron.toml"])
    assert got.exit_code == 0 and got.output.startswith("Not Ron")
    got = CliRunner().invoke(app, ["sheet", "example:ron.toml"])
    assert got.exit_code == 0 and got.output.startswith("Ron")
