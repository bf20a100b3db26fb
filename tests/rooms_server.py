"""A real rooms server for tests: uvicorn on a loopback socket, a real database (a
SQLite file, or a database of its own in a throwaway PostgreSQL cluster), and
small HTTP and WebSocket clients that speak the contract."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from referee.rooms.db.store import sqlite_url
from referee.rooms.serving import child
from referee.rooms.state import RoomsLimits
from zygote import ForkedChild

_names = itertools.count()

LOOPBACK_TLS = httpx.create_ssl_context()
"""Every test client's ``verify``, made once: httpx otherwise builds a context for each
client (and transport), reading certifi's bundle, 30-80 ms here, which was most of a
request's time in the tests (issue 53). The tests' servers are plain HTTP on loopback."""


def fresh_db(like: str, tmp: Path) -> str:
    """A new, empty database of the same kind as the URL ``like``: a SQLite file in
    ``tmp``, or a new database in the same PostgreSQL cluster."""
    if like.startswith("sqlite"):
        return sqlite_url(tmp / f"rooms-{uuid.uuid4().hex[:8]}.sqlite3")
    import asyncpg

    name = f"rooms_{next(_names)}_{uuid.uuid4().hex[:8]}"
    plain = like.replace("postgresql+asyncpg://", "postgresql://")

    async def create() -> None:
        conn = await asyncpg.connect(plain)
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()

    asyncio.run(create())
    return like.rsplit("/", 1)[0] + "/" + name


def start_workers(db: str, *extra: str) -> tuple[subprocess.Popen[bytes], int]:
    """``referee serve --workers 2`` on the PostgreSQL ``db`` (rate limits lifted), in a
    session of its own (stop it with ``os.killpg``); once it answers, it and its port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    before = set(Path(tempfile.gettempdir()).glob("referee-workers-*"))
    process = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "serve", "--workers", "2", "--db", db,
         "--port", str(port), "--limit", "address_rate=1000000", "--limit", "rate=1000000",
         *extra],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    # (serving.child's wait: one client for every try)
    assert child.wait_healthy(f"http://127.0.0.1:{port}", process, 60), "did not start"
    if "--no-room-affinity" in extra:
        return process, port
    # One worker answering is not both: until a worker has bound its inbox (the
    # folder's socket named by its index), its rooms are served where they arrive.
    while True:
        folders = set(Path(tempfile.gettempdir()).glob("referee-workers-*")) - before
        if any((f / "0").exists() and (f / "1").exists() for f in folders):
            return process, port
        assert process.poll() is None and time.monotonic() < deadline, "no inboxes"
        time.sleep(0.05)


def query(url: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Rows of one SQL query (``?`` placeholders) on the database at ``url``."""
    if url.startswith("sqlite"):
        import sqlite3

        # closing(): a bare ``with`` commits, and leaves the connection open
        with closing(sqlite3.connect(url.split(":///", 1)[1])) as db:
            return [tuple(r) for r in db.execute(sql, args)]
    import asyncpg

    numbered = sql
    for i in range(len(args)):
        numbered = numbered.replace("?", f"${i + 1}", 1)

    async def run() -> list[tuple[Any, ...]]:
        conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
        try:
            return [tuple(r) for r in await conn.fetch(numbered, *args)]
        finally:
            await conn.close()

    return asyncio.run(run())


@dataclass
class Server:
    base: str
    db: str
    """The database's SQLAlchemy URL."""

    @property
    def ws_base(self) -> str:
        return "ws" + self.base[len("http") :]

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.base, headers=headers, timeout=30, verify=LOOPBACK_TLS)


class Loopback(RoomsLimits):
    """The defaults, but for the limit on each client address: every test client comes
    from 127.0.0.1 (the hostile tests keep that limit, and test it)."""

    address_rate = 1e6
    address_burst = 1e6


@contextmanager
def running(
    db: str, limits: type[RoomsLimits] = Loopback, proxy: str | None = None
) -> Iterator[Server]:
    """Serve the rooms' app on the database at URL ``db``, in a child process (as
    :func:`referee.rooms.serving.child.running` does, but forked: ``tests/zygote.py``);
    ``proxy``: trusted proxies' addresses."""
    overrides = {  # every limit the class or its bases change (not only its own)
        k: getattr(limits, k)
        for k in vars(RoomsLimits)
        if not k.startswith("_") and getattr(limits, k) != getattr(RoomsLimits, k)
    }
    with child.running(db, proxy, kind=ForkedChild, **overrides) as base:  # (zygote.py)
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

    def _read(self, who: str, path: str, params: dict[str, Any] | None = None) -> httpx.Response:
        """A read that waits out the member's rate (429), as a page does: a test that
        reads the fight after each of its events meets it on a fast machine. At most 100
        waits of 0.1 s, then the 429 is the answer."""
        with self.client(who) as c:
            for _ in range(100):
                r = c.get(f"/api/rooms/{self.room}/{path}", params=params)
                if r.status_code != 429:
                    break
                time.sleep(0.1)
            r.raise_for_status()
            return r

    def log(self, who: str, after: int = -1) -> list[dict[str, Any]]:
        r = self._read(who, "log", {"after": after, "limit": 1000})
        return r.json()["entries"]  # type: ignore[no-any-return]

    def fight(self, who: str) -> dict[str, Any]:
        """``GET .../fight`` as ``who`` sees it."""
        return self._read(who, "fight").json()  # type: ignore[no-any-return]

    def export(self, who: str) -> list[dict[str, Any]]:
        r = self._read(who, "export")
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


class Watcher:
    """A live socket read in a thread: every frame it gets, until ``stop`` (or until it
    has seen seq ``until``, with :meth:`wait_for`)."""

    def __init__(self, server: Server, room: str, token: str, after: int = -1) -> None:
        import threading

        from websockets.sync.client import connect

        self.frames: list[dict[str, Any]] = []
        self.top = -1
        self.error: BaseException | None = None
        self._seen = threading.Condition()
        self._stack = ExitStack()
        self._ws = self._stack.enter_context(
            connect(f"{server.ws_base}/api/rooms/{room}/live?after={after}", open_timeout=10)
        )
        self._ws.send(json.dumps({"token": token}))
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            for raw in self._ws:
                with self._seen:
                    frame = json.loads(raw)
                    self.frames.append(frame)
                    self.top = max(self.top, frame["seq"])
                    self._seen.notify_all()
        except ConnectionClosed:
            pass
        except BaseException as exc:  # the test reports it
            self.error = exc

    def wait_for(self, seq: int, timeout: float = 20) -> bool:
        """Wait until a frame with seq ``seq`` or later came; False on timeout."""
        with self._seen:
            return self._seen.wait_for(lambda: self.top >= seq, timeout)

    def seqs(self) -> list[int]:
        with self._seen:
            return [f["seq"] for f in self.frames]

    def stop(self) -> None:
        self._stack.close()
        self._thread.join(10)
