"""The typer application behind ``referee``: the command layer's commands, plus the
options that only a command line has (``--json``, and for rolling commands
``--seed``, ``-n`` and ``--secret``/``--open``).

Every command's own arguments come from :mod:`referee.commands`, so the CLI,
the interactive prompt and the game rooms read a command the same way; the
command line's words go through the same reader (:func:`.arrange_argv`).
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup
from typer.exceptions import TyperException

from ..commands.line import arrange
from ..commands.reader import is_word, load, option_names, player_words, valued_options
from ..commands.registry import ALIASES, COMMANDS, DECLARED_BY, DEFAULTS, GROUP_HELP, Command
from ..commands.result import Reply
from ..errors import CommandError, RefereeError
from ..rng import resolve, seeded
from .local import LOCAL
from .output import emit, error_text

__all__ = ["app", "arrange_argv", "build", "cli_hint"]

_CLI_PARAMS = ("cli_json", "cli_seed", "cli_n", "cli_secret", "cli_open")


def _param(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
    )


def _cli_params(meta: Command) -> list[inspect.Parameter]:
    out = [
        _param(
            "cli_json",
            Annotated[bool, typer.Option("--json", help="Print the documented JSON.")],
            False,
        )
    ]
    if meta.rolls:
        out += [
            _param(
                "cli_seed",
                Annotated[
                    int | None,
                    typer.Option(
                        "--seed",
                        help="Seed for reproducible rolls (default: the OS's secure source).",
                    ),
                ],
                None,
            ),
            _param(
                "cli_n",
                Annotated[int, typer.Option("-n", min=1, max=10_000, help="Roll this many times.")],
                1,
            ),
        ]
        by_default = " (it is by default)" if meta.secret else ""
        out += [
            _param(
                "cli_secret",
                Annotated[
                    bool, typer.Option("--secret", help=f"The GM's secret roll{by_default}.")
                ],
                False,
            ),
            _param(
                "cli_open",
                Annotated[
                    bool, typer.Option("--open", help=f"Not the GM's secret roll{by_default}.")
                ],
                False,
            ),
        ]
    return out


def _wrap(meta: Command) -> Callable[..., None]:
    """The command's function with the CLI's options added: it runs and prints the plan."""
    fn = meta.function
    assert fn is not None
    sig = inspect.signature(fn, eval_str=True)
    extra = _cli_params(meta)

    def cli_command(**kwargs: Any) -> None:
        as_json = kwargs.pop("cli_json")
        seed = kwargs.pop("cli_seed", None)
        n = kwargs.pop("cli_n", 1)
        secret_flag = kwargs.pop("cli_secret", False)
        open_flag = kwargs.pop("cli_open", False)
        secret = secret_flag or (meta.secret and not open_flag)
        try:
            if secret_flag and open_flag:
                raise CommandError("give --secret or --open, not both", meta.name)
            plan = fn(**kwargs)
            rng = resolve(None if seed is None else seeded(seed))
            replies: list[Reply] = [plan(rng) for _ in range(n)]
        except RefereeError as exc:
            typer.echo(error_text(exc, cli_hint(exc)), err=True)
            raise typer.Exit(2) from None
        emit(replies, as_json, secret if meta.rolls else None)

    cli_command.__doc__ = fn.__doc__
    cli_command.__name__ = fn.__name__
    cli_command.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=[*sig.parameters.values(), *extra], return_annotation=None
    )
    cli_command.__annotations__ = {
        p.name: p.annotation
        for p in cli_command.__signature__.parameters.values()  # type: ignore[attr-defined]
    }
    return cli_command


class RefereeGroup(TyperGroup):
    """The root command group: reads the words as the command layer does, and turns
    usage errors into one line with exit status 2 (no boxes, no traceback)."""

    def main(  # type: ignore[override]
        self, args: Sequence[str] | None = None, prog_name: str | None = None, **extra: Any
    ) -> Any:
        words = list(sys.argv[1:] if args is None else args)
        if words in (["--version"], ["-V"]):
            from .. import __version__

            print(f"referee {__version__}")
            sys.exit(0)
        extra.setdefault("obj", LOCAL)
        extra["standalone_mode"] = False
        try:
            code = super().main(arrange_argv(self, words), prog_name or "referee", **extra)
        except RefereeError as exc:
            print(error_text(exc, cli_hint(exc)), file=sys.stderr)
            sys.exit(2)
        except typer.Abort:
            print("", file=sys.stderr)
            sys.exit(130)
        except TyperException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # a bare group: its help
                print(exc.format_message())
                sys.exit(0)
            ctx = getattr(exc, "ctx", None)
            hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            print(f"error: {player_words(exc.format_message())}{hint}", file=sys.stderr)
            sys.exit(getattr(exc, "exit_code", 2))
        if isinstance(code, int) and code:
            sys.exit(code)  # typer.Exit(2) from a command, returned when not standalone
        return code


def cli_hint(exc: RefereeError) -> str:
    """The command line's hint for a command's error: where its help is, or how to give
    a sheet."""
    from ..errors import NoSheetError

    if isinstance(exc, NoSheetError):
        return "give one with --sheet FILE, or set REFEREE_SHEET; or give a number"
    command = getattr(exc, "command", None) if isinstance(exc, CommandError) else None
    return f"see 'referee {command} --help'" if command else ""


def arrange_argv(group: TyperGroup, words: list[str]) -> list[str]:
    """The command line's words as the command layer reads them: a bare dice expression
    means ``roll``; the command's expressions are joined across operators; arguments
    that start with ``-`` stay arguments."""
    if not words or words[0].startswith("-") and not words[0][1:2].isdigit():
        return words  # --help, or nothing: the group's own
    node: Any = group
    path: list[str] = []
    i = 0
    while isinstance(node, TyperGroup) and i < len(words):
        word = words[i] if path else ALIASES.get(words[i], words[i])
        sub = node.commands.get(word)
        key = tuple(ALIASES.get(p, p) if n == 0 else p for n, p in enumerate(path))
        if sub is None and key in DEFAULTS and not words[i].startswith("--help"):
            words = [*words[:i], DEFAULTS[key], *words[i:]]  # "gurps odds 12": odds check
            word = words[i]
            sub = node.commands.get(word)
        if sub is None:
            break
        node, i = sub, i + 1
        path.append(word)
    if not path:
        if is_word(words[0]):
            return words  # let the group say "No such command"
        return arrange_argv(group, ["roll", *words])
    if isinstance(node, TyperGroup) or "--help" in words[i:]:
        return words
    key = tuple(ALIASES.get(p, p) if n == 0 else p for n, p in enumerate(path))
    meta = COMMANDS.get(key)
    joins = meta.joins if meta is not None else False
    assert isinstance(node, TyperCommand)
    try:
        rest = arrange(
            words[i:],
            valued_options(node),
            joins=joins,
            options=option_names(node),
            hash_label=key != ("roll",),
        )
    except CommandError as exc:
        raise CommandError(str(exc), " ".join(key)) from None
    return words[:i] + rest


def build(first: str | None = None) -> typer.Typer:
    """The CLI application: every registered command, with the CLI's own options.

    With ``first``, the first word of a command line that names a system's group
    (``gurps``, an alias, ``roll``), only that group's commands: a system's commands
    are loaded when that system is asked for (:func:`referee.commands.reader.load`).
    """
    only = first is not None and ALIASES.get(first, first) in DECLARED_BY
    load(first if only else None)
    apps: dict[tuple[str, ...], typer.Typer] = {}

    def app_for(path: tuple[str, ...]) -> typer.Typer:
        if path not in apps:
            apps[path] = typer.Typer(
                cls=RefereeGroup if not path else None,
                help=GROUP_HELP.get(path),
                no_args_is_help=True,
                add_completion=False,
                rich_markup_mode=None,
                pretty_exceptions_enable=False,
            )
            if path:
                parent = app_for(path[:-1])
                parent.add_typer(apps[path], name=path[-1])
                for alias, name in ALIASES.items():
                    if len(path) == 1 and name == path[0]:
                        parent.add_typer(apps[path], name=alias, hidden=True)
        return apps[path]

    app_for(())
    for meta in COMMANDS.values():
        app_for(meta.path[:-1]).command(meta.path[-1], epilog=meta.epilog)(_wrap(meta))
    apps[()].command("serve", epilog=SERVE_EXAMPLES)(serve)
    apps[()].command("verify", epilog=VERIFY_EXAMPLES)(verify)
    if only:  # (with serve and verify beside it, typer keeps "sheet" a command by name)
        return apps[()]
    from .operate import rooms_app

    apps[()].add_typer(rooms_app, name="rooms")
    from .discord import discord_app

    apps[()].add_typer(discord_app, name="discord")
    return apps[()]


VERIFY_EXAMPLES = """Exit status: 0 when every check that could be made holds, 1 on any mismatch
(the entry and the check are named), 2 when the file cannot be read. A roll whose
draws are the stream's but whose result another version of referee (its engine)
wrote otherwise is a change of version, not tampering: listed apart, exit 0.
Rolls whose epoch was locked with no player seed are not provable: the report counts
them and names their rollers; with --require-seeds, any such roll by a player exits 1.

