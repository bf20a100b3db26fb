"""Characters in the rooms (contract v1.1, issue 27), on a real server and a real
database (SQLite and PostgreSQL): uploading sheets, who may read them, rolling as a
sheet (``@NAME`` or a member's only sheet), ``sheet`` and ``resolved`` on roll entries,
redaction, and ``referee verify`` replaying ``resolved``."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import httpx

from conftest import cli_json
from referee import commands
from referee.rng import ReplaySource
from referee.rooms.audit.verify import verify
from rooms_server import Table, live

DATA = Path(__file__).parent / "data"
DAI_GCS = DATA / "gcs" / "Dai Blackthorn.gcs"
"""Dai's GCS file: Stealth 16, Lockpicking/TL8 15, Dodge 10."""
DAI_TOML = Path(__file__).parents[1] / "examples" / "sheets" / "dai.toml"
ORC = (DATA / "sheets" / "orc-guard.toml").read_bytes()
WHOLE_ROLL = {
    "room", "seq", "kind", "time", "salt", "roller", "visibility", "epoch", "command",
    "draws", "result", "text", "engine", "digest", "chain",
}  # fmt: skip
REDACTED = {"room", "seq", "kind", "time", "roller", "visibility", "digest", "chain", "redacted"}


def put(
    table: Table, who: str, name: str, body: bytes, kind: str = "application/json"
) -> httpx.Response:
    with table.client(who) as c:
        return c.put(
            f"/api/rooms/{table.room}/sheets/{name}", content=body, headers={"content-type": kind}
        )


def get(table: Table, who: str, path: str = "") -> httpx.Response:
    with table.client(who) as c:
        return c.get(f"/api/rooms/{table.room}/sheets{path}")


def replayed(entry: dict[str, Any]) -> Any:
    """The result of re-running the entry's resolved command, with no sheet, on its
    draws (as ``referee verify`` does)."""
    draws = [(n, v) for n, v in entry["draws"]]
    return commands.plan(entry["resolved"], only_rolls=True)[1](ReplaySource(draws)).data


# ----------------------------------------------------------------- uploading


def test_a_player_uploads_a_gcs_file(table: Table) -> None:
    body = DAI_GCS.read_bytes()
    made = put(table, "alice", "dai", body)
    assert made.status_code == 201, made.text
    entry = made.json()
    assert entry["kind"] == "sheet"
    assert {k: entry[k] for k in ("owner", "sheet", "name", "system", "sha256")} == {
        "owner": table.ids["alice"],
        "sheet": "dai",
        "name": "Dai Blackthorn",
        "system": "gurps",
        "sha256": hashlib.sha256(body).hexdigest(),
    }
    assert set(entry) == {  # the bytes are beside the log, not in it
        "room", "seq", "kind", "time", "salt", "digest", "chain",
        "owner", "sheet", "name", "system", "sha256",
    }  # fmt: skip
    # Public, like every non-roll entry: Bob's log has it whole.
    assert table.log("bob")[-1] == entry
    listed = get(table, "bob").json()
    dai = {"sheet": "dai", "owner": table.ids["alice"], "name": "Dai Blackthorn", "system": "gurps"}
    assert listed == {"sheets": [dai]}


def test_a_sheet_is_shown_to_its_owner_and_the_gm_only(table: Table) -> None:
    assert put(table, "alice", "dai", DAI_GCS.read_bytes()).status_code == 201
    expected = cli_json("sheet", str(DAI_GCS))
    for who in ("alice", "gm"):
        got = get(table, who, "/dai")
        assert got.status_code == 200, got.text
        assert got.json() == expected
    refused = get(table, "bob", "/dai")
    assert refused.status_code == 403
    assert "another member" in refused.json()["error"]
    assert get(table, "gm", "/nobody").status_code == 404


def test_bad_uploads_get_clear_errors(table: Table) -> None:
    bad_name = put(table, "alice", "no.dots", ORC, "application/toml")
    assert bad_name.status_code == 422 and "A-Z a-z 0-9" in bad_name.json()["error"]
    long_name = put(table, "alice", "x" * 41, ORC, "application/toml")
    assert long_name.status_code == 422
    unreadable = put(table, "alice", "junk", b'{"type": "nothing"}')
    assert unreadable.status_code == 422
    assert "neither a GCS character file" in unreadable.json()["error"]
    broken = put(table, "alice", "junk", b'system = "gurps"\nname = \nx = 1', "application/toml")
    assert broken.status_code == 422 and "line" in broken.json()["error"]
    other_game = put(table, "alice", "vex", (DAI_TOML.parent / "vex.toml").read_bytes())
    assert other_game.status_code == 422 and "this room plays gurps" in other_game.json()["error"]
    empty = put(table, "alice", "empty", b"")
    assert empty.status_code == 422
    assert put(table, "alice", "big", b" " * (1024 * 1024 + 1)).status_code == 413
    # Nothing was stored: the room has no sheet, and its log no sheet entry.
    assert get(table, "gm").json() == {"sheets": []}
    assert not [e for e in table.log("gm") if e["kind"] == "sheet"]


