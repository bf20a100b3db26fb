"""A command as the engine ran it against a character's sheet, written so that it rolls
the same with no sheet: what a game room logs as a roll's ``resolved`` command
(the rooms' contract, docs/reference/rooms-contract.md, "Characters and room
administration (v1.1)").

The commands that read a sheet record, as they read it, which of their parameters the
sheet decided and how they are typed without it (:func:`.sheeted.resolved_as`): a
trait's name becomes its level (``gurps check Stealth -2`` is ``gurps check 15 -2``),
and the trait's name goes into the label (``--label Stealth``; after a label the
player gave, ``--label 'Stealth: past the guard'``). Every other parameter stays as
it was typed. The command is then written out: its name, its arguments in order, and
its options, each word quoted as the reader splits them (:func:`.line.split_line`).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from typer.core import TyperArgument, TyperCommand, TyperOption

from ..errors import CommandError
from .line import normalise, split_line
from .result import BUILTIN, CommandLimits, with_sheet
from .sheeted import RESOLVED, Raw

if TYPE_CHECKING:
    from ..sheets import Sheet

__all__ = ["resolve"]


def resolve(
    line: str | Sequence[str],
    sheet: Sheet | None,
    *,
    limits: CommandLimits | None = None,
    others: Mapping[str, Sheet] | None = None,
) -> str:
    """The command ``line`` as the engine runs it with ``sheet`` for its trait names,
    written so that it rolls the same with no sheet.

    A command that takes nothing from the sheet comes back as typed (normalised, with
    ``roll`` before a bare dice expression).

    >>> from referee.sheets import read_sheet
    >>> dai = read_sheet(b'system = "gurps"\\nname = "Dai"\\n[skills]\\nStealth = 15')
    >>> resolve("gurps check Stealth -2", dai)
    'gurps check 15 -2 --label Stealth'
    >>> resolve("3d6", dai)
    'roll 3d6'

    Raises:
        CommandError: a malformed command, one that does not roll, or one whose sheet
            cannot be written out (``swn initiative``, which rolls for sheets).
        RefereeError: what running the command with the sheet raises (a trait not on
            the sheet, a sheet of another system, a value the rules refuse).
    """
    # here, not at the top: 6 ms of start-up otherwise (issue 53)
    from .reader import find, invoke

    words = split_line(line) if isinstance(line, str) else list(line)
    meta = find(words)[0]
    if not meta.rolls:
        raise CommandError(
            f"'{meta.name}' does not roll dice: only rolling commands are allowed here", meta.name
        )
    resources = with_sheet(sheet, replace(BUILTIN, limits=limits or BUILTIN.limits), others)
    meta, cmd, args, ctx, _plan = invoke(words, resources=resources)
    changed: dict[str, Raw] = ctx.meta.get(RESOLVED, {})
    if meta.path == ("swn", "initiative") and not ctx.params.get("path"):
        raise CommandError(
            "'swn initiative' rolls for characters' sheets, which a resolved command "
            "cannot name: roll 1d8 with each Dex modifier instead",
            meta.name,
        )
    if not changed:
        text = " ".join(words) if not isinstance(line, str) else line
        shown = normalise(text)
        return shown if meta.path != ("roll",) or shown.startswith("roll") else "roll " + shown
    return " ".join([*meta.path, *_written(cmd, ctx, args, changed)])


def _written(cmd: TyperCommand, ctx: Any, args: list[str], changed: dict[str, Raw]) -> list[str]:
    """The command's arguments and options as typed (quoted), with ``changed`` in
    place of what was typed for those parameters, and no ``--sheet``."""
    typed, _rest, _order = cmd.make_parser(ctx).parse_args(list(args))
    positional: list[str] = []
    options: list[str] = []
    for param in cmd.params:
        name = param.name or ""
        value: Any = changed[name] if name in changed else typed.get(name)
        if name in ("sheet", "sheet2") and name not in changed:
            value = None
        if value is None or value is False or value == () or value == []:
            continue
        if isinstance(param, TyperArgument):
            positional.extend(_words(value))
        elif isinstance(param, TyperOption):
            flag = param.opts[0]
            if value is True or param.is_flag:
                options.append(flag if value is not False else param.secondary_opts[0])
            elif param.multiple or isinstance(value, (list, tuple)):
                for item in value if isinstance(value, (list, tuple)) else [value]:
                    options += [flag, *_words(item)]
            else:
                options += [flag, *_words(value)]
    return [*(shlex.quote(w) for w in positional), *(_quoted(options))]


def _words(value: Any) -> list[str]:
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(getattr(value, "value", value))]


def _quoted(words: list[str]) -> list[str]:
    return [shlex.quote(w) for w in words]
