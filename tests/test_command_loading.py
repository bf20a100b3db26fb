"""A system's commands are loaded when that system is asked for (issue 53), and the
map that says which modules declare which words is whole and exact."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from referee.commands.reader import load
from referee.commands.registry import ALIASES, COMMANDS, DECLARED_BY

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
    assert seen["swn"] == (word == "swn")


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
