"""Game rooms under load (issues 11 and 13): acknowledged rolls per second, and the time
from a POST to the last live subscriber's frame, on the SQLite default and on
PostgreSQL with one and with two server processes; and the memory of a connected
socket.

Each server runs in a child process (``referee.rooms.serving.child``) on loopback, with the
rate limits lifted (this measures throughput, not the limiters). This process runs
the load: posting clients and, per room, 5 subscribers on the live socket, spread
over the servers. Everything shares the machine's 2 cores, so the figures are for
the whole system.

Targets: issue 11, >= 1,000 rolls/s across rooms with p99 <= 50 ms; issue 13, with
2 servers on PostgreSQL more throughput than with 1, and >= 1,000 rolls/s.

Throughput is measured with posters that go as fast as they are answered ("max"):
there, latency is mostly the queue the posters themselves make (40 posters at
1,000 rolls/s wait 40 ms on average by Little's law). Latency is measured at the
target's load: posters paced at 1,000 rolls/s between them, each roll's time counted
from when it was due, so a slow answer is charged to every roll queued behind it.

``python bench/bench_rooms.py --tables 1000 --rate 1000`` measures many tables instead
(issue 29; :func:`tables`, run by ``bench_tables.py``).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import orjson
import uvloop
from websockets.asyncio.client import connect

from _served import frame as _frame
from _served import masked as _masked
from _served import read_answer
from referee.rooms.db.store import sqlite_url
from referee.rooms.serving.child import Child
from referee.rooms.serving.pgtemp import throwaway

UNLIMITED = {"rate": 1e9, "burst": 1e9, "address_rate": 1e9, "address_burst": 1e9}

SECONDS = 5.0
SUBSCRIBERS = int(os.environ.get("SUBSCRIBERS", "5"))


SHEET = Path(__file__).resolve().parents[1] / "tests" / "data" / "gcs" / "Dai Blackthorn.gcs"
"""The character each sheet-rolling poster uploads (a 50 KiB GCS file)."""
AS_SHEET = b'{"command": "gurps check Stealth -2"}'
"""What a poster rolling as its sheet sends (its only sheet: resolved by the server)."""
PLAIN = b'{"command": "3d6"}'


async def _room(
    client: httpx.AsyncClient, players: int, sheets: bool = False
) -> tuple[str, list[str]]:
    """A room with ``players`` players; with ``sheets``, every other player has
    uploaded a character (and rolls as it)."""
    made = (await client.post("/api/rooms", json={"name": "bench", "system": None})).json()
    tokens = [made["token"]]
    for i in range(players):
        joined = await client.post(
            f"/api/rooms/{made['room']}/members", json={"name": f"p{i}", "invite": made["invite"]}
        )
        tokens.append(joined.json()["token"])
        if sheets and i % 2 == 0:
            put = await client.put(
                f"/api/rooms/{made['room']}/sheets/dai",
                content=SHEET.read_bytes(),
                headers={"Authorization": f"Bearer {tokens[-1]}"},
            )
            assert put.status_code == 201, put.text
    return made["room"], tokens


def _body(sheets: bool, player: int) -> bytes:
    """Poster ``player``'s roll: as its sheet for every other player when ``sheets``."""
    return AS_SHEET if sheets and player % 2 == 0 else PLAIN


