"""``POST /discord/interactions`` in the rooms' app (``referee serve``), taken straight
from ASGI, as the rooms' busiest paths are (:mod:`referee.rooms.routes.hot`): FastAPI's
routing and wrappers would cost more than the answer itself. It sits inside the app's
body and address limits; any other method gets 405."""

from __future__ import annotations

import orjson
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import ApiError, send_json

__all__ = ["PATH", "Endpoint"]

PATH = "/discord/interactions"


class Endpoint:
    """Serve :data:`PATH` with the app's :class:`.interactions.Discord` (see the module)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != PATH:
            await self.app(scope, receive, send)
            return
        if scope["method"] != "POST":
            await send_json(send, 405, b'{"error":"use POST"}', ((b"allow", b"POST"),))
            return

        body = bytearray()
        try:
            while True:
                message: Message = await receive()  # the body limit raises ApiError(413)
                if message["type"] != "http.request":
                    return  # the client went before its body came
                body += message.get("body", b"")
                if not message.get("more_body", False):
                    break
        except ApiError as exc:
            await send_json(send, exc.status, orjson.dumps({"error": exc.message}))
            return
        bot = getattr(scope["app"].state, "discord", None)
        if bot is None:
            error = "Discord is not set up on this server (set REFEREE_DISCORD_PUBLIC_KEY)"
            await send_json(send, 404, orjson.dumps({"error": error}))
            return
        headers = dict(scope["headers"])
        status, payload = await bot.handle(
            bytes(body),
            _text(headers.get(b"x-signature-ed25519")),
            _text(headers.get(b"x-signature-timestamp")),
            str(Request(scope).base_url),
            scope["client"][0] if scope.get("client") else "",
        )
        await send_json(send, status, orjson.dumps(payload))


def _text(value: bytes | None) -> str | None:
    return None if value is None else value.decode("latin-1")
