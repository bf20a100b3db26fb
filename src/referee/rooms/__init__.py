"""Game rooms on the web: a shared table with secret GM rolls that never leak.

The contract is docs/reference/rooms-contract.md. The package is laid out by layer:

* :mod:`.log` holds the contract's pure parts (canonical JSON, digests, the chain,
  and :func:`.log.view`, the one rule of who sees what); :mod:`.limits` and
  :mod:`.errors` the limits and the one error type;
* :mod:`.db`, the store: the tables, Alembic's migrations, the appends and epochs,
  sheets, administration and the fight in the database, and moving a campaign;
* :mod:`.rolling`, reading a command under the room's caps and rolling as a sheet;
* :mod:`.routes`, the HTTP and socket routes (and :mod:`.routes.hot`, the two
  busiest paths straight from ASGI); :mod:`.page`, the HTML page and its scripts;
* :mod:`.fanout`, the live updates within a server and between servers
  (PostgreSQL ``LISTEN/NOTIFY``);
* :mod:`.state`, what the routes share (limits, caches, the rooms a server
  follows), :mod:`.app`, the web app that puts them together, and :mod:`.guards`, its
  outer layers (the security headers, the address and body limits) and its front,
  which serves a roll's POST before them, doing what they do;
* :mod:`.serving`, the worker processes and room affinity, and the child
  servers and throwaway PostgreSQL clusters of the tests and benchmarks;
* :mod:`.audit`, ``referee verify``: the checker of an export and of its fight.

Nothing in the engine imports this package.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["serve"]


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str | None = None,
    telemetry: bool = False,
    *,
    proxy_headers: bool = False,
    forwarded_allow_ips: str | None = None,
    limits: Sequence[str] = (),
    workers: int = 1,
    affinity: bool = True,
) -> None:
    """Run the rooms' server until interrupted (``referee serve``); ``telemetry`` turns
    on FastAPI's OpenTelemetry (:func:`.app.create_app`). Behind a proxy,
    ``proxy_headers`` takes each client's address from ``X-Forwarded-For`` when the
    request comes from one of ``forwarded_allow_ips`` (uvicorn's own settings).
    ``limits`` (``rate=60``) and ``REFEREE_LIMIT_*`` set :class:`.state.RoomsLimits`.
    ``workers`` processes share the port (PostgreSQL only: they are servers on one
    database, as several machines' would be); the schema is migrated once, first. With
    ``affinity`` (the default) each room's connections are handed to one of them
    (:mod:`.affine`); without, each connection stays where the kernel put it.

    Raises:
        ValueError: an unknown limit, or a bad value (:func:`.limits.limits_from`), or
            several workers on SQLite.
    """
    # Imported here, not at the top: every module of the package runs this file first,
    # and `referee verify` (rooms.audit) or `referee rooms copy` need no web server.
    import os

    import uvicorn

    from .app import create_app
    from .db.store import chosen_db
    from .limits import limits_from
    from .serving.onewrite import SPEC

    chosen = limits_from(os.environ, limits)
    url = chosen_db(db, os.environ)
    shown = "localhost" if host in ("127.0.0.1", "::1") else host
    if workers > 1:
        if url.startswith("sqlite"):
            raise ValueError(
                "several workers need PostgreSQL (--db postgresql+asyncpg://...): SQLite "
                "has one writer, and one process serves it"
            )
        from .db.store import migrate

        migrate(url)  # once, before the workers start
        os.environ["REFEREE_DB"] = url
        for item in limits:  # the workers read them from the environment
            name, _, value = item.partition("=")
            os.environ[f"REFEREE_LIMIT_{name.strip().upper().replace('-', '_')}"] = value
        os.environ["REFEREE_TELEMETRY"] = "1" if telemetry else ""
    print(
        f"referee rooms: open http://{shown}:{port}/  (database: {_safe(url)}"
        + (f", {workers} workers)" if workers > 1 else ")"),
        flush=True,
    )
    settings: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_level": "warning",
        # Its lines are at INFO, never shown at this level, but uvicorn formats each
        # request's client and path for them first (about 2% of a roll's CPU, issue 74).
        "access_log": False,
        # Each answer's head and body in one system call (issue 74 §3).
        "http": SPEC,
        "ws": "websockets-sansio",
        "ws_per_message_deflate": False,
        "proxy_headers": proxy_headers,
        "forwarded_allow_ips": forwarded_allow_ips,
    }
    if workers > 1:  # each worker makes its app (from_environment)
        from .serving.workers import run

        if affinity:
            settings["http"] = "referee.rooms.serving.affine:Routed"
        config = uvicorn.Config("referee.rooms.app:from_environment", factory=True, **settings)
        if run(config, workers, affinity=affinity):
            raise SystemExit(1)
    else:
        uvicorn.run(create_app(url, chosen, telemetry=telemetry), **settings)


def _safe(url: str) -> str:
    """The URL without a password."""
    from sqlalchemy.engine import make_url  # (as above: not for every module's import)

    return make_url(url).render_as_string(hide_password=True)
