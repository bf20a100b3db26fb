"""``referee discord``: putting referee's slash commands on a Discord application."""

from __future__ import annotations

import gc
import json
import os
import sys
from typing import Annotated

import typer

__all__ = ["discord_app"]

discord_app = typer.Typer(
    help="Run referee on Discord: register its slash commands with your application, "
    "then 'referee discord run' (from any computer: it connects out to Discord), or "
    "'referee serve' on a public HTTPS address (Discord posts to /discord/interactions).",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


@discord_app.command(
    "register",
    epilog="The bot's token comes from REFEREE_DISCORD_TOKEN. With --guild the commands "
    "appear in that server at once; without, everywhere, which Discord may take an hour "
    "to spread. Registering again replaces every command.\n\nExamples:\n\n"
    "\b\n  REFEREE_DISCORD_TOKEN=... referee discord register --application-id "
    "1100000000000000001 --guild 1200000000000000002\n\n"
    "\b\n  referee discord register --print > commands.json",
)
def register(
    application_id: Annotated[
        str | None,
        typer.Option("--application-id", help="The application's id (its General Information)."),
    ] = None,
    guild: Annotated[
        str | None, typer.Option("--guild", help="Register in this server (guild) only.")
    ] = None,
    api: Annotated[
        str | None,
        typer.Option("--api", help="Discord's REST API (default: REFEREE_DISCORD_API or v10)."),
    ] = None,
    show: Annotated[
        bool, typer.Option("--print", help="Print the commands as JSON; register nothing.")
    ] = False,
) -> None:
    """Register referee's slash commands (/roll, /gurps, /swn, /fudge, /sheet...)."""
    # here, not at the top: each import costs 9-156 ms of start-up otherwise (issue 53)
    import asyncio

    from ..rooms.discord.rest import API, Rest, RestError
    from ..rooms.discord.slash import application_commands

    commands = application_commands()
    if show:
        typer.echo(json.dumps(commands, indent=2, ensure_ascii=False))
        return
    for name, value in (("--application-id", application_id), ("--guild", guild)):
        if value is not None and not (value.isdigit() and len(value) <= 20):
            _fail(f"{name} {value!r}: a Discord id is a number (up to 20 digits)")
    if application_id is None:
        _fail("give --application-id (or --print to see the commands)")
    token = os.environ.get("REFEREE_DISCORD_TOKEN")
    if not token:
        _fail("set REFEREE_DISCORD_TOKEN to the bot's token (the application's Bot page)")
    rest = Rest(api or os.environ.get("REFEREE_DISCORD_API") or API, token)

    async def put() -> None:
        try:
            await rest.register(str(application_id), commands, guild)
        finally:
            await rest.close()

    try:
        asyncio.run(put())
    except RestError as exc:
        hint = "" if exc.status else ": check this computer's connection, or --api"
        _fail(f"{exc}{hint}")
    where = f"guild {guild}" if guild else "every server the bot is in"
    typer.echo(f"registered {len(commands)} commands in {where}")


def _fail(message: str, command: str = "register") -> None:
    typer.echo(f"referee discord {command}: {message}", err=True)
    sys.exit(2)


RUN_EPILOG = """The bot's token comes from REFEREE_DISCORD_TOKEN (the application's Bot
page); nothing else is needed: no public address, no proxy, no open port. The rooms
go in the same database as 'referee serve' (--db, $REFEREE_DB, else
referee-rooms.sqlite3 here), so 'referee verify' checks their exports. With --serve
(the default) the room pages are served on --host:--port, for the '/referee page'
links; set REFEREE_PUBLIC_URL to the address players outside this computer can reach
them at. Ctrl-C stops it.

Examples:

\b
  REFEREE_DISCORD_TOKEN=... referee discord run

\b
  REFEREE_DISCORD_TOKEN=... referee discord run --host 0.0.0.0 --port 8000

\b
  REFEREE_DISCORD_TOKEN=... referee discord run --no-serve --db campaign.sqlite3"""


@discord_app.command("run", epilog=RUN_EPILOG)
def run(
    db: Annotated[
        str | None,
        typer.Option(
            help="Database URL or SQLite file (default: $REFEREE_DB, else referee-rooms.sqlite3)."
        ),
    ] = None,
    serve: Annotated[bool, typer.Option(help="Serve the room pages on --host:--port too.")] = True,
    host: Annotated[str, typer.Option(help="Address the room pages listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(help="Port the room pages listen on (0: any free one).", min=0, max=65535)
    ] = 8000,
    limit: Annotated[
        list[str] | None,
        typer.Option(
            "--limit", metavar="NAME=VALUE", help="Set a rooms' limit, as 'referee serve' does."
        ),
    ] = None,
) -> None:
    """Run referee's Discord bot from this computer, through Discord's gateway."""
    from ..rooms.discord.token import token_problem

    # Before the heavy imports (1-2 s, far more on a busy machine): no token, or
    # something else in its place, is said at once (issue 67).
    problem = token_problem(os.environ.get("REFEREE_DISCORD_TOKEN"))
    if problem is not None:
        _fail(problem, "run")
    # Whether Discord takes the token, asked while the rest is imported: a refusal is
    # said as soon as Discord answers (issue 71), not after the imports and the database.
    from ..rooms.discord.token import API, ask_discord

    ask_discord(os.environ["REFEREE_DISCORD_TOKEN"].strip(),
                os.environ.get("REFEREE_DISCORD_API") or API)  # fmt: skip
    # The imports below make hundreds of thousands of objects and almost no cycles: the
    # collector's passes over them were a tenth of the start (issue 74 §2). It is off
    # until the bot has loaded what it loads (discord_run.run turns it back on).
    gc.disable()
    # here, not at the top: each import costs 36-2157 ms of start-up otherwise (issue 53)
    import asyncio

    from ..rooms.discord.gateway import GatewayRefused
    from ..rooms.serving.discord_run import run as running

    try:
        asyncio.run(running(db, host=host, port=port, serve=serve, limits=limit or []))
    except GatewayRefused as exc:
        _fail(str(exc), "run")
    except ValueError as exc:
        _fail(str(exc), "run")
    except KeyboardInterrupt:
        pass
