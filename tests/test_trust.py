"""Issue 39, the trust findings on the API: fair in the usual flow (contract v1.2's
automatic rollover, and ``referee verify`` naming unprovable rolls), and a removed
member's socket closed whatever its ``after``, on one server and across two."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

import zygote
from referee.rooms.audit.verify import Report, verify
from rooms_server import Server, Table, fresh_db, make_table, running
from test_room_admin import call, closes_within_a_second

# ------------------------------------------------------------ fair in the usual flow


def _join(server: Server, room: str, invite: str, name: str) -> tuple[str, str]:
    with server.client() as c:
        joined = c.post(f"/api/rooms/{room}/members", json={"name": name, "invite": invite})
    assert joined.status_code == 201, joined.text
    return joined.json()["member"], joined.json()["token"]


def _as_page(server: Server, room: str, token: str, seed: str) -> httpx.Response:
    """What a player's page does on opening: send its client seed."""
    with server.client(token) as c:
        return c.post(f"/api/rooms/{room}/seed", json={"seed": seed})


def _roll(server: Server, room: str, token: str, command: str, vis: str = "public") -> None:
    with server.client(token) as c:
        made = c.post(f"/api/rooms/{room}/rolls", json={"command": command, "visibility": vis})
    assert made.status_code == 201, made.text


def _export(server: Server, room: str, token: str) -> list[dict[str, Any]]:
    with server.client(token) as c:
        return [json.loads(line) for line in c.get(f"/api/rooms/{room}/export").text.splitlines()]


def each_players_roll_holds_their_seed(entries: list[dict[str, Any]]) -> int:
    """Assert that every roll by a player was mixed with that player's seed; return
    how many player rolls there were."""
    locks = {e["epoch"]: e["seeds"] for e in entries if e["kind"] == "lock"}
    rolls = [e for e in entries if e["kind"] == "roll" and e["roller"] != "gm"]
    for roll in rolls:
        assert roll["roller"] in locks[roll["epoch"]], (roll["seq"], locks[roll["epoch"]])
    return len(rolls)


def _trial(gm_side: Server, alice_side: Server, bob_side: Server) -> list[dict[str, Any]]:
    """The new-GM trial's evening: the GM rolls in secret as an NPC before anyone is
    there; Alice joins, then Bob after Alice's first roll; everyone rolls. Each
    player's page sends its seed when it opens, and again only when an epoch is
    locked without it (as room.js does). The GM does nothing for fairness."""
    with gm_side.client() as c:
        made = c.post("/api/rooms", json={"name": "Trial", "system": "gurps"}).json()
    room, gm = made["room"], made["token"]
    _roll(gm_side, room, gm, "gurps check 12", "gm")  # epoch 1 locks with no seed
    _, alice = _join(alice_side, room, made["invite"], "Alice")
    first = _as_page(alice_side, room, alice, "alice-seed-0001!")
    assert first.status_code == 201 and first.json()["epoch"] == 2  # rolled over
    _roll(alice_side, room, alice, "3d6")
    _roll(gm_side, room, gm, "1d20", "blind")
    _, bob = _join(bob_side, room, made["invite"], "Bob")
    late = _as_page(bob_side, room, bob, "bob-seed-000002!")
    assert late.status_code == 201 and late.json()["epoch"] == 3  # epoch 2 was locked
    again = _as_page(alice_side, room, alice, "alice-seed-0003!")  # epoch 3 lacks hers
    assert again.status_code == 201 and again.json()["epoch"] == 3
    assert _as_page(alice_side, room, alice, "alice-seed-0004!").status_code == 409
    for side, token, command in [
        (bob_side, bob, "gurps check 10"),
        (alice_side, alice, "4dF"),
        (gm_side, gm, "2d6"),
        (bob_side, bob, "1d6"),
    ]:
        _roll(side, room, token, command)
    with gm_side.client(gm) as c:  # the GM closes at the end of the evening
        assert c.post(f"/api/rooms/{room}/close", json={"declassify": True}).status_code == 201
    return _export(gm_side, room, gm)


