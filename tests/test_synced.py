"""SQLite's batches of appends run whole in the writer's thread (rooms.db.synced)."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from referee.rooms.db.store import Store, sqlite_url
from referee.rooms.db.synced import Chooser, Conn, SyncReader, SyncWriter

_T = sa.table("t", sa.column("n", sa.Integer))


def _writer(tmp_path: Path) -> SyncWriter:
    writer = SyncWriter(sqlite_url(tmp_path / "w.sqlite3"))
    with writer.engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE t (n INTEGER)")
    return writer


def _count(writer: SyncWriter) -> int:
    with writer.engine.connect() as conn:
        return int(conn.scalar(sa.text("SELECT count(*) FROM t")))


async def _insert(conn: Conn, n: int, fail: bool = False) -> str:
    await conn.execute(sa.insert(_T), [{"n": n}])
    if fail:
        raise ValueError("no")
    assert await conn.scalar(sa.text("SELECT count(*) FROM t")) >= 1  # sees its own write
    return threading.current_thread().name


def test_a_batch_commits_in_the_writers_thread_and_fails_whole(tmp_path: Path) -> None:
    writer = _writer(tmp_path)

    async def go() -> str:
        return await writer.run(_insert, 1)

    assert asyncio.run(go()).startswith("referee-sqlite-writer")
    assert _count(writer) == 1

    async def fails() -> None:
        await writer.run(_insert, 2, True)

    with pytest.raises(ValueError, match="no"):
        asyncio.run(fails())
    assert _count(writer) == 1  # rolled back
    writer.close()


def test_a_batch_that_waits_on_anything_is_refused_and_rolled_back(tmp_path: Path) -> None:
    writer = _writer(tmp_path)

    async def waits(conn: Conn) -> None:
        await conn.execute(sa.insert(_T), [{"n": 3}])
        await asyncio.sleep(0)  # suspends: not allowed in the writer's thread

    async def go() -> None:
        await writer.run(waits)

    with pytest.raises(RuntimeError, match="waited"):
        asyncio.run(go())
    assert _count(writer) == 0
    writer.close()


def test_the_stores_appends_on_sqlite_go_through_the_writer(tmp_path: Path) -> None:
    """The store's appends on SQLite are written by the writer's connection (each
    batch on it), and read back through the async engine's."""
    seen: list[str] = []

    async def go() -> list[dict[str, Any]]:
        store = await Store.open(sqlite_url(tmp_path / "rooms.sqlite3"))
        assert store.synced is not None
        sa.event.listen(store.synced.engine, "before_cursor_execute", lambda *a: seen.append(a[2]))
        room, _token, _invite, _made = await store.create_room("T", "gurps")
        got = await asyncio.gather(
            *(store.append(room, "note", {"text": str(i)}) for i in range(5))
        )
        back = await store.entries(room)
        await store.close()
        assert [e["seq"] for e in back][-5:] == [e["seq"] for e in got]
        return got

    got = asyncio.run(go())
    assert [e["text"] for e in got] == ["0", "1", "2", "3", "4"]
    assert sum(s.lstrip().upper().startswith("INSERT INTO ENTRIES") for s in seen) >= 1


async def _read(conn: Conn) -> tuple[int, str]:
    return int(
        await conn.scalar(sa.text("SELECT count(*) FROM t"))
    ), threading.current_thread().name


def test_a_read_runs_in_the_readers_thread_and_sees_what_was_committed(tmp_path: Path) -> None:
    """Issue 72 §4: the reader's thread reads beside the writer (WAL), each read a
    fresh view: what the writer committed, never what it has not."""
    writer = _writer(tmp_path)
    reader = SyncReader(writer.engine.url)

    async def go() -> list[tuple[int, str]]:
        first = await reader.run(_read)
        await writer.run(_insert, 1)
        return [first, await reader.run(_read)]

    (before, thread), (after, _) = asyncio.run(go())
    assert thread.startswith("referee-sqlite-reader") and (before, after) == (0, 1)

    async def waits(conn: Conn) -> None:
        await asyncio.sleep(0)

    async def refused() -> None:
        await reader.run(waits)

    with pytest.raises(RuntimeError, match="waited"):
        asyncio.run(refused())
    reader.close()
    writer.close()


def test_the_fight_s_events_and_reads_on_sqlite_take_one_hop_each(tmp_path: Path) -> None:
    """A fight event's transaction runs in the writer's thread, the fight's reads in the
    reader's (one hop each; :meth:`.appends.Appends._transaction` and ``_reading``),
    and what one writes the other reads."""
    seen: dict[str, list[str]] = {"writer": [], "reader": []}

    async def go() -> Any:
        store = await Store.open(sqlite_url(tmp_path / "rooms.sqlite3"))
        assert store.synced is not None and store.synced_reads is not None
        for name, engine in (("writer", store.synced.engine),
                             ("reader", store.synced_reads.engine)):  # fmt: skip
            sa.event.listen(engine, "before_cursor_execute",
                            lambda *a, name=name: seen[name].append(a[2]))  # fmt: skip
        room, _token, _invite, _made = await store.create_room("T", "gurps")
        add = {"kind": "add", "combatant": "orc", "name": "Orc", "values": {"hp": 10}}
        await store.fight_event(room, "gm", add, None, None, lambda *_: None)
        store.__dict__["_fights"].clear()  # read it again from the log
        fight = await store.fight(room)
        await store.close()
        return fight

    fight = asyncio.run(go())
    assert fight.combatants["orc"].value("hp") == 10
    assert any(s.lstrip().upper().startswith("INSERT INTO ENTRIES") for s in seen["writer"])
    assert any("FROM entries" in s for s in seen["reader"])


