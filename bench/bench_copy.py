"""Moving a campaign (issue 28): ``referee rooms copy`` of a room with 10,000 log
entries, SQLite to PostgreSQL and back, each copy checked (every room's chain on the
target) before it reports. Target: under 30 s each way."""

from __future__ import annotations

import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from referee.rooms.db.copy import copy_rooms
from referee.rooms.db.store import sqlite_url
from referee.rooms.serving.child import Child
from referee.rooms.serving.pgtemp import throwaway

ENTRIES = 10_000
UNLIMITED = {"rate": 1e9, "burst": 1e9, "address_rate": 1e9, "address_burst": 1e9}


def fill(base: str, entries: int) -> str:
    """A room whose log holds ``entries`` entries (rolls from 4 players)."""
    with httpx.Client(base_url=base, timeout=60) as c:
        made = c.post("/api/rooms", json={"name": "long campaign", "system": None}).json()
        room: str = made["room"]
        tokens = [
            c.post(
                f"/api/rooms/{room}/members", json={"name": f"p{i}", "invite": made["invite"]}
            ).json()["token"]
            for i in range(4)
        ]
        left = (
            entries
            - len(
                c.get(
                    f"/api/rooms/{room}/log", headers={"Authorization": f"Bearer {made['token']}"}
                ).json()["entries"]
            )
            - 1
        )  # the lock

    def post(i: int) -> None:
        with httpx.Client(base_url=base, timeout=60) as c:
            token = tokens[i % len(tokens)]
            for _ in range(left // 8 + (1 if i < left % 8 else 0)):
                r = c.post(f"/api/rooms/{room}/rolls", json={"command": "3d6"},
                           headers={"Authorization": f"Bearer {token}"})  # fmt: skip
                assert r.status_code == 201, r.text

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(post, range(8)))
    return room


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, throwaway() as pg:
        first = sqlite_url(Path(tmp) / "first.sqlite3")
        server = Child(first, None, **UNLIMITED)
        server.start()
        try:
            fill(server.base, ENTRIES)
        finally:
            server.close()
        back = sqlite_url(Path(tmp) / "back.sqlite3")
        print(f"== rooms copy: one room of {ENTRIES:,} entries, checked on the target ==")
        for label, source, target in (("SQLite -> PostgreSQL", first, pg),
                                      ("PostgreSQL -> SQLite", pg, back)):  # fmt: skip
            t0 = time.perf_counter()
            done = copy_rooms(source, target)
            took = time.perf_counter() - t0
            verdict = "PASS" if took < 30 else "MISS"
            print(f"{label:<24} {done.entries:>7,} entries, {done.rows:>7,} rows  {took:6.1f} s"
                  f"  (target < 30 s: {verdict})")  # fmt: skip


if __name__ == "__main__":
    main()