async def _subscribe(
    base: str,
    room: str,
    token: str,
    seen: dict[tuple[str, int], list[float]],
    ready: asyncio.Event,
) -> None:
    """Follow a room's live socket, noting when each roll's frame arrives, until
    cancelled. A minimal WebSocket client (RFC 6455: the handshake, one masked
    message, then the server's unmasked frames, as many as each read brings), like
    the posters' HTTP: the load generator shares the machine with the servers, so it
    should cost them little."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET /api/rooms/{room}/live HTTP/1.1\r\nHost: {host}:{port}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    if b" 101 " not in head.split(b"\r\n", 1)[0]:
        raise RuntimeError(head.decode(errors="replace"))
    writer.write(_masked(1, json.dumps({"token": token}).encode()))
    ready.set()
    buffer, message = bytearray(), b""
    try:
        while chunk := await reader.read(1 << 16):
            buffer += chunk
            at = 0
            while (frame := _frame(buffer, at)) is not None:
                b0, payload, at = frame
                opcode = b0 & 0x0F
                if opcode == 8:  # close
                    return
                if opcode == 9:  # ping: pong
                    writer.write(_masked(10, payload))
                    continue
                message += payload
                if not b0 & 0x80:  # more fragments to come
                    continue
                entry, message = orjson.loads(message), b""
                if entry.get("kind") == "roll":
                    seen.setdefault((room, entry["seq"]), []).append(time.perf_counter())
            del buffer[:at]
    finally:
        writer.close()


async def _post(
    base: str,
    room: str,
    token: str,
    start: dict[tuple[str, int], float],
    stop: asyncio.Event,
    every: float | None = None,
    body: bytes = PLAIN,
) -> int:
    """POST rolls one after another on one kept-alive connection. A minimal HTTP/1.1
    client, so that the load costs this process as little as possible.

    With ``every``, paced: the k-th roll is due ``k * every`` seconds after the first
    (at a random phase), and its latency counts from when it was due, so a late answer
    also delays, and is charged to, the rolls queued behind it (no coordinated omission).
    """
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    request = (
        f"POST /api/rooms/{room}/rolls HTTP/1.1\r\nHost: {host}\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    done = 0
    due = time.perf_counter() + (random.random() * every if every else 0.0)
    try:
        while not stop.is_set():
            if every:
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                t0, due = due, due + every
            else:
                t0 = time.perf_counter()
            writer.write(request)
            status, answer = await read_answer(reader)
            if status != 201:
                raise RuntimeError(answer.decode())
            start[(room, orjson.loads(answer)["seq"])] = t0
            done += 1
    finally:
        writer.close()
    return done


async def scenario(
    bases: list[str],
    rooms: int,
    posters: int,
    rate: float | None = None,
    spread: bool = True,
    sheets: bool = False,
) -> dict[str, Any]:
    """Rooms made on the first server; sockets and posters spread over all of them.
    Posters go as fast as they are answered or, with ``rate``, at that many rolls a
    second between them. With ``sheets``, half the posters roll as their character
    (``gurps check Stealth -2``, resolved against an uploaded GCS file)."""
    base = bases[0]
    limits = httpx.Limits(max_connections=rooms * posters + 10)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:
        tables = [await _room(client, posters, sheets) for _ in range(rooms)]
        # Warm up, through the server each room's posters use: a room's first roll
        # writes its epoch's lock, and a server's first roll reads the command.
        for r, (room, tokens) in enumerate(tables):
            for i, token in enumerate(tokens[1:]):
                got = await client.post(
                    f"{bases[r % len(bases)]}/api/rooms/{room}/rolls",
                    content=_body(sheets, i),
                    headers={
                        "Authorization": f"Bearer {token}",
                        "Content-Type": "application/json",
                    },
                )
                assert got.status_code == 201, got.text
        seen: dict[tuple[str, int], list[float]] = {}
        start: dict[tuple[str, int], float] = {}
        stop = asyncio.Event()
        readies = []
        subs = []
        for r, (room, tokens) in enumerate(tables):
            for i in range(SUBSCRIBERS):
                ready = asyncio.Event()
                readies.append(ready)
                where = bases[(r + (i if spread else 0)) % len(bases)]
                subs.append(
                    asyncio.create_task(
                        _subscribe(where, room, tokens[i % len(tokens)], seen, ready)
                    )
                )
        for ready in readies:
            await ready.wait()
        await asyncio.sleep(0.5)  # let each socket send its backlog
        began = time.perf_counter()
        every = rooms * posters / rate if rate else None
        posts = [
            asyncio.create_task(
                _post(
                    bases[r % len(bases)], room, tokens[1 + i], start, stop, every, _body(sheets, i)
                )
            )
            for r, (room, tokens) in enumerate(tables)
            for i in range(posters)
        ]
        await asyncio.sleep(SECONDS)
        stop.set()
        total = sum(await asyncio.gather(*posts))
        elapsed = time.perf_counter() - began
        await asyncio.sleep(1.0)  # frames in flight
        for sub in subs:
            sub.cancel()
        for ended in await asyncio.gather(*subs, return_exceptions=True):
            if not isinstance(ended, asyncio.CancelledError):  # closed, or failed
                raise RuntimeError(f"a live socket ended early: {ended!r}")
    lat = sorted(
        max(seen[key]) - t0 for key, t0 in start.items() if len(seen.get(key, ())) == SUBSCRIBERS
    )
    return {
        "rate": total / elapsed,
        "p50": statistics.quantiles(lat, n=100)[49] if len(lat) > 100 else float("nan"),
        "p99": statistics.quantiles(lat, n=100)[98] if len(lat) > 100 else float("nan"),
        "complete": len(lat) / max(1, len(start)),
    }


def _rss(pid: int) -> int:
    """A process's resident memory, in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