def test_a_sheet_may_be_larger_than_other_bodies(table: Table) -> None:
    """Up to 1 MiB: a GCS file with a portrait is well over the 64 KiB of other calls."""
    body = DAI_GCS.read_bytes().rstrip()
    padded = body[:-1] + b" " * (300 * 1024) + body[-1:]  # whitespace inside the JSON
    made = put(table, "alice", "dai", padded)
    assert made.status_code == 201, made.text
    assert made.json()["sha256"] == hashlib.sha256(padded).hexdigest()
    with table.client("alice") as c:  # the 64 KiB limit still holds for the rest
        big = c.post(f"/api/rooms/{table.room}/rolls", json={"command": "3d6" + " " * 70_000})
    assert big.status_code == 413


def test_replacing_a_sheet(table: Table) -> None:
    assert put(table, "alice", "dai", DAI_GCS.read_bytes()).status_code == 201
    # Bob may not replace Alice's sheet; the GM may, and it stays Alice's.
    assert put(table, "bob", "dai", DAI_TOML.read_bytes(), "application/toml").status_code == 403
    fixed = put(table, "gm", "dai", DAI_TOML.read_bytes(), "application/toml")
    assert fixed.status_code == 201, fixed.text
    assert fixed.json()["owner"] == table.ids["alice"]
    assert fixed.json()["sha256"] == hashlib.sha256(DAI_TOML.read_bytes()).hexdigest()
    # The next roll reads the new sheet: Lockpicking is 15 in both, Climbing 18 in both,
    # but the TOML sheet has no Acrobatics.
    assert table.roll("alice", "gurps check Acrobatics").status_code == 422
    assert table.roll("alice", "gurps check Stealth").json()["resolved"] == (
        "gurps check 16 --label Stealth"
    )
    kinds = [e["kind"] for e in table.log("gm")]
    assert kinds.count("sheet") == 2


# ----------------------------------------------------------------- rolling as a sheet


def test_a_player_rolls_by_trait_name(table: Table) -> None:
    """The contract's own example: ``resolved`` holds the file's level."""
    assert put(table, "alice", "dai", DAI_GCS.read_bytes()).status_code == 201
    for command, typed in (
        ("gurps check Stealth -2", "gurps check Stealth -2"),  # her only sheet
        ("@dai gurps  check Stealth -2", "@dai gurps check Stealth -2"),
    ):
        made = table.roll("alice", command)
        assert made.status_code == 201, made.text
        entry = made.json()
        assert set(entry) == WHOLE_ROLL | {"sheet", "resolved"}
        assert entry["command"] == typed
        assert entry["sheet"] == "dai"
        assert entry["resolved"] == "gurps check 16 -2 --label Stealth"
        assert entry["result"]["effective_skill"] == 14
        assert entry["result"] == replayed(entry)  # it rolls the same with no sheet
        # Everyone sees the public roll whole, with its sheet and resolved command.
        assert table.log("bob")[-1] == entry
    # A bare dice expression as a sheet: roll put before it in both commands.
    dice = table.roll("alice", "@dai 3d6").json()
    assert (dice["command"], dice["resolved"]) == ("@dai roll 3d6", "roll 3d6")


def test_attacks_and_defenses_by_name(table: Table) -> None:
    assert put(table, "alice", "dai", DAI_GCS.read_bytes()).status_code == 201
    punch = table.roll("alice", "gurps damage Punch --dr 1").json()
    assert punch["sheet"] == "dai" and "--sheet" not in punch["resolved"]
    assert punch["resolved"].startswith("gurps damage 1d-4")
    assert punch["result"] == replayed(punch)
    dodge = table.roll("alice", "gurps check Dodge").json()
    assert dodge["result"]["effective_skill"] == 10 and dodge["result"] == replayed(dodge)


