"""Scale-out on PostgreSQL (issue 13): two server processes on one database, live
updates between them through LISTEN/NOTIFY, and a dropped notice connection that
reconnects and catches up from the log."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import pytest

from referee.rooms.audit.verify import verify
from rooms_server import LOOPBACK_TLS, Server, Table, Watcher, fresh_db, make_table, query, running


@pytest.fixture(scope="module")
def pair(
    postgres: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Server, Server]]:
    """Two servers, A and B, in two processes, on one PostgreSQL database."""
    db = fresh_db(postgres, tmp_path_factory.mktemp("pair"))
    with running(db) as a, running(db) as b:
        yield a, b


def on(table: Table, server: Server) -> Table:
    """The same table, reached through another server."""
    return Table(server, table.room, table.invite, table.tokens, table.ids)


def listeners(db: str) -> list[int]:
    """The backend pids of the servers' notice connections."""
    rows = query(
        db, "SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'referee-listen:%'"
    )
    return sorted(r[0] for r in rows)


def test_every_subscriber_on_either_server_gets_every_entry_in_order(
    pair: tuple[Server, Server],
) -> None:
    a, b = pair
    table = make_table(a, "Two servers")
    via = {"A": table, "B": on(table, b)}
    start = max(e["seq"] for e in table.log("gm"))
    watchers = {
        (who, name): Watcher(server, table.room, table.tokens[who])
        for who in ("gm", "alice", "bob")
        for name, server in (("A", a), ("B", b))
    }
    try:

        def roll(i: int) -> int:
            t = via["AB"[i % 2]]
            who = ("gm", "alice", "bob")[i % 3]
            r = t.roll(who, "3d6", "gm" if i % 4 == 0 else "public")
            assert r.status_code == 201, r.text
            return int(r.json()["seq"])

        with ThreadPoolExecutor(8) as pool:
            seqs = list(pool.map(roll, range(80)))
        log = table.log("gm")
        assert [e["seq"] for e in log] == list(range(len(log)))  # gapless, unique
        assert sorted(seqs) == [e["seq"] for e in log if e["kind"] == "roll"]
        assert min(seqs) > start
        last = log[-1]["seq"]
        for key, w in watchers.items():
            assert w.wait_for(last), (key, w.top, last)
            assert w.seqs() == list(range(0, last + 1)), key  # in order, no gap, no duplicate
            assert w.error is None
        # Each member got their own view, whichever server they were on.
        secret = {e["seq"] for e in table.log("gm") if e.get("visibility") == "gm"}
        for (who, _), w in watchers.items():
            for frame in w.frames:
                if frame["seq"] in secret and frame["roller"] != table.ids[who] and who != "gm":
                    assert frame.get("redacted") is True and "result" not in frame
    finally:
        for w in watchers.values():
            w.stop()


def test_a_roll_on_one_server_reaches_the_other_within_a_second(
    pair: tuple[Server, Server],
) -> None:
    a, b = pair
    table = make_table(a, "Latency")
    top = max(e["seq"] for e in table.log("gm"))
    watcher = Watcher(a, table.room, table.tokens["alice"])
    try:
        assert watcher.wait_for(top)
        delays = []
        for _ in range(10):
            sent = time.monotonic()
            seq = on(table, b).roll("bob", "1d20").json()["seq"]
            assert watcher.wait_for(seq, timeout=5)
            delays.append(time.monotonic() - sent)
        assert max(delays) < 1.0, delays
    finally:
        watcher.stop()


