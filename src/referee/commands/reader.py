"""The one reader of command lines: find the command, parse its arguments, run its plan.

The commands are declared in :mod:`.dice`, :mod:`.gurps`, :mod:`.fudge` and
:mod:`.swn` (through :mod:`.registry`); this module loads them and reads a
line against their declarations, for the interactive prompt, the game rooms
and (through :func:`build_group`) the CLI.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption
from typer.exceptions import TyperException

from ..errors import CommandError
from ..rng import RandomSource, RecordingSource, resolve
from . import dice, fudge, gurps, swn  # noqa: F401  (each declares its commands)
from .line import arrange, normalise, split_line
from .registry import ALIASES, COMMANDS, DEFAULTS, Command, root_app
from .result import BUILTIN, CommandResult, Plan, Resources

__all__ = [
    "CLI_ONLY",
    "build_group",
    "find",
    "help_text",
    "is_word",
    "load",
    "prepare",
    "run",
    "player_words",
    "valued_options",
]

CLI_ONLY = ("--json", "--seed", "-n", "--secret", "--open")
"""Options of the CLI alone: a result is already structured and rolled by the caller."""


def load() -> None:
    """Every command is declared (importing this module declares them)."""


def build_group() -> TyperGroup:
    """A fresh group of every command (the CLI adds its own options to its copy)."""
    group = typer.main.get_command(root_app())
    assert isinstance(group, TyperGroup)
    return group


_GROUP: TyperGroup | None = None


def _group() -> TyperGroup:
    global _GROUP
    if _GROUP is None:
        _GROUP = build_group()
    return _GROUP


def is_word(text: str) -> bool:
    """A word that cannot start a dice expression: an unknown command, not dice."""
    return text[:1].isalpha() and not (
        text[:1] in "dD" and (len(text) == 1 or text[1].isdigit() or text[1] in "%fF")
    )


def find(
    words: Sequence[str], group: TyperGroup | None = None
) -> tuple[Command, TyperCommand, list[str]]:
    """The command that ``words`` name, its click command, and the words after its name.

    A line that names no command is a dice expression: ``3d6+2`` means ``roll 3d6+2``.

    Raises:
        CommandError: an unknown command, or a group named without its command.
    """
    node: Any = group or _group()  # the vendored click types of typer: TyperGroup/TyperCommand
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
            known = ", ".join(sorted(_group().commands))
            raise CommandError(
                f"unknown command {words[0]!r} (commands: {known}, or dice like 3d6)"
            )
        node, path = _group().commands["roll"], ["roll"]
    if isinstance(node, TyperGroup):
        subs = ", ".join(sorted(node.commands))
        raise CommandError(f"'{' '.join(path)}' needs a command: {subs}")
    assert isinstance(node, TyperCommand)
    return COMMANDS[tuple(path)], node, list(words[i:])


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


def prepare(line: str | Sequence[str], *, resources: Resources = BUILTIN) -> tuple[Command, Plan]:
    """Read a command line (a string, or words as the shell split them) into a plan.

    Raises:
        CommandError: the line is malformed or unknown; the message names the
            problem and shows no traceback.
        RefereeError: a value the rules refuse (the engine's own message).
    """
    words = split_line(line) if isinstance(line, str) else list(line)
    meta, cmd, args = find(words)
    if "--help" in args or "-h" in args:
        raise CommandError(f"'{meta.name} --help' is for the command line; try 'help {meta.name}'")
    args = arrange(args, valued_options(cmd), joins=meta.joins)
    try:
        ctx = cmd.make_context(meta.name, args, obj=resources)
        with ctx:
            plan = cmd.invoke(ctx)
    except TyperException as exc:  # click's usage errors, as typer vendors them
        option = getattr(exc, "option_name", None)
        if option in CLI_ONLY:
            raise CommandError(
                f"{option} has no meaning here: it belongs to the referee command line"
            ) from None
        raise CommandError(
            f"{player_words(exc.format_message())} (see 'help {meta.name}')"
        ) from None
    except typer.Exit:
        raise CommandError(f"try 'help {meta.name}'") from None
    return meta, plan


def plan_line(
    line: str | Sequence[str], *, only_rolls: bool = False, resources: Resources = BUILTIN
) -> tuple[str, Command, Plan]:
    """Read a command line into ``(normalised command, command, plan)`` without
    running it: the normalised text is trimmed, with runs of whitespace made one
    space, and ``roll `` put before a bare dice expression.

    Raises:
        CommandError, RefereeError: as :func:`run`.
    """
    meta, plan = prepare(line, resources=resources)
    if only_rolls and not meta.rolls:
        raise CommandError(
            f"'{meta.name}' does not roll dice: only rolling commands are allowed here"
        )
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
) -> CommandResult:
    """Run one command line and return its result with every draw it made.

    Args:
        line: what follows ``referee`` on the command line (``gurps check 14-4``),
            as a string or as words; a bare dice expression means ``roll``.
        rng: the random source (the secure system source by default).
        only_rolls: refuse commands that do not roll dice (a game room's rule).
        resources: what the command may reach (:data:`~.result.BUILTIN`: no files).

    Raises:
        CommandError: a malformed or unknown command, or one that does not
            roll when ``only_rolls``.
        RefereeError: what the rules refuse, with the engine's message.
    """
    shown, meta, plan = plan_line(line, only_rolls=only_rolls, resources=resources)
    recorder = RecordingSource(resolve(rng))
    reply = plan(recorder)
    return CommandResult(shown, meta.name, meta.rolls, reply.data, reply.text, recorder.draws)


def help_text(name: str = "") -> str:
    """The help of a command (``gurps check``), or the list of commands."""
    group = _group()
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
