"""``referee discord run``: the rooms and Discord's gateway in one process, on a GM's
own computer: no public address, no proxy, no open port.

The process makes the rooms' app on its database (the SQLite file by default, as
``referee serve``), serves the room pages on a local port unless told not to, and
connects to Discord's gateway (:mod:`.gateway`) with the bot's token. Interactions go
to the same handler as ``POST /discord/interactions`` takes them to
(:mod:`referee.rooms.discord.gateway`); the rooms they
log are the database's, so ``referee verify`` checks their exports.
"""

from __future__ import annotations

import asyncio
import gc
import ipaddress
import logging
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from ..db.store import Store, chosen_db
from ..discord.config import DiscordConfig
from ..discord.gateway import Gateway, GatewayRefused, ended
from ..discord.interactions import Discord
from ..discord.token import MISSING, OPENING, token_problem
from ..limits import limits_from
from ..state import State

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["LOCAL_PAGES", "is_loopback", "pages_url", "run"]

LOCAL_PAGES = (
    "referee discord: the room pages are on this computer only, so the replies in "
    "Discord carry no link to them; to give the players one, serve them where they can "
    "reach (--host 0.0.0.0 on your network, or a forwarded port or a tunnel) and set "
    "REFEREE_PUBLIC_URL to that address"
)


def is_loopback(host: str) -> bool:
    """Whether pages that listen on ``host`` can be reached from this computer only.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("localhost")
    (True, True, True)
    >>> is_loopback("0.0.0.0"), is_loopback("192.168.1.20"), is_loopback("gm-laptop")
    (False, False, False)
    """
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def pages_url(host: str, port: int) -> str:
    """The room pages' address in the links the bot gives, when ``REFEREE_PUBLIC_URL``
    names none: the address they listen on, or this computer's name when they listen
    on every address (``--host 0.0.0.0``), which players on its network may reach.

    >>> pages_url("127.0.0.1", 8000)
    'http://127.0.0.1:8000'
    >>> pages_url("::1", 8000)
    'http://[::1]:8000'
    """
    if host in ("0.0.0.0", "::", ""):
        host = socket.gethostname()
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


async def run(
    db: str | None,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    serve: bool = True,
    limits: list[str] | None = None,
    env: Mapping[str, str] | None = None,
    say: Callable[[str], None] = print,
) -> None:
    """Run until Ctrl-C, SIGTERM, or Discord ends the connection for good.

    Raises:
        GatewayRefused: no token, a token Discord refuses, no gateway to reach, or the
            port already taken; the message says which.
        ValueError: a bad ``--limit``.
    """

    env = os.environ if env is None else env
    _one_line_logs("hikari")
    asyncio.get_running_loop().set_exception_handler(_one_line_exception)
    problem = token_problem(env.get("REFEREE_DISCORD_TOKEN"))
    config = DiscordConfig.for_gateway(env)
    if problem is not None or config is None:
        raise GatewayRefused(problem or MISSING)
    chosen = limits_from(env, limits or [])
    url = chosen_db(db, env)
    OPENING.set()  # a refusal from here on is the gateway's to report
    sock = _bind(host, port) if serve else None
    pages = pages_url(host, sock.getsockname()[1]) if sock is not None else None
    try:
        store = await Store.open(url)
    except BaseException:
        if sock is not None:
            sock.close()
        raise
    try:
        bot = Discord(State(store, chosen), config)
        try:
            await _connected(bot, config, url, pages, sock, host, say)
        finally:
            await bot.close()
    finally:
        await store.close()


async def _connected(
    bot: Discord,
    config: DiscordConfig,
    url: str,
    pages: str | None,
    sock: socket.socket | None,
    host: str,
    say: Callable[[str], None],
) -> None:
    """Connect to the gateway with the Discord front end ``bot``, then load and serve
    the room pages (the web app, its routes and pages: 0.7 s of imports, which the
    gateway does not need to connect; a page asked for meanwhile waits on the socket,
    bound already), until Ctrl-C or the connection ends for good."""
    assert config.token is not None
    bot.local_pages = bool(pages) and not config.public_url and is_loopback(host)
    gateway = Gateway(bot, config.token, config.public_url or pages or "")
    try:
        await gateway.start()
    except BaseException:
        if sock is not None:
            sock.close()
        raise
    where = f"room pages at {pages}/" if pages else "no room pages (--no-serve)"
    say(f"referee discord: connected to Discord's gateway; {where}")
    if bot.local_pages:
        say(LOCAL_PAGES)
    joined = asyncio.ensure_future(gateway.join())
    try:
        # What the first roll loads, then the command layer, then the pages, once
        # connected, not before (issue 71); imported in a thread, so the gateway is
        # served meanwhile. In that order: a /roll waits for the first, a system's
        # command for the second, a page for the pages; what a roll waits for is loaded
        # before the pages' imports would share the interpreter with it (issue 74 §2).
        await asyncio.to_thread(_answering, bot)
        await asyncio.to_thread(_commands)
        app = await asyncio.to_thread(_pages, bot, url)
        async with _serving(app, sock) as stopped:
            from ..app import warm_up

            await asyncio.to_thread(warm_up)
            _collecting()
            await asyncio.wait((joined, stopped), return_when=asyncio.FIRST_COMPLETED)
    finally:
        _collecting()
        await gateway.close()
    failed = joined.exception() if joined.done() and not joined.cancelled() else None
    if failed is not None:
        raise GatewayRefused(ended(failed))