def _check_trial(entries: list[dict[str, Any]]) -> Report:
    assert each_players_roll_holds_their_seed(entries) == 4
    closes = [e for e in entries if e["kind"] == "close"]
    assert [(e["epoch"], e.get("by")) for e in closes] == [(1, "server"), (2, "server"), (3, None)]
    assert all(e["seeds"]["secret"] is None for e in closes[:2])  # the GM declassifies
    # Issue 67 §4: the GM's close with declassify covers every epoch the server closed
    # itself, first; so no roll is left waiting for a seed to be revealed.
    declassified = [e["epoch"] for e in entries if e["kind"] == "declassify"]
    assert declassified == [1, 2]
    last = next(e["seq"] for e in closes if e["epoch"] == 3)
    assert all(e["seq"] < last for e in entries if e["kind"] == "declassify")
    report = verify(entries)
    assert report.ok, report.text()
    assert all(epoch.waiting == 0 for epoch in report.epochs.values()), report.text()
    # Only the GM's first roll, before anyone joined, was mixed with no player seed.
    assert report.unseeded == {"gm": 1} and report.unprovable_players == 0
    assert "WARNING: 1 roll had no player seed in the mix" in report.text()
    assert "(by the GM 1)" in report.text()
    return report


def test_the_trial_flow_mixes_every_players_seed(server: Server) -> None:
    _check_trial(_trial(server, server, server))


def test_the_trial_flow_on_two_servers(
    postgres: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The same evening on PostgreSQL, the GM and Bob on one server, Alice on another:
    each rollover is one transaction under the room's row lock, whoever serves it."""
    db = fresh_db(postgres, tmp_path_factory.mktemp("trial-pair"))
    with running(db) as a, running(db) as b:
        _check_trial(_trial(a, b, a))


def test_verify_names_unprovable_rolls_and_require_seeds_refuses_them(
    table: Table, tmp_path: Path
) -> None:
    """No player sent a seed: every roll is unprovable, the report says how many and
    whose, and ``--require-seeds`` exits 1 for the players' rolls (0 without it)."""
    for who, command in [("gm", "3d6"), ("alice", "1d20"), ("alice", "2d6"), ("bob", "4dF")]:
        assert table.roll(who, command).status_code == 201
    assert call(table, "gm", "POST", "/close", json={"declassify": True}).status_code == 201
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in table.export("gm")) + "\n")
    report = verify(table.export("gm"))
    assert report.unseeded == {"gm": 1, table.ids["alice"]: 2, table.ids["bob"]: 1}
    assert report.unprovable_players == 3

    def cli(*extra: str) -> subprocess.CompletedProcess[str]:
        return zygote.run(["verify", str(path), *extra])  # (forked)

    plain = cli()
    assert plain.returncode == 0, plain.stderr
    assert "WARNING: 4 rolls had no player seed in the mix: not provable" in plain.stdout
    assert f"Alice ({table.ids['alice']}) 2" in plain.stdout and "the GM 1" in plain.stdout
    strict = cli("--require-seeds")
    assert strict.returncode == 1
    assert "3 rolls by players had no player seed" in strict.stderr
    as_json = json.loads(cli("--json").stdout)["not_provable"]
    assert as_json["rolls"] == 4 and as_json["by_players"] == 3
    assert as_json["names"][table.ids["alice"]] == "Alice"


