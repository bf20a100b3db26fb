"""Rooms at many tables (issue 29): a roll's cost and latency as the number of tables
grows, most of them idle between rolls.

One ``referee serve`` (a child process, SQLite default, rate limits lifted) hosts
TABLES tables with 5 live sockets each. A few posters, paced at RATE rolls/s between
them, each roll in one of its share of the tables chosen at random, post each table's
rolls on that table's raw keep-alive connection, as the browser of the player who
rolls there does (opened anew after 4 s idle, as the server closes it after 5).
Latency runs from when each roll was due to when the last of its table's sockets had
its frame. The server's CPU per roll comes from its ``/proc`` times over the run.

The load generator stays cheap: raw HTTP/1.1 and raw WebSocket frames, and no JSON
parse per frame (a frame's seq is read from its canonical text: keys are sorted, so
``"kind":"roll"`` and ``"seq":N`` are found by position).

Usage: ``python bench/bench_tables.py`` runs the issue's goals, each with a PASS or
MISS: SQLite, then PostgreSQL with one worker and with two, at 20 to 1,000 tables (CPU a roll
flat within 20%; 1,000 tables at 1,000 rolls/s: p99 <= 50 ms, nothing missed);
then ``ROUNDS`` (2) rounds side by side at 1,000 tables as fast as they go: one
worker; ``--workers 2`` (each room served in one worker: :mod:`referee.rooms.serving.affine`
hands a connection to its room's worker); and two servers of one process each, each
room's calls and sockets on one of them (:func:`_served.route`, what a balancer's hash
of the room does: nginx ``hash $room``), with 96 posters (:data:`FLOOD`). Two
processes must take 5% more than one. The ``machine`` column is the whole machine's
busy cores (of 2), the load generator and PostgreSQL with the server. ``BIG=1`` adds 5,000 tables
(25,000 sockets) on two workers at 500 and 1,000 rolls/s. Each PostgreSQL case runs
on a throwaway cluster (CPU counted over every worker or server).
``python bench/bench_tables.py side-by-side`` runs those rounds alone, and
``python bench/bench_tables.py TABLES RATE [TABLES RATE ...]`` chosen cases
(SQLite; PostgreSQL with ``WORKERS=N``, or with ``SERVERS=N`` room-affine servers;
``POSTERS=N``, default 32). ``LISTENERS=N`` (default 2) holds the live sockets in N
child processes, each with whole tables, so that the posters' loop is not slowed by
them (one process may open at most ``ulimit -n`` files: 20,000 here, short of 5,000
tables' 25,000 sockets); ``LISTENERS=0`` holds them in the posters' process.
The listeners' clocks are the same monotonic clock as the posters'. The server's
memory is its resident set (every worker) before the sockets connect and after.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import uvloop

from _served import (
    UNLIMITED,
    Affine,
    Proxied,
    Served,
    cpu_seconds,
    machine_busy,
    read_answer,
    resident_bytes,
    route,
)
from _served import frame as _frame
from _served import masked as _masked
from referee.rooms.db.store import sqlite_url
from referee.rooms.serving.child import Child

SOCKETS = int(os.environ.get("SOCKETS", "5"))
POSTERS = int(os.environ.get("POSTERS", "32"))
FLOOD = 96
"""Posters of the side-by-side rounds at full speed. Each posts one roll at a time, so
posters bound the rolls under way: 32 of them split over two processes leave each
half the rolls to write in a batch, and cap a process's batches rather than its CPU
(with 32, two room-affine servers took 0.93-1.33x of one worker)."""
SECONDS = float(os.environ.get("DURATION", "8"))
WARM = int(os.environ.get("WARM", "4"))
ROUNDS = int(os.environ.get("ROUNDS", "2"))
MAX = 4000.0
"""A pace above what the server answers: "as fast as it goes"."""
_SEQ = re.compile(rb'"seq":(\d+)')
CLOSED: dict[int, int] = {}
"""Live sockets the server closed, by close code."""
READY_SECONDS = 300.0
"""How long the live sockets may take to connect and have their backlog."""
ON_ROLLS: list[Any] = []
"""Called (with the server's pid) as the measured rolls begin: a profiler's hook."""


async def _tables(base: str, count: int) -> list[tuple[str, list[str]]]:
    out = []
    limits = httpx.Limits(max_connections=20)
    async with httpx.AsyncClient(base_url=base.split(",")[0], timeout=120, limits=limits) as c:

        async def one(i: int) -> tuple[str, list[str]]:
            made = (await c.post("/api/rooms", json={"name": f"t{i}", "system": None})).json()
            tokens = [made["token"]]
            for p in range(2):
                joined = await c.post(
                    f"/api/rooms/{made['room']}/members",
                    json={"name": f"p{p}", "invite": made["invite"]},
                )
                tokens.append(joined.json()["token"])
            return made["room"], tokens

        for start in range(0, count, 50):
            out += await asyncio.gather(*(one(i) for i in range(start, min(count, start + 50))))
    return out


async def _listen(
    base: str,
    room: str,
    token: str,
    seen: dict[tuple[str, int], list[float]],
    ready: asyncio.Event,
    gate: asyncio.Semaphore,
) -> None:
    host, port = route(base, room)
    async with gate:  # a few hundred handshakes at a time: the server's backlog is finite
        reader, writer = await asyncio.open_connection(host, port)
        key = "dGhlIHNhbXBsZSBub25jZQ=="
        writer.write(
            f"GET /api/rooms/{room}/live HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket"
            f"\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        await reader.readuntil(b"\r\n\r\n")
        writer.write(_masked(1, b'{"token": "%s"}' % token.encode()))
    ready.set()
    buffer = bytearray()
    try:
        while chunk := await reader.read(1 << 16):
            buffer += chunk
            at = 0
            while (frame := _frame(buffer, at)) is not None:
                b0, payload, at = frame
                if b0 & 0x0F == 9:
                    writer.write(_masked(10, payload))
                elif b0 & 0x0F == 8:  # the server closes it: why, for the summary
                    code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                    CLOSED[code] = CLOSED.get(code, 0) + 1
                elif b'"kind":"roll"' in payload:
                    found = _SEQ.search(payload)
                    if found:
                        seen.setdefault((room, int(found[1])), []).append(time.perf_counter())
            del buffer[:at]
    finally:
        writer.close()


SOURCE = "127.0.0.2"
"""The tables' connections come from this loopback address: from one address, the
kernel has about 28,000 ports to reach a server's port, short of 5,000 tables' 25,000
live sockets and 5,000 connections for their rolls together."""
IDLE = 4.0
"""A table's connection idle longer is opened anew before its next roll, as a browser
does: the server closes a keep-alive connection idle for 5 s (uvicorn's default)."""


class _Conn:
    """A keep-alive connection for one table's rolls, as the browser of the player who
    rolls there holds one (room-affine servers: to its room's server)."""

    def __init__(self, base: str, room: str) -> None:
        self.room, self.address = room, route(base, room)
        self.keep = True
        """Kept open after a roll: False where a table rolls less often than the server
        keeps a connection (5,000 tables at 500/s: each 10 s), so each roll opens its
        own, as a browser's would; then 25,000 live sockets and 5,000 idle connections
        need not be open at once (this machine holds about 51,500 TCP sockets)."""
        self.used = -IDLE
        self.stream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def roll(self, token: str, room: str | None = None) -> int:
        """Post a 3d6 roll on this connection (opened anew if idle too long), in its
        table's room or in ``room``; its seq."""
        if self.stream is None or time.perf_counter() - self.used > IDLE:
            self.close()
            self.stream = await asyncio.open_connection(*self.address, local_addr=(SOURCE, 0))
        reader, writer = self.stream
        body = b'{"command": "3d6"}'
        writer.write(
            (
                f"POST /api/rooms/{room or self.room}/rolls HTTP/1.1\r\nHost: t\r\n"
                f"Authorization: Bearer {token}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode()
            + body
        )
        status, answer = await read_answer(reader)
        self.used = time.perf_counter()
        found = _SEQ.search(answer)
        if status != 201 or found is None:
            raise RuntimeError(answer.decode())
        if not self.keep:
            self.close()
        return int(found[1])

    def close(self) -> None:
        if self.stream is not None:
            self.stream[1].close()
            self.stream = None


class _Pool:
    """``size`` keep-alive connections that every table's rolls share, as a reverse
    proxy's upstream connections do (issue 43, ``SHARED=64``): each roll takes the
    next free one, whatever its room. Looks like the dict of one connection a table."""

    def __init__(self, base: str, size: int) -> None:
        self.conns = [_Conn(base, "") for _ in range(size)]
        self.free: asyncio.Queue[_Conn] = asyncio.Queue()
        for conn in self.conns:
            self.free.put_nowait(conn)

    def __getitem__(self, room: str) -> _Lease:
        return _Lease(self, room)

    def values(self) -> list[_Conn]:
        return self.conns


class _Lease:
    def __init__(self, pool: _Pool, room: str) -> None:
        self.pool, self.room = pool, room

    async def roll(self, token: str) -> int:
        conn = await self.pool.free.get()
        try:
            return await conn.roll(token, self.room)
        finally:
            self.pool.free.put_nowait(conn)


SHARED = int(os.environ.get("SHARED", "0"))
"""With ``SHARED=N``, every table's rolls share N keep-alive connections (:class:`_Pool`)
rather than one connection a table."""


async def _poster(
    tables: list[tuple[str, list[str]]],
    conns: dict[str, _Conn] | _Pool,
    start: dict[tuple[str, int], float],
    stop: asyncio.Event,
    every: float,
) -> int:
    """Post a roll every ``every`` seconds, each in one of ``tables`` chosen at random,
    on that table's connection; how many were posted."""
    due, done = time.perf_counter() + random.random() * every, 0
    while not stop.is_set():
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        t0, due = due, due + every
        room, tokens = random.choice(tables)
        start[(room, await conns[room].roll(random.choice(tokens[1:])))] = t0
        done += 1
    return done


Summary = dict[str, tuple[int, float]]
"""For each roll ("room:seq"): how many sockets had its frame, and when the last did."""


async def _listen_all(
    base: str,
    tables: list[tuple[str, list[str]]],
    warm: list[tuple[str, int]],
    ready: asyncio.Event,
    stop: asyncio.Event,
) -> Summary:
    """Hold SOCKETS live sockets a table; ``ready`` once all are connected and have had
    their table's backlog (the ``warm`` rolls); after ``stop``, what each roll reached."""
    seen: dict[tuple[str, int], list[float]] = {}
    gate = asyncio.Semaphore(200)
    readies, subs = [], []
    for room, tokens in tables:
        for i in range(SOCKETS):
            r = asyncio.Event()
            readies.append(r)
            subs.append(asyncio.create_task(_listen(base, room, tokens[i % 3], seen, r, gate)))
    deadline = time.perf_counter() + READY_SECONDS
    mine = {room for room, _ in tables}
    while not (
        all(r.is_set() for r in readies)
        and all(len(seen.get(k, ())) == SOCKETS for k in warm if k[0] in mine)
    ):
        if time.perf_counter() > deadline:
            failed = [t.exception() for t in subs if t.done() and not t.cancelled()]
            raise RuntimeError(
                f"the live sockets were not ready in {READY_SECONDS:.0f} s: "
                f"{sum(r.is_set() for r in readies)} of {len(readies)} connected, closed by "
                f"the server {CLOSED}, {len([e for e in failed if e])} failed: "
                f"{sorted({repr(e) for e in failed if e})[:3]}"
            )
        await asyncio.sleep(0.05)
    ready.set()
    await stop.wait()
    for sub in subs:
        sub.cancel()
    await asyncio.gather(*subs, return_exceptions=True)
    return {f"{room}:{seq}": (len(times), max(times)) for (room, seq), times in seen.items()}


class _Held:
    """Live sockets held in this process (``task``) or in child processes (``procs``)."""

    def __init__(self, ready: asyncio.Event, stop: asyncio.Event) -> None:
        self.ready, self.stop = ready, stop
        self.task: asyncio.Task[Summary] | None = None
        self.procs: list[asyncio.subprocess.Process] = []

    async def finish(self) -> Summary:
        if self.task is not None:
            self.stop.set()
            return await self.task
        out: Summary = {}
        for proc in self.procs:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(b"stop\n")
            await proc.stdin.drain()
        for proc in self.procs:
            assert proc.stdout is not None
            for key, (n, last) in json.loads(await proc.stdout.read()).items():
                had = out.get(key, (0, 0.0))
                out[key] = (had[0] + n, max(had[1], last))
            await proc.wait()
        return out


async def _children(
    base: str, tables: list[tuple[str, list[str]]], warm: list[tuple[str, int]], n: int
) -> _Held:
    """Start ``n`` listener processes, each with whole tables; wait until all are ready."""
    held = _Held(asyncio.Event(), asyncio.Event())
    for part in range(n):
        proc = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--listen", base,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 26,
        )  # fmt: skip
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({"tables": tables[part::n], "warm": warm}).encode() + b"\n")
        await proc.stdin.drain()
        held.procs.append(proc)
    for proc in held.procs:
        assert proc.stdout is not None
        if await proc.stdout.readline() != b"ready\n":
            raise RuntimeError("a listener process failed")
    return held


def _quiet() -> None:
    """Keep this process's garbage collector out of the measured seconds: a full
    collection over thousands of sockets' objects pauses the loop that stamps each
    frame's arrival, and would be counted as the server's latency."""
    gc.collect()
    gc.freeze()
    gc.disable()


async def _listener_main(base: str) -> None:
    """A listener process: tables from the first line of stdin; "ready" when connected;
    the summary as JSON on stdout once a line comes in ("stop")."""
    loop = asyncio.get_running_loop()
    job = json.loads(await loop.run_in_executor(None, sys.stdin.readline))
    ready, stop = asyncio.Event(), asyncio.Event()
    warm = [(room, seq) for room, seq in job["warm"]]
    task = asyncio.create_task(_listen_all(base, job["tables"], warm, ready, stop))
    await ready.wait()
    _quiet()
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    await loop.run_in_executor(None, sys.stdin.readline)
    stop.set()
    sys.stdout.write(json.dumps(await task))
    sys.stdout.flush()


async def _warm(
    tables: list[tuple[str, list[str]]], conns: dict[str, _Conn] | _Pool, times: int
) -> list[tuple[str, int]]:
    """Roll ``times`` in each table on its connection, 200 tables at once, so that the
    measured rolls cost what they do in a server that has run a while: each connection
    has moved to its room's worker (``--workers``: :mod:`referee.rooms.serving.affine`), the
    epoch's lock is written and the room's members and sheets read. The last roll of
    each table."""
    last: dict[str, int] = {}
    gate = asyncio.Semaphore(200)

    async def one(room: str, tokens: list[str]) -> None:
        async with gate:
            for i in range(times):
                last[room] = await conns[room].roll(tokens[1 + i % 2])

    await asyncio.gather(*(one(room, tokens) for room, tokens in tables))
    return sorted(last.items())


async def scenario(
    child: Child | Served | Affine | Proxied,
    count: int,
    rate: float,
    posters: int = POSTERS,
    shared: int = SHARED,
) -> dict[str, Any]:
    tables = await _tables(child.base, count)
    conns: dict[str, _Conn] | _Pool = {room: _Conn(child.base, room) for room, _ in tables}
    if shared:
        conns = _Pool(child.base, shared)
    warm = await _warm(tables, conns, WARM)  # before the sockets: their backlog
    # a table rolls again before its connection expires (shared ones are always busy)
    keep = shared > 0 or count / rate <= IDLE
    for conn in conns.values():  # idle while the sockets connect: the server closes them
        conn.close()
        conn.keep = keep
    start: dict[tuple[str, int], float] = {}
    listeners = int(os.environ.get("LISTENERS", "2"))
    if isinstance(child, Affine | Proxied):
        pids = child.pids
    else:
        assert child.process is not None
        pids = [child.process.pid]
    rss0 = sum(map(resident_bytes, pids))
    connecting = time.perf_counter()
    if listeners:
        held = await _children(child.base, tables, warm, listeners)
    else:
        held = _Held(asyncio.Event(), asyncio.Event())
        held.task = asyncio.create_task(
            _listen_all(child.base, tables, warm, held.ready, held.stop)
        )
        await held.ready.wait()
    replayed = time.perf_counter() - connecting
    rss = sum(map(resident_bytes, pids))
    if keep:  # open again, each on its room's worker, before the measured rolls
        await _warm(tables, conns, 1)
    for hook in ON_ROLLS:
        for pid in pids:
            hook(pid)
    _quiet()
    cpu0, busy0, began = sum(map(cpu_seconds, pids)), machine_busy(), time.perf_counter()
    stop = asyncio.Event()
    posters = min(posters, count)  # each rolls in its own share of the tables
    posts = [
        asyncio.create_task(_poster(tables[i::posters], conns, start, stop, posters / rate))
        for i in range(posters)
    ]
    await asyncio.sleep(SECONDS)
    stop.set()
    total = sum(await asyncio.gather(*posts))
    for conn in conns.values():
        conn.close()
    elapsed = time.perf_counter() - began
    busy = (machine_busy() - busy0) / elapsed
    await asyncio.sleep(1.5)
    cpu = sum(map(cpu_seconds, pids)) - cpu0
    gc.enable()
    reached = await held.finish()
    lat = sorted(reached[f"{r}:{q}"][1] - t0 for (r, q), t0 in start.items()
                 if reached.get(f"{r}:{q}", (0, 0.0))[0] == SOCKETS)  # fmt: skip
    q = statistics.quantiles(lat, n=100) if len(lat) > 100 else [float("nan")] * 99
    return {"rate": total / elapsed, "p50": q[49], "p99": q[98],
            "complete": len(lat) / max(1, len(start)),
            "cpu_per_roll": cpu / max(1, total), "cores": cpu / elapsed, "busy": busy,
            "replayed": replayed, "rss": rss, "rss0": rss0}  # fmt: skip


def run(
    count: int,
    rate: float,
    workers: int = 0,
    servers: int = 0,
    posters: int = POSTERS,
    proxied: bool = False,
    shared: int = SHARED,
) -> dict[str, Any]:
    """One case on a server of its own: SQLite (``workers == 0``), ``referee serve
    --workers N`` on a throwaway PostgreSQL, or there ``servers`` servers of one process
    each, room-affine (:class:`_served.Affine`); with ``proxied``, behind nginx
    (:class:`_served.Proxied`)."""
    with tempfile.TemporaryDirectory() as tmp:
        if workers or servers:
            from referee.rooms.serving.pgtemp import throwaway

            with throwaway() as pg:
                inner = Affine(pg, servers) if servers else Served(pg, workers)
                served: Served | Affine | Proxied = inner
                if proxied:
                    try:
                        served = Proxied(inner, Path(tmp) / "nginx")
                    except BaseException:
                        inner.close()
                        raise
                try:
                    return uvloop.run(scenario(served, count, rate, posters))
                finally:
                    served.close()
        child = Child(sqlite_url(Path(tmp) / "t.sqlite3"), None, **UNLIMITED)
        child.start()
        try:
            return uvloop.run(scenario(child, count, rate, posters, shared))
        finally:
            child.close()


def _label(workers: int, servers: int = 0) -> str:
    if servers:
        return f"PG {servers} affine"
    return f"PG {workers} worker{'s' * (workers > 1)}" if workers else "SQLite"


def row(what: str, count: int, rate: float, r: dict[str, Any]) -> None:
    print(f"{what:<11} {count:>7,} {count * SOCKETS:>8,} {rate:>7.0f} {r['rate']:>9.0f} "
          f"{r['p50'] * 1000:>7.1f}ms {r['p99'] * 1000:>7.1f}ms "
          f"{r['cpu_per_roll'] * 1000:>7.2f}ms {r['cores']:>6.2f} {r['busy']:>7.2f} "
          f"{r['complete']:>9.1%} {r['replayed']:>10.1f}s "
          f"{r['rss'] / 2**20:>11.0f} "
          f"{(r['rss'] - r['rss0']) / 1024 / (count * SOCKETS):>11.1f}", flush=True)  # fmt: skip


def _flat(what: str, few: dict[str, Any], many: dict[str, Any]) -> None:
    ratio = many["cpu_per_roll"] / few["cpu_per_roll"]
    ok = abs(ratio - 1) <= 0.2
    print(f"{what}: CPU a roll at 1,000 tables / at 20: {ratio:.2f}x "
          f"(target: within 20%: {'PASS' if ok else 'MISS'})")  # fmt: skip


def _goal(what: str, r: dict[str, Any]) -> None:
    ok = r["p99"] <= 0.050 and r["complete"] == 1.0
    print(f"{what}, 1,000 tables at 1,000/s: p99 {r['p99'] * 1000:.1f} ms, "
          f"{r['complete']:.1%} complete, {r['cores']:.2f} of a core "
          f"(target: <= 50 ms, nothing missed: {'PASS' if ok else 'MISS'})")  # fmt: skip


def _cpu(what: str, r: dict[str, Any], target: float) -> None:
    ok = r["cpu_per_roll"] <= target
    print(f"{what}, 1,000 tables: server CPU a roll {r['cpu_per_roll'] * 1000:.2f} ms "
          f"(target, issue 43: <= {target * 1000:.2f} ms: {'PASS' if ok else 'MISS'})")  # fmt: skip


def suite() -> None:
    """The issue's goals, each with its verdict (``make bench``)."""
    sqlite: dict[tuple[int, float], dict[str, Any]] = {}
    for n, pace in [(20, 1000.0), (100, 1000.0), (1000, 600.0), (1000, 1000.0)]:
        sqlite[n, pace] = many = run(n, pace)
        row(_label(0), n, pace, many)
    _flat("SQLite", sqlite[20, 1000.0], many)
    _goal("SQLite, one process", many)
    _cpu("SQLite, one process", many, 0.00025)
    pooled = run(1000, 1000.0, shared=64)  # issue 43: as a proxy's upstreams do
    row("SQLite 64sh", 1000, 1000.0, pooled)
    _goal("SQLite, one process, 64 shared connections", pooled)
    for workers in (1, 2):
        few = run(20, 1000.0, workers)
        row(_label(workers), 20, 1000.0, few)
        many = run(1000, 1000.0, workers)
        row(_label(workers), 1000, 1000.0, many)
        what = f"PostgreSQL, {workers} worker{'s' * (workers > 1)}"
        _flat(what, few, many)
        _goal(what, many)
        _cpu(what, many, 0.0002)
    side_by_side()
    behind_nginx()
    if os.environ.get("BIG") == "1":
        for rate in (500.0, 1000.0):
            row(_label(2), 5000, rate, run(5000, rate, 2))


def _three_ways(title: str, proxied: bool) -> tuple[float, float]:
    """1,000 tables as fast as they go, ``ROUNDS`` rounds side by side (the machine's
    speed drifts) of: one process; ``--workers 2``; two servers, each room on one.
    The medians of the last two against the first."""
    cases = [(1, 0), (2, 0), (0, 2)]
    rates: dict[tuple[int, int], list[float]] = {case: [] for case in cases}
    print(f"-- {title}, {FLOOD} posters --")
    for _ in range(ROUNDS):
        for workers, servers in cases:
            r = run(1000, MAX, workers, servers, FLOOD, proxied=proxied)
            label = _label(workers, servers)
            row("nginx " + label[3:] if proxied else label, 1000, MAX, r)
            rates[workers, servers].append(r["rate"])
    one = statistics.median(rates[1, 0])
    return statistics.median(rates[2, 0]) / one, statistics.median(rates[0, 2]) / one


def behind_nginx() -> None:
    """Issue 43: behind nginx (keep-alive upstreams that every room shares): one process;
    ``--workers 2`` (each room in one worker: a connection carries many rooms, so it is
    handed over often); two servers of one process each, nginx hashing each room to
    one (``python bench/bench_tables.py behind-nginx``)."""
    shared, hashed = _three_ways("behind nginx", proxied=True)
    print(f"Behind nginx, 1,000 tables as fast as they go, against 1 process (medians of "
          f"{ROUNDS} rounds): --workers 2 {shared:.2f}x; 2 servers hashed by room "
          f"{hashed:.2f}x (target: more than 1 process: "
          f"{'PASS' if max(shared, hashed) > 1.0 else 'MISS'})")  # fmt: skip


def side_by_side() -> None:
    """1 worker; ``--workers 2`` (room-affine); 2 servers, each room on one, routed by
    the load generator (``python bench/bench_tables.py side-by-side``)."""
    shared, affine = _three_ways("side by side", proxied=False)
    print(f"PostgreSQL, 1,000 tables as fast as it goes ({FLOOD} posters), against 1 worker "
          f"(medians of {ROUNDS} "
          f"rounds): --workers 2 (room-affine) {shared:.2f}x; 2 servers, each room on one "
          f"(routed by the load generator: no balancer's CPU counted), {affine:.2f}x "
          f"(target: 2 processes take 5% more at least: "
          f"{'PASS' if max(shared, affine) >= 1.05 else 'MISS'})")  # fmt: skip


def main(argv: list[str]) -> None:
    if argv[:1] == ["--listen"]:
        uvloop.run(_listener_main(argv[1]))
        return
    print(f"== tables: {SOCKETS} sockets each, {POSTERS} posters paced and spread at random, "
          f"{SECONDS:.0f} s; latency from due to the last socket ==")  # fmt: skip
    print(f"{'server':<11} {'tables':>7} {'sockets':>8} {'paced':>7} {'achieved':>9} {'p50':>9} "
          f"{'p99':>9} {'CPU/roll':>9} {'cores':>6} {'machine':>7} {'complete':>9} "
          f"{'sockets in':>11} {'server MiB':>11} {'KiB/socket':>11}")  # fmt: skip
    if not argv:
        suite()
        return
    if argv == ["side-by-side"]:
        side_by_side()
        return
    if argv == ["behind-nginx"]:
        behind_nginx()
        return
    workers = int(os.environ.get("WORKERS", "0"))
    servers = int(os.environ.get("SERVERS", "0"))
    for count, rate in zip(map(int, argv[::2]), map(float, argv[1::2]), strict=True):
        row(_label(workers, servers), count, rate, run(count, rate, workers, servers))


if __name__ == "__main__":
    main(sys.argv[1:])
