"""The rooms' app's outer layers, and its front: the security headers on every answer,
each client address's rate, the body limit, and :class:`RoomsApp`, which serves a roll's
POST before all of them, doing what they do for it (issue 74 §3)."""

from __future__ import annotations

import json
import re
import time

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .discord import route
from .errors import ApiError, send_json
from .routes.hot import roll, rolls_room
from .state import MAX_BODY

__all__ = [
    "FRONT",
    "SECURITY_HEADERS",
    "AddressLimit",
    "BodyLimit",
    "Buckets",
    "RoomsApp",
    "SecurityHeaders",
]


_SHEET_PUT = re.compile(r"/api/rooms/[^/]+/sheets/[^/]+")


class BodyLimit:
    """Refuse request bodies over the limit with 413, before the route reads them (a
    sheet's upload may send up to ``sheet_limit``)."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY, sheet_limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit
        self.sheet_limit = sheet_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit
        if scope["method"] == "PUT" and _SHEET_PUT.fullmatch(scope["path"]):
            limit = self.sheet_limit
        if _declared_over(scope, limit):
            await _too_large(send, limit)
            return
        await self.app(scope, _counted(receive, limit), send)


def _declared_over(scope: Scope, limit: int) -> bool:
    """Whether the request's ``content-length`` is over ``limit``."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length" and value.isdigit() and int(value) > limit:
            return True
    return False


def _counted(receive: Receive, limit: int) -> Receive:
    """``receive``, raising ``ApiError(413)`` once the body read is over ``limit``."""
    seen = 0

    async def counted() -> Message:
        nonlocal seen
        message = await receive()
        seen += len(message.get("body", b""))
        if seen > limit:
            raise ApiError(413, f"the body is over {_size(limit)}")
        return message

    return counted


SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
"""Sent with every HTTP response: scripts, styles and sockets from the page's own origin
only (the pages have no inline script or style), no framing by any site (the GM's page
has Reveal and Close buttons), no MIME sniffing, and no Referer (a room's URL names it)."""


class SecurityHeaders:
    """Add :data:`SECURITY_HEADERS` to every HTTP response (the outermost layer, so that
    refusals by the limits carry them too)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or FRONT in scope:  # (the front adds them itself)
            await self.app(scope, receive, send)
            return
        await self.app(scope, receive, _with_headers(send))


def _with_headers(send: Send) -> Send:
    """``send``, with :data:`SECURITY_HEADERS` added to the response's head."""

    async def with_headers(message: Message) -> None:
        if message["type"] == "http.response.start":  # a new dict: never a shared one
            message = {**message, "headers": [*message.get("headers", ()), *SECURITY_HEADERS]}
        await send(message)

    return with_headers


_UNLIMITED = ("/api/health", route.PATH)
"""Paths no address limit applies to: load balancers poll the health check, and every
interaction comes from Discord's few addresses, each checked by its signature."""


class Buckets:
    """Each client address's allowance: ``rate`` requests (and socket handshakes) a
    second, in bursts of ``burst``. One set for the app, shared by its address limit
    (:class:`AddressLimit`) and its front (:class:`RoomsApp`)."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, list[float]] = {}

    def allowed(self, scope: Scope) -> bool:
        """Take one request from the address of ``scope``; False if it has none left."""
        client = scope.get("client")
        address = client[0] if client else ""
        now = time.monotonic()
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) > 100_000:
                self._buckets.clear()
            bucket = self._buckets[address] = [self.burst, now]
        bucket[0] = min(self.burst, bucket[0] + (now - bucket[1]) * self.rate)
        bucket[1] = now
        if bucket[0] < 1:
            return False
        bucket[0] -= 1
        return True


TOO_MANY = "too many requests from your address: slow down"


class AddressLimit:
    """Each client address may make so many requests (and socket handshakes) a second
    (:class:`Buckets`); more get 429 here, before any routing or parsing, so that one
    flooding address cannot starve the others."""

    def __init__(self, app: ASGIApp, buckets: Buckets) -> None:
        self.app = app
        self.buckets = buckets

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] in ("http", "websocket")
            and FRONT not in scope  # (the front took its request from the bucket)
            and scope.get("path") not in _UNLIMITED
            and not self.buckets.allowed(scope)
        ):
            if scope["type"] == "http":
                await _refuse(send, 429, TOO_MANY)
            else:
                await send({"type": "websocket.close", "code": 4429, "reason": "slow down"})
            return
        await self.app(scope, receive, send)


def _size(limit: int) -> str:
    return f"{limit // 2**20} MiB" if limit % 2**20 == 0 else f"{limit // 1024} KiB"


async def _too_large(send: Send, limit: int, headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    await _refuse(send, 413, f"the body is over {_size(limit)}", headers)


async def _refuse(
    send: Send, status: int, message: str, headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    await send_json(send, status, json.dumps({"error": message}).encode(), headers)


FRONT = "referee.front"
"""A scope's mark: :class:`RoomsApp`'s front took the request from its address's bucket,
and adds the security headers itself (a roll's POST it hands to the routes)."""


class RoomsApp(FastAPI):
    """The rooms' app. A roll's POST with a JSON body, by far the busiest request, is
    served before FastAPI's and the app's own middleware (:func:`.routes.hot.roll`:
    2-4% fewer of the server's instructions a roll, issue 74 §3), and what those
    layers do for it is done here, in their order: the address limit (the same
    buckets), the body limit (its 413s), and the security headers on every answer,
    refusals included; :func:`.routes.hot.roll` answers errors as the app does.
    Everything else goes through the middleware, as does a roll's POST whose body the
    model refuses (to its route, marked :data:`FRONT`: not charged twice)."""

    front: tuple[Buckets, int] | None = None
    """The address buckets and the body limit (bytes), once :func:`create_app` set them."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        front = self.front
        room = None if front is None else rolls_room(scope)
        if front is None or room is None:
            await super().__call__(scope, receive, send)
            return
        buckets, limit = front
        scope["app"] = self
        scope[FRONT] = True
        if not buckets.allowed(scope):
            await _refuse(send, 429, TOO_MANY, SECURITY_HEADERS)
        elif _declared_over(scope, limit):
            await _too_large(send, limit, SECURITY_HEADERS)
        else:
            await roll(self._routed, scope, _counted(receive, limit), send, room, SECURITY_HEADERS)

    async def _routed(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A roll's POST handed to the routes: through the middleware, its headers added."""
        await super().__call__(scope, receive, _with_headers(send))
