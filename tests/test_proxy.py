"""The rooms behind nginx, configured exactly as referee recommends
(docs/rooms/scale.md, "Behind nginx"; issue 43, ``referee.rooms.serving.nginx``): two
servers of one process each on one PostgreSQL, Debian's nginx in front with a
consistent hash of the room in the path and keep-alive upstreams. Every call of a
room, and its live socket, reaches one server; the rooms spread over both; rolls, the
log and the live socket work through the proxy, and who sees what is unchanged."""

from __future__ import annotations

from pathlib import Path

from referee.rooms.serving.nginx import nginx, routed
from rooms_server import Loopback, Server, fresh_db, live, make_table, running


def test_rooms_behind_nginx_as_the_docs_configure_it(postgres: str, tmp_path: Path) -> None:
    db = fresh_db(postgres, tmp_path)
    prefix = tmp_path / "nginx"
    with (
        running(db, Loopback, proxy="127.0.0.1") as one,
        running(db, Loopback, proxy="127.0.0.1") as two,
    ):
        upstreams = [s.base.removeprefix("http://") for s in (one, two)]
        with nginx(upstreams, prefix) as base:
            front = Server(base, db)
            tables = [make_table(front, f"Table {i}") for i in range(8)]
            for table in tables:
                for i in range(3):
                    answer = table.roll("alice", f"3d6+{i}")
                    assert answer.status_code == 201, answer.text
            # A consistent hash puts eight random rooms on one server about 1 time in
            # 100: more rooms, until both servers have some (48 rooms all on one: under
            # 1 in 10**10). nginx writes its access log unbuffered.
            while len(set().union(*routed(prefix).values())) < 2 and len(tables) < 48:
                tables.append(make_table(front, f"Table {len(tables)}"))
                assert tables[-1].roll("alice", "3d6").status_code == 201
            table = tables[0]
            logged = table.log("bob")
            frames = live(table, "bob", after=-1, count=len(logged))  # upgraded through nginx
            assert [f["seq"] for f in frames] == [e["seq"] for e in logged]
            assert table.roll("gm", "1d20", "gm").status_code == 201
            (secret,) = live(table, "bob", after=len(logged) - 1, count=1)
            assert secret["redacted"] is True  # the proxy changes nothing of who sees what
    rooms = routed(prefix)
    assert {t.room for t in tables} <= set(rooms)
    assert all(len(upstreams_used) == 1 for upstreams_used in rooms.values()), rooms
    assert len(set().union(*rooms.values())) == 2, rooms  # the rooms on both servers