async def socket_memory(server: Child, count: int = 390) -> float:
    """Bytes of server memory per connected live socket (idle, in one room)."""
    async with httpx.AsyncClient(base_url=server.base, timeout=60) as client:
        room, tokens = await _room(client, 25)  # at most 16 sockets a member
    assert server.process is not None
    await asyncio.sleep(0.5)
    before = _rss(server.process.pid)
    url = server.base.replace("http", "ws", 1) + f"/api/rooms/{room}/live"
    sockets = []
    for i in range(count):
        ws = await connect(url, compression=None)
        await ws.send(json.dumps({"token": tokens[i % len(tokens)]}))
        sockets.append(ws)
    for ws in sockets:
        await ws.recv()  # the first entry: the socket is following the room
    await asyncio.sleep(0.5)
    after = _rss(server.process.pid)
    for ws in sockets:
        await ws.close()
    return (after - before) / count


def servers(db: str, count: int) -> list[Child]:
    """``count`` servers on one database, started one after the other."""
    made = []
    for _ in range(count):
        child = Child(db, None, **UNLIMITED)
        child.start()
        made.append(child)
    return made


def run_case(
    label: str,
    bases: list[str],
    rooms: int,
    posters: int,
    rate: float | None = None,
    spread: bool = True,
    sheets: bool = False,
) -> dict[str, Any]:
    """One case, printed as a row: as fast as it goes, or paced at ``rate`` rolls/s."""
    got = uvloop.run(scenario(bases, rooms, posters, rate, spread, sheets))
    show(label, [got], rate)
    return got


def show(label: str, runs: list[dict[str, Any]], rate: float | None = None) -> None:
    """A row: the median of the runs (and their range of rates, if several)."""
    mid = {k: statistics.median(r[k] for r in runs) for k in ("rate", "p50", "p99", "complete")}
    if rate:
        verdict = "p99 <= 50 ms: " + ("PASS" if mid["p99"] <= 0.050 else "MISS")
    else:
        verdict = ">= 1000/s: " + ("PASS" if mid["rate"] >= 1000 else "MISS")
    spread = f" ({min(r['rate'] for r in runs):.0f}-{max(r['rate'] for r in runs):.0f})"
    row(
        label,
        f"{mid['rate']:.0f}" + (spread if len(runs) > 1 else ""),
        f"{mid['p50'] * 1000:.1f} ms",
        f"{mid['p99'] * 1000:.1f} ms",
        verdict,
    )
    if mid["complete"] < 0.99:
        print(f"  only {mid['complete']:.1%} of rolls reached every subscriber")


def row(*cells: str) -> None:
    """One table row: the case, the rate, p50, p99, the verdict."""
    print(f"{cells[0]:<54}{cells[1]:>18}" + "".join(f"{c:>11}" for c in cells[2:-1]), cells[-1])


def sheet_rounds(base: str, what: str = "SQLite", rounds: int = 3) -> None:
    """Issue 27: rolls as a sheet must not slow the room. Half the posters roll as their
    character, against the same case with plain rolls, back to back in rounds (the
    machine's speed drifts); the ratio is the median of the rounds'."""
    plain, sheets = [], []
    for _ in range(rounds):
        plain.append(uvloop.run(scenario([base], 20, 2)))
        sheets.append(uvloop.run(scenario([base], 20, 2, sheets=True)))
    show(f"{what}, 20 rooms, max (plain rolls)", plain)
    show(f"{what}, 20 rooms, max, half as sheets", sheets)
    ratios = [s["rate"] / p["rate"] for p, s in zip(plain, sheets, strict=True)]
    print(
        f"{what}: half as sheets / plain: {statistics.median(ratios):.2f}x "
        f"(rounds: {', '.join(f'{r:.2f}' for r in ratios)})"
    )


PACE = 1000.0
"""The paced cases' offered load, rolls/s: the target's."""

