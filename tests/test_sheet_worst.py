"""The worst shapes of every sheet format (issue 39, finding 5): a file of the rooms'
largest size (1 MiB) is answered within a second, read or refused with a
:class:`~referee.errors.SheetError` that says what is wrong and where, whatever its
shape. Before the bounds of :mod:`referee.sheets.formats`, a 300 KB TOML sheet of one
dotted header took 12 s (tomllib is quadratic in a key's parts), a JSON file of
escaped quotes hours (the old pre-scan's pattern backtracked), a long number raised
Python's own ``ValueError``, and a Foundry export of long damage formulas took
seconds (each parsed as dice).

Each read runs in a child process, after a warm-up read of each format (imports and
the dice parser are not timed), and is timed there with ``perf_counter`` around
:func:`~referee.sheets.read_sheet` alone; a child still reading at the deadline is
killed, so a shape that once took hours fails in seconds. One second is generous:
each shape takes under 0.2 s on one core.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from referee.rooms.limits import RoomsLimits
from referee.sheets.formats import MAX_TOML_BYTES
from referee.sheets.foundry_fields import MAX_WEAPONS
from rooms_server import Table

LIMIT = RoomsLimits.sheet
"""The largest sheet a room takes (1 MiB)."""
SECONDS = 1.0
"""The most any shape may take."""
DEADLINE = 30.0
"""When a child still reading is killed."""

_CHILD = r"""
import json, sys, time
from referee.sheets import read_sheet
from referee.errors import SheetError

for warm in (
    b'system = "fudge"\nname = "W"\n[traits]\nNotice = "Fair"',
    b'{"version": 5, "profile": {"name": "W"}, "calc": {"dodge": [9]}}',
    json.dumps({"name": "W", "type": "character", "items": [
        {"name": "Knife", "type": "weapon", "system": {"damage": "1d4+1"}}],
        "system": {"level": {"value": 1}, "stats": {k: {"base": 10} for k in
        ("str", "dex", "con", "int", "wis", "cha")}}}).encode(),
):
    read_sheet(warm)
data = sys.stdin.buffer.read()
start = time.perf_counter()
try:
    sheet = read_sheet(data)
    kind, text = None, f"read {sheet.name}: {len(sheet.attacks)} attacks; " + " ".join(sheet.notes)
except Exception as exc:
    kind, text = type(exc).__name__, str(exc)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "kind": kind, "text": text[:1000]}))
