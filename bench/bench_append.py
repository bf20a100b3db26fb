"""A roll's CPU on SQLite, piece by piece (issue 43): where the time goes.

1. **The append alone**, in this process, side by side in rounds: the store's SQLite
   appends through aiosqlite, as they were (every call SQLAlchemy makes a hop to
   aiosqlite's thread and back), against the writer thread (:mod:`referee.rooms.db.synced`:
   a batch in one hop). One append at a time (each its own batch, as rolls paced
   one by one arrive) and 16 at once (batched). The process's CPU (every thread) an
   append; the target is the writer at or below aiosqlite's. Then its parts, one
   append at a time: the writer's code run on this thread (without the hop), and
   SQLite's own statements for it through ``sqlite3`` alone.
2. **Through HTTP**, on one server in a child process (``referee.rooms.serving.child``,
   rate limits lifted, no live sockets): ``GET /api/health`` (the HTTP stack and
   nothing else), then ``POST .../rolls`` with ``3d6``, on one keep-alive connection
   (one at a time) and on 16 (batched). The server's CPU a request, from ``/proc``.

``python bench/bench_append.py`` (``N=3000`` requests a case by default).
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from _served import UNLIMITED, cpu_seconds, read_answer
from referee.rooms.db.store import Store, sqlite_url
from referee.rooms.serving.child import Child

N = int(os.environ.get("N", "3000"))
ROUNDS = 3


async def _appends(store: Store, room: str, at_once: int) -> float:
    """CPU seconds of this process an append, ``N`` appends, ``at_once`` at a time."""
    cpu = time.process_time()
    for _ in range(N // at_once):
        await asyncio.gather(*(store.append(room, "note", {"text": "x"}) for _ in range(at_once)))
    return (time.process_time() - cpu) / (N // at_once * at_once)


async def _stores(folder: Path) -> None:
    stores = {}
    for name in ("aiosqlite", "writer"):
        store = await Store.open(sqlite_url(folder / f"{name}.sqlite3"))
        if name == "aiosqlite":
            assert store.synced is not None
            store.synced.close()
            store.synced = None  # the append path before issue 43: every call a hop
        room, *_ = await store.create_room("bench", "gurps")
        stores[name] = (store, room)
    for at_once in (1, 16):
        got: dict[str, list[float]] = {name: [] for name in stores}
        for _ in range(ROUNDS):
            for name, (store, room) in stores.items():
                got[name].append(await _appends(store, room, at_once))
        old, new = (statistics.median(got[n]) for n in ("aiosqlite", "writer"))
        verdict = "PASS" if new <= old else "MISS"
        print(
            f"append, {at_once:>2} at a time: aiosqlite {old * 1e3:.3f} ms, "
            f"writer thread {new * 1e3:.3f} ms of CPU an append ({old / new:.2f}x less; "
            f"target: no more: {verdict})"
        )
    store, room = stores["writer"]
    assert store.synced is not None
    print(
        f"append, one at a time, its parts: in the writer's code without the hop "
        f"{_unhopped(store, room) * 1e3:.3f} ms; SQLite's own statements through sqlite3 "
        f"{_raw(folder / 'writer.sqlite3', room) * 1e3:.3f} ms"
    )
    for store, _room in stores.values():
        await store.close()


def _unhopped(store: Store, room: str) -> float:
    """CPU an append, the writer's batch run on this thread (no hop to the writer's)."""
    assert store.synced is not None
    drive = store.synced._drive  # noqa: SLF001 (the bench takes it apart)
    batch = [(room, [("note", {"text": "x"})])]
    cpu = time.process_time()
    for _ in range(N):
        drive(store._append_many, (batch, [], {}))  # noqa: SLF001
    return (time.process_time() - cpu) / N


def _raw(path: Path, room: str) -> float:
    """CPU an append, the batch's statements (as SQLite runs them for one room) through
    ``sqlite3`` alone: lock the room, read its epoch, insert, move it on, commit."""
    db = sqlite3.connect(path, isolation_level=None)
    cpu = time.process_time()
    for i in range(N):
        db.execute("BEGIN")
        db.execute(
            "UPDATE rooms SET next_seq = next_seq WHERE id IN (?) "
            "RETURNING id, next_seq, last_chain, epoch, archived",
            (room,),
        ).fetchall()
        db.execute(
            "SELECT epochs.* FROM epochs JOIN rooms ON rooms.id = epochs.room_id "
            "AND rooms.epoch = epochs.epoch WHERE rooms.id IN (?)",
            (room,),
        ).fetchall()
        db.executemany(
            "INSERT INTO entries (room_id, seq, kind, ref, body) VALUES (?, ?, ?, ?, ?)",
            [(room, 10**9 + i, "note", None, "{}")],
        )
        db.executemany(
            "UPDATE rooms SET next_seq = ?, last_chain = ? WHERE id = ?",
            [(10**9 + i + 1, "x", room)],
        )
        db.execute("COMMIT")
    took = (time.process_time() - cpu) / N
    db.close()
    return took


async def _requests(base: str, head: bytes, at_once: int) -> None:
    host, port = base.split("//")[1].split(":")

    async def one(n: int) -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        for _ in range(n):
            writer.write(head)
            status, answer = await read_answer(reader)
            assert status in (200, 201), answer
        writer.close()

    await asyncio.gather(*(one(N // at_once) for _ in range(at_once)))


def _http(folder: Path) -> None:
    child = Child(sqlite_url(folder / "served.sqlite3"), None, **UNLIMITED)
    child.start()
    try:
        with httpx.Client(base_url=child.base) as client:
            made = client.post("/api/rooms", json={"name": "bench", "system": "gurps"}).json()
        body = b'{"command": "3d6"}'
        roll = (
            f"POST /api/rooms/{made['room']}/rolls HTTP/1.1\r\nHost: t\r\n"
            f"Authorization: Bearer {made['token']}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode() + body
        health = b"GET /api/health HTTP/1.1\r\nHost: t\r\n\r\n"
        assert child.process is not None
        for label, head, at_once in [
            ("GET /api/health", health, 1),
            ("POST a roll (3d6)", roll, 1),
            ("POST a roll (3d6)", roll, 16),
        ]:
            asyncio.run(_requests(child.base, head, at_once))  # warm
            cpu, began = cpu_seconds(child.process.pid), time.perf_counter()
            asyncio.run(_requests(child.base, head, at_once))
            cpu, took = cpu_seconds(child.process.pid) - cpu, time.perf_counter() - began
            print(
                f"HTTP, {label:<18} on {at_once:>2} connection{'s' * (at_once > 1):<1}: "
                f"{N / took:6,.0f}/s, server CPU {cpu / N * 1e3:.3f} ms a request"
            )
    finally:
        child.stop()


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(_stores(Path(folder)))
        _http(Path(folder))


if __name__ == "__main__":
    main()
