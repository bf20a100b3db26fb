"""The command layer: one reader of command lines, and one result, for every front end.

:func:`run` takes what follows ``referee`` on the command line (``roll
3d6+2``, ``gurps check 14-4``, ``fudge roll Good --vs Great``, ``swn save
--level 3 --con 14``; a bare dice expression means ``roll``) and a random
source, and returns a frozen :class:`CommandResult`: the object the CLI's
``--json`` prints, the human text, and every draw the command made, which
:class:`referee.rng.ReplaySource` replays to the same result. The CLI, the
interactive prompt and the game rooms all call it.

>>> from referee import commands, seeded
>>> from referee.rng import ReplaySource
>>> r = commands.run("gurps check 14 -4", seeded(1))
>>> r.command, r.rolls, r.draws
('gurps check 14 -4', True, ((6, 2), (6, 4), (6, 4)))
>>> r.text
'14-4 = 10: rolled 10 (2, 4, 4), success by 0 — 50.0% to succeed'
>>> commands.run(r.command, ReplaySource(r.draws)).data == r.data
True

Importing this package is cheap; the registry (typer, click) loads on first use.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..errors import CommandError
from .result import (
    BUILTIN,
    SHARED_TABLE,
    UNLIMITED,
    CommandLimits,
    CommandResult,
    Plan,
    Reply,
    Resources,
    with_sheet,
)

if TYPE_CHECKING:
    from ..rng import RandomSource
    from ..sheets import Sheet

__all__ = [
    "BUILTIN",
    "SHARED_TABLE",
    "UNLIMITED",
    "CommandError",
    "CommandLimits",
    "CommandResult",
    "Plan",
    "Reply",
    "Resources",
    "help_text",
    "is_rolling",
    "plan",
    "resolve",
    "run",
    "with_sheet",
]


def run(
    line: str | Sequence[str],
    rng: RandomSource | None = None,
    *,
    only_rolls: bool = False,
    resources: Resources | None = BUILTIN,
    limits: CommandLimits | None = None,
    secret: bool | None = None,
) -> CommandResult:
    """Run one command line and return its result with every draw it made.

    Args:
        line: what follows ``referee`` on the command line (``gurps check 14-4``),
            as a string or as words; a bare dice expression means ``roll``.
        rng: the random source (the secure system source by default).
        only_rolls: refuse commands that do not roll dice (``odds``, ``sample``,
            ``swn simulate``, tables): the way to serve strangers only rolls.
        resources: what the command may reach (:data:`BUILTIN`, also for None: no
            files, no sheet).
        limits: what one command may cost (:data:`SHARED_TABLE` for a chat bot or a
            shared table; by default only the engine's own limits).
        secret: whether a rolling command is the GM's secret roll (by default the
            rule's own default: GURPS reaction rolls are secret). The result's
            ``secret`` and its JSON's ``"secret"`` say which.

    Raises:
        CommandError: a malformed or unknown command, or one that does not roll
            when ``only_rolls``. Its message reads on its own (no front end's
            hint); its ``command`` names the command the line named, if any.
        RefereeError: what the rules or the limits refuse, with the engine's message.
    """
    # here, not at the top: 40 ms of start-up otherwise (issue 53)
    from .reader import run as _run

    found = BUILTIN if resources is None else resources
    return _run(line, rng, only_rolls=only_rolls, resources=found, limits=limits, secret=secret)


def plan(
    line: str | Sequence[str],
    *,
    only_rolls: bool = False,
    resources: Resources | None = BUILTIN,
    limits: CommandLimits | None = None,
) -> tuple[str, Plan]:
    """Read a command line without running it: ``(normalised command, plan)``; the
    plan rolls when called with a random source (a game room reads a command before
    its seq, and so its random stream, is known), within ``limits``. See
    :func:`.reader.plan_line`."""
    # here, not at the top: 48 ms of start-up otherwise (issue 53)
    from .reader import plan_line

    found = BUILTIN if resources is None else resources
    shown, _meta, made = plan_line(line, only_rolls=only_rolls, resources=found, limits=limits)
    return shown, made


def resolve(
    line: str | Sequence[str],
    sheet: Sheet | None,
    *,
    limits: CommandLimits | None = None,
    others: Mapping[str, Sheet] | None = None,
) -> str:
    """The command as the engine runs it with ``sheet`` for its trait names (and
    ``others`` for the other sheets it names, as ``--vs @orc``), written so that it
    rolls the same with no sheet (``gurps check Stealth -2`` is ``gurps check 15 -2
    --label Stealth``): a game room's ``resolved``. See :mod:`.resolving`."""
    # here, not at the top: 46 ms of start-up otherwise (issue 53)
    from .resolving import resolve as _resolve

    return _resolve(line, sheet, limits=limits, others=others)


def is_rolling(line: str | Sequence[str]) -> bool:
    """Whether the command a line names rolls dice (without running it).

    Raises:
        CommandError: the line names no command.
    """
    # here, not at the top: each import costs 1-46 ms of start-up otherwise (issue 53)
    from .line import split_line
    from .reader import find

    words = split_line(line) if isinstance(line, str) else list(line)
    return find(words)[0].rolls


def help_text(name: str = "") -> str:
    """The help of one command (``gurps check``), or a list of every command."""
    # here, not at the top: 47 ms of start-up otherwise (issue 53)
    from .reader import help_text as _help

    return _help(name)
