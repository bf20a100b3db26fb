"""Discord's interactions endpoint (issue 42): how fast ``/roll`` is answered, beside
the rooms' own roll (``POST /api/rooms/{room}/rolls``) on the same server, and whether
1,000 interactions a second are taken alongside the rooms' own load.

The server runs in a child process (``referee.rooms.serving.child``) on loopback, on
SQLite, with the rate limits lifted; its Discord public key is a fresh Ed25519 key's,
and every interaction is signed with it in advance (Discord signs, not the client),
each once (the endpoint refuses a replay). The load is a minimal HTTP/1.1 client
(as bench_rooms'), paced, each answer's time counted from when it was due.

Targets: ``/roll`` p99 under 10 ms; 1,000 interactions/s taken with the rooms rolling
beside them, every one answered, and their p99 under that load under 10 ms too.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from nacl.signing import SigningKey

from _served import read_answer
from referee.rooms.db.store import sqlite_url
from referee.rooms.serving.child import Child

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from discord_standin import interaction, opts  # noqa: E402

UNLIMITED = {"rate": 1e9, "burst": 1e9, "address_rate": 1e9, "address_burst": 1e9}
SEQUENTIAL = int(os.environ.get("SEQUENTIAL", "2000"))
RATE = float(os.environ.get("RATE", "1000"))
ROOM_RATE = float(os.environ.get("ROOM_RATE", "500"))
SECONDS = float(os.environ.get("DURATION", "5"))
CONNECTIONS = 4


def signed(
    key: SigningKey, count: int, host: str, channel: str = "77", made: Any = None
) -> list[bytes]:
    """``count`` ``/roll 3d6`` requests in ``channel`` (or ``made`` ones), each signed
    as Discord signs one."""
    out = []
    for _ in range(count):
        asked = made or interaction("roll", opts(exprs="3d6"), channel=channel)
        body = json.dumps(asked).encode()
        stamp = str(int(time.time()))
        sig = key.sign(stamp.encode() + body).signature.hex()
        out.append(
            (
                f"POST /discord/interactions HTTP/1.1\r\nHost: {host}\r\n"
                f"Content-Type: application/json\r\nX-Signature-Ed25519: {sig}\r\n"
                f"X-Signature-Timestamp: {stamp}\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode()
            + body
        )
    return out


def room_roll(host: str, room: str, token: str) -> bytes:
    body = b'{"command": "3d6"}'
    return (
        f"POST /api/rooms/{room}/rolls HTTP/1.1\r\nHost: {host}\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


async def send(
    base: str, requests: list[bytes], every: float | None, expect: int, times: list[float]
) -> None:
    """Send ``requests`` one after another on one kept-alive connection, paced at one
    per ``every`` seconds (or as fast as answered), each time counted from when due."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    due = time.perf_counter()
    try:
        for request in requests:
            if every:
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                t0, due = due, due + every
            else:
                t0 = time.perf_counter()
            writer.write(request)
            status, answer = await read_answer(reader)
            if status != expect:
                raise RuntimeError(f"{status}: {answer.decode()[:200]}")
            times.append(time.perf_counter() - t0)
    finally:
        writer.close()


def p99(times: list[float]) -> float:
    return statistics.quantiles(times, n=100)[98] * 1000


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


async def measure(base: str, key: SigningKey, room: str, token: str) -> dict[str, Any]:
    host = base.removeprefix("http://")
    warm = signed(key, 200, host)
    await send(base, warm, None, 200, [])
    out: dict[str, Any] = {}
    discord: list[float] = []
    await send(base, signed(key, SEQUENTIAL, host), None, 200, discord)
    rooms: list[float] = []
    await send(base, [room_roll(host, room, token)] * SEQUENTIAL, None, 201, rooms)
    linking = [{"type": 1, "name": "link", "options": opts(room=room, token=token)}]
    link = interaction("referee", linking, channel="78")
    await send(base, signed(key, 1, host, made=link), None, 200, [])
    logged: list[float] = []
    await send(base, signed(key, SEQUENTIAL, host, channel="78"), None, 200, logged)
    out["sequential"] = (statistics.median(discord) * 1000, p99(discord),
                         statistics.median(rooms) * 1000, p99(rooms),
                         statistics.median(logged) * 1000, p99(logged))  # fmt: skip
    per = int(RATE * SECONDS / CONNECTIONS)
    batches = [signed(key, per, host) for _ in range(CONNECTIONS)]
    loaded: list[float] = []
    beside: list[float] = []
    room_count = int(ROOM_RATE * SECONDS / 4)
    began = time.perf_counter()
    await asyncio.gather(
        *(send(base, b, CONNECTIONS / RATE, 200, loaded) for b in batches),
        *(
            send(base, [room_roll(host, room, token)] * room_count, 4 / ROOM_RATE, 201, beside)
            for _ in range(4)
        ),
    )
    took = time.perf_counter() - began
    out["loaded"] = (len(loaded) / took, p99(loaded), len(beside) / took, p99(beside))
    return out


def main() -> None:
    key = SigningKey.generate()
    public = key.verify_key.encode().hex()
    os.environ["REFEREE_DISCORD_PUBLIC_KEY"] = public
    # A bench sends far faster than any table: the commands' pace is not what it measures.
    os.environ["REFEREE_DISCORD_USER_PACE"] = "1000000,1000000"
    os.environ["REFEREE_DISCORD_CHANNEL_PACE"] = "1000000,1000000"
    with tempfile.TemporaryDirectory() as folder:
        child = Child(sqlite_url(str(Path(folder) / "rooms.sqlite3")), None, **UNLIMITED)
        child.start()
        try:
            with httpx.Client(base_url=child.base) as c:
                made = c.post("/api/rooms", json={"name": "bench", "system": "gurps"}).json()
            got = asyncio.run(measure(child.base, key, made["room"], made["token"]))
        finally:
            child.kill()
    d50, d99, r50, r99, l50, l99 = got["sequential"]
    print("Discord interactions (issue 42), SQLite, one server process on loopback")
    print(f"  one at a time, {SEQUENTIAL:,} each:")
    print(f"    /roll 3d6 interaction   p50 {d50:5.2f} ms  p99 {d99:5.2f} ms")
    print(f"    rooms' POST /rolls 3d6  p50 {r50:5.2f} ms  p99 {r99:5.2f} ms")
    print(f"    /roll in a linked room  p50 {l50:5.2f} ms  p99 {l99:5.2f} ms (logged)")
    print(f"    ratio (interaction / rooms' roll, p50): {d50 / r50:.2f}x")
    print(f"    target p99 < 10 ms: {verdict(max(d99, l99) < 10)}")
    rate, lp99, room_rate, rp99 = got["loaded"]
    print(
        f"  paced {RATE:,.0f} interactions/s beside {ROOM_RATE:,.0f} room rolls/s, {SECONDS:g} s:"
    )
    print(f"    interactions {rate:7.0f}/s  p99 {lp99:6.2f} ms")
    print(f"    room rolls   {room_rate:7.0f}/s  p99 {rp99:6.2f} ms")
    taken = rate >= 0.98 * RATE
    print(f"    target 1,000/s taken beside the rooms: {verdict(taken)}")
    print(f"    target p99 < 10 ms under this load: {verdict(taken and lp99 < 10)}")


if __name__ == "__main__":
    main()
