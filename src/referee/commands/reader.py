"""The one reader of command lines: find the command, parse its arguments, run its plan.

The commands are declared in :mod:`.dice`, :mod:`.gurps`, :mod:`.fudge` and
:mod:`.swn` (through :mod:`.registry`); this module loads them and reads a
line against their declarations, for the interactive prompt, the game rooms
and (through :func:`build_group`) the CLI.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption
from typer.exceptions import TyperException

from ..errors import CommandError
from ..rng import CappedSource, RandomSource, RecordingSource, resolve
from .groups import build_group, every_command, group_for, load, warm
from .line import arrange, is_word, normalise, split_line
from .registry import ALIASES, COMMANDS, DEFAULTS, Command
from .result import (
    BUILTIN,
    CommandLimits,
    CommandResult,
    FrontOptions,
    Plan,
    Reply,
    Resources,
    mark_secret,
)

__all__ = [
    "CLI_ONLY",
    "build_group",
    "find",
    "help_text",
    "invoke",
    "is_word",
    "front_options",
    "group_for",
    "load",
    "option_names",
    "plan_line",
    "prepare",
    "run",
    "player_words",
    "valued_options",
    "warm",
]

CLI_ONLY = ("--json", "--seed", "-n", "--secret", "--open")
"""Options of the CLI alone: a result is already structured and rolled by the caller."""


def _call(meta: Command, cmd: TyperCommand, ctx: Any) -> Plan:
    """Call the command's function with the values ``ctx`` parsed, as typer's wrapper
    of it would (a multiple option or variadic argument as a list, or None when empty
    with no default; the context to the parameter typed ``typer.Context``), but with a
    dict of this call's own.

    typer's wrapper keeps the arguments of a call in one dict that every call of that
    command shares (``use_params`` in ``typer.main.get_callback``, typer 0.29): two
    threads invoking one command at once could each run with the other's arguments, a
    room's roll with another room's command (found under load in issue 53's hunt for
    flaky tests; ``tests/test_command_loading.py`` hammers it). The rooms read commands
    in worker threads (:mod:`referee.rooms.rolling.plans`)."""
    assert meta.function is not None
    kwargs: dict[str, Any] = {name: ctx for name in _context_names(meta.function)}
    for param in cmd.params:
        if param.name is None or param.name not in ctx.params:
            continue
        value = ctx.params[param.name]
        many = getattr(param, "multiple", False) or getattr(param, "nargs", 1) == -1
        if many and value is not None:
            value = None if param.default is None and len(value) == 0 else list(value)
        kwargs[param.name] = value
    return meta.function(**kwargs)


@functools.cache
def _context_names(function: Any) -> tuple[str, ...]:
    """The parameters of ``function`` typed ``typer.Context`` (typer passes the context
    there)."""
    hints = inspect.signature(function, eval_str=True).parameters
    return tuple(
        name
        for name, p in hints.items()
        if isinstance(p.annotation, type) and issubclass(p.annotation, typer.Context)
    )


def find(
    words: Sequence[str], group: TyperGroup | None = None
) -> tuple[Command, TyperCommand, list[str]]:
    """The command that ``words`` name, its click command, and the words after its name.

    A line that names no command is a dice expression: ``3d6+2`` means ``roll 3d6+2``.

    Raises:
        CommandError: an unknown command, or a group named without its command.
    """
    root = group or group_for(words)
    node: Any = root  # the vendored click types of typer: TyperGroup/TyperCommand
    path: list[str] = []
    i = 0
    while isinstance(node, TyperGroup) and i < len(words):
        word = ALIASES.get(words[i], words[i]) if not path else words[i]
        sub = node.commands.get(word)
        if sub is None and tuple(path) in DEFAULTS:
            word = DEFAULTS[tuple(path)]  # "gurps odds 12" is "gurps odds check 12"
            sub, i = node.commands.get(word), i - 1
        if sub is None:
            break
        node, i = sub, i + 1
        path.append(word)
    if not path:
        if not words:
            raise CommandError("no command given: type a dice expression like 3d6, or 'help'")
        if is_word(words[0]):
            known = sorted(every_command().commands)
            raise CommandError(
                f"unknown command {words[0]!r}{_did_you_mean(words[0], known)} "
                f"(commands: {', '.join(known)}, or dice like 3d6)"
            )
        node, path = root.commands["roll"], ["roll"]
    if isinstance(node, TyperGroup):
        subs = sorted(node.commands)
        where = " ".join(path)
        if i < len(words):
            raise CommandError(
                f"unknown command '{where} {words[i]}'{_did_you_mean(words[i], subs)} "
                f"('{where}' has: {', '.join(subs)})"
            )
        raise CommandError(f"'{where}' needs a command: {', '.join(subs)}")
    assert isinstance(node, TyperCommand)
    return COMMANDS[tuple(path)], node, list(words[i:])


def _did_you_mean(word: str, known: Sequence[str]) -> str:
    """``: did you mean 'check'?`` for a close misspelling of one of ``known``, else ``""``.

    >>> _did_you_mean("chek", ["check", "contest", "damage"]), _did_you_mean("xyz", ["check"])
    (": did you mean 'check'?", '')
    """

    close = difflib.get_close_matches(word.casefold(), known, n=1, cutoff=0.6)
    return f": did you mean {close[0]!r}?" if close else ""


def player_words(message: str) -> str:
    """A parser's message as a player reads it (typer's coercion says "Value error, ")."""
    return message.replace("Value error, ", "")


def valued_options(cmd: TyperCommand) -> set[str]:
    """The option names of ``cmd`` that take a value."""
    return {
        name
        for p in cmd.params
        if isinstance(p, TyperOption) and not p.is_flag and not p.count
        for name in p.opts
    }


def option_names(cmd: TyperCommand) -> set[str]:
    """Every option name of ``cmd`` (flags and valued options)."""
    return {name for p in cmd.params if isinstance(p, TyperOption) for name in p.opts}


def prepare(line: str | Sequence[str], *, resources: Resources = BUILTIN) -> tuple[Command, Plan]:
    """Read a command line (a string, or words as the shell split them) into a plan.

    Raises:
        CommandError: the line is malformed or unknown; the message names the
            problem and shows no traceback, and names no front end's hint (its
            ``command`` says which command the line named).
        RefereeError: a value the rules refuse (the engine's own message).
    """
    meta, _cmd, _args, _ctx, plan = invoke(line, resources=resources)
    return meta, _bounded(meta, plan, resources.limits)


def invoke(
    line: str | Sequence[str], *, resources: Resources = BUILTIN
) -> tuple[Command, TyperCommand, list[str], Any, Plan]:
    """Read a command line and call its command: ``(command, click command, its
    arguments as arranged, the click context, the plan)`` (unbounded: see
    :func:`prepare`, which raises as this does)."""
    words = split_line(line) if isinstance(line, str) else list(line)
    meta, cmd, args = find(words)
    if "--help" in args or "-h" in args:
        raise CommandError(
            f"--help is not part of a command: ask for the help of '{meta.name}' instead",
            meta.name,
        )
    try:
        args = arrange(
            args,
            valued_options(cmd),
            joins=meta.joins,
            options=option_names(cmd),
            hash_label=meta.path != ("roll",),
        )
    except CommandError as exc:
        raise CommandError(str(exc), meta.name) from None
    try:
        ctx = cmd.make_context(meta.name, list(args), obj=resources)
        with ctx:
            plan = _call(meta, cmd, ctx)
    except TyperException as exc:  # click's usage errors, as typer vendors them
        option = getattr(exc, "option_name", None)
        if option in CLI_ONLY:
            raise CommandError(f"{option} is not an option of '{meta.name}'", meta.name) from None
        raise CommandError(player_words(exc.format_message()), meta.name) from None
    except typer.Exit:
        raise CommandError(f"'{meta.name}' could not be read", meta.name) from None
    return meta, cmd, args, ctx, plan


def front_options(words: Sequence[str]) -> tuple[list[str], FrontOptions]:
    """Take out of a line's words the options that a front end answers rather than the
    command (:class:`~.result.FrontOptions`): ``--json`` for every command; ``--seed``,
    ``-n``, ``--secret`` and ``--open`` for rolling ones. A command's own option of the
    same name (``sample -n``) stays the command's.

    >>> front_options(["4d6kh3", "-n", "6", "--seed", "7"])
    (['4d6kh3'], FrontOptions(as_json=False, seed=7, n=6, secret=None))
    >>> front_options(["sample", "3d6", "-n", "1000", "--json"])[0]
    ['sample', '3d6', '-n', '1000']

    Raises:
        CommandError: an unknown command, or a front-end option without a good value.
    """
    meta, cmd, args = find(words)
    head = list(words[: len(words) - len(args)])
    own, valued = option_names(cmd), valued_options(cmd)
    kept: list[str] = []
    found: dict[str, Any] = {}
    rest = iter(args)
    for word in rest:
        name, eq, inline = word.partition("=")
        if word == "--":
            kept += [word, *rest]
            break
        if word in valued:
            kept.append(word)
            value = next(rest, None)
            kept += [] if value is None else [value]
        elif name in own:
            kept.append(word)
        elif word == "--json":
            found["as_json"] = True
        elif meta.rolls and word in ("--secret", "--open"):
            if found.get("secret", word == "--secret") != (word == "--secret"):
                raise CommandError("give --secret or --open, not both", meta.name)
            found["secret"] = word == "--secret"
        elif meta.rolls and name in ("--seed", "-n"):
            value = inline if eq else next(rest, None)
            if value is None or not value.strip().lstrip("+-").isdigit():
                raise CommandError(f"{name} needs a whole number", meta.name)
            number = int(value)
            if name == "-n" and not 1 <= number <= FrontOptions.MOST:
                raise CommandError(f"-n must be 1 to {FrontOptions.MOST:,}", meta.name)
            found["seed" if name == "--seed" else "n"] = number
        else:
            kept.append(word)
    return head + kept, FrontOptions(**found)


def _bounded(meta: Command, plan: Plan, limits: CommandLimits) -> Plan:
    """``plan`` under ``limits``: at most ``dice`` draws, and no longer text than
    ``characters``."""
    if limits.dice is None and limits.characters is None:
        return plan
    most, longest = limits.dice, limits.characters

    def go(rng: RandomSource) -> Reply:
        reply = plan(rng if most is None else CappedSource(rng, most))
        if longest is not None and len(reply.text) > longest:
            raise CommandError(
                f"the answer would be {len(reply.text):,} characters long; "
                f"the limit here is {longest:,}",
                meta.name,
            )
        return reply

    return go


def plan_line(
    line: str | Sequence[str],
    *,
    only_rolls: bool = False,
    resources: Resources = BUILTIN,
    limits: CommandLimits | None = None,
) -> tuple[str, Command, Plan]:
    """Read a command line into ``(normalised command, command, plan)`` without
    running it: the normalised text is trimmed, with runs of whitespace made one
    space, and ``roll `` put before a bare dice expression.

    Raises:
        CommandError, RefereeError: as :func:`run`.
    """
    if limits is not None:
        resources = replace(resources, limits=limits)
    words = split_line(line) if isinstance(line, str) else list(line)
    if only_rolls:
        meta = find(words)[0]
        if not meta.rolls:
            raise CommandError(
                f"'{meta.name}' does not roll dice: only rolling commands are allowed here",
                meta.name,
            )
    meta, plan = prepare(words, resources=resources)
    text = line if isinstance(line, str) else " ".join(line)
    shown = normalise(text)
    if meta.path == ("roll",) and not shown.startswith("roll"):
        shown = "roll " + shown
    return shown, meta, plan


def run(
    line: str | Sequence[str],
    rng: RandomSource | None = None,
    *,
    only_rolls: bool = False,
    resources: Resources = BUILTIN,
    limits: CommandLimits | None = None,
    secret: bool | None = None,
) -> CommandResult:
    """Run one command line and return its result with every draw it made: the
    work behind :func:`referee.commands.run`, whose docstring gives the arguments."""
    shown, meta, plan = plan_line(line, only_rolls=only_rolls, resources=resources, limits=limits)
    recorder = RecordingSource(resolve(rng))
    reply = plan(recorder)
    hidden = None
    if meta.rolls:
        hidden = meta.secret if secret is None else secret
        reply = mark_secret(reply, hidden, in_text=False)  # the front end shows it its way
    return CommandResult(
        shown, meta.name, meta.rolls, reply.data, reply.text, recorder.draws, hidden
    )


def help_text(name: str = "") -> str:
    """The help of a command (``gurps check``), or the list of commands."""
    group = every_command()
    words = name.split()
    if not words:
        lines = ["Commands (a bare dice expression means roll):"]
        for key, meta in sorted(COMMANDS.items()):
            _, node, _ = find(key, group)
            short = node.get_short_help_str(70)
            lines.append(f"  {meta.name:<22} {short}")
        return "\n".join(lines)
    _, cmd, _ = find(words)
    with cmd.make_context(name, [], resilient_parsing=True) as ctx:
        return cmd.get_help(ctx)
