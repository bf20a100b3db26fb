"""The rooms' web app: ``create_app(db_url)`` builds it; ``referee serve`` runs it.

The HTTP API, the live socket and the pages follow the contract
(docs/reference/rooms-contract.md). Every path sends what :func:`.log.view` allows.
Errors are JSON ``{"error": message}`` and never a traceback.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import pkgutil
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import import_module
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.telemetry import TelemetryConfig
from starlette.exceptions import HTTPException

from .db.store import Store
from .discord import route
from .discord.config import DiscordConfig as _Config
from .discord.interactions import Discord
from .errors import ApiError
from .fanout.notices import Listener
from .guards import SECURITY_HEADERS, AddressLimit, BodyLimit, Buckets, RoomsApp, SecurityHeaders
from .limits import limits_from
from .page import pages
from .rolling.reading import read_command
from .routes import admin, api, attacks, characters, fights, live, odds
from .routes.hot import Hot
from .routes.models import ERRORS
from .state import RoomsLimits, State

if TYPE_CHECKING:
    from .discord.config import DiscordConfig

log = logging.getLogger(__name__)

__all__ = [
    "GC_FREEZE_SECONDS",
    "GC_SWEEP_SECONDS",
    "SECURITY_HEADERS",
    "create_app",
    "from_environment",
    "keep_gc",
    "warm_up",
]


_NO_TELEMETRY: TelemetryConfig = {
    "tracing": False,
    "metrics": False,
    "logs": False,
    "operation_spans": False,
}


def create_app(
    db_url: str,
    limits: type[RoomsLimits] = RoomsLimits,
    telemetry: bool = False,
    discord: DiscordConfig | None = None,
    warm: bool = True,
    rooms: tuple[State, Discord | None] | None = None,
) -> FastAPI:
    """The rooms' app on the database at ``db_url`` (migrated to the newest schema).

    ``discord`` sets up the Discord front end (``POST /discord/interactions``); by
    default, from the environment (:meth:`.DiscordConfig.from_environment`).

    ``telemetry`` turns on FastAPI's own OpenTelemetry (spans, metrics and logs, sent
    to the providers the process sets up); off, FastAPI does not even look for a
    provider, which it otherwise does on every request, at about 5% of a roll's time.

    ``warm=False`` leaves :func:`warm_up` to the caller (``referee discord run`` does it
    once connected to Discord, not before). ``rooms``: the state and Discord front end
    the caller made and will close (``referee discord run``, which connects to Discord
    before it loads the pages), instead of the app's own on ``db_url``.
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if rooms is None:
            store = await Store.open(db_url)
            state = State(store, limits)
            bot = None if chat is None else Discord(state, chat)
        else:
            state, bot = rooms
            store = state.store
        app.state.rooms, app.state.discord = state, bot
        listener = None
        if not store.sqlite:  # other servers may share this database: hear their appends
            listener = Listener(db_url, state.noticed, state.reconnected)
            await listener.start()
        if warm:
            await asyncio.to_thread(warm_up)
        # A command's reading runs in a worker thread (:mod:`.plans`): hand the
        # interpreter back to the event loop every millisecond, not every 5 (the
        # default), so that a long reading slows the rolls of other rooms little.
        sys.setswitchinterval(READER_SWITCH)
        keeper = asyncio.create_task(keep_gc())
        try:
            yield
        finally:
            keeper.cancel()
            if bot is not None and rooms is None:
                await bot.close()
            if listener is not None:
                await listener.stop()
            if rooms is None:
                await store.close()

    chat = discord if discord is not None else _Config.from_environment()
    app = RoomsApp(
        title="referee rooms",
        version="1",
        lifespan=lifespan,
        docs_url="/api/docs",
        openapi_url="/api/openapi.json",
        redoc_url=None,
        responses=ERRORS,
        telemetry=None if telemetry else _NO_TELEMETRY,
    )

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse(  # keeps its headers (a 405's Allow)
            {"error": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers
        )

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": _validation_message(exc)}, status_code=400)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("referee rooms: %s %s failed", request.method, request.url.path, exc_info=exc)
        return JSONResponse({"error": "internal error"}, status_code=500)

    api.install(app)
    characters.install(app)
    admin.install(app)
    fights.install(app)
    attacks.install(app)
    odds.install(app)
    live.install(app)
    pages.install(app)
    buckets = Buckets(limits.address_rate, limits.address_burst)
    app.add_middleware(Hot)  # innermost: inside the limits below
    app.add_middleware(route.Endpoint)  # Discord's interactions, as hot
    app.add_middleware(BodyLimit, limit=limits.body, sheet_limit=limits.sheet)
    app.add_middleware(AddressLimit, buckets=buckets)
    app.add_middleware(SecurityHeaders)  # outermost: every response, refusals too
    app.front = (buckets, limits.body)  # a roll's POST: the same, before all of them
    return app


def warm_up() -> None:
    """Load what the first roll would (the command layer, the engine), then move every
    object made so far out of the garbage collector's sight (``gc.freeze``): a server
    holds some hundred thousand long-lived objects (modules, schemas, caches), and a
    full collection that walks them all stalls every room for tens of milliseconds."""
    read_command("3d6")
    # The command line loads a rule system's modules on first use (referee.lazy, issue
    # 74); a server loads them all here, off the event loop, so that no first roll of
    # a kind waits on its imports inside its read's deadline.
    for name in ("referee.commands", "referee.systems", "referee.sheets", "referee.render"):
        package = import_module(name)
        for found in pkgutil.walk_packages(package.__path__, name + "."):
            import_module(found.name)
    gc.collect()
    gc.freeze()


def from_environment() -> FastAPI:
    """The app of one of ``referee serve --workers N``'s processes: the database from
    ``REFEREE_DB``, the limits from ``REFEREE_LIMIT_*`` (the parent set them)."""
    return create_app(
        os.environ["REFEREE_DB"],
        limits_from(os.environ),
        telemetry=os.environ.get("REFEREE_TELEMETRY") == "1",
    )


READER_SWITCH = 0.001
"""Seconds a thread may hold the interpreter before the event loop gets a turn."""

GC_FREEZE_SECONDS = 1.0
"""How often the objects that survived are moved out of the collector's sight."""
GC_SWEEP_SECONDS = 3600.0
"""How often everything is collected once, frozen objects included (their cycles)."""
GC_YOUNG = 10_000
"""Net new objects that start a young collection between ticks (CPython's default: 700)."""


async def keep_gc(
    freeze: float = GC_FREEZE_SECONDS, sweep: float = GC_SWEEP_SECONDS, young: int = GC_YOUNG
) -> None:
    """Keep the garbage collector's full collections short while sockets pile up.

    Each live socket holds a few hundred long-lived objects, and a full collection
    walks them all: at 5,000 sockets one took up to 420 ms, stalling every room
    (``bench/bench_tables.py``, issue 29). Every ``freeze`` seconds (1 s) the young
    generations are collected, which frees their cycles, and what survived is frozen
    (``gc.freeze``), so a full collection walks only what is new. The tick is short
    because, after a freeze, CPython counts almost nothing as long-lived and so runs
    a full collection every tenth middle one: each walks whatever reached the old
    generation since the last freeze (at 1,000 rolls/s and 10 s between freezes,
    pauses of 50-100 ms every second, and a p99 of 85-215 ms; at 1 s, 13-25 ms).
    A cycle that becomes garbage after it was frozen waits for the next sweep: every
    ``sweep`` seconds everything is unfrozen, collected once, and frozen again (one
    long pause an hour, rather than several a minute).

    Since the tick collects the young anyway, CPython's own young collection, every 700
    net new objects, is raised to ``young`` (10,000) while the tick runs (issue 51).
    Under ``bench/bench_wrk.py`` the 700 began one every dozen rolls, each walking
    the suspended requests' coroutines, about 5% of the server's CPU (0.4-0.5 s in a
    10 s run); at 10,000, none began between ticks. A burst of allocation still
    starts one, so memory stays bounded.
    """
    loop = asyncio.get_running_loop()
    swept = loop.time()
    before = gc.get_threshold()
    gc.set_threshold(young, *before[1:])
    try:
        while True:
            await asyncio.sleep(freeze)
            if loop.time() - swept >= sweep:
                gc.unfreeze()
                gc.collect()
                swept = loop.time()
            else:
                gc.collect(1)  # the young: their cycles are freed rather than frozen
            gc.freeze()
    finally:
        gc.set_threshold(*before)


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
