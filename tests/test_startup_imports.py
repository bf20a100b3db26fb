"""What each command line imports (issue 74 §1): the modules are listed and checked,
so a new import that slows a command's start-up fails here, not only in
``bench/bench_startup.py``.

Each command runs in a child process, as the console script does, and writes the
names in ``sys.modules`` when it exits; the tests assert on those names, never on
times.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import pytest

from referee.odds import odds
from referee.systems.gurps.success import sum_d6, three_d6

PROBE = """
import atexit, json, sys
out = sys.argv[1]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["referee", *sys.argv[2:]]
from referee.cli import main
main()
"""

HEAVY = (
    # web frameworks and servers
    "fastapi",
    "starlette",
    "uvicorn",
    "httpx",
    "anyio",
    "h11",
    "websockets",
    # database drivers and their toolkit
    "sqlalchemy",
    "sqlite3",
    "psycopg",
    "psycopg2",
    "asyncpg",
    "aiosqlite",
    # numbers in bulk
    "numpy",
    # Discord
    "hikari",
    "aiohttp",
    # what typer may import and these lines never need
    "pydantic",
    "rich",
    # the rooms' service, their stores and their audit
    "referee.rooms.db",
    "referee.rooms.audit",
    "referee.rooms.service",
    "referee.rooms.discord",
    "referee.fight",
)
"""Packages (and their modules) no plain command line needs."""

GURPS_ATTACK = ["gurps", "attack", "14", "--damage", "2d+1 cut", "--dr", "2", "--hp", "12",
                "--dodge", "9", "--seed", "3"]  # fmt: skip
"""``bench/bench_startup.py``'s ``gurps attack``, on dice that hit and injure."""


_NOT_PASSED = ("REFEREE_SHEET", "COVERAGE_PROCESS_START", "COVERAGE_PROCESS_CONFIG")
"""Not given to the child: a default sheet, and coverage (which imports sqlite3)."""


def imported(tmp_path: Path, words: Sequence[str]) -> set[str]:
    """The modules loaded by ``referee WORDS`` by the time it exits (status 0)."""
    out = tmp_path / "modules.json"
    env = {k: v for k, v in os.environ.items() if k not in _NOT_PASSED}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *words],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    names: list[str] = json.loads(out.read_text())
    return set(names)


def under(modules: set[str], packages: Sequence[str]) -> set[str]:
    """The modules of ``modules`` that are one of ``packages`` or inside one."""
    return {m for m in modules if any(m == p or m.startswith(f"{p}.") for p in packages)}


@pytest.mark.parametrize(
    "words",
    [
        ["roll", "3d6"],
        ["gurps", "check", "12"],
        ["fudge", "roll", "Good"],
        ["swn", "save", "physical", "--level", "3"],
        ["odds", "3d6"],
        ["verify", "--help"],
        GURPS_ATTACK,
    ],
    ids=" ".join,
)
def test_a_command_line_imports_no_web_framework_database_numpy_or_discord(
    tmp_path: Path, words: list[str]
) -> None:
    modules = imported(tmp_path, words)
    assert "referee.cli" in modules  # the probe ran the console script's code
    assert under(modules, HEAVY) == set()


def test_roll_imports_no_typer_and_no_system(tmp_path: Path) -> None:
    modules = imported(tmp_path, ["roll", "3d6"])
    assert "referee.roller" in modules and "lark" in modules  # it parsed and rolled
    assert under(modules, ["typer", "click", "referee.systems", "referee.sheets"]) == set()


def test_odds_imports_no_typer_and_no_system(tmp_path: Path) -> None:
    """``odds 3d6``: the console script's fast path, as ``roll``'s (issue 74)."""
    modules = imported(tmp_path, ["odds", "3d6"])
    assert {"referee.odds", "referee.render.dice"} <= modules  # it read the odds
    assert under(modules, ["typer", "click", "referee.systems", "referee.sheets"]) == set()


def test_gurps_check_imports_its_one_command_module_and_rule(tmp_path: Path) -> None:
    """``gurps check 12``: typer and GURPS's success rolls, and nothing else of GURPS's
    commands or combat, no sheet reader, no other system and not the dice grammar."""
    modules = imported(tmp_path, ["gurps", "check", "12"])
    assert {"typer", "referee.commands.gurps", "referee.systems.gurps.success"} <= modules
    commands = {m for m in under(modules, ["referee.commands"]) if m.count(".") == 2}
    assert {m for m in commands if "gurps" in m} == {
        "referee.commands.gurps",
        "referee.commands.gurps_traits",
    }
    assert under(modules, ["referee.systems.swn", "referee.systems.fudge"]) == set()
    for heavy in ("exchange", "exchange_odds", "melee", "defense", "defenses", "simulate"):
        assert f"referee.systems.gurps.{heavy}" not in modules
    assert under(modules, ["referee.sheets", "tomllib", "lark"]) == set()


