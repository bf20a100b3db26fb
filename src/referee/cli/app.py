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
from ..errors import CommandError, NoSheetError, RefereeError
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
            # here, not at the top: 33 ms of start-up otherwise (issue 53)
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


def _asked(group: str, words: Sequence[str]) -> tuple[str, ...]:
    """The longest run of ``group`` (the first word, read as its system) and the
    ``words`` after it that starts a loaded command's path: ``("gurps", "check")`` for
    ``gurps check 12``, ``("gurps",)`` for ``gurps --help``."""
    path: tuple[str, ...] = (group,)
    for word in words:
        longer = (*path, word)
        if not any(meta.path[: len(longer)] == longer for meta in COMMANDS.values()):
            break
        path = longer
    return path


def build(words: Sequence[str] = ()) -> typer.Typer:
    """The CLI application: every registered command, with the CLI's own options.

    With ``words``, the command line's words: when the first names a system's group
    (``gurps``, an alias, ``roll``), only that group's commands are loaded
    (:func:`referee.commands.reader.load`), and of those only the ones under the
    words that follow (``gurps check 12``: ``gurps check`` alone; ``gurps --help``:
    every ``gurps`` command). typer builds each command it is given, its parameters
    read from the function's signature, and a line runs one command: issue 53.
    """
    group = ALIASES.get(words[0], words[0]) if words else None
    only = group in DECLARED_BY
    # the application's own commands (serve, verify, rooms, discord) need no system's
    own = group in _OWN
    # ``referee --help`` lists the systems' groups by their help alone: their commands
    # stay unloaded (the groups are made empty below, in the order a full build has).
    bare_help = list(words) == ["--help"]
    if only:
        load(group, words[1] if len(words) > 1 else None)
    elif bare_help:
        roots = [w for w in DECLARED_BY if (w,) not in GROUP_HELP]
        for word in sorted(roots, key=lambda w: DECLARED_BY[w]):
            load(word)
    elif not own:
        load()
    asked = _asked(group, words[1:]) if only and group is not None else ()
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
                    # A line that names its group builds only the name it typed: typer
                    # builds a group's commands again for each name (10 ms of a line
                    # such as ``gurps attack``'s start-up, issue 74 §1).
                    typed = not only or alias == words[0]
                    if len(path) == 1 and name == path[0] and typed:
                        parent.add_typer(apps[path], name=alias, hidden=True)
        return apps[path]

    app_for(())
    for meta in COMMANDS.values():
        if meta.path[: len(asked)] == asked:
            app_for(meta.path[:-1]).command(meta.path[-1], epilog=meta.epilog)(_wrap(meta))
    if bare_help:
        for word in sorted(w for w in DECLARED_BY if (w,) in GROUP_HELP):
            app_for((word,))
    if only:
        # A second command, hidden and without options, keeps the root a group, so that
        # "sheet" stays a command by name; serve's and verify's many options cost typer
        # 10 ms to build for a line that runs neither (issue 74 §1).
        apps[()].command(_KEEPS_GROUP, hidden=True)(_keeps_group)
        return apps[()]
    # here, not at the top: a system's line loads none of them (issue 74 §1)
    from .discord import discord_app
    from .operate import rooms_app
    from .server import SERVE_EXAMPLES, VERIFY_EXAMPLES, serve, verify

    apps[()].command("serve", epilog=SERVE_EXAMPLES)(serve)
    apps[()].command("verify", epilog=VERIFY_EXAMPLES)(verify)
    if group in (None, "rooms") or not own:
        apps[()].add_typer(rooms_app, name="rooms")
    if group in (None, "discord") or not own:
        apps[()].add_typer(discord_app, name="discord")
    return apps[()]


_KEEPS_GROUP = "--"
"""The name of the hidden command that keeps a line's root a group: no word of a line
reaches it (``--`` ends the options, and is no command's name)."""


def _keeps_group() -> None:
    """(Never run: see :data:`_KEEPS_GROUP`.)"""


_OWN = frozenset({"serve", "verify", "rooms", "discord"})
"""The first words of the commands that are the application's own, not a system's."""


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
