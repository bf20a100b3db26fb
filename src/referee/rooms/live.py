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

from fastapi import FastAPI, WebSocket, WebSocketDisconnect

from .api import authenticate, cookie_name
from .log import view
from .state import ApiError, State
from .store import Member

__all__ = ["install"]

BAD_TOKEN = 4401
FOREIGN_ORIGIN = 4403
TOKEN_WAIT = 10.0
"""Seconds a socket may take to send its token."""


def _same_origin(ws: WebSocket) -> bool:
    origin = ws.headers.get("origin")
    if origin is None:  # not a browser: tokens, not cookies, protect it
        return True
    host = ws.headers.get("host", "")
    return urlsplit(origin).netloc.lower() == host.lower()


async def _member(ws: WebSocket, st: State, room: str) -> Member | None:
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
        return await authenticate(st, room, token)
    except ApiError:
        return None


async def _send(ws: WebSocket, st: State, member: Member, entry: dict[str, Any]) -> None:
    """One entry as the member may see it; after a ``reveal``, the revealed roll again."""
    room = entry["room"]
    revealed = await st.revealed(room)
    await ws.send_text(json.dumps(view(entry, member.id, revealed)))
    if entry["kind"] == "reveal":
        again = await st.store.entry(room, entry["of"])
        if again is not None:
            await ws.send_text(json.dumps(view(again, member.id, revealed)))


async def _send_after(ws: WebSocket, st: State, member: Member, room: str, after: int) -> int:
    """Send every stored entry after ``after``; return the last seq sent."""
    while True:
        page = await st.store.entries(room, after, 500)
        if not page:
            return after
        for entry in page:
            await _send(ws, st, member, entry)
            after = entry["seq"]


def install(app: FastAPI) -> None:
    @app.websocket("/api/rooms/{room}/live")
    async def live(ws: WebSocket, room: str, after: int = -1) -> None:
        st: State = ws.app.state.rooms
        if not _same_origin(ws):
            await ws.close(code=FOREIGN_ORIGIN)
            return
        await ws.accept()
        member = await _member(ws, st, room)
        if member is None:
            with contextlib.suppress(WebSocketDisconnect, RuntimeError):  # it may be gone
                await ws.close(code=BAD_TOKEN, reason="bad token")
            return
        sub = st.broker.subscribe(room)
        reader = asyncio.create_task(_drain(ws, st))
        try:
            last = await _send_after(ws, st, member, room, max(after, -1))
            while not reader.done():
                waiter = asyncio.create_task(sub.wait())
                done, _ = await asyncio.wait({waiter, reader}, return_when=asyncio.FIRST_COMPLETED)
                if reader in done:
                    waiter.cancel()
                    break
                for entry in waiter.result():
                    if entry["seq"] == last + 1:  # the usual case: straight from the broker
                        await _send(ws, st, member, entry)
                        last = entry["seq"]
                    elif entry["seq"] > last:  # a gap: the store fills it
                        last = await _send_after(ws, st, member, room, last)
                if sub.latest > last:  # more than the broker kept
                    last = await _send_after(ws, st, member, room, last)
        except WebSocketDisconnect:
            pass
        finally:
            st.broker.unsubscribe(room, sub)
            reader.cancel()
            with contextlib.suppress(Exception):
                await ws.close()


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
