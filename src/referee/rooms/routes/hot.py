"""The two busiest paths, taken straight from ASGI: a roll's POST and the live socket.

Under load, FastAPI's routing, dependency solving and middleware wrappers cost
more than a roll itself (see docs/rooms/scale.md, "Running at scale"). Both routes stay
declared on the app, so the OpenAPI schema describes them and anything unusual
still goes there; this layer serves the common case with the very functions the
routes call (:func:`.api.caller`, :func:`.api.roll_text`, :func:`.live.serve`):

* ``POST /api/rooms/{room}/rolls`` with a JSON body that :class:`.models.NewRoll`
  accepts (:func:`roll`): served before the app's middleware by the app's front
  (:class:`referee.rooms.app.RoomsApp`), which does the address and body limits and
  the security headers itself. Any other body (not JSON, malformed, invalid) goes to
  the route, which answers it as every route does.
* ``WS /api/rooms/{room}/live``, with no query or a whole-number ``after``
  (:class:`Hot`, the innermost of the app's own middleware, inside the limits).
"""

from __future__ import annotations

import json
import logging
import re
from urllib.parse import parse_qsl

from pydantic import ValidationError
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from ..errors import ApiError, send_json
from . import api, live
from .models import NewRoll

__all__ = ["Hot", "roll", "rolls_room"]

log = logging.getLogger(__name__)

_ROLLS = re.compile(r"/api/rooms/([^/]+)/rolls")
_LIVE = re.compile(r"/api/rooms/([^/]+)/live")
_AFTER = re.compile(r"-?[0-9]{1,20}")


class Hot:
    """Serve the live socket without the router (see the module)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            found = _LIVE.fullmatch(scope["path"])
            after = _after(scope["query_string"]) if found else None
            if found and after is not None:
                await live.serve(WebSocket(scope, receive, send), found[1], after)
                return
        await self.app(scope, receive, send)


def rolls_room(scope: Scope) -> str | None:
    """The room of a roll's POST with a JSON body, which :func:`roll` serves; else None."""
    if scope["type"] != "http" or scope["method"] != "POST":
        return None
    found = _ROLLS.fullmatch(scope["path"])
    return found[1] if found and _json(scope) else None


async def roll(
    app: ASGIApp,
    scope: Scope,
    receive: Receive,
    send: Send,
    room: str,
    headers: tuple[tuple[bytes, bytes], ...],
) -> None:
    """A roll's POST to ``room`` (:func:`rolls_room`), answered with ``headers`` added
    to its head: the entry as its roller may see it (201), or ``{"error": ...}`` with an
    :class:`.ApiError`'s status. A body that :class:`.models.NewRoll` refuses goes to
    ``app``, whose route answers it as every route does (given the body read here)."""
    messages: list[Message] = []
    try:
        while True:
            message = await receive()  # the body limit raises ApiError(413) past its size
            messages.append(message)
            if message["type"] != "http.request" or not message.get("more_body", False):
                break
    except ApiError as exc:
        await _error(send, exc, headers)
        return
    if messages[-1]["type"] != "http.request":
        return  # the client went before its body came
    try:
        body = NewRoll.model_validate_json(b"".join(m.get("body", b"") for m in messages))
    except ValidationError:  # the route answers it, as it answers every bad body
        await app(scope, _replay(messages, receive), send)
        return
    request = Request(scope, receive)
    try:
        member = await api.caller(request, room)
        text = await api.roll_text(api.state(request), room, member, body)
    except ApiError as exc:
        await _error(send, exc, headers)
        return
    except Exception:  # as the app's handler of the unexpected: logged, never shown
        log.exception("referee rooms: POST %s failed", scope["path"])
        await _error(send, ApiError(500, "internal error"), headers)
        return
    await send_json(send, 201, text.encode(), headers)


async def _error(send: Send, exc: ApiError, headers: tuple[tuple[bytes, bytes], ...]) -> None:
    await send_json(send, exc.status, json.dumps({"error": exc.message}).encode(), headers)


def _json(scope: Scope) -> bool:
    """Whether the request says its body is JSON (``application/json``)."""
    for name, value in scope["headers"]:
        if name == b"content-type":
            return bool(value.split(b";", 1)[0].strip().lower() == b"application/json")
    return False


def _after(query: bytes) -> int | None:
    """``after`` from a live socket's query string: -1 when there is none; None when
    the query is anything else (the route then judges it)."""
    if not query:
        return -1
    pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True)
    if len(pairs) == 1 and pairs[0][0] == "after" and _AFTER.fullmatch(pairs[0][1]):
        return int(pairs[0][1])
    return None


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that gives the body already read, then the client's own."""
    pending = list(messages)

    async def replay() -> Message:
        return pending.pop(0) if pending else await receive()

    return replay
