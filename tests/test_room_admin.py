"""The GM's controls (contract v1.1, issue 28): removing a member, a new invite,
archiving, on a real server and database (SQLite and PostgreSQL), and removal across
two servers on one PostgreSQL."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from referee.rooms.audit.verify import verify
from rooms_server import Loopback, Table, fresh_db, live, make_table, running

LEAVE_KEYS = {"room", "seq", "kind", "time", "salt", "digest", "chain", "member"}
PLAIN_KEYS = {"room", "seq", "kind", "time", "salt", "digest", "chain"}


def call(table: Table, who: str, method: str, path: str, **kw: Any) -> httpx.Response:
    with table.client(who) as c:
        return c.request(method, f"/api/rooms/{table.room}{path}", **kw)


def closes_within_a_second(ws: Any) -> None:
    """The socket is closed with 4401 (a bad token) within a second."""
    began = time.monotonic()
    with pytest.raises(Exception):  # noqa: B017 - the close ends the socket
        while True:
            ws.recv(timeout=5)
    assert time.monotonic() - began < 1.0
    assert ws.close_code == 4401


def every_path(table: Table, who: str) -> list[int]:
    """The status of every call of the room that takes a token, as ``who``."""
    calls: list[tuple[str, str, dict[str, Any]]] = [
        ("GET", "/log", {}),
        ("GET", "/export", {}),
        ("GET", "/sheets", {}),
        ("POST", "/rolls", {"json": {"command": "3d6"}}),
        ("POST", "/seed", {"json": {"seed": "x" * 20}}),
        ("PUT", "/sheets/mine", {"content": b"x"}),
        ("GET", "/fight", {}),
        ("POST", "/fight", {"json": {"event": {"kind": "next"}}}),
    ]
    return [call(table, who, m, p, **kw).status_code for m, p, kw in calls]


def test_the_gm_removes_a_member(table: Table) -> None:
    assert call(table, "bob", "DELETE", f"/members/{table.ids['alice']}").status_code == 403
    assert call(table, "gm", "DELETE", "/members/gm").status_code == 422
    assert call(table, "gm", "DELETE", "/members/p:nobody").status_code == 404
    from websockets.sync.client import connect

    url = f"{table.server.ws_base}/api/rooms/{table.room}/live"
    with connect(url) as ws:
        ws.send(json.dumps({"token": table.tokens["alice"]}))
        ws.recv(timeout=10)  # following the room
        gone = call(table, "gm", "DELETE", f"/members/{table.ids['alice']}")
        assert gone.status_code == 201, gone.text
        entry = gone.json()
        assert entry["kind"] == "leave" and entry["member"] == table.ids["alice"]
        assert set(entry) == LEAVE_KEYS
        closes_within_a_second(ws)
    assert set(every_path(table, "alice")) == {401}
    assert call(table, "gm", "DELETE", f"/members/{table.ids['alice']}").status_code == 409
    # Bob still plays; the log says who left, for everyone.
    assert table.roll("bob", "3d6").status_code == 201
    assert any(e["kind"] == "leave" for e in table.log("bob"))


def test_a_new_invite(table: Table) -> None:
    assert call(table, "alice", "POST", "/invite", json={}).status_code == 403
    made = call(table, "gm", "POST", "/invite", json={})
    assert made.status_code == 201, made.text
    new = made.json()["invite"]
    assert new != table.invite
    entry = table.log("gm")[-1]
    assert entry["kind"] == "invite" and set(entry) == PLAIN_KEYS  # never the invite
    with table.server.client() as c:
        old = c.post(
            f"/api/rooms/{table.room}/members", json={"name": "Eve", "invite": table.invite}
        )
        assert old.status_code == 403
        ok = c.post(f"/api/rooms/{table.room}/members", json={"name": "Carol", "invite": new})
        assert ok.status_code == 201


def test_an_archived_room_takes_no_writes(table: Table) -> None:
    with table.client("alice") as c:
        assert c.post(f"/api/rooms/{table.room}/seed", json={"seed": "s" * 20}).status_code == 201
    secret = table.roll("gm", "gurps check 12", "gm").json()
    assert table.roll("alice", "3d6").status_code == 201
    assert call(table, "alice", "POST", "/archive", json={}).status_code == 403
    archived = call(table, "gm", "POST", "/archive", json={})
    assert archived.status_code == 201, archived.text
    assert archived.json()["kind"] == "archive" and set(archived.json()) == PLAIN_KEYS
    writes = [
        table.roll("alice", "3d6"),
        table.roll("gm", "3d6"),
        call(table, "bob", "POST", "/seed", json={"seed": "t" * 20}),
        call(table, "gm", "POST", "/reveal", json={"seq": secret["seq"]}),
        call(table, "gm", "POST", "/close", json={"declassify": True}),
        call(table, "gm", "POST", "/declassify", json={"epoch": 1}),
        call(table, "gm", "POST", "/invite", json={}),
        call(table, "gm", "POST", "/archive", json={}),
        call(table, "gm", "DELETE", f"/members/{table.ids['bob']}"),
        call(table, "gm", "PUT", "/sheets/orc", content=b'system = "gurps"\nname = "Orc"\n'),
        call(
            table,
            "gm",
            "POST",
            "/fight",
            json={"event": {"kind": "add", "combatant": "orc", "values": {}}},
        ),  # fmt: skip
    ]
    for r in writes:
        assert r.status_code == 409, (r.request.method, r.request.url, r.text)
        assert "archived" in r.json()["error"]
    with table.server.client() as c:
        joined = c.post(
            f"/api/rooms/{table.room}/members", json={"name": "Late", "invite": table.invite}
        )
    assert joined.status_code == 409
    # Reads still work, and the log verifies (its last entry is the archive).
    log = table.export("gm")
    assert log[-1]["kind"] == "archive"
    assert table.log("alice")[-1]["kind"] == "archive"
    report = verify(log)
    assert report.ok, report.text()


def test_removal_reaches_the_other_server(
    postgres: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Two servers on one PostgreSQL: the GM removes, through A, a member whose socket
    is open on B; B closes it with 4401 within a second, and the member's token gets
    401 on both. A new invite through A leaves the old one refused on B."""
    from websockets.sync.client import connect

    db = fresh_db(postgres, tmp_path_factory.mktemp("admin-pair"))
    with running(db) as a, running(db) as b:
        table = make_table(a)
        on_b = Table(b, table.room, table.invite, table.tokens, table.ids)
        assert table.roll("alice", "3d6").status_code == 201
        assert on_b.roll("alice", "3d6").status_code == 201  # B knows her token now
        url = f"{b.ws_base}/api/rooms/{table.room}/live"
        with connect(url) as ws:
            ws.send(json.dumps({"token": table.tokens["alice"]}))
            ws.recv(timeout=10)
            assert call(table, "gm", "DELETE", f"/members/{table.ids['alice']}").status_code == 201
            closes_within_a_second(ws)
        assert set(every_path(table, "alice")) == {401}
        assert set(every_path(on_b, "alice")) == {401}
        assert live(on_b, "bob", count=1)[0]["seq"] == 0  # Bob still follows on B
        assert call(table, "gm", "POST", "/invite", json={}).status_code == 201
        with b.client() as c:
            old = c.post(
                f"/api/rooms/{table.room}/members", json={"name": "Eve", "invite": table.invite}
            )
        assert old.status_code == 403


class Slow(Loopback):
    """Five requests a second for each member, in bursts of five."""

    rate = 5.0
    burst = 5.0


def test_a_member_gets_each_servers_rate(
    postgres: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Member rate limits are per server process (documented in the README): with two
    servers on one database, a member who spreads requests over both gets up to twice
    the rate, and no more."""
    db = fresh_db(postgres, tmp_path_factory.mktemp("rate-pair"))
    with running(db, Slow) as a, running(db, Slow) as b:
        table = make_table(a)
        ok = 0
        clients = [s.client(table.tokens["alice"]) for s in (a, b)]
        began = time.monotonic()
        try:
            while time.monotonic() - began < 1.0:
                for c in clients:
                    ok += c.get(f"/api/rooms/{table.room}/log").status_code == 200
        finally:
            for c in clients:
                c.close()
        took = time.monotonic() - began
    one_server = Slow.burst + Slow.rate * took
    assert one_server < ok <= 2 * one_server + 2, (ok, one_server)
