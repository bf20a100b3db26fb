"""Discord's gateway, as far as the tests need it, as Discord documents it
(https://discord.com/developers/docs/events/gateway): HELLO with the heartbeat
interval, IDENTIFY and READY (a session id and its ``resume_gateway_url``),
heartbeats and their ACKs, dispatches of ``INTERACTION_CREATE`` with their sequence
numbers, and a close from the server side that the client must RESUME from (Discord
then sends every dispatch after the client's last sequence number, and RESUMED).

Messages go zlib-compressed (``compress=zlib-stream``: one stream a connection, each
message ending in a sync flush) when the client asks, as Discord's do. The REST
stand-in points clients here from ``GET /gateway/bot``. Discord cannot be reached from
these machines: this is the part of referee tested against a stand-in.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlparse

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

HELLO, HEARTBEAT, IDENTIFY, RESUME, DISPATCH, ACK = 10, 1, 2, 6, 0, 11
APPLICATION_USER = "1100000000000000001"


@dataclass
class Session:
    """One gateway session: every dispatch sent in it, by sequence number."""

    id: str
    sent: list[dict[str, Any]] = field(default_factory=list)

    def next(self, name: str, data: Any) -> dict[str, Any]:
        payload = {"op": DISPATCH, "t": name, "s": len(self.sent) + 1, "d": data}
        self.sent.append(payload)
        return payload


@dataclass(repr=False)
class Gateway:
    """The gateway stand-in: its URL, and what its clients did."""

    url: str = ""
    token: str = "bot-token"
    heartbeat_ms: int = 45_000
    identifies: int = 0
    resumes: list[int] = field(default_factory=list)
    """The sequence number each RESUME gave."""
    heartbeats: int = 0
    refused: int = 0
    """Connections closed with 4004 (a token that is not the bot's)."""
    sessions: dict[str, Session] = field(default_factory=dict)
    _live: ServerConnection | None = None
    _session: Session | None = None
    _zlib: Any = None
    _loop: asyncio.AbstractEventLoop | None = None
    _ready: threading.Event = field(default_factory=threading.Event)

    def __repr__(self) -> str:
        return f"Gateway({self.url!r}, {self.identifies} identified, {len(self.resumes)} resumed)"

    # --- what a test does (from its own thread) ---

    def dispatch(self, interaction: dict[str, Any]) -> None:
        """Send ``INTERACTION_CREATE``; with no live connection, keep it for the RESUME."""
        self._run(self._dispatch(interaction))

    def drop(self, code: int = 4000) -> None:
        """Close the live connection from the server's side with ``code`` (4000,
        "unknown error": the client should RESUME); the session stays."""
        self._ready.clear()
        self._run(self._drop(code))

    def wait_ready(self, timeout: float = 30) -> None:
        """Until a client has identified or resumed (after :meth:`drop`: resumed)."""
        assert self._ready.wait(timeout), f"no client is connected: {self!r}"

    def _run(self, work: Any) -> Any:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(work, self._loop).result(10)

    async def _dispatch(self, interaction: dict[str, Any]) -> None:
        assert self._session is not None, "no session: no client has identified"
        payload = self._session.next("INTERACTION_CREATE", interaction)
        if self._live is not None:
            await self._send(self._live, payload)

    async def _drop(self, code: int) -> None:
        if self._live is not None:
            live, self._live = self._live, None
            await live.close(code, "the stand-in dropped the connection")

    # --- the protocol ---

    async def _send(self, ws: ServerConnection, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        if self._zlib is not None:
            await ws.send(self._zlib.compress(data) + self._zlib.flush(zlib.Z_SYNC_FLUSH))
        else:
            await ws.send(data.decode())

    async def serve(self, ws: ServerConnection) -> None:
        query = parse_qs(urlparse(ws.request.path if ws.request else "/").query)
        self._zlib = zlib.compressobj() if query.get("compress") == ["zlib-stream"] else None
        await self._send(ws, {"op": HELLO, "d": {"heartbeat_interval": self.heartbeat_ms}})
        try:
            async for message in ws:
                await self._receive(ws, json.loads(message))
        except ConnectionClosed:
            pass
        finally:
            if self._live is ws:
                self._live = None

    async def _receive(self, ws: ServerConnection, payload: dict[str, Any]) -> None:
        op, data = payload.get("op"), payload.get("d") or {}
        if op == HEARTBEAT:
            self.heartbeats += 1
            await self._send(ws, {"op": ACK, "d": None})
        elif op in (IDENTIFY, RESUME) and data.get("token") != self.token:
            self.refused += 1
            await ws.close(4004, "Authentication failed.")
        elif op == IDENTIFY:
            self.identifies += 1
            session = self._session = Session(f"session-{self.identifies}")
            self.sessions[session.id] = session
            self._live = ws
            await self._send(ws, session.next("READY", self._ready_data(session)))
            self._ready.set()
        elif op == RESUME:
            found = self.sessions.get(str(data.get("session_id")))
            if found is None:
                await self._send(ws, {"op": 9, "d": False})  # INVALID_SESSION
                return
            session = found
            seq = int(data.get("seq") or 0)
            self.resumes.append(seq)
            self._live, self._session = ws, session
            for missed in list(session.sent[seq:]):
                await self._send(ws, missed)
            await self._send(ws, session.next("RESUMED", {}))
            self._ready.set()

    def _ready_data(self, session: Session) -> dict[str, Any]:
        return {
            "v": 10,
            "user": {
                "id": APPLICATION_USER,
                "username": "referee",
                "discriminator": "0",
                "global_name": None,
                "avatar": None,
                "bot": True,
            },
            "guilds": [],
            "session_id": session.id,
            "resume_gateway_url": self.url,
            "shard": [0, 1],
            "application": {"id": APPLICATION_USER, "flags": 0},
        }


@contextmanager
def gateway_stand_in(token: str = "bot-token") -> Iterator[Gateway]:
    """A gateway stand-in on a free loopback port, in a thread of its own."""
    state = Gateway(token=token)
    started = threading.Event()
    stop: list[asyncio.Future[None]] = []

    async def main() -> None:
        state._loop = asyncio.get_running_loop()
        async with serve(state.serve, "127.0.0.1", 0, compression=None) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            state.url = f"ws://127.0.0.1:{port}/"
            done = state._loop.create_future()
            stop.append(done)
            started.set()
            await done

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    assert started.wait(10), "the gateway stand-in did not start"
    try:
        yield state
    finally:
        loop = state._loop
        assert loop is not None
        loop.call_soon_threadsafe(stop[0].set_result, None)
        thread.join(10)


def wait_until(check: Any, timeout: float = 15, what: str = "") -> None:
    """Poll ``check()`` until it is true."""
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, f"timed out waiting for {what or check}"
        time.sleep(0.01)
