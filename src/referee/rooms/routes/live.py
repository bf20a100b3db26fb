"""The live stream: ``WS /api/rooms/{room}/live?after=SEQ``.

Each entry after SEQ, then each new one, in seq order, one JSON text frame
each, as the member may see it. After a ``reveal`` entry the revealed roll is
sent again, whole. A handshake from a foreign ``Origin`` is refused; a bad
token closes the socket with 4401.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect

from ..db.store import Member
from ..errors import ApiError
from ..fanout.broker import Watch
from ..service import authenticate
from ..state import State
from .api import Caller, cookie_name

__all__ = ["install", "serve"]

BAD_TOKEN = 4401
FOREIGN_ORIGIN = 4403
TOO_MANY = 4429
"""Close code for a socket over :attr:`.state.RoomsLimits.sockets`, or over the member's rate."""
TOO_SLOW = 4408
"""Close code for a socket that did not take a frame within ``send_wait`` seconds."""
TOKEN_WAIT = 10.0
"""Seconds a socket may take to send its token."""


def _same_origin(ws: WebSocket) -> bool:
    origin = ws.headers.get("origin")
    if origin is None:  # not a browser: tokens, not cookies, protect it
        return True
    host = ws.headers.get("host", "")
    return urlsplit(origin).netloc.lower() == host.lower()


async def _member(ws: WebSocket, st: State, room: str) -> tuple[Member, str] | None:
    """The socket's member and token, or None for a bad or missing token."""
    token = ws.cookies.get(cookie_name(room))
    if token is None:
        try:
            raw = await asyncio.wait_for(ws.receive_text(), TOKEN_WAIT)
        except (TimeoutError, WebSocketDisconnect, KeyError, RuntimeError):
            return None  # silence, a hang-up, or bytes instead of text
        if len(raw) > st.limits.ws_message:
            return None
        try:
            message = json.loads(raw)
        except ValueError:
            return None
        token = message.get("token") if isinstance(message, dict) else None
        if not isinstance(token, str):
            return None
    try:
        return await authenticate(st, room, token, ws.client.host if ws.client else ""), token
    except ApiError:
        return None


class _Removed(Exception):
    """The socket's member was removed from the room (a ``leave`` entry)."""


async def _send(
    ws: WebSocket, st: State, member: Member, entry: dict[str, Any], watch: Watch
) -> None:
    """One entry as the member may see it; after a ``reveal``, the revealed roll again.
    While a frame waits for the client to take it, ``watch`` says since when."""
    room = entry["room"]
    revealed = await st.revealed(room)
    loop = asyncio.get_running_loop()
    watch.since = loop.time()
    await ws.send_text(st.frames.text(entry, member.id, revealed))
    watch.since = None
    if entry["kind"] == "leave" and entry["member"] == member.id:
        raise _Removed
    if entry["kind"] == "reveal":
        again = await st.store.entry(room, entry["of"])
        if again is not None:
            watch.since = loop.time()
            await ws.send_text(st.frames.text(again, member.id, revealed))
            watch.since = None


async def _send_after(
    ws: WebSocket, st: State, member: Member, room: str, after: int, watch: Watch
) -> int:
    """Send every stored entry after ``after`` (from the store, a page at a time), charging
    the member for what was read; return the last seq sent."""
    size = 10  # a small first page: a client that leaves at once costs little
    while True:
        await st.pace(member)  # a long replay goes at the member's rate
        page, chars = await st.store.read(room, after, size)
        st.charge(member, chars / st.limits.replay_per_request)
        if not page:
            return after
        for entry in page:
            await _send(ws, st, member, entry, watch)
            after = entry["seq"]
        if len(page) < size:  # the end: what comes after, the subscription brings
            return after  # (one read, not two, for a socket on a short log)
        size = 50


def install(app: FastAPI) -> None:
    @app.websocket("/api/rooms/{room}/live")
    async def live(ws: WebSocket, room: str, after: int = -1) -> None:
        await serve(ws, room, after)

    @app.get("/api/rooms/{room}/present")
    async def present(room: str, member: Caller, request: Request) -> dict[str, list[str]]:
        """The members with a live socket open on this server now (a room page keeps one
        open). Beyond the contract; with several servers, each knows its own sockets."""
        st: State = request.app.state.rooms
        return {"members": sorted(st.here.get(room, ()))}