def test_a_cancelled_caller_waits_for_its_batch_to_end(tmp_path: Path) -> None:
    """Cancelling the caller does not stop the thread: the caller (which holds the
    store's lock around ``run``) returns only once the batch has committed, so no other
    writer meets SQLite's lock meanwhile."""
    writer = _writer(tmp_path)

    async def slow(conn: Conn) -> None:
        await conn.execute(sa.insert(_T), [{"n": 4}])
        time.sleep(0.3)  # in the writer's thread

    async def go() -> float:
        task = asyncio.create_task(writer.run(slow))
        await asyncio.sleep(0.05)
        task.cancel()
        began = time.perf_counter()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.perf_counter() - began

    assert asyncio.run(go()) >= 0.2  # it waited for the thread
    assert _count(writer) == 1  # and the batch committed
    writer.close()


def test_a_slow_batch_does_not_stall_the_event_loop(tmp_path: Path) -> None:
    """An attacker's roll that is slow to make (here, a maker that blocks for 0.4 s)
    holds the writer's thread, not the event loop: other requests go on meanwhile.
    (Before, a batch's rolls were made on the loop itself.)"""

    def slow(seq: int, _epoch: object) -> dict[str, Any]:
        time.sleep(0.4)
        return {"text": f"slow {seq}"}

    async def go() -> tuple[float, dict[str, Any]]:
        store = await Store.open(sqlite_url(tmp_path / "rooms.sqlite3"))
        room, _token, _invite, _made = await store.create_room("T", "gurps")
        appending = asyncio.create_task(store.append(room, "note", slow))
        loop = asyncio.get_running_loop()
        last, gap = loop.time(), 0.0
        while not appending.done():
            await asyncio.sleep(0.01)
            now = loop.time()
            gap, last = max(gap, now - last), now
        entry = appending.result()
        await store.close()
        return gap, entry

    gap, entry = asyncio.run(go())
    assert entry["text"].startswith("slow ")
    assert gap < 0.2, f"the event loop stalled for {gap:.2f} s"


def test_the_chooser_leaves_a_thread_that_mostly_waits_and_comes_back() -> None:
    """Batches go to the writer's thread while its wall time stays near its CPU time;
    through aiosqlite for a while once it mostly waits (a busy loop holds the
    interpreter lock); back to the thread after that while (issue 51)."""
    now = [0.0]
    chooser = Chooser(clock=lambda: now[0])
    for _ in range(20):  # a quiet server: wall time near the thread's CPU
        now[0] += 0.05
        chooser.took(0.0012, 0.001, 0.0001)
    assert chooser.threaded
    assert chooser.ratio is not None and chooser.ratio < Chooser.RATIO
    for _ in range(20):  # a thread short of a core while the loop idles: no better away
        now[0] += 0.05
        chooser.took(0.04, 0.01, 0.001)
    assert chooser.threaded
    for _ in range(20):  # a busy loop: four times the CPU, the loop running meanwhile
        now[0] += 0.05
        chooser.took(0.04, 0.01, 0.03)
        if not chooser.threaded:
            break
    assert not chooser.threaded
    now[0] += Chooser.AWAY / 2
    chooser.away()
    assert not chooser.threaded  # not yet
    now[0] += Chooser.AWAY
    chooser.away()
    assert chooser.threaded
    chooser.took(0.5, 0.01, 0.4)  # one slow batch alone is no window: no verdict
    assert chooser.threaded


def test_the_stores_batches_go_through_aiosqlite_when_the_chooser_says_so(tmp_path: Path) -> None:
    """Either path writes the same entries, in order (issue 51)."""

    async def go() -> list[dict[str, Any]]:
        store = await Store.open(sqlite_url(tmp_path / "rooms.sqlite3"))
        assert store.synced is not None
        room, _token, _invite, _made = await store.create_room("T", "gurps")
        got = [await store.append(room, "note", {"text": "thread"})]
        store.paths.threaded = False
        store.paths._back = float("inf")  # noqa: SLF001 (held on aiosqlite)
        got += await asyncio.gather(
            *(store.append(room, "note", {"text": str(i)}) for i in range(3))
        )
        back = await store.entries(room)
        await store.close()
        assert [e["seq"] for e in back][-4:] == [e["seq"] for e in got]
        return got

    got = asyncio.run(go())
    assert [e["text"] for e in got] == ["thread", "0", "1", "2"]


def test_salts_are_fresh_hex_and_never_repeat() -> None:
    """Salts come from the OS's generator 256 at a time (issue 51): each is still 16
    bytes of lowercase hex, and none repeats."""
    from referee.rooms.log import new_salt

    salts = [new_salt() for _ in range(1000)]
    assert len(set(salts)) == len(salts)
    assert all(len(s) == 32 and int(s, 16) >= 0 and s == s.lower() for s in salts)


@pytest.mark.parametrize("mode", ["thread", "aiosqlite"])
def test_a_fixed_path_is_kept_whatever_the_load(mode: str) -> None:
    """``REFEREE_SQLITE_WRITES=thread|aiosqlite`` fixes the path (to compare them under
    one load, issue 51): no measure moves it."""
    now = [0.0]
    chooser = Chooser(clock=lambda: now[0], mode=mode)
    for _ in range(40):
        now[0] += 0.05
        chooser.took(0.04, 0.01, 0.03)  # what sends "auto" to aiosqlite
        chooser.away()
        now[0] += Chooser.AWAY  # what brings "auto" back to the thread
        chooser.away()
        assert chooser.threaded is (mode == "thread")


def test_an_unknown_path_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="REFEREE_SQLITE_WRITES: 'threads' is not one of auto"):
        Chooser(mode="threads")