def _collecting() -> None:
    """The garbage collector on again, once what the bot loads is loaded (the command
    line turns it off for the start: :func:`referee.cli.discord.run`), with what was
    loaded moved out of its passes for good (``gc.freeze``)."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def _answering(bot: Discord) -> None:
    """Load what the first ``/roll`` needs beyond the gateway: the REST client (its TLS
    context and its connections' modules), the dice commands and the dice grammar."""
    from ..rolling.reading import read_command

    bot.rest.prepare()

    read_command("3d6")


def _commands() -> None:
    """Load the command layer (the engine, typer, every system's commands), which a
    line that names a system's command needs; a bare roll needs only the dice
    commands (:func:`referee.commands.reader.find`), and is answered meanwhile."""
    from ...commands.reader import warm

    warm()


def _pages(bot: Discord, url: str) -> FastAPI:
    """The rooms' web app around the bot's own state (imported here: see :func:`run`)."""
    from ..app import create_app

    return create_app(url, bot.st.limits, discord=bot.config, warm=False, rooms=(bot.st, bot))


class _OneLine(logging.Formatter):
    """A log record on one line: an exception's words, never its traceback."""

    def format(self, record: logging.LogRecord) -> str:
        exc = record.exc_info[1] if record.exc_info else None
        line = f"referee discord: {record.getMessage()}"
        return f"{line}: {exc}" if exc is not None else line


def _one_line_logs(name: str) -> None:
    """The gateway library's warnings and errors, one line each on standard error."""
    logger = logging.getLogger(name)
    if not any(isinstance(h.formatter, _OneLine) for h in logger.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(_OneLine())
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
        logger.propagate = False


def _one_line_exception(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """What the event loop reports (a task's error that no one awaited, hikari's shut
    down after Discord closed the connection), one line on standard error."""
    exc = context.get("exception")
    said = f": {exc}" if exc is not None else ""
    print(f"referee discord: {context.get('message', 'an error')}{said}", file=sys.stderr)


def _bind(host: str, port: int) -> socket.socket:
    """The room pages' socket, listening on ``host:port`` (port 0: a free one), bound
    before anything else is done, so that a port already taken is said at once.

    Raises:
        GatewayRefused: the port cannot be had.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise GatewayRefused(
            f"could not serve the room pages on {host}:{port} ({exc.strerror or exc}); "
            "choose another --port, or --no-serve"
        ) from None
    return sock


@asynccontextmanager
async def _serving(app: FastAPI, sock: socket.socket | None) -> AsyncIterator[asyncio.Future[None]]:
    """The app's lifespan (its listener, its collector), and with ``sock`` its pages
    served there; yields a future that ends when the server stops (Ctrl-C)."""
    if sock is None:
        loop = asyncio.get_running_loop()
        stopped: asyncio.Future[None] = loop.create_future()

        def stop() -> None:
            if not stopped.done():
                stopped.set_result(None)

        for sig in (signal.SIGINT, signal.SIGTERM):  # as uvicorn stops on them, when it serves
            loop.add_signal_handler(sig, stop)
        async with app.router.lifespan_context(app):
            yield stopped
        return
    import uvicorn

    from .onewrite import SPEC

    server = uvicorn.Server(
        uvicorn.Config(
            app,
            log_level="warning",
            http=SPEC,  # as `referee serve` runs it
            ws="websockets-sansio",
            ws_per_message_deflate=False,
        )
    )
    task = asyncio.ensure_future(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
            raise GatewayRefused("could not serve the room pages")
        await asyncio.sleep(0.02)
    try:
        yield task
    finally:
        server.should_exit = True
        await task
