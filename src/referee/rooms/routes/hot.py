"""The two busiest paths, taken straight from ASGI: a roll's POST and the live socket.

Under load, FastAPI's routing, dependency solving and middleware wrappers cost
more than a roll itself (see docs/rooms/scale.md, "Running at scale"). Both routes stay
declared on the app, so the OpenAPI schema describes them and anything unusual
still goes there; this layer, the innermost of the app's own middleware (inside
the address and body limits), serves the common case with the very functions the
routes call (:func:`.api.caller`, :func:`.api.roll`, :func:`.live.serve`):

* ``POST /api/rooms/{room}/rolls`` with a JSON body that :class:`.models.NewRoll`
  accepts. Any other body (not JSON, malformed, invalid) goes to the route, which
  answers it as every route does.
* ``WS /api/rooms/{room}/live``, with no query or a whole-number ``after``.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl

from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from ..errors import ApiError
from . import api, live
from .models import NewRoll

__all__ = ["Hot"]

_ROLLS = re.compile(r"/api/rooms/([^/]+)/rolls")
_LIVE = re.compile(r"/api/rooms/([^/]+)/live")
_AFTER = re.compile(r"-?[0-9]{1,20}")


class Hot:
    """Serve a roll's POST and the live socket without the router (see the module)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http" and scope["method"] == "POST":
            found = _ROLLS.fullmatch(scope["path"])
            if found and _json(scope):
                await self._roll(scope, receive, send, found[1])
                return
        elif kind == "websocket":
            found = _LIVE.fullmatch(scope["path"])
            after = _after(scope["query_string"]) if found else None
            if found and after is not None:
                await live.serve(WebSocket(scope, receive, send), found[1], after)
                return
        await self.app(scope, receive, send)

    async def _roll(self, scope: Scope, receive: Receive, send: Send, room: str) -> None:
        messages: list[Message] = []
        try:
            while True:
                message = await receive()  # the body limit raises ApiError(413) past its size
                messages.append(message)
                if message["type"] != "http.request" or not message.get("more_body", False):
                    break
        except ApiError as exc:
            await _error(exc)(scope, receive, send)
            return
        if messages[-1]["type"] != "http.request":
            return  # the client went before its body came
        try:
            body = NewRoll.model_validate_json(b"".join(m.get("body", b"") for m in messages))
        except ValidationError:  # the route answers it, as it answers every bad body
            await self.app(scope, _replay(messages, receive), send)
            return
        request = Request(scope, receive)
        response: Response
        try:
            member = await api.caller(request, room)
            response = await api.roll(api.state(request), room, member, body)
        except ApiError as exc:
            response = _error(exc)
        await response(scope, receive, send)


def _error(exc: ApiError) -> JSONResponse:
    return JSONResponse({"error": exc.message}, status_code=exc.status)


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