@pytest.mark.parametrize(
    ("words", "ran"),
    [
        (["fudge", "roll", "Good"], "referee.systems.fudge.action"),
        (["swn", "save", "physical", "--level", "3"], "referee.systems.swn.saves"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else "",
)
def test_a_roll_with_no_sheet_reads_no_sheet_model_or_toml(
    tmp_path: Path, words: list[str], ran: str
) -> None:
    """``fudge roll Good`` and ``swn save physical``: no sheet named, so neither the
    sheets' model nor a TOML reader is loaded (issue 74: 11-13 ms of their start-up)."""
    modules = imported(tmp_path, words)
    assert ran in modules  # it rolled
    assert under(modules, ["referee.sheets", "tomllib"]) == set()


def test_verify_help_loads_no_system_and_no_audit(tmp_path: Path) -> None:
    modules = imported(tmp_path, ["verify", "--help"])
    assert under(modules, ["referee.systems.gurps", "referee.systems.swn"]) == set()
    assert {m for m in modules if m.startswith("referee.commands.") and "gurps" in m} == set()


@pytest.mark.parametrize("system", ["gurps", "swn", "fudge"])
def test_a_lazy_system_package_exports_each_name_from_its_module(system: str) -> None:
    """Every name the package promises (``__all__``) is read from the module its table
    names, and is the object that module defines."""
    import importlib

    package = importlib.import_module(f"referee.systems.{system}")
    table: dict[str, str] = package.__dict__["_lazy_from"]
    assert set(table) == set(package.__all__)
    for name, where in table.items():
        module = importlib.import_module(f"referee.systems.{system}.{where}")
        assert getattr(package, name) is getattr(module, name), name
    with pytest.raises(AttributeError, match="no attribute 'no_such_rule'"):
        package.no_such_rule  # noqa: B018


def test_a_function_keeps_its_name_when_its_module_of_that_name_is_imported() -> None:
    """``gurps.damage`` is the function, as the package's eager imports made it, even
    after ``referee.systems.gurps.damage`` (the module) has been imported."""
    import importlib

    from referee.systems import gurps

    damage_module = importlib.import_module("referee.systems.gurps.damage")

    assert callable(gurps.damage) and gurps.damage is damage_module.damage
    assert gurps.success.LIMIT == 1000  # a module by its name, as before


def test_three_d6_is_the_dice_engine_s_3d6() -> None:
    assert three_d6() == odds("3d6").distribution
    assert list(three_d6()) == list(odds("3d6").distribution)


def test_gurps_attack_with_dice_and_adds_needs_no_dice_grammar(tmp_path: Path) -> None:
    """A weapon's ``2d+1``: its odds and its roll take no parser (lark, about 40 ms)."""
    modules = imported(tmp_path, GURPS_ATTACK)
    assert {"referee.systems.gurps.exchange", "referee.systems.gurps.exchange_odds"} <= modules
    assert under(modules, ["lark"]) == set()


ENGINE = ["referee.ast", "referee.parser", "referee.odds", "referee.roller", "referee.rolls",
          "referee.pools", "referee.exact", "referee.explode", "referee.limits",
          "referee.bounds", "referee.render.dice", "referee.commands.rolling"]  # fmt: skip
"""The dice-expression engine: its grammar, AST, roller and exact odds, and their
renderer; plain dice are drawn by :mod:`referee.faces`."""


def test_gurps_attack_loads_no_dice_engine_feint_pain_odds_sheet_or_server(
    tmp_path: Path,
) -> None:
    """``gurps attack`` with a weapon (issue 74 §1): it draws plain dice
    (:mod:`referee.faces`), so none of the dice-expression engine's modules; no feint's
    Quick Contest, no pain odds (``gurps odds attack``'s), no sheet's traits, and none of
    the application's own commands (``serve``, ``verify``, ``rooms``, ``discord``)."""
    modules = imported(tmp_path, GURPS_ATTACK)
    assert {"referee.faces", "referee.systems.gurps.exchange_odds"} <= modules  # it rolled
    assert under(modules, ENGINE) == set()
    assert under(modules, ["referee.rooms", "referee.cli.server", "referee.cli.operate",
                           "referee.cli.discord"]) == set()  # fmt: skip
    for unused in ("systems.gurps.contest", "systems.gurps.pain", "commands.gurps_traits"):
        assert f"referee.{unused}" not in modules


@pytest.mark.parametrize("package", ["referee", "referee.render"])
def test_the_engine_s_lazy_packages_export_each_name_from_its_module(package: str) -> None:
    """``referee`` and ``referee.render`` load their modules on first use (issue 74 §1):
    every name they promise is the object its module defines, as their eager imports
    made it (``referee.odds`` stays the function once its module is imported), and
    ``referee.__version__`` is still read from the package's metadata."""
    import importlib

    module = importlib.import_module(package)
    table: dict[str, str] = module.__dict__["_lazy_from"]
    assert set(table) <= set(module.__all__)
    for name in module.__all__:
        assert getattr(module, name) is not None, name
    for name, where in table.items():
        assert getattr(module, name) is getattr(importlib.import_module(f"{package}.{where}"),
                                                 name), name  # fmt: skip
    import referee

    assert callable(referee.odds) and referee.odds("1d6").mean == Fraction(7, 2)
    assert isinstance(referee.__version__, str) and referee.__version__
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018


@pytest.mark.parametrize("expression", ["1d", "2d+1", "3d-2", "6d+4"])
def test_a_damage_roll_draws_the_dice_engine_s_dice(expression: str) -> None:
    """GURPS damage draws its dice through :func:`referee.faces.draw_faces`, not the
    dice engine: the same faces, in the same order, as ``roll("Nd6")`` on one seed."""
    from referee import roll, seeded
    from referee.systems.gurps.damage import _dice_adds, damage

    count, adds = _dice_adds(expression)
    for seed in range(20):
        got = damage(expression, damage_type="cut", rng=seeded(seed))
        rolled = roll(f"{count}d6", rng=seeded(seed))
        assert got.dice == tuple(d.value for d in rolled.dice)
        assert got.basic_damage == max(rolled.total + adds, 1)  # cutting: at least 1


@pytest.mark.parametrize("count", [1, 2, 3, 4, 7, 12])
def test_sum_d6_is_the_dice_engine_s(count: int) -> None:
    assert sum_d6(count) == odds(f"{count}d6").distribution
    assert list(sum_d6(count)) == list(odds(f"{count}d6").distribution)


@pytest.mark.parametrize(
    "text", ["2d+1", "3d6-3", "1d", "1D+2", " 4d-0 ", "2d+10", "12d6", "99d+1234", "2d+1000"]
)
def test_dice_and_adds_read_without_the_grammar_as_with_it(text: str) -> None:
    """The plain reading of ``_dice_adds`` gives what the grammar's reading gives."""
    import importlib

    damage = importlib.import_module("referee.systems.gurps.damage")

    assert damage._PLAIN.fullmatch(text.strip()), text  # the plain reading takes it
    assert damage._dice_adds(text) == damage._by_grammar(text)


BOT_PROBE = """
import json, sys
import referee.rooms.serving.discord_run
print(json.dumps(sorted(sys.modules)))
"""


def test_the_bot_loads_before_it_connects_only_what_the_gateway_and_store_need() -> None:
    """Issue 74 §2: ``referee discord run`` imports this module before it connects; the
    REST client (httpx), PostgreSQL's driver and dialect, the fights' odds (GURPS's
    simulator and exchange), the room pages and the dice grammar are loaded once
    connected or on first use, not before."""
    env = {k: v for k, v in os.environ.items() if k not in _NOT_PASSED}
    done = subprocess.run([sys.executable, "-c", BOT_PROBE], capture_output=True, text=True,
                          env=env, check=True)  # fmt: skip
    modules = set(json.loads(done.stdout))
    assert {"hikari", "sqlalchemy", "referee.rooms.db.store"} <= modules  # what it needs
    later = ["httpx", "httpcore", "asyncpg", "sqlalchemy.dialects.postgresql", "fastapi",
             "alembic", "lark", "referee.commands.gurps_simulate",
             "referee.systems.gurps.exchange"]  # fmt: skip
    assert under(modules, later) == set()


READER_PROBE = """
import json, sys
from referee.commands.reader import plan_line, warm
from referee.rooms.discord.slash import command_line
from referee.rng import seeded

LINES = ["3d6+1", "roll 2d6 --label Sneak", "roll 1d20+5 3d6", "odds 3d6"]
asked = command_line({"name": "roll", "options": [{"type": 3, "name": "exprs",
                                                   "value": "4d6kh3"}]})
before = [plan_line(line)[2](seeded(7)).text for line in LINES]
loaded = sorted(m for m in sys.modules if m.startswith("referee.commands."))
warm()
after = [plan_line(line)[2](seeded(7)).text for line in LINES]
print(json.dumps({"asked": asked.line, "loaded": loaded, "before": before, "after": after}))
"""


def test_a_roll_is_read_before_every_command_is_built_and_reads_the_same() -> None:
    """Issue 74 §2: a bare roll, a ``roll`` line, ``odds`` and a Discord ``/roll`` are
    read with the dice commands alone (no system's commands loaded), as the bot's first
    answer is; each reads and rolls the same once every command is built."""
    env = {k: v for k, v in os.environ.items() if k not in _NOT_PASSED}
    done = subprocess.run([sys.executable, "-c", READER_PROBE], capture_output=True,
                          text=True, env=env, check=True)  # fmt: skip
    got = json.loads(done.stdout)
    assert got["asked"] == "roll 4d6kh3"
    systems = [m for m in got["loaded"] if m.split(".")[2].startswith(("gurps", "swn", "fudge"))]
    assert systems == [] and "referee.commands.dice" in got["loaded"]
    assert got["before"] == got["after"]
    assert got["before"][1].startswith("Sneak: 2d6 = ")
    assert got["before"][2].startswith("1d20+5 = ") and "\n3d6 = " in got["before"][2]
