"""Hostile clients (issue 13), on SQLite and on PostgreSQL: every path of a room
refuses another room's tokens; the engine's abuse list, oversized rolls, socket
floods and sockets that never read are each refused or cut off; and while all of
that runs at once, a bystander room keeps rolling."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from abuse import ABUSE
from attacker import NeverReads, close_code
from referee.rooms.routes.api import cookie_name
from referee.rooms.state import RoomsLimits
from rooms_server import LOOPBACK_TLS, Server, Watcher, fresh_db, make_table, running


class Hostile(RoomsLimits):
    send_wait = 2.0
    sockets = 8


@pytest.fixture(scope="module")
def server(db_url: str) -> Iterator[Server]:
    with running(db_url, Hostile) as s:
        yield s


BODIES = {
    "/api/rooms/{room}/members": {"name": "Mallory", "invite": "x" * 22},
    "/api/rooms/{room}/seed": {"seed": "0123456789abcdef"},
    "/api/rooms/{room}/rolls": {"command": "3d6", "visibility": "public"},
    "/api/rooms/{room}/reveal": {"seq": 0},
    "/api/rooms/{room}/close": {"declassify": True},
    "/api/rooms/{room}/declassify": {"epoch": 1},
}


def test_a_token_of_one_room_is_refused_on_every_path_of_another(server: Server) -> None:
    mine, theirs = make_table(server, "Mine"), make_table(server, "Theirs")
    with server.client() as c:
        paths = c.get("/api/openapi.json").json()["paths"]
    room_paths = [(p, m) for p, ops in paths.items() if "{room}" in p for m in ops]
    assert len(room_paths) >= 8  # members, seed, rolls, reveal, close, declassify, log, export
    for who in ("gm", "alice"):
        with mine.client(who) as c:
            for path, method in room_paths:
                if path.endswith("/members"):
                    continue  # joining takes an invite, not a token: below
                r = c.request(
                    method.upper(), path.replace("{room}", theirs.room), json=BODIES.get(path)
                )
                assert r.status_code in (401, 403), (who, method, path, r.status_code, r.text)
                assert set(r.json()) == {"error"}
    with server.client() as c:  # an invite of room A does not open room B
        r = c.post(
            f"/api/rooms/{theirs.room}/members", json={"name": "Mallory", "invite": mine.invite}
        )
        assert r.status_code == 403
    # The page, with room A's token in room B's cookie; the socket, with room A's token.
    with httpx.Client(base_url=server.base, verify=LOOPBACK_TLS) as c:
        c.cookies.set(cookie_name(theirs.room), mine.tokens["gm"])
        assert c.get(f"/rooms/{theirs.room}").status_code in (401, 403)
        c.cookies.clear()
        c.cookies.set(cookie_name(mine.room), mine.tokens["gm"])
        assert c.get(f"/rooms/{theirs.room}").status_code in (401, 403)
    assert close_code(server.base, theirs.room, mine.tokens["alice"]) == 4401


def test_the_abuse_list_gets_the_engines_words(server: Server) -> None:
    table = make_table(server, "Abuse")
    for text, words in ABUSE:
        r = table.roll("alice", f"roll -- {text}")  # "--": some begin with "-"
        assert r.status_code == 422, (text, r.text)
        assert words in r.json()["error"], (text, r.json())


@pytest.mark.alone  # timed: the rate's refill, 1 request a second
def test_a_roll_in_a_room_draws_at_most_two_hundred_dice_and_pays_for_them(
    db_url: str, tmp_path: Path
) -> None:
    class Slow(RoomsLimits):
        rate = 1.0
        burst = 30.0

    with running(fresh_db(db_url, tmp_path), Slow) as server:
        table = make_table(server, "Big rolls")
        for too_many in ("201d6", "190d6!>2", "2d6+199d6"):  # explosions count
            r = table.roll("alice", too_many)
            assert r.status_code == 422, (too_many, r.text)
            assert "at most 200 dice" in r.json()["error"]
        assert table.roll("alice", "200d6").status_code == 201
        # Each roll of 200 dice costs 1 + 10 requests of Bob's 30: the fourth waits.
        codes = [table.roll("bob", "200d1000000").status_code for _ in range(4)]
        assert codes == [201, 201, 201, 429], codes
        assert table.roll("gm", "3d6").status_code == 201  # others are not charged


def test_a_member_may_hold_only_so_many_sockets(server: Server) -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    table = make_table(server, "Flood")
    url = f"{server.ws_base}/api/rooms/{table.room}/live"
    held = []
    try:
        for _ in range(Hostile.sockets):
            ws = connect(url, open_timeout=10).__enter__()
            held.append(ws)
            ws.send(json.dumps({"token": table.tokens["bob"]}))
            assert json.loads(ws.recv(timeout=10))["seq"] == 0
        assert close_code(server.base, table.room, table.tokens["bob"]) == 4429
        assert close_code(server.base, table.room, table.tokens["alice"]) is None  # not Alice
        held.pop().close()
        deadline = time.monotonic() + 10
        while close_code(server.base, table.room, table.tokens["bob"]) == 4429:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        for ws in held:
            try:
                ws.close()
            except ConnectionClosed:
                pass


def test_a_socket_that_never_reads_is_let_go_and_the_others_go_on(
    db_url: str, tmp_path: Path
) -> None:
    class Generous(Hostile):  # the GM may roll big and fast here: the send limit is tested
        rate = 1e6  # 200 rolls of 200 dice cost 2,200 requests (draws_per_request)
        burst = 1e6
        address_rate = 1e6
        address_burst = 1e6

    with running(fresh_db(db_url, tmp_path), Generous) as server:
        table = make_table(server, "Slowloris")
        slow = NeverReads(server.base, table.room, table.tokens["bob"])
        watcher = Watcher(server, table.room, table.tokens["alice"])
        try:
            top = 0
            with table.client("gm") as gm:
                # About 8 MB of frames that Bob's socket never takes: more than the
                # kernel buffers between them (the server's send buffer is at most 4 MB).
                for _ in range(200):
                    r = gm.post(f"/api/rooms/{table.room}/rolls", json={"command": "200d1000000"})
                    assert r.status_code == 201, r.text
                    top = r.json()["seq"]
            assert watcher.wait_for(top, timeout=30)  # Alice got everything
            assert watcher.seqs() == list(range(top + 1))
            time.sleep(Generous.send_wait + 1)
            assert slow.closed_by_server(timeout=30)
            # Ended by the send limit, not by uvicorn's keepalive (its 1011 close frame
            # would follow the queued frames); the 4408 close frame cannot get past them.
            assert b"keepalive ping timeout" not in slow.tail, slow.tail[-64:]
        finally:
            watcher.stop()


@pytest.mark.alone  # timed: the bystander's p99 under the attack
def test_under_attack_a_bystander_room_keeps_rolling(server: Server) -> None:
    """The attack runs in a process of its own (so that its threads do not slow the
    bystander's client here), from 127.0.0.1; the bystander's table rolls from
    127.0.0.2, as another household would."""
    bystander = make_table(server, "Bystander")
    target = make_table(server, "Target")
    config = {
        "base": server.base,
        "room": target.room,
        "tokens": target.tokens,
        "stranger": bystander.tokens["bob"],
        "seconds": 120.0,
    }
    attack = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("attacker.py")), json.dumps(config)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    latencies = []
    try:
        time.sleep(1.0)  # the attack is under way
        with httpx.Client(
            base_url=server.base,
            headers={"authorization": f"Bearer {bystander.tokens['alice']}"},
            transport=httpx.HTTPTransport(local_address="127.0.0.2", verify=LOOPBACK_TLS),
            timeout=30,
        ) as c:
            for i in range(100):
                sent = time.monotonic()
                r = c.post(f"/api/rooms/{bystander.room}/rolls", json={"command": f"3d6+{i}"})
                latencies.append(time.monotonic() - sent)
                assert r.status_code == 201, r.text
                time.sleep(0.04)
        assert attack.poll() is None, "the attack ended before the bystander finished"
    finally:
        out, _ = attack.communicate(timeout=60)  # closes its stdin: it stops
    codes = {int(k): v for k, v in json.loads(out.splitlines()[-1]).items()}
    p50 = statistics.median(latencies)
    p99 = sorted(latencies)[int(0.99 * len(latencies)) - 1]
    print(f"bystander under attack: p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms")
    print(f"answers to the attackers: {codes}")
    # No server error: no HTTP 5xx, no socket closed with 1011. (Sockets closed with
    # 4403 or 4429, a foreign origin or a member over their rate, are the limits.)
    assert not [c for c in codes if 500 <= c < 600 or c == 1011], codes
    # Every attack was answered, and the flood from one address met its limit.
    assert {413, 400, 401, 403, 422, 429} <= set(codes), codes
    assert p99 < 1.0, latencies  # responsive (bench/bench_rooms.py measures it properly)
    with server.client() as c:
        assert c.get("/api/health").json() == {"ok": True}  # health is never limited
