"""The rooms' web app: ``create_app(db_url)`` builds it; ``referee serve`` runs it.

The HTTP API, the live socket and the pages follow the contract
(``shared/rooms/README.md``). Every path sends what :func:`.log.view` allows.
Errors are JSON ``{"error": message}`` and never a traceback.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .broker import Broker
from .store import Member, Store

__all__ = ["ApiError", "RoomsLimits", "State", "create_app"]

MAX_BODY = 64 * 1024
"""Bodies over this many bytes get 413."""


class RoomsLimits:
    """Sizes and rates (the contract's minimums, adjustable for tests)."""

    body = MAX_BODY
    command = 1000
    ws_message = 4096
    rate = 40.0
    """Requests a second each member may make, sustained (the contract asks for at least 20)."""
    burst = 80.0



class ApiError(Exception):
    """An error the API answers with ``{"error": message}`` and ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class _Bucket:
    __slots__ = ("stamp", "tokens")

    def __init__(self, burst: float) -> None:
        self.tokens = burst
        self.stamp = time.monotonic()


class State:
    """What the routes share: the store, the broker, the rate buckets."""

    def __init__(self, store: Store, limits: type[RoomsLimits] = RoomsLimits) -> None:
        self.store = store
        self.broker = Broker()
        self.limits = limits
        self._buckets: dict[tuple[str, str], _Bucket] = {}

    def spend(self, member: Member) -> None:
        """Take one request from the member's bucket, or raise 429."""
        key = (member.room, member.id)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(self.limits.burst)
        now = time.monotonic()
        bucket.tokens = min(
            self.limits.burst, bucket.tokens + (now - bucket.stamp) * self.limits.rate
        )
        bucket.stamp = now
        if bucket.tokens < 1:
            raise ApiError(429, "too many requests: slow down")
        bucket.tokens -= 1

    async def append(self, room: str, kind: str, fields: dict[str, Any]) -> dict[str, Any]:
        entry = await self.store.append(room, kind, fields)
        self.broker.publish(room, entry["seq"])
        return entry


class _BodyLimit:
    """Refuse request bodies over the limit with 413, before the route reads them."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.isdigit() and int(value) > self.limit:
                await _too_large(send)
                return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise ApiError(413, f"the body is over {self.limit // 1024} KiB")
            return message

        await self.app(scope, counted, send)


async def _too_large(send: Send) -> None:
    body = json.dumps({"error": f"the body is over {MAX_BODY // 1024} KiB"}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def create_app(db_url: str, limits: type[RoomsLimits] = RoomsLimits) -> FastAPI:
    """The rooms' app on the database at ``db_url`` (migrated to the newest schema)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = await Store.open(db_url)
        app.state.rooms = State(store, limits)
        try:
            yield
        finally:
            await store.close()

    app = FastAPI(
        title="referee rooms",
        version="1",
        lifespan=lifespan,
        docs_url="/api/docs",
        openapi_url="/api/openapi.json",
        redoc_url=None,
    )

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": _validation_message(exc)}, status_code=400)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"error": "internal error"}, status_code=500)

    from . import api, live, pages

    api.install(app)
    live.install(app)
    pages.install(app)
    app.add_middleware(_BodyLimit, limit=limits.body)
    return app


def _validation_message(exc: RequestValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return "malformed request"
    first = errors[0]
    if first.get("type") in ("json_invalid", "model_attributes_type") or first.get("loc") == (
        "body",
    ):
        return "malformed JSON: send one JSON object"
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
    return f"{where}: {first.get('msg', 'invalid')}" if where else str(first.get("msg"))

