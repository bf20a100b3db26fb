"""A real rooms server for tests: uvicorn on a loopback socket, a SQLite file, and
small HTTP and WebSocket clients that speak the contract."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from referee.rooms import child
from referee.rooms.state import RoomsLimits
from referee.rooms.store import sqlite_url


@dataclass
class Server:
    base: str
    db: Path

    @property
    def ws_base(self) -> str:
        return "ws" + self.base[len("http") :]

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.base, headers=headers, timeout=30)


@contextmanager
def running(db: Path, limits: type[RoomsLimits] = RoomsLimits) -> Iterator[Server]:
    """Serve the rooms' app in a child process (:func:`referee.rooms.child.running`)."""
    with child.running(sqlite_url(db), limits.rate, limits.burst) as base:
        yield Server(base, db)


@dataclass
class Table:
    """A room with its GM and two players, Alice and Bob."""

    server: Server
    room: str
    invite: str
    tokens: dict[str, str]  # "gm", "alice", "bob" -> token
    ids: dict[str, str]  # "gm", "alice", "bob" -> member id

    def client(self, who: str) -> httpx.Client:
        return self.server.client(self.tokens[who])

    def roll(self, who: str, command: str, visibility: str = "public") -> httpx.Response:
        with self.client(who) as c:
            return c.post(
                f"/api/rooms/{self.room}/rolls",
                json={"command": command, "visibility": visibility},
            )

    def log(self, who: str, after: int = -1) -> list[dict[str, Any]]:
        with self.client(who) as c:
            r = c.get(f"/api/rooms/{self.room}/log", params={"after": after, "limit": 1000})
            r.raise_for_status()
            return r.json()["entries"]  # type: ignore[no-any-return]

    def export(self, who: str) -> list[dict[str, Any]]:
        with self.client(who) as c:
            r = c.get(f"/api/rooms/{self.room}/export")
            r.raise_for_status()
            assert r.headers["content-type"].startswith("application/x-ndjson")
            return [json.loads(line) for line in r.text.splitlines()]


def make_table(server: Server, name: str = "Friday") -> Table:
    with server.client() as c:
        made = c.post("/api/rooms", json={"name": name, "system": "gurps"})
        assert made.status_code == 201, made.text
        body = made.json()
        tokens, ids = {"gm": body["token"]}, {"gm": "gm"}
        for who in ("alice", "bob"):
            joined = c.post(
                f"/api/rooms/{body['room']}/members",
                json={"name": who.title(), "invite": body["invite"]},
            )
            assert joined.status_code == 201, joined.text
            tokens[who] = joined.json()["token"]
            ids[who] = joined.json()["member"]
    return Table(server, body["room"], body["invite"], tokens, ids)


def live(
    table: Table, who: str, after: int = -1, count: int = 1, timeout: float = 10
) -> list[dict[str, Any]]:
    """Open the live socket as ``who`` (token in the first message) and read ``count`` frames."""
    from websockets.sync.client import connect

    url = f"{table.server.ws_base}/api/rooms/{table.room}/live?after={after}"
    frames: list[dict[str, Any]] = []
    with connect(url, open_timeout=timeout) as ws:
        ws.send(json.dumps({"token": table.tokens[who]}))
        while len(frames) < count:
            frames.append(json.loads(ws.recv(timeout=timeout)))
    return frames