"""


def answer(data: bytes) -> dict[str, Any]:
    """How :func:`~referee.sheets.read_sheet` answers ``data``, in a child process:
    ``seconds`` it took, the ``kind`` of error (None when read), and its ``text``."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD],
            input=data,
            capture_output=True,
            timeout=DEADLINE,
            check=False,
        )
    except subprocess.TimeoutExpired:
        done = None
    if done is None:
        pytest.fail(f"still reading after {DEADLINE:.0f} s")
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def fill(head: str, unit: str, tail: str = "", size: int = LIMIT) -> bytes:
    """``head``, ``unit`` repeated, ``tail``: as near ``size`` bytes as the unit allows."""
    return (head + unit * ((size - len(head) - len(tail)) // len(unit)) + tail).encode()


def _foundry(items: list[str]) -> bytes:
    stats = {k: {"base": 10, "boost": 0} for k in ("str", "dex", "con", "int", "wis", "cha")}
    system = json.dumps({"level": {"value": 1}, "stats": stats, "baseAc": 10})
    return (
        f'{{"name": "V", "type": "character", "system": {system}, "items": ['.encode()
        + (",".join(items) + "]}").encode()
    )


def _weapon(damage: str, skill: str = "") -> str:
    return json.dumps({"name": "w", "type": "weapon", "system": {"damage": damage, "skill": skill}})


def long_damage() -> bytes:
    """500 weapons, each of a distinct damage formula of 1,000 characters (the dice
    parser's limit), padded with plain items to 1 MiB: parsing them took 2.7 s."""
    weapons = [_weapon("1+" * 496 + f"{i:06d}") for i in range(MAX_WEAPONS)]
    filler = json.dumps({"name": "x" * 1000, "type": "item"})
    room = LIMIT - 400 - sum(len(w) + 1 for w in weapons)
    return _foundry(weapons + [filler] * (room // (len(filler) + 1)))


def skills_and_weapons() -> bytes:
    """Half skills, half weapons naming a skill the actor lacks: each weapon searched
    every skill, 3.2 s."""
    skill = '{"_id": "%d", "name": "s", "type": "skill", "system": {"rank": 0}}'
    half = (LIMIT - 400) // 2
    skills = [skill % i for i in range(half // (len(skill) + 6))]
    weapon = _weapon("1d6", "zz")
    return _foundry(skills + [weapon] * (half // (len(weapon) + 1)))


@dataclass(frozen=True)
class Shape:
    name: str
    make: Callable[[], bytes]
    answer: str
    """What the answer's text must contain: the refusal's message, or the read's."""
    read: bool = False
    """Whether the file is read (else refused with a SheetError)."""


TOML = MAX_TOML_BYTES - 64
"""Just under the largest TOML sheet: bigger ones are refused by size alone."""
_DOTS = "a." * ((TOML - 10) // 2)
_DEEP = (TOML - 40) // 2

SHAPES = [
    # TOML: tomllib is quadratic in a dotted key's parts, wherever the key is.
    Shape("toml dotted header", lambda: fill("[", "a.", "a]", TOML), "parts (line 1)"),
    Shape("toml dotted array header", lambda: fill("[[", "a.", "a]]", TOML), "parts (line 1)"),
    Shape("toml dotted key", lambda: fill("name = 'x'\n", "a.", "a = 1", TOML), "parts (line 2)"),
    Shape("toml dotted inline key", lambda: fill("x = {", "a.", "a = 1}", TOML), "parts"),
    Shape(
        "toml dotted header at 1 MiB", lambda: fill("[", "a.", "a]"), "TOML sheet may be at most"
    ),
    # Brackets after a multi-line string were once thought quoted: tomllib recursed.
    Shape(
        "toml nesting after '''",
        lambda: f"x = ['''\n''', {'[' * _DEEP}1{']' * _DEEP}, '']".encode(),
        f"nests {_DEEP + 1} levels deep (line 2)",
    ),
    Shape("toml long number", lambda: fill("x = ", "1", "", TOML), "digits (line 1)"),
    Shape("toml escaped quotes", lambda: fill('x = "', '\\"', "", TOML), "Unterminated string"),
    # GCS JSON
    Shape(
        "gcs escaped quotes",
        lambda: fill('{"version": 5, "profile": {"name": "', '\\"'),
        "not valid JSON: Unterminated string",
    ),
    Shape(
        "gcs long number",
        lambda: fill('{"version": 5, "profile": {},\n"calc": {"dodge": [', "9", "]}}"),
        "digits (line 2)",
    ),
    # Foundry swnr JSON
    Shape(
        "foundry long number",
        lambda: fill('{"name": "V", "items": [], "system": {"stats": {}, "level": ', "1", "}}"),
        "digits (line 1)",
    ),
    Shape("foundry long damage formulas", long_damage, "is over 40 characters", read=True),
    Shape("foundry skills and weapons", skills_and_weapons, f"at most {MAX_WEAPONS}"),
]


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_the_worst_shapes_are_answered_within_a_second(shape: Shape) -> None:
    data = shape.make()
    assert len(data) <= LIMIT
    got = answer(data)
    assert got["seconds"] < SECONDS, f"{got['seconds']:.2f} s: {got['text'][:200]}"
    assert got["kind"] == (None if shape.read else "SheetError"), got["text"]
    assert shape.answer in got["text"]


# ----------------------------------------------------------------- through a room


@pytest.fixture(scope="module")
def db_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """SQLite only: what is timed is the reading, the same on every database."""
    from referee.rooms.db.store import sqlite_url

    return sqlite_url(tmp_path_factory.mktemp("rooms") / "rooms.sqlite3")


def test_a_room_answers_a_hostile_upload_within_a_second(table: Table) -> None:
    for data, message in (
        (fill("[", "a.", "a]", TOML), "parts (line 1)"),
        (fill('{"version": 5, "profile": {}, "calc": {"dodge": [', "9", "]}}"), "digits"),
    ):
        with table.client("alice") as c:
            start = time.perf_counter()
            got = c.put(
                f"/api/rooms/{table.room}/sheets/hostile",
                content=data,
                timeout=httpx.Timeout(DEADLINE),
            )
            seconds = time.perf_counter() - start
        assert seconds < SECONDS, f"{seconds:.2f} s"
        assert got.status_code == 422, got.text
        assert "this sheet cannot be read" in got.json()["error"]
        assert message in got.json()["error"]
    with table.client("gm") as c:
        assert c.get(f"/api/rooms/{table.room}/sheets").json() == {"sheets": []}
