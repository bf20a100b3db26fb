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
    """The gateway stand-in: its URL, and what its clients did. Each client that
    identifies gets a session of its own (a test's servers each have one)."""

    url: str = ""
    token: str = ""
    heartbeat_ms: int = 45_000
    identifies: int = 0
    resumes: list[int] = field(default_factory=list)
    """The sequence number each RESUME gave."""
    heartbeats: int = 0
    refused: int = 0
    """Connections closed with 4004 (a token that is not the bot's)."""
    turned_away: int = 0
    """Connections closed at once, while :meth:`refuse` holds."""
    _refuse_until: float = 0.0
    bad_ready: list[Any] = field(default_factory=list)
    """READY data to send, in turn, to the next clients that identify, instead of a
    session's (``{}``: a READY Discord would not send); the session is not kept."""
    bad_hello: list[Any] = field(default_factory=list)
    """HELLO data to send, in turn, to the next connections, instead of a heartbeat
    interval (``{}``: a HELLO Discord would not send)."""
    sessions: dict[str, Session] = field(default_factory=dict)
    _live: dict[str, ServerConnection] = field(default_factory=dict)
    _zlib: dict[ServerConnection, Any] = field(default_factory=dict)
    _loop: asyncio.AbstractEventLoop | None = None
    _changed: threading.Condition = field(default_factory=threading.Condition)

    def __repr__(self) -> str:
        return f"Gateway({self.url!r}, {self.identifies} identified, {len(self.resumes)} resumed)"

    # --- what a test does (from its own thread) ---

    def dispatch(self, session: str, interaction: dict[str, Any]) -> None:
        """Send ``INTERACTION_CREATE`` in ``session``; with no live connection, keep it
        for the RESUME, as Discord does."""
        self._run(self._dispatch(session, interaction))

    def drop(self, session: str, code: int = 4000) -> None:
        """Close ``session``'s connection from the server's side with ``code`` (4000,
        "unknown error": the client should RESUME); the session stays."""
        self._run(self._drop(session, code))

    def refuse(self, seconds: float) -> None:
        """Close every new connection at once (4000, before HELLO) for ``seconds``:
        Discord out of reach, while the client tries again."""
        self._refuse_until = time.monotonic() + seconds

    def send_raw(self, session: str, frame: str) -> None:
        """Send ``frame`` as it is on ``session``'s connection (compressed, when the
        connection is): a frame Discord would not send."""
        self._run(self._send_raw(session, frame))

    def send_text(self, session: str, frame: str) -> None:
        """Send ``frame`` as a text message, never compressed, on ``session``'s
        connection."""
        self._run(self._send_text(session, frame))

    def dispatch_raw(self, session: str, name: str, data: Any) -> None:
        """A dispatch ``name`` with ``data`` as it is (``None``, a list...), numbered
        in ``session`` and sent again on a RESUME like any other."""
        self._run(self._dispatch_named(session, name, data))

    def wait_for(self, check: Any, timeout: float = 60) -> None:
        """Until ``check()`` holds (it is tried again whenever a client identifies,
        resumes or goes)."""
        with self._changed:
            assert self._changed.wait_for(check, timeout), f"timed out: {self!r}"

    def live(self, session: str) -> bool:
        return session in self._live

    def _run(self, work: Any) -> Any:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(work, self._loop).result(10)

    def _notify(self) -> None:
        with self._changed:
            self._changed.notify_all()

    async def _dispatch(self, session: str, interaction: dict[str, Any]) -> None:
        payload = self.sessions[session].next("INTERACTION_CREATE", interaction)
        ws = self._live.get(session)
        if ws is not None:
            await self._send(ws, payload)

    async def _dispatch_named(self, session: str, name: str, data: Any) -> None:
        payload = self.sessions[session].next(name, data)
        ws = self._live.get(session)
        if ws is not None:
            await self._send(ws, payload)

    async def _send_raw(self, session: str, frame: str) -> None:
        ws = self._live[session]
        stream = self._zlib.get(ws)
        if stream is not None:
            await ws.send(stream.compress(frame.encode()) + stream.flush(zlib.Z_SYNC_FLUSH))
        else:
            await ws.send(frame)

    async def _send_text(self, session: str, frame: str) -> None:
        await self._live[session].send(frame)

    async def _drop(self, session: str, code: int) -> None:
        ws = self._live.pop(session, None)
        if ws is not None:
            await ws.close(code, "the stand-in dropped the connection")
        self._notify()

    # --- the protocol ---

    async def _send(self, ws: ServerConnection, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        stream = self._zlib.get(ws)
        if stream is not None:
            await ws.send(stream.compress(data) + stream.flush(zlib.Z_SYNC_FLUSH))
        else:
            await ws.send(data.decode())

    async def serve(self, ws: ServerConnection) -> None:
        if time.monotonic() < self._refuse_until:
            self.turned_away += 1
            await ws.close(4000, "the stand-in is out of reach")
            return
        query = parse_qs(urlparse(ws.request.path if ws.request else "/").query)
        if query.get("compress") == ["zlib-stream"]:
            self._zlib[ws] = zlib.compressobj()
        hello = (
            self.bad_hello.pop(0) if self.bad_hello else {"heartbeat_interval": self.heartbeat_ms}
        )
        await self._send(ws, {"op": HELLO, "d": hello})
        try:
            async for message in ws:
                await self._receive(ws, json.loads(message))
        except ConnectionClosed:
            pass
        finally:
            self._zlib.pop(ws, None)
            for session, live in list(self._live.items()):
                if live is ws:
                    del self._live[session]
            self._notify()

    async def _receive(self, ws: ServerConnection, payload: dict[str, Any]) -> None:
        op, data = payload.get("op"), payload.get("d") or {}
        if op == HEARTBEAT:
            self.heartbeats += 1
            await self._send(ws, {"op": ACK, "d": None})
        elif op in (IDENTIFY, RESUME) and data.get("token") != self.token:
            self.refused += 1
            await ws.close(4004, "Authentication failed.")
            self._notify()
        elif op == IDENTIFY and self.bad_ready:
            self.identifies += 1
            await self._send(ws, Session("bad").next("READY", self.bad_ready.pop(0)))
            self._notify()
        elif op == IDENTIFY:
            self.identifies += 1
            session = Session(f"session-{self.identifies}")
            self.sessions[session.id] = session
            self._live[session.id] = ws
            await self._send(ws, session.next("READY", self._ready_data(session)))
            self._notify()
        elif op == RESUME:
            found = self.sessions.get(str(data.get("session_id")))
            if found is None:
                await self._send(ws, {"op": 9, "d": False})  # INVALID_SESSION
                return
            seq = int(data.get("seq") or 0)
            self.resumes.append(seq)
            self._live[found.id] = ws
            for missed in list(found.sent[seq:]):
                await self._send(ws, missed)
            await self._send(ws, found.next("RESUMED", {}))
            self._notify()

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
def gateway_stand_in(token: str) -> Iterator[Gateway]:
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
