"""The command layer (issues 10 and 15): one reader of command lines for every front end,
draws that replay, odds that never roll, and no file opened for a name a user typed."""

from __future__ import annotations

import ast
import builtins
import json
import pathlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee import RefereeError, commands, seeded
from referee.cli.local import LOCAL
from referee.commands.reader import load
from referee.commands.registry import COMMANDS
from referee.rng import ReplaySource

SRC = Path(__file__).parent.parent / "src" / "referee"

# One or more command lines for every rolling command (the test below checks that none is missed).
ROLLING: dict[str, list[str]] = {
    "roll": ["roll 3d6 + 2", "4d6kh3", "roll 1d20+5 2d6", "roll d6r1! 4dF", "roll 10d10>=8"],
    "gurps check": ["gurps check 14 -4", "gurps check 9-5+10 --label Lockpicking"],
    "gurps contest": ["gurps contest 14 12", "gurps contest 18 16 --regular --edition 3e"],
    "gurps reaction": ["gurps reaction +2", "gurps reaction -1"],
    "gurps damage": ["gurps damage 3d-3 --dr 2 --type cut"],
    "gurps attack": [
        "gurps attack 14 --deceptive 1 --location arm",
        "gurps attack 13 --damage 2d+1 --type cut --target-name Orc --parry 10 --dodge 8 --dr 2",
        "gurps attack 12 --damage 1d --type imp --random-location --dodge 9 --defense dodge",
    ],
    "gurps defend": ["gurps defend parry 11 --parried 1 --fencing", "gurps defend dodge 8"],
    "gurps blow": ["gurps blow 2d+1 --location skull --target-name Orc --dr 2 --critical 5"],
    "gurps slam": [
        "gurps slam 12 --velocity 6 --attacker-hp 14 --target-name Orc --hp 12 --dodge 8"
    ],
    "fudge roll": ["fudge roll Good --vs Great --reroll +1", "fudge roll -1 --mod -1"],
    "fudge oppose": ["fudge oppose Great Good --reroll2 -1 --ties defender"],
    "swn save": ["swn save physical --level 3 --str 14", "swn save mental --hit-dice 4"],
    "swn check": ["swn check --skill 1 --int 14 --difficulty hard --helpers 2"],
    "swn attack": ["swn attack --attack-bonus 1 --dex 14 --ac 13 --damage 1d8 --shock 2/15"],
    "swn stabilize": ["swn stabilize --rounds 2 --tools lazarus --skill 1 --int 12"],
    "swn morale": ["swn morale 8"],
    "swn oppose": ["swn oppose 2 1 --ties defender"],
    "swn initiative": ["swn initiative examples/swn/party.toml"],
}
NON_ROLLING = [
    "odds 3d6 --at-least 15",
    "sample 3d6 -n 1000 --seed 1",
    "gurps odds 12-5",
    "gurps table",
    "gurps retry 12 --max 3",
    "fudge odds Good --vs Great --reroll +1",
    "fudge odds Good --against Fair",
    "fudge ladder --ladder fate-core",
    "swn odds save physical --level 3 --str 14",
    "swn odds check --skill 1 --int 14 --helpers 1",
    "swn odds attack --ac 13 --damage 1d8 --shock 2/15",
    "swn odds stabilize --rounds 2 --tools medkit",
    "swn odds morale 8",
    "gurps odds contest 14-2 12 --names Alice,Orc",
    "gurps odds contest 18 16 --regular",
    "gurps odds reaction +2",
    "gurps odds damage 2d+1 --dr 3 --type cut",
    "fudge odds oppose Good Fair --ties defender",
]


class NoDraws:
    """A source that fails the test on any draw."""

    def randbelow(self, n: int) -> int:
        raise AssertionError(f"a non-rolling command drew from {n}")


def test_every_rolling_command_is_covered() -> None:
    load()
    rolling = {m.name for m in COMMANDS.values() if m.rolls}
    assert rolling == set(ROLLING)


