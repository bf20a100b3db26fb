"""A system's commands are loaded when that system is asked for (issue 53), and the
map that says which modules declare which words is whole and exact."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from referee.commands.reader import load
from referee.commands.registry import ALIASES, COMMANDS, DECLARED_BY, NAMED_BY

PROBE = """
import json, sys
from referee.commands.reader import load
from referee.commands.registry import COMMANDS
load(sys.argv[1])
mods = sorted(m.rsplit(".", 1)[1] for m in sys.modules if m.startswith("referee.commands."))
print(json.dumps({"words": sorted({k[0] for k in COMMANDS}), "modules": mods,
                  "swn": "referee.systems.swn.encounter" in sys.modules}))
"""


def test_every_command_is_declared_by_the_modules_its_first_word_names() -> None:
    load()
    assert {key[0] for key in COMMANDS} == set(DECLARED_BY)


def test_each_second_word_is_declared_by_the_one_module_the_map_names() -> None:
    """``referee gurps check 12`` loads only the module that ``NAMED_BY`` names for
    ``gurps check`` (issue 74): that module declares every command under those words,
    and the map names every word of its groups but ``odds`` (which every module of the
    group declares under)."""
    load()
    for group, words in NAMED_BY.items():
        assert set(DECLARED_BY[group]) >= set(words.values())
        under = {k for k in COMMANDS if k[0] == group and len(k) > 1 and k[1] != "odds"}
        assert {k[1] for k in under} == set(words), group
        for key in under:
            function = COMMANDS[key].function
            assert function is not None
            assert function.__module__ == f"referee.commands.{words[key[1]]}", key


@pytest.mark.parametrize("first", sorted({*DECLARED_BY, *ALIASES}))
def test_a_first_word_loads_only_its_own_commands(first: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, first], capture_output=True, text=True, check=True
    )
    seen = json.loads(done.stdout)
    word = ALIASES.get(first, first)
    owners = set(DECLARED_BY[word])
    # every word the loaded modules declare shares its modules with this one
    assert all(set(DECLARED_BY[w]) == owners for w in seen["words"]), seen
    assert word in seen["words"]
    other_modules = {m for w, ms in DECLARED_BY.items() for m in ms} - owners
    assert not other_modules & set(seen["modules"]), seen
    assert not seen["swn"]  # SWN's encounter simulator: loaded when run (issue 74)


def test_the_console_script_reads_a_system_command_and_a_bare_expression() -> None:
    exe = [sys.executable, "-m", "referee.cli"]
    check = subprocess.run([*exe, "gurps", "check", "12", "--seed", "1"], capture_output=True)
    assert check.returncode == 0 and b"12: rolled" in check.stdout
    bare = subprocess.run([*exe, "3d6+2", "--seed", "4", "--json"], capture_output=True)
    assert bare.returncode == 0 and json.loads(bare.stdout)["expression"] == "3d6+2"
    sheet = subprocess.run([*exe, "sheet", "example:dai.toml"], capture_output=True)
    assert sheet.returncode == 0 and b"Dai" in sheet.stdout, sheet.stderr
    rooms = subprocess.run([*exe, "rooms", "--help"], capture_output=True)
    assert rooms.returncode == 0 and b"Usage: referee rooms" in rooms.stdout


def test_threads_reading_one_command_at_once_each_get_their_own_arguments() -> None:
    """The rooms read commands in worker threads. typer's wrapper of a command keeps a
    call's arguments in a dict shared by every call, so without a group per thread one
    thread's ``roll`` ran with another's expressions: a bystander room was answered
    with an attacker's refusal (tests/test_hostile.py, issue 53)."""
    import threading

    from referee import commands
    from referee.errors import RefereeError
    from referee.rng import seeded

    crossed: list[tuple[str, str]] = []
    bad = "roll -- " + "-" * 60 + "1"  # refused when it runs: nests 60 deep

    def good(k: int) -> None:
        for i in range(300):
            expr = f"3d6+{k * 1000 + i}"
            try:
                reply = commands.plan(expr, only_rolls=True)[1](seeded(1))
            except RefereeError as exc:
                crossed.append((expr, str(exc)))
                continue
            if reply.data["expression"] != expr:
                crossed.append((expr, reply.data["expression"]))

    def evil() -> None:
        for _ in range(1500):
            try:
                commands.plan(bad, only_rolls=True)[1](seeded(1))
            except RefereeError:
                pass

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # hand the interpreter over often, as a loaded server does
    try:
        threads = [threading.Thread(target=good, args=(k,)) for k in range(2)]
        threads += [threading.Thread(target=evil) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(switch)
    assert crossed == []


_WHOLE = """
import typer
from referee.cli.app import app
from referee.commands.coercion import lighten
command = typer.main.get_command(app)
lighten(command)
sys.exit(command.main(sys.argv[1:], "referee"))
"""


def _console(*words: str, whole: bool = False) -> subprocess.CompletedProcess[str]:
    """The console script's answer, and (on stderr) the command modules it loaded; with
    ``whole``, the answer of the whole application (every command built) instead."""
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(sorted(m for m in sys.modules "
        "if m.startswith(('referee.commands.', 'referee.systems.'))), file=sys.stderr))\n"
        f"sys.argv = ['referee', *{list(words)!r}]\n"
        + (_WHOLE if whole else "from referee.cli import main\nmain()\n")
    )
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)


def test_a_command_line_builds_only_the_command_it_names() -> None:
    """Issue 53: typer builds every command it is given, so ``gurps check 12`` gives it
    ``gurps check`` alone; ``gurps --help`` (no command named) gives it every one."""
    from typer.main import get_command

    from referee.cli.app import build

    def names(words: list[str]) -> list[str]:
        root = get_command(build(words))
        group = root.commands["gurps"]  # type: ignore[attr-defined]
        return sorted(group.commands)

    assert names(["gurps", "check", "12"]) == ["check"]
    assert names(["gurps4e", "check", "12"]) == ["check"]
    assert names(["gurps", "odds", "12"]) == ["odds"]  # the odds group: its default reads 12
    every = names(["gurps", "--help"])
    assert len(every) > 5 and "check" in every and "odds" in every

    # Built once, under the name typed (typer builds a group again for each of its
    # names), and beside no other command's options (issue 74 §1).
    def shown(words: list[str]) -> list[str]:
        root = get_command(build(words))
        return sorted(n for n, c in root.commands.items() if not c.hidden)  # type: ignore[attr-defined]

    assert shown(["gurps", "attack", "14"]) == ["gurps"]
    typed = get_command(build(["gurps4e", "check", "12"]))  # an alias: the group's name too
    assert typed.commands.keys() == {"--", "gurps", "gurps4e"}  # type: ignore[attr-defined]
    sheet = get_command(build(["sheet", "example:dai.gcs"]))
    assert sheet.commands.keys() == {"--", "sheet"}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "words",
    [["--help"], ["gurps", "--help"], ["gurps", "check", "--help"], ["swn", "odds", "--help"]],
)
def test_help_from_a_narrow_build_is_the_whole_apps(words: list[str]) -> None:
    """The console script's help, from its narrow build, is word for word the help of
    the whole application (``referee.cli.app.app``)."""
    whole = _console(*words, whole=True)
    narrow = _console(*words)
    assert narrow.returncode == 0 == whole.returncode, narrow.stderr + whole.stderr
    assert "Usage: referee" in narrow.stdout
    assert narrow.stdout == whole.stdout


def test_the_bare_help_loads_no_systems_commands() -> None:
    """``referee --help`` lists the systems' groups by their help: it imports none of
    their commands or rules."""
    done = _console("--help")
    assert done.returncode == 0 and "gurps" in done.stdout and "swn" in done.stdout
    loaded = done.stderr
    for name in ("referee.commands.gurps", "referee.commands.swn", "referee.commands.fudge"):
        assert f"'{name}'" not in loaded, loaded
    assert "referee.systems.swn.encounter" not in loaded