Examples:

  referee verify room-export.jsonl

  referee verify room-export.jsonl --require-seeds

  referee verify room-export.jsonl --json"""


def verify(
    export: Annotated[str, typer.Argument(metavar="EXPORT", help="A room's export (NDJSON).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    require_seeds: Annotated[
        bool,
        typer.Option(
            "--require-seeds",
            help="Exit 1 if any player's roll had no player seed in its mix (not provable).",
        ),
    ] = False,
) -> None:
    """Check a game room's exported log: the chain, the seeds, and every roll's dice."""
    import json

    from ..rooms.audit.verify import read_export
    from ..rooms.audit.verify import verify as check

    try:
        entries = read_export(export)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        print(f"error: cannot read {export}: {exc}", file=sys.stderr)
        raise typer.Exit(2) from None
    report = check(entries)
    print(json.dumps(report.as_json()) if as_json else report.text())
    if require_seeds and report.unprovable_players:
        n = report.unprovable_players
        print(
            f"error: --require-seeds: {n} roll{'s' if n != 1 else ''} by players had no "
            "player seed in the mix",
            file=sys.stderr,
        )
        raise typer.Exit(1)
    raise typer.Exit(0 if report.ok else 1)


SERVE_EXAMPLES = """Examples:

  referee serve

  referee serve --port 8080 --db rooms.sqlite3

  REFEREE_DB=postgresql+asyncpg://user@localhost/referee referee serve

  referee serve --db postgresql+asyncpg://user@localhost/referee --workers 2

  REFEREE_DISCORD_PUBLIC_KEY=... referee serve --proxy-headers   # and Discord's interactions"""


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.", min=1, max=65535)] = 8000,
    db: Annotated[
        str | None,
        typer.Option(
            help="Database URL or SQLite file (default: $REFEREE_DB, else referee-rooms.sqlite3)."
        ),
    ] = None,
    telemetry: Annotated[
        bool,
        typer.Option(
            help="Send FastAPI's OpenTelemetry spans, metrics and logs to the providers "
            "the process sets up (for example under opentelemetry-instrument)."
        ),
    ] = False,
    proxy_headers: Annotated[
        bool,
        typer.Option(
            "--proxy-headers",
            help="Behind a proxy: take each client's address from X-Forwarded-For "
            "(from the addresses of --forwarded-allow-ips only).",
        ),
    ] = False,
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            "--forwarded-allow-ips",
            metavar="IPS",
            help="The proxies trusted for X-Forwarded-For: comma-separated addresses or "
            "networks, or * (uvicorn's default: 127.0.0.1).",
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=1,
            max=64,
            help="Server processes sharing the port, to use every core (PostgreSQL only).",
        ),
    ] = 1,
    room_affinity: Annotated[
        bool,
        typer.Option(
            help="With --workers: serve each room in one worker, handing each connection "
            "to the worker that owns its room (the default; cheaper than sharing rooms).",
        ),
    ] = True,
    limit: Annotated[
        list[str] | None,
        typer.Option(
            "--limit",
            metavar="NAME=VALUE",
            help="Set a limit (repeat; also $REFEREE_LIMIT_NAME): " + _limits_help(),
        ),
    ] = None,
) -> None:
    """Run the game rooms' web server: a shared table with secret GM rolls."""
    from ..rooms import serve as run

    try:
        run(
            host, port, db, telemetry, proxy_headers=proxy_headers,
            forwarded_allow_ips=forwarded_allow_ips, limits=limit or [], workers=workers,
            affinity=room_affinity,
        )  # fmt: skip
    except ValueError as exc:
        typer.echo(f"referee serve: {exc}", err=True)
        raise typer.Exit(2) from None


def _limits_help() -> str:
    from ..rooms.limits import limit_names

    return ", ".join(f"{k}={v}" for k, v in limit_names().items()) + "."


app: typer.Typer  # (bound by __getattr__ below, when first asked for)


def __getattr__(name: str) -> typer.Typer:
    """``app``: the whole typer application, built when first asked for
    (``typer.testing.CliRunner().invoke(app, [...])`` runs it); the console script
    builds only the group its command line names (:func:`build`)."""
    global _APP
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if _APP is None:
        _APP = build()
    return _APP


_APP: typer.Typer | None = None
