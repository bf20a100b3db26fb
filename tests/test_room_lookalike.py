"""Characters whose names read the same (issue 71 §3.7): a player loaded "Dаi
Blackthorn", its ``а`` Cyrillic, beside the real Dai, and two characters read the
same. A name confusable with another character's in the room (Unicode's confusables,
or the same letters in another case) is refused, naming the other; the same name is
taken again only from the same member (a new version, or a GM's second orc). On a
real server, SQLite and PostgreSQL; Discord's ``/sheet`` goes through the same
service (tests/test_discord_files.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rooms_server import Table
from test_room_sheets import get, put

DAI = (Path(__file__).parents[1] / "examples" / "sheets" / "dai.toml").read_bytes()
ORC = (Path(__file__).parent / "data" / "sheets" / "orc-guard.toml").read_bytes()
TOML = "application/toml"


def _named(body: bytes, name: str) -> bytes:
    return body.replace(b'name = "Dai Blackthorn"', f'name = "{name}"'.encode())


@pytest.mark.parametrize(
    "lookalike",
    [
        "D\u0430i Blackthorn",  # a Cyrillic a
        "DAI BLACKTHORN",
        "Dai Blackth\u043ern",  # a Cyrillic o
        "\uff24ai Blackthorn",  # a fullwidth D
        "Dai  Blackthorn",
    ],
)
def test_a_name_that_reads_as_another_characters_is_refused(table: Table, lookalike: str) -> None:
    assert put(table, "alice", "dai", DAI, TOML).status_code == 201
    got = put(table, "bob", "dai2", _named(DAI, lookalike), TOML)
    assert got.status_code == 422, got.text
    said = got.json()["error"]
    assert f"{lookalike!r} reads the same as 'Dai Blackthorn' (@dai)" in said, said
    assert "rename your character" in said


def test_the_same_name_is_taken_again_only_from_the_same_member(table: Table) -> None:
    assert put(table, "alice", "dai", DAI, TOML).status_code == 201
    assert put(table, "alice", "dai", DAI, TOML).status_code in (200, 201)  # a new version
    copy = put(table, "bob", "dai2", DAI, TOML)
    assert copy.status_code == 422 and "(@dai)" in copy.json()["error"], copy.text
    assert put(table, "gm", "orc1", ORC, TOML).status_code == 201
    assert put(table, "gm", "orc2", ORC, TOML).status_code == 201  # the GM's second orc
    assert put(table, "bob", "dan", _named(DAI, "Dan Blackthorn"), TOML).status_code == 201


def test_a_players_name_probes_nothing_of_the_gms_sheets(table: Table) -> None:
    """A player's sheet is compared only with the characters she may know of: a refusal
    naming the GM's hidden "Orc Guard" (@guard) told her its name and id, and any
    refusal at all would answer her probe of its name (contract v1.3)."""
    assert put(table, "gm", "guard", ORC, TOML).status_code == 201
    for probe in ("ORC GUARD", "Orc Guard", "Orc Gu\u0430rd"):
        got = put(table, "alice", "probe", ORC.replace(b'"Orc Guard"', f'"{probe}"'.encode()),
                  TOML)  # fmt: skip
        assert got.status_code in (200, 201), got.text
        assert "guard" not in got.text.lower().replace(probe.lower(), ""), got.text
    listed = get(table, "alice").json()
    assert [s["sheet"] for s in listed["sheets"]] == ["probe"], listed
    # the GM, who knows both, is still refused a third that reads as them
    third = put(table, "gm", "guard3", ORC.replace(b'"Orc Guard"', b'"ORC GUARD"'), TOML)
    assert third.status_code == 422 and "reads the same as" in third.json()["error"], third.text