def test_require_seeds_passes_a_seeded_session(table: Table, tmp_path: Path) -> None:
    for who, seed in [("alice", "a" * 16), ("bob", "b" * 16)]:
        assert call(table, who, "POST", "/seed", json={"seed": seed}).status_code == 201
    for who in ("alice", "bob", "alice"):
        assert table.roll(who, "3d6").status_code == 201
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in table.export("alice")) + "\n")
    done = zygote.run(["verify", str(path), "--require-seeds"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stdout


# ------------------------------------------------------- a removed member is out


def _head(table: Table) -> int:
    return int(table.log("gm")[-1]["seq"])


@pytest.mark.alone  # timed: the socket closed within 1 s
def test_removal_closes_a_socket_that_follows_from_past_the_head(table: Table) -> None:
    """The review's attack: ``after`` one past the head, so the ``leave`` entry is at
    ``after`` and is never sent. The socket still closes with 4401 at once, and the
    next public roll never reaches it."""
    from websockets.sync.client import connect

    after = _head(table) + 1
    url = f"{table.server.ws_base}/api/rooms/{table.room}/live?after={after}"
    with connect(url) as ws:
        ws.send(json.dumps({"token": table.tokens["alice"]}))
        time.sleep(0.3)  # the socket follows the room
        gone = call(table, "gm", "DELETE", f"/members/{table.ids['alice']}")
        assert gone.status_code == 201 and gone.json()["seq"] == after
        assert table.roll("bob", "3d6").status_code == 201  # the next public roll
        frames = []
        began = time.monotonic()
        with pytest.raises(Exception):  # noqa: B017 - the close ends the socket
            while True:
                frames.append(json.loads(ws.recv(timeout=3)))
        assert time.monotonic() - began < 1.0 and ws.close_code == 4401
        assert frames == []  # not the roll, nor anything else


@pytest.mark.alone  # timed: the socket closed within 1 s
def test_removal_closes_a_far_ahead_socket_on_the_other_server(
    postgres: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from websockets.sync.client import connect

    db = fresh_db(postgres, tmp_path_factory.mktemp("removal-ahead"))
    with running(db) as a, running(db) as b:
        table = make_table(a)
        url = f"{b.ws_base}/api/rooms/{table.room}/live?after={2**40}"
        with connect(url) as ws:
            ws.send(json.dumps({"token": table.tokens["alice"]}))
            time.sleep(0.3)  # the socket follows the room on B
            gone = call(table, "gm", "DELETE", f"/members/{table.ids['alice']}")
            assert gone.status_code == 201, gone.text
            closes_within_a_second(ws)


# --------------------------------------------- a refused roll previews nothing


def test_a_refused_roll_uses_no_seq_and_names_no_die(table: Table) -> None:
    head = _head(table)
    big = table.roll("alice", "1d20*1000000000*1000000000")
    assert big.status_code == 422
    assert "could reach 20,000,000,000,000,000,000" in big.json()["error"]
    assert _head(table) == head  # refused before any draw: nothing to preview
    for vis in ("blind", "gm", "public"):
        blind = table.roll("alice", "1d2*1000000000*5000000", vis)
        assert blind.status_code == 422, blind.text  # whatever the die
    zero = table.roll("alice", "10/(1d2-1)", "blind")
    assert zero.status_code == 422 and "can come to 0" in zero.json()["error"]


def test_a_roll_refused_after_drawing_is_logged_and_verifies(table: Table) -> None:
    """``33d6r<6`` may reroll past the room's 200 dice or not: either way the roll is
    logged (201), its seq used up; a refused one carries its draws, and the export
    replays its refusal."""
    answers = []
    for i in range(16):  # each costs its member about 11 requests (200 dice): paced
        answers.append(table.roll(("alice", "bob")[i % 2], "33d6r<6 # try 0", "blind"))
        time.sleep(0.15)
    assert {a.status_code for a in answers} == {201}
    assert all(a.json()["redacted"] is True for a in answers)  # the roller learns nothing
    rolls = [e for e in table.log("gm") if e["kind"] == "roll"]
    refused = [e for e in rolls if "refused" in e]
    assert refused and len(refused) < len(rolls)  # about half of them (p of none: 1e-5)
    assert all(len(e["draws"]) == 200 for e in refused)
    assert call(table, "gm", "POST", "/close", json={"declassify": True}).status_code == 201
    report = verify(table.export("gm"))
    assert report.ok, report.text()
    assert sum(e.verified for e in report.epochs.values()) == 16


def test_rolls_whose_odds_pass_the_rooms_budget_verify(table: Table) -> None:
    """A room computes a roll's chance within its own budget (and logs none beyond
    it); the verifier replays under the same budget, so such rolls verify."""
    for command in ("10d10!", "5d6!", "{5d6!!,5d6!!,5d6!!}kh1", "3d6"):
        made = table.roll("alice", command)
        assert made.status_code == 201, made.text
    at_least = [e["result"]["at_least"] for e in table.log("gm") if e["kind"] == "roll"]
    assert None in at_least  # 10d10! has no chance within the room's budget
    assert call(table, "gm", "POST", "/close", json={"declassify": True}).status_code == 201
    report = verify(table.export("gm"))
    assert report.ok, report.text()
    assert sum(e.verified for e in report.epochs.values()) == 4