@pytest.mark.parametrize("line", [line for lines in ROLLING.values() for line in lines])
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_replaying_the_draws_gives_the_same_result(line: str, seed: int) -> None:
    first = commands.run(line, seeded(seed), resources=LOCAL)
    assert first.rolls and first.draws
    replay = ReplaySource(first.draws)
    again = commands.run(first.command, replay, resources=LOCAL)
    assert (again.data, again.text, again.draws) == (first.data, first.text, first.draws)
    assert replay.left == 0


def test_replay_refuses_draws_that_do_not_fit() -> None:
    with pytest.raises(RefereeError, match="draws from 6"):
        commands.run("roll 3d6", ReplaySource([(20, 3), (6, 1), (6, 1)]))
    with pytest.raises(RefereeError, match="was not recorded"):
        commands.run("roll 3d6", ReplaySource([(6, 3)]))


def _floats(value: Any) -> list[Any]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [f for v in value.values() for f in _floats(v)]
    if isinstance(value, list):
        return [f for v in value for f in _floats(v)]
    return []


@pytest.mark.parametrize("line", [line for lines in ROLLING.values() for line in lines])
def test_rolling_json_holds_no_floats(line: str) -> None:
    data = commands.run(line, seeded(3), resources=LOCAL).data
    assert _floats(data) == []
    assert json.loads(json.dumps(data, sort_keys=True)) == data


@pytest.mark.parametrize("line", NON_ROLLING)
def test_non_rolling_commands_never_draw(line: str) -> None:
    r = commands.run(line, NoDraws())
    assert not r.rolls and r.draws == () and r.text


def test_rooms_may_allow_rolling_commands_only() -> None:
    with pytest.raises(commands.CommandError, match="does not roll dice"):
        commands.run("gurps odds 12", only_rolls=True)
    assert commands.run("3d6", seeded(1), only_rolls=True).rolls
    assert commands.is_rolling("gurps check 12") and not commands.is_rolling("gurps table")


# Pinned seeded outputs: a change to any command's order of draws shows up here.
PINNED: dict[str, str] = json.loads(
    (Path(__file__).parent / "data" / "pinned_commands.json").read_text(encoding="utf-8")
)["pins"]


@pytest.mark.parametrize("line", sorted(PINNED))
def test_seeded_output_is_pinned(line: str) -> None:
    text = commands.run(line, seeded(1), resources=LOCAL).text
    assert text == (PINNED[line] or INITIATIVE)


INITIATIVE = """\
1. Warrior (PC): 9 (d8 8 +1 Dex)
2. Raider 2: 7 (d8 7 +0 Dex)
3. Psychic (PC): 4 (d8 5 -1 Dex)
4. Expert (PC): 4 (d8 3 +1 Dex)
5. Raider 3: 4 (d8 4 +0 Dex)
6. Raider 1: 2 (d8 2 +0 Dex)"""


# One reader of command lines (issue 15): the same line reads the same way everywhere.
@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("roll 3d6 + 2", ["3d6+2"]),
        ("roll 1d20+5 2d6", ["1d20+5", "2d6"]),
        ("3d6", ["3d6"]),
        ("d%", ["d%"]),
        ("roll ( 2d6 + 1 ) * 2", ["(2d6+1)*2"]),
        ("roll 1d20 + 5 # sneak attack", ["1d20+5"]),
    ],
)
def test_lines_read_as_players_type_them(line: str, expected: list[str]) -> None:
    data = commands.run(line, seeded(1)).data
    rolls = data if isinstance(data, list) else [data]
    assert [r["expression"] for r in rolls] == expected