async def serve(ws: WebSocket, room: str, after: int = -1) -> None:
    """One live socket, from its handshake until it closes."""
    st: State = ws.app.state.rooms
    if not _same_origin(ws):
        await ws.close(code=FOREIGN_ORIGIN)
        return
    await ws.accept()
    found = await _member(ws, st, room)
    if found is None:
        await _close(ws, BAD_TOKEN, "bad token")
        return
    member, token = found
    key = (room, member.id)
    if st.sockets[key] >= st.limits.sockets:
        await _close(ws, TOO_MANY, f"at most {st.limits.sockets} sockets a member")
        return
    try:
        st.spend(member)
    except ApiError:
        await _close(ws, TOO_MANY, "too many requests: slow down")
        return
    st.sockets[key] += 1
    st.here.setdefault(room, set()).add(member.id)
    try:
        await _follow(ws, st, member, token, room, min(max(after, -1), 2**53 - 1))
    finally:
        st.sockets[key] -= 1
        if not st.sockets[key]:
            del st.sockets[key]
            here = st.here.get(room, set())
            here.discard(member.id)
            if not here:
                st.here.pop(room, None)


async def _close(ws: WebSocket, code: int, reason: str) -> None:
    """Close, unless the client is gone (or will not take the close frame either)."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, TimeoutError):
        await asyncio.wait_for(ws.close(code=code, reason=reason), 1.0)


async def _follow(
    ws: WebSocket, st: State, member: Member, token: str, room: str, after: int
) -> None:
    """Send the log after ``after``, then each new entry, until the client goes, or
    until its member is removed or its token rotated: then it closes with 4401 at once,
    whatever its ``after`` (a ``leave`` entry at or below it is never sent, but ends it
    all the same), on every server (:meth:`.state.State.published` hears every leave
    and rotation). A socket whose token still works when another of its member's
    tokens is rotated (the page that asked for a new GM token) closes normally, and
    its page reconnects."""
    sub = st.broker.subscribe(room)
    removed = False

    def kick() -> None:
        nonlocal removed
        removed = True
        sub.close()

    reader = asyncio.create_task(_drain(ws, st))
    reader.add_done_callback(lambda _: sub.close())  # the client went: stop waiting
    watch = st.stalls.watch()
    unwatch = st.on_removal(room, member.id, kick)
    try:
        # Removed between the handshake's check and now? The leave dropped the token.
        if await st.member(token) is None:
            raise _Removed
        last = await _send_after(ws, st, member, room, max(after, -1), watch)
        while True:
            news = await sub.wait()
            if removed:
                if await st.member(token) is None:  # removed, or this token rotated
                    raise _Removed
                break  # another of the member's tokens went (a rotation): this one reconnects
            if sub.closed:
                break
            for entry in news:
                if entry["seq"] == last + 1:  # the usual case: straight from the broker
                    await _send(ws, st, member, entry, watch)
                    last = entry["seq"]
                elif entry["seq"] > last:  # a gap: the store fills it
                    last = await _send_after(ws, st, member, room, last, watch)
            if sub.latest > last:  # more than the broker kept
                last = await _send_after(ws, st, member, room, last, watch)
    except (WebSocketDisconnect, RuntimeError):
        pass  # it went, or the server closed it (a keepalive ping unanswered)
    except _Removed:  # the GM removed this member, or rotated this token: it no longer works
        gone = await st.member_by_id(room, member.id) is None
        await _close(ws, BAD_TOKEN, "removed from the room" if gone else "token changed")
    except asyncio.CancelledError:
        if not watch.late:
            raise
        watch.task.uncancel()  # it stopped reading (:class:`Stalls`): let it go
        await _close(ws, TOO_SLOW, "not reading")
    finally:
        unwatch()
        st.stalls.forget(watch)
        st.broker.unsubscribe(room, sub)
        reader.cancel()
        await _close(ws, 1000, "")


async def _drain(ws: WebSocket, st: State) -> Any:
    """Read (and ignore) what the client sends, until it goes; oversized messages close."""
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return None
        text = message.get("text") or message.get("bytes") or ""
        if len(text) > st.limits.ws_message:
            await ws.close(code=1009)
            return None
