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
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from websockets.protocol import State as _WsState

from ..db.store import Member
from ..errors import ApiError
from ..fanout.broker import Subscription, Watch
from ..service import authenticate
from ..state import State
from .api import Caller, cookie_name

__all__ = ["BEHIND", "TOO_SLOW", "install", "serve"]

BAD_TOKEN = 4401
FOREIGN_ORIGIN = 4403
TOO_MANY = 4429
"""Close code for a socket over :attr:`.state.RoomsLimits.sockets`, or over the member's rate."""
TOO_SLOW = 4408
"""Close code for a socket that did not take a frame within ``send_wait`` seconds. Its
reason names the last seq written to it (``not reading; after=SEQ``): every entry up
to it comes before the close frame, and a client that opens ``?after=SEQ`` again has
the rest from the log, with no gap (:data:`BEHIND`)."""
BEHIND = "not reading; after="
"""The reason of a :data:`TOO_SLOW` close, before the seq the socket has."""
_OPEN = _WsState.OPEN
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
    await _frame(ws, st, member, entry, revealed, watch)
    if entry["kind"] == "leave" and entry["member"] == member.id:
        raise _Removed
    if entry["kind"] == "reveal":
        again = await st.store.entry(room, entry["of"])
        if again is not None:
            await _frame(ws, st, member, again, revealed, watch)
    watch.sent = entry["seq"]


async def _frame(
    ws: WebSocket,
    st: State,
    member: Member,
    entry: dict[str, Any],
    revealed: set[int],
    watch: Watch,
) -> None:
    """One frame: written straight to uvicorn's transport when the socket is open,
    writable and uncompressed (:func:`_raw`: its bytes are made once for every socket
    that sends them, :meth:`..log.Frames.frame`); else through ASGI, which waits while
    the transport is paused (``watch`` then says since when)."""
    raw = _raw(ws)
    if raw is not None and raw.writable.is_set():
        raw.transport.write(st.frames.frame(entry, member.id, revealed))
        return
    watch.since = asyncio.get_running_loop().time()
    await ws.send_text(st.frames.text(entry, member.id, revealed))
    watch.since = None


async def _close_behind(ws: WebSocket, reason: str) -> None:
    """Close with :data:`TOO_SLOW` a socket that stopped reading: its close frame goes
    after the frames already queued for it (through ASGI it would wait for the
    transport to drain, which a client that does not read never lets it do), so a
    client that reads again gets every frame up to the seq its reason names, then the
    close, and opens ``?after=SEQ`` for the rest."""
    proto: Any = getattr(ws._send, "__self__", None)  # as :func:`_raw` finds it
    conn = getattr(proto, "conn", None)
    if (
        type(proto).__name__ != "WebSocketsSansIOProtocol"
        or conn is None
        or conn.state is not _OPEN
        or proto.close_sent
        or proto.transport.is_closing()
    ):
        await _close(ws, TOO_SLOW, reason)
        return
    # What uvicorn's own send does for a close, without its wait for the transport.
    proto.queue.put_nowait({"type": "websocket.disconnect", "code": TOO_SLOW, "reason": reason})
    conn.send_close(TOO_SLOW, reason)
    proto.transport.write(b"".join(conn.data_to_send()))
    proto.close_sent = True
    if proto.read_paused:
        proto.read_paused = False
        proto.transport.resume_reading()
    proto.close_timer = proto.loop.call_later(proto.close_timeout, proto.transport.close)


def _raw(ws: WebSocket) -> Any:
    """uvicorn's ``websockets-sansio`` protocol behind ``ws``, when a text frame may be
    written to its transport as it would write it: the connection open, no close sent,
    no extension (permessage-deflate) agreed. Else None: the frame goes through ASGI.

    A server's frames are never masked, so a frame's bytes are the same for every
    socket; the protocol keeps no state of the frames it sends whole (a fragmented
    message, which this never sends, would be the exception)."""
    proto: Any = getattr(ws._send, "__self__", None)  # starlette keeps uvicorn's send
    if type(proto).__name__ != "WebSocketsSansIOProtocol":
        return None
    conn = getattr(proto, "conn", None)
    if (
        conn is None
        or conn.extensions
        or conn.state is not _OPEN
        or proto.close_sent
        or proto.transport.is_closing()
    ):
        return None
    return proto


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
        watch.sent = max(after, -1)  # the last seq sent, from here on
        await _send_after(ws, st, member, room, watch.sent, watch)
        direct = _direct(ws, st, member, room, sub, watch)
        while True:
            sub.direct = direct  # while it waits, and only then: nothing else is sending
            try:
                news = await sub.wait()
            finally:
                sub.direct = None
            if removed:
                if await st.member(token) is None:  # removed, or this token rotated
                    raise _Removed
                break  # another of the member's tokens went (a rotation): this one reconnects
            if sub.closed:
                break
            for entry in news:
                if entry["seq"] == watch.sent + 1:  # the usual case: straight from the broker
                    await _send(ws, st, member, entry, watch)
                elif entry["seq"] > watch.sent:  # a gap: the store fills it
                    await _send_after(ws, st, member, room, watch.sent, watch)
            if sub.latest > watch.sent:  # more than the broker kept
                await _send_after(ws, st, member, room, watch.sent, watch)
    except (WebSocketDisconnect, RuntimeError):
        pass  # it went, or the server closed it (a keepalive ping unanswered)
    except _Removed:  # the GM removed this member, or rotated this token: it no longer works
        gone = await st.member_by_id(room, member.id) is None
        await _close(ws, BAD_TOKEN, "removed from the room" if gone else "token changed")
    except asyncio.CancelledError:
        if not watch.late:
            raise
        watch.task.uncancel()  # it stopped reading (:class:`Stalls`): let it go
        await _close_behind(ws, f"{BEHIND}{watch.sent}")
    finally:
        unwatch()
        st.stalls.forget(watch)
        st.broker.unsubscribe(room, sub)
        reader.cancel()
        await _close(ws, 1000, "")


def _direct(
    ws: WebSocket, st: State, member: Member, room: str, sub: Subscription, watch: Watch
) -> Callable[[dict[str, Any]], bool]:
    """The socket's :attr:`.broker.Subscription.direct`: the next entry's frame written
    at once, in the publisher's turn of the loop, without waking the socket's task (a
    wake-up and a pass through its loop a frame, issue 74), when it is the next seq, its
    room's reveals are known, the transport takes it now (:func:`_raw`), and it needs
    nothing else (a ``reveal`` sends the revealed roll after it; a ``leave`` may end
    the socket): otherwise False, and the task sends it as before."""

    def send(entry: dict[str, Any]) -> bool:
        if sub.closed or entry["seq"] != watch.sent + 1 or entry["kind"] in ("reveal", "leave"):
            return False
        try:
            revealed = st.revealed_now(room)
            raw = _raw(ws)
            if revealed is None or raw is None or not raw.writable.is_set():
                return False
            st.broker.write(raw.transport, st.frames.frame(entry, member.id, revealed))
        except Exception:  # never the publisher's failure: the task sends it, or ends
            return False
        watch.sent = entry["seq"]
        return True

    return send


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