def test_skills_join_across_spaces_and_labels_stay_whole() -> None:
    assert commands.run("gurps check 14 -4", seeded(1)).data["effective_skill"] == 10
    assert commands.run("gurps check 14 - 4 + 2", seeded(1)).data["effective_skill"] == 12
    assert commands.run("roll 1d20 # sneak attack", seeded(1)).data["label"] == "sneak attack"
    assert commands.run("  roll   3d6  ", seeded(1)).command == "roll 3d6"
    assert commands.run("3d6 + 2", seeded(1)).command == "roll 3d6 + 2"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("", "no command given"),
        ("gurp check 12", "unknown command 'gurp'"),
        ("gurps", "'gurps' needs a command"),
        ("roll 3d6x", "unexpected character 'x' (column 4)"),
        ("roll 3d6 --json", "--json is not an option of 'roll'"),
        ("gurps check 12 --seed 4", "--seed is not an option of 'gurps check'"),
        ("roll 3d6 -n 3", "-n is not an option of 'roll'"),
        ("gurps check 12 --bogus", "No such option: --bogus"),
        ("gurps check", "Missing argument 'SKILL'"),
        ("gurps check abc", "given 'abc' to read from a character sheet, and there is no sheet"),
        ("swn save cosmic", "'cosmic' is not one of"),
    ],
)
def test_bad_lines_get_one_clear_error(line: str, message: str) -> None:
    with pytest.raises(RefereeError) as info:
        commands.run(line, seeded(1))
    assert message in str(info.value)
    assert "Traceback" not in str(info.value)