def test_a_dropped_notice_connection_reconnects_and_catches_up(
    pair: tuple[Server, Server],
) -> None:
    a, b = pair
    table = make_table(a, "Dropped")
    before = listeners(a.db)
    assert len(before) == 2
    watcher = Watcher(a, table.room, table.tokens["alice"])
    stop = threading.Event()
    killed: list[int] = []

    def drop_listeners() -> None:  # again and again while B takes rolls
        while not stop.is_set():
            rows = query(
                a.db,
                "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE application_name LIKE 'referee-listen:%'",
            )
            killed.extend(r[0] for r in rows if r[1])
            time.sleep(0.15)

    dropper = threading.Thread(target=drop_listeners)
    dropper.start()
    try:
        seqs = []
        for _ in range(40):
            r = on(table, b).roll("bob", "2d6")
            assert r.status_code == 201, r.text
            seqs.append(r.json()["seq"])
            time.sleep(0.01)
    finally:
        stop.set()
        dropper.join()
    try:
        assert len(set(killed)) >= 4  # both servers' listeners, dropped more than once
        assert watcher.wait_for(max(seqs), timeout=20), (watcher.top, max(seqs))
        assert watcher.seqs() == list(range(0, max(seqs) + 1))
        deadline = time.monotonic() + 20
        while len(listeners(a.db)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        after = listeners(a.db)
        assert len(after) == 2 and not set(after) & set(killed)  # both reconnected
        # A roll after the storm arrives as usual.
        seq = on(table, b).roll("bob", "1d6").json()["seq"]
        assert watcher.wait_for(seq, timeout=5)
    finally:
        watcher.stop()


def test_dropped_pool_connections_cost_no_request(pair: tuple[Server, Server]) -> None:
    """Both servers' pooled connections are dropped (as by a database restart); once
    they have rested, each is tested before use, and no roll or read fails."""
    a, b = pair
    table = make_table(a, "Pool")
    for t in (table, on(table, b)):  # each server knows the room (and its head)
        assert t.roll("alice", "1d6").status_code == 201
    rows = query(
        a.db,
        "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity"
        " WHERE application_name LIKE 'referee:%'",
    )
    assert len(rows) >= 2 and all(killed for _pid, killed in rows), rows
    time.sleep(1.0)
    for t in (table, on(table, b)):
        for who in ("gm", "alice", "bob"):
            r = t.roll(who, "2d6")
            assert r.status_code == 201, r.text
        assert len(t.log("gm")) >= 7
    assert not set(r[0] for r in rows) & set(
        r[0] for r in query(a.db, "SELECT pid FROM pg_stat_activity")
    )


def test_rolls_through_both_servers_while_epochs_close_all_verify(
    pair: tuple[Server, Server],
) -> None:
    """Each server writes a room's rolls after the head it remembers, and the other
    server keeps moving that head on (rolls, and epochs closed between them): every
    roll must still be made on its own seq and the epoch current then, which the
    export's verification checks, roll by roll, from the declassified seeds."""
    a, b = pair
    table = make_table(a, "Epochs on both")
    via = [table, on(table, b)]
    stop = threading.Event()
    failures: list[str] = []

    def roll_on(t: Table, who: str) -> None:
        while not stop.is_set():
            r = t.roll(who, "3d6", "public")
            if r.status_code == 429:  # the member's rate, met on a fast machine: wait it
                time.sleep(0.1)  # out, as a page does (refused before any work is done)
            elif r.status_code != 201:
                failures.append(r.text)

    rollers = [
        threading.Thread(target=roll_on, args=(via[i % 2], ("alice", "bob")[i // 2]))
        for i in range(4)
    ]
    for thread in rollers:
        thread.start()
    try:
        for i in range(6):
            time.sleep(0.15)
            with via[i % 2].client("gm") as gm:
                closed = gm.post(f"/api/rooms/{table.room}/close", json={"declassify": True})
                assert closed.status_code == 201, closed.text
    finally:
        stop.set()
        for thread in rollers:
            thread.join()
    assert failures == []
    with via[1].client("gm") as gm:
        assert gm.post(f"/api/rooms/{table.room}/close", json={"declassify": True}).is_success
        lines = gm.get(f"/api/rooms/{table.room}/export").text.splitlines()
    report = verify([json.loads(line) for line in lines])
    assert report.ok, report.text()
    assert len(report.epochs) == 8
    rolled = [e for e in report.epochs.values() if e.rolls]
    assert len(rolled) >= 5 and sum(e.rolls for e in rolled) >= 40
    assert all(e.verified == e.rolls for e in report.epochs.values())


def test_two_servers_and_more_rooms_keep_each_log_gapless(
    pair: tuple[Server, Server], tmp_path: Path
) -> None:
    a, b = pair
    tables = [make_table(a, f"Room {i}") for i in range(4)]

    def roll(i: int) -> tuple[str, int]:
        t = tables[i % 4]
        t = t if i % 2 else on(t, b)
        r = t.roll("alice", "1d6")
        assert r.status_code == 201, r.text
        return t.room, int(r.json()["seq"])

    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(roll, range(120)))
    with ExitStack():
        for t in tables:
            log = t.log("gm")
            assert [e["seq"] for e in log] == list(range(len(log)))
            mine = sorted(s for room, s in got if room == t.room)
            assert mine == [e["seq"] for e in log if e["kind"] == "roll"]


def test_rolls_at_random_through_both_servers_to_shared_rooms_all_succeed(
    pair: tuple[Server, Server],
) -> None:
    """Many rooms, each rolled in through both servers at once: a server's batch then
    mixes rooms whose heads it knows (written in one statement) with rooms the other
    server moved on (written again in a transaction). Each entry is inserted once:
    no roll fails, and each log is gapless with every answered seq in it once."""
    import asyncio
    import random

    import httpx

    a, b = pair
    tables = [make_table(a, f"Shared {i}") for i in range(16)]
    pick = random.Random(29)
    plan = [
        (pick.choice(tables), pick.choice((a, b)).base, pick.choice(("gm", "alice", "bob")))
        for _ in range(1_600)
    ]
    got: list[tuple[str, int, int]] = []

    async def poster(mine: list[tuple[Table, str, str]]) -> None:
        async with httpx.AsyncClient(timeout=60, verify=LOOPBACK_TLS) as c:
            for t, base, who in mine:
                r = await c.post(
                    f"{base}/api/rooms/{t.room}/rolls",
                    json={"command": "1d6"},
                    headers={"authorization": f"Bearer {t.tokens[who]}"},
                )
                seq = int(r.json()["seq"]) if r.status_code == 201 else -1
                got.append((t.room, r.status_code, seq))

    async def main() -> None:
        await asyncio.gather(*(poster(plan[i::16]) for i in range(16)))

    asyncio.run(main())
    assert [s for _, s, _ in got if s != 201] == []
    for t in tables:
        log = t.log("gm")
        assert [e["seq"] for e in log] == list(range(len(log)))
        mine = sorted(seq for room, _, seq in got if room == t.room)
        assert mine == [e["seq"] for e in log if e["kind"] == "roll"]
