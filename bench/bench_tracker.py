"""The fight tracker in a room (issue 41, "Speed"): applying a change costs no more
than a roll. ``bench_rooms``'s tracker case, in a file of its own.

One server in a child process (``referee.rooms.serving.child``) on SQLite, on loopback,
with the rate limits lifted. In one GURPS room with two combatants, the same clients
post, side by side in rounds: rolls (``POST .../rolls``, ``gurps check 12``), and fight
events (``POST .../fight``: damage 1 then heal 1 to a combatant with 1,000 HP, each a
``change`` entry). Each case runs one poster (latency: the median time per call) and
8 posters at once (throughput). The ratio is events over rolls: the target is >= 1x
throughput and <= 1x latency, within the noise of a shared 2-core machine (0.8x).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from referee.rooms.db.store import sqlite_url
from referee.rooms.serving.child import Child

UNLIMITED = {"rate": 1e9, "burst": 1e9, "address_rate": 1e9, "address_burst": 1e9}
SECONDS = 3.0
ROUNDS = 3


async def _room(client: httpx.AsyncClient) -> tuple[str, str]:
    made = (await client.post("/api/rooms", json={"name": "bench", "system": "gurps"})).json()
    room, token = made["room"], made["token"]
    auth = {"Authorization": f"Bearer {token}"}
    for cid in ("orc", "ogre"):
        event = {"kind": "add", "combatant": cid, "values": {"st": 1000, "ht": 20}}
        r = await client.post(f"/api/rooms/{room}/fight", json={"event": event}, headers=auth)
        assert r.status_code == 201, r.text
    r = await client.post(
        f"/api/rooms/{room}/fight", json={"event": {"kind": "start"}}, headers=auth
    )
    assert r.status_code == 201, r.text
    return room, token


async def _posters(
    base: str, room: str, token: str, what: str, posters: int
) -> tuple[float, float]:
    """``(calls per second, median seconds per call)`` of ``posters`` clients for SECONDS."""
    auth = {"Authorization": f"Bearer {token}"}
    times: list[float] = []
    stop = time.perf_counter() + SECONDS

    async def one(i: int) -> None:
        async with httpx.AsyncClient(base_url=base, headers=auth, timeout=30) as c:
            n = 0
            while time.perf_counter() < stop:
                body: dict[str, object]
                if what == "roll":
                    path, body = f"/api/rooms/{room}/rolls", {"command": "gurps check 12"}
                else:
                    kind = "damage" if n % 2 == 0 else "heal"
                    event = {"kind": kind, "combatant": "orc", "amount": 1}
                    path, body = f"/api/rooms/{room}/fight", {"event": event}
                t = time.perf_counter()
                r = await c.post(path, json=body)
                times.append(time.perf_counter() - t)
                assert r.status_code == 201, r.text
                n += 1

    start = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(posters)))
    return len(times) / (time.perf_counter() - start), statistics.median(times)


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        child = Child(sqlite_url(Path(tmp) / "rooms.sqlite3"), None, **UNLIMITED)
        child.start()
        try:
            async with httpx.AsyncClient(base_url=child.base, timeout=30) as c:
                room, token = await _room(c)
            for posters in (1, 8):
                rates: list[float] = []
                waits: list[float] = []
                for _ in range(ROUNDS):
                    roll = await _posters(child.base, room, token, "roll", posters)
                    event = await _posters(child.base, room, token, "event", posters)
                    rates.append(event[0] / roll[0])
                    waits.append(event[1] / roll[1])
                    print(
                        f"  {posters} poster(s): rolls {roll[0]:7.0f}/s ({roll[1] * 1e3:.2f} ms), "
                        f"fight events {event[0]:7.0f}/s ({event[1] * 1e3:.2f} ms)"
                    )
                rate, wait = statistics.median(rates), statistics.median(waits)
                ok = rate >= 0.8 and wait <= 1.25
                print(
                    f"tracker, {posters} poster(s): events/rolls throughput {rate:.2f}x, "
                    f"latency {wait:.2f}x  (target: no more than a roll) "
                    f"{'PASS' if ok else 'MISS'}"
                )
        finally:
            child.stop()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