ROUNDS = int(os.environ.get("ROUNDS", "5"))
"""PostgreSQL rounds: each runs 1 server, then 2, back to back; the rows are medians.
The machine's speed drifts by tens of percent over a minute (it is a shared virtual
machine), so 1 and 2 servers are compared round by round, not once each."""


def tables(argv: list[str]) -> None:
    """``--tables N [--rate R]``: N tables (5 live sockets each, most of them idle between
    rolls), rolls paced at R a second (default 1,000) and spread over them, latency from
    when each roll was due to the last socket of its table: issue 29's measure, run by
    ``bench_tables.py`` (its own cheap load generator; ``WORKERS=N`` or ``SERVERS=N`` for
    PostgreSQL, as there)."""
    import bench_tables

    args = dict(zip(argv[::2], argv[1::2], strict=True))
    count, rate = int(args.pop("--tables")), float(args.pop("--rate", "1000"))
    if args:
        raise SystemExit(f"bench_rooms.py: unknown options {sorted(args)}")
    bench_tables.main([str(count), str(rate)])


def main() -> None:
    if "--tables" in sys.argv:
        tables(sys.argv[1:])
        return
    print(
        f"== rooms: {SECONDS:.0f} s per case, {SUBSCRIBERS} live subscribers a room; "
        f"'max': posters go as fast as they are answered; 'at {PACE:.0f}/s': paced, "
        "latency counted from when each roll was due =="
    )
    row("case", "rolls/s", "p50", "p99", "target")
    with tempfile.TemporaryDirectory() as tmp:
        (one,) = servers(sqlite_url(Path(tmp) / "bench.sqlite3"), 1)
        try:
            run_case("SQLite, 1 room, 8 posters, max", [one.base], 1, 8)
            run_case("SQLite, 20 rooms, max", [one.base], 20, 2)
            run_case(f"SQLite, 20 rooms, at {PACE:.0f}/s", [one.base], 20, 2, PACE)
            sheet_rounds(one.base)
            per_socket = asyncio.run(socket_memory(one))
        finally:
            one.close()
    runs: dict[str, list[dict[str, Any]]] = {"1": [], "2": [], "2a": [], "2p": []}
    ratios = []
    with throwaway() as pg:
        single = servers(pg, 1)
        try:
            sheet_rounds(single[0].base, "PostgreSQL, 1 server")
        finally:
            for c in single:
                c.close()
        for _ in range(ROUNDS):
            single = servers(pg, 1)
            try:
                runs["1"].append(uvloop.run(scenario([single[0].base], 20, 2)))
            finally:
                for c in single:
                    c.close()
            pair = servers(pg, 2)
            bases = [c.base for c in pair]
            try:
                runs["2"].append(uvloop.run(scenario(bases, 20, 2)))
                runs["2a"].append(uvloop.run(scenario(bases, 20, 2, spread=False)))
                runs["2p"].append(uvloop.run(scenario(bases, 20, 2, PACE)))
            finally:
                for c in pair:
                    c.close()
            ratios.append(runs["2"][-1]["rate"] / runs["1"][-1]["rate"])
    print(f"PostgreSQL, 20 rooms, {ROUNDS} rounds (median, and range):")
    show("PostgreSQL, 1 server, max", runs["1"])
    show("PostgreSQL, 2 servers, every room on both, max", runs["2"])
    show("PostgreSQL, 2 servers, room-affine, max", runs["2a"])
    show(f"PostgreSQL, 2 servers, every room on both, at {PACE:.0f}/s", runs["2p"], PACE)
    more = statistics.median(ratios)
    rate2 = statistics.median(r["rate"] for r in runs["2"])
    affine = statistics.median(
        a["rate"] / b["rate"] for a, b in zip(runs["2a"], runs["1"], strict=True)
    )
    print(
        f"2 servers / 1 server on PostgreSQL, every room on both: {more:.2f}x (median of "
        f"rounds: {', '.join(f'{r:.2f}' for r in ratios)}); room-affine: {affine:.2f}x  "
        f"(target: > 1x and >= 1000/s: {'PASS' if more > 1 and rate2 >= 1000 else 'MISS'})"
    )
    print(
        f"memory per connected live socket (SQLite server, 390 idle sockets): "
        f"{per_socket / 1024:.1f} KiB"
    )


if __name__ == "__main__":
    main()