@pytest.mark.parametrize("name", ["/etc/passwd", "../x.toml", "ladder.json", "C:\\x.toml"])
def test_a_ladder_path_is_refused_and_no_file_opened(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[object] = []

    def no_open(*args: object, **kwargs: object) -> object:
        opened.append(args)
        raise AssertionError("a file was opened")

    monkeypatch.setattr(builtins, "open", no_open)
    monkeypatch.setattr(pathlib.Path, "read_text", no_open)
    monkeypatch.setattr(pathlib.Path, "exists", no_open)
    with pytest.raises(commands.CommandError, match="unknown ladder"):
        commands.run(f"fudge roll Good --ladder {name}", seeded(1))
    with pytest.raises(commands.CommandError, match="read only on the command line"):
        commands.run(f"swn initiative {name}", seeded(1))
    assert opened == []


# The layout shows the architecture.
def _imports(path: Path) -> set[str]:
    """The referee modules a source file imports (absolute names)."""
    module = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    out = set()
    tree = ast.parse(path.read_text())
    for guard in ast.walk(tree):  # imports for type annotations only are not run
        if isinstance(guard, ast.If) and "TYPE_CHECKING" in ast.unparse(guard.test):
            guard.body = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name.startswith("referee"):
                out.add(name)
                out.update(f"{name}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("referee"))
    return out


def _modules() -> dict[str, set[str]]:
    graph = {}
    for path in SRC.rglob("*.py"):
        name = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
        graph[name.removesuffix(".__init__")] = _imports(path)
    return {m: {d for d in deps if d in graph and d != m} for m, deps in graph.items()}


def test_no_import_cycles_between_modules() -> None:
    graph = _modules()
    # a package's __init__ re-exporting its own modules is not a cycle of design
    edges = {m: {d for d in deps if not m.startswith(d + ".")} for m, deps in graph.items()}
    seen: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(m: str, stack: list[str]) -> None:
        seen[m] = 1
        for d in sorted(edges[m]):
            if seen.get(d) == 1:
                cycles.append(stack[stack.index(d) :] + [d])
            elif d not in seen:
                visit(d, [*stack, d])
        seen[m] = 2

    for m in sorted(edges):
        if m not in seen:
            visit(m, [m])
    assert cycles == []


def test_no_import_cycles_between_bench_scripts() -> None:
    """bench/'s scripts share helpers through ``_served``/``_timing``; no two import
    each other, directly or around a loop (issue 53), at the top or in a function."""
    bench = SRC.parent.parent / "bench"
    names = {p.stem for p in bench.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in bench.glob("*.py"):
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                found.add(node.module)
        graph[path.stem] = {n for n in found if n in names and n != path.stem}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for d in graph[start]:
            if d == goal or (d not in seen and reaches(d, goal, seen | {d})):
                return True
        return False

    assert graph["bench_rooms"] >= {"bench_tables"}  # it runs bench_tables' case
    assert [m for m in sorted(graph) if reaches(m, m, {m})] == []


def test_discord_takes_no_route_and_no_private_name_of_the_rooms() -> None:
    """Issue 53: Discord reaches the rooms through their service layer: no import of
    the routes or pages, and no private name (``_resolve``) of another package."""
    for path in (SRC / "rooms" / "discord").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or node.level < 2:
                continue  # its own package's modules (.x) are its own business
            module = node.module or ""
            assert not module.startswith(("routes", "page", "app")), (path.name, module)
            private = [a.name for a in node.names if a.name.startswith("_")]
            assert private == [], (path.name, module, private)


def test_the_engine_imports_no_front_end_and_no_rendering() -> None:
    graph = _modules()
    front = ("referee.cli", "referee.web")
    engine = [m for m in graph if not m.startswith(front)]
    for m in engine:
        assert not any(d.startswith(front) for d in graph[m]), m
    engine_rules = ("referee.systems", "referee.roller", "referee.odds")
    rules = [m for m in graph if m.startswith(engine_rules)]
    for m in rules:
        assert not any(d.startswith("referee.render") for d in graph[m]), m


def test_the_command_layer_opens_no_file() -> None:
    for path in (SRC / "commands").glob("*.py"):
        text = path.read_text()
        assert "open(" not in text and "read_text" not in text, path.name


def test_modules_stay_small() -> None:
    for path in SRC.rglob("*.py"):
        assert len(path.read_text().splitlines()) <= 420, path


# One shape for results (issue 15): every rolling result answers the same questions.
@pytest.mark.parametrize("line", [line for lines in ROLLING.values() for line in lines])
def test_every_rolling_json_has_the_envelope(line: str) -> None:
    data = commands.run(line, seeded(5), resources=LOCAL).data
    for item in data if isinstance(data, list) else [data]:
        if "system" not in item:  # a dice roll: its own contract
            assert {"expression", "total", "dice", "text"} <= set(item)
            continue
        assert {"system", "kind", "text", "outcome", "odds"} <= set(item), line
        assert isinstance(item["outcome"], str) and isinstance(item["odds"], dict)


def test_every_rolling_result_is_a_result() -> None:
    from referee.results import Chances, Result
    from referee.systems import fudge, gurps, swn

    rng = seeded(9)
    results: list[Any] = [
        gurps.check(12, rng=rng),
        gurps.quick_contest(12, 10, rng=rng),
        gurps.regular_contest(12, 10, rng=rng),
        gurps.reaction(1, rng=rng),
        gurps.damage("2d+1", dr=2, rng=rng),
        gurps.attack(12, rng=rng),
        gurps.defend("dodge", 9, rng=rng),
        gurps.exchange(13, gurps.read_damage("2d cut"), gurps.Target("Orc", parry=9), rng=rng),
        fudge.action("Good", rng=rng),
        fudge.oppose("Good", "Fair", rng=rng),
        swn.save("physical", rng=rng),
        swn.skill_check(skill=1, rng=rng),
        swn.attack(ac=12, weapon=swn.Weapon.make("1d6"), rng=rng),
        swn.morale(7, rng=rng),
        swn.oppose((1, True), (0, False), rng=rng),
        swn.stabilize(rounds=1, rng=rng),
    ]
    for r in results:
        assert isinstance(r, Result), type(r)
        assert r.system in ("gurps", "fudge", "swn") and r.text and r.outcome
        assert isinstance(r.chances, Chances)
        assert all(0 <= p <= 1 for p in r.chances.values())
    versus = [r.chances for r in results if r.success is None]
    assert all(sum(c.values()) == 1 for c in versus if set(c) == {"first", "second", "tie"})