def test_who_may_roll_as_a_sheet(table: Table) -> None:
    assert put(table, "alice", "dai", DAI_GCS.read_bytes()).status_code == 201
    as_other = table.roll("bob", "@dai gurps check Stealth")
    assert as_other.status_code == 403 and "another member" in as_other.json()["error"]
    # Bob has no sheet: a trait name has nothing to resolve it.
    no_sheet = table.roll("bob", "gurps check Stealth")
    assert no_sheet.status_code == 422 and "no sheet" in no_sheet.json()["error"]
    unknown = table.roll("alice", "@nobody 3d6")
    assert unknown.status_code == 422 and "no sheet 'nobody'" in unknown.json()["error"]
    assert table.roll("alice", "@dai").status_code == 422
    assert table.roll("alice", "@d.i 3d6").status_code == 422
    missing = table.roll("alice", "gurps check Swimming")
    assert missing.status_code == 422 and "Swimming" in missing.json()["error"]
    # A plain roll by a member with no sheet carries neither field.
    plain = table.roll("bob", "3d6").json()
    assert "sheet" not in plain and "resolved" not in plain
    # Alice with two sheets must name one; a plain command is then not made as a sheet.
    assert put(table, "alice", "dai2", DAI_TOML.read_bytes(), "application/toml").status_code == 201
    assert "sheet" not in table.roll("alice", "3d6").json()
    assert table.roll("alice", "gurps check Stealth").status_code == 422
    assert table.roll("alice", "@dai2 gurps check Stealth").json()["sheet"] == "dai2"


def test_a_blind_roll_as_an_npc_leaks_nothing(table: Table) -> None:
    npc = put(table, "gm", "orc", ORC, "application/toml")
    assert npc.status_code == 201 and npc.json()["owner"] == "gm"
    made = table.roll("gm", "@orc gurps check Stealth -1", "blind")
    assert made.status_code == 201, made.text
    whole = made.json()
    assert whole["resolved"] == "gurps check 7 -1 --label Stealth" and whole["sheet"] == "orc"
    seq = whole["seq"]
    # The player's every path shows only the redacted entry.
    for entry in (
        next(e for e in table.log("alice") if e["seq"] == seq),
        next(e for e in table.export("alice") if e["seq"] == seq),
        live(table, "alice", after=seq - 1)[0],
    ):
        assert set(entry) == REDACTED, entry
    assert next(e for e in table.log("gm") if e["seq"] == seq) == whole
    # The NPC's sheet, and rolling as it, are the GM's alone: to a player it is not
    # there at all (contract v1.3, "The GM's sheets are the GM's").
    assert get(table, "alice", "/orc").status_code == 404
    as_orc = table.roll("alice", "@orc gurps check Stealth")
    assert as_orc.status_code == 422 and "(sheets: none yet)" in as_orc.json()["error"]
    assert get(table, "alice").json()["sheets"] == []
    assert get(table, "gm").json()["sheets"] == [
        {"sheet": "orc", "owner": "gm", "name": "Orc Guard", "system": "gurps"}
    ]


def test_verify_replays_resolved(table: Table, tmp_path: Path) -> None:
    assert put(table, "alice", "dai", DAI_GCS.read_bytes()).status_code == 201
    assert put(table, "gm", "orc", ORC, "application/toml").status_code == 201
    with table.client("alice") as c:
        assert c.post(f"/api/rooms/{table.room}/seed", json={"seed": "s" * 20}).status_code == 201
    for who, command, visibility in (
        ("alice", "gurps check Stealth -2", "public"),
        ("alice", "gurps damage Kick", "gm"),
        ("gm", "@orc gurps check Broadsword -4", "blind"),
        ("gm", "@dai gurps check Lockpicking", "public"),
        ("bob", "3d6", "public"),
    ):
        assert table.roll(who, command, visibility).status_code == 201
    with table.client("gm") as c:
        closed = c.post(f"/api/rooms/{table.room}/close", json={"declassify": True})
    assert closed.status_code == 201
    report = verify(table.export("gm"))
    assert report.ok, report.text()
    assert report.epochs[1].verified == 5 and report.epochs[1].unmixed == 0
    # The command line says so too, from the file the page's "Download the log" saves.
    from typer.testing import CliRunner

    from referee.cli.app import app

    exported = tmp_path / "room.jsonl"
    with table.client("gm") as c:
        exported.write_bytes(c.get(f"/api/rooms/{table.room}/export").content)
    ran = CliRunner().invoke(app, ["verify", str(exported)])
    assert ran.exit_code == 0, ran.output
    assert "5 of 5 rolls verified" in ran.output
    # Tampering with resolved is caught: its digest no longer matches.
    log = table.export("gm")
    sheet_roll = next(e for e in log if e.get("resolved"))
    sheet_roll["resolved"] = sheet_roll["resolved"].replace("16", "18")
    assert not verify(log).ok
