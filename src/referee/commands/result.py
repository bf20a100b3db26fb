"""The values of the command layer: a command's reply, its result, and what it may reach."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import CommandError
from ..rng import RandomSource

if TYPE_CHECKING:
    from ..sheets import Sheet
    from ..systems.fudge import Ladder
    from ..systems.swn import Encounter

__all__ = [
    "BUILTIN",
    "SHARED_TABLE",
    "UNLIMITED",
    "CommandError",
    "CommandLimits",
    "CommandResult",
    "FrontOptions",
    "Plan",
    "Reply",
    "Resources",
    "mark_secret",
    "resources_of",
    "with_sheet",
]


@dataclass(frozen=True, slots=True)
class Reply:
    """What a command answers: the object ``--json`` prints, and the human text."""

    data: Any
    """A JSON-ready dict (a list for several rolls)."""
    text: str
    """The line (or lines) a person reads."""


def mark_secret(reply: Reply, secret: bool, *, in_text: bool = True) -> Reply:
    """``reply`` saying whether it is secret: ``"secret"`` in each JSON object, and
    (``in_text``) ``(secret)`` before a secret roll's text.

    >>> mark_secret(Reply({"total": 3}, "rolled 3"), True)
    Reply(data={'total': 3, 'secret': True}, text='(secret) rolled 3')
    """
    data = reply.data
    if isinstance(data, list):
        data = [{**item, "secret": secret} for item in data]
    else:
        data = {**data, "secret": secret}
    return Reply(data, f"(secret) {reply.text}" if secret and in_text else reply.text)


@dataclass(frozen=True, slots=True)
class FrontOptions:
    """The options a front end answers itself, around any command: the CLI and the
    interactive prompt read them (:func:`.reader.front_options`)."""

    MOST: ClassVar[int] = 10_000
    """Most rolls one ``-n`` may ask for."""

    as_json: bool = False
    """``--json``: print the JSON rather than the text."""
    seed: int | None = None
    """``--seed``: reproducible rolls."""
    n: int = 1
    """``-n``: roll this many times."""
    secret: bool | None = None
    """``--secret`` (True) or ``--open`` (False); None for the rule's default."""


Plan = Callable[[RandomSource], Reply]
"""A parsed command, ready to run with a random source (non-rolling plans draw nothing)."""


@dataclass(frozen=True, slots=True)
class CommandResult:
    """A command run through :func:`referee.commands.run`: its reply and every draw it made."""

    command: str
    """The command line, normalised: trimmed, runs of whitespace made one space, and
    ``roll `` put before a bare dice expression."""
    name: str
    """Which command: ``roll``, ``gurps check``, ``swn odds save``."""
    rolls: bool
    """Whether the command rolls dice (and so may run in a game room)."""
    data: Any
    """The object the CLI's ``--json`` prints."""
    text: str
    """The human text."""
    draws: tuple[tuple[int, int], ...] = field(default=())
    """Every draw, in order, as ``(n, value)`` with value in 1..n: replaying these
    through :class:`referee.rng.ReplaySource` gives the same result."""
    secret: bool | None = None
    """For a rolling command, whether it is the GM's secret roll (the rule's default,
    as GURPS reaction rolls are, unless the caller said otherwise); None for a
    command that does not roll. The JSON (:attr:`data`) carries it as ``"secret"``."""


@dataclass(frozen=True, slots=True)
class CommandLimits:
    """What one command may cost, beyond the engine's own limits (a bot's cap on one
    message from a stranger). ``None`` leaves a bound at the engine's default.

    Checked before the work where it can be: a dice expression over ``dice`` is
    refused when it is read; any other draw past ``dice`` stops the command.
    """

    dice: int | None = None
    """Most dice one command may draw (rerolls and explosions count; several rolls
    of one command count together)."""
    characters: int | None = None
    """Longest text a command may answer with."""
    work: int | None = None
    """Most steps of exact odds (``roll``'s chance, ``odds``) or simulated dice
    (``sample``) one command may take."""
    integers: int | None = None
    """Largest magnitude a dice expression's total (or a sub-roll's) may reach,
    bounded from the expression before any die is drawn (:func:`referee.bounds.largest`):
    a game room's log holds no integer beyond ±(2**53 − 1)."""


UNLIMITED = CommandLimits()
"""No caps beyond the engine's own limits: a local user's command line."""

SHARED_TABLE = CommandLimits(dice=200, characters=50_000, work=5_000_000, integers=2**53 - 1)
"""Caps for a shared table (a game room, a chat bot): 200 dice a roll, 50,000
characters of text, a tenth of the engine's budget for exact odds, and totals
within ±(2**53 − 1), checked from the expression alone."""


def _builtin_ladder(name: str | None) -> Ladder:
    # here, not at the top: each import costs 17-21 ms of start-up otherwise (issue 53)
    from ..systems.fudge import LADDERS, PSI_PUNK
    from ..systems.fudge.ladder import _ALIASES

    if name is None:
        return PSI_PUNK
    key = name.strip().casefold()
    key = _ALIASES.get(key, key)
    if key in LADDERS:
        return LADDERS[key]
    raise CommandError(
        f"unknown ladder {name!r}: use psi-punk or fate-core "
        "(ladder files are read only on the command line)"
    )


def _no_encounter(name: str) -> Encounter:
    raise CommandError(f"cannot read {name!r}: encounter files are read only on the command line")


def _no_party(name: str) -> list[tuple[str, int, bool]]:
    raise CommandError(f"cannot read {name!r}: party files are read only on the command line")


def _no_sheet(path: str | None) -> Sheet | None:
    if path is None:
        return None
    raise CommandError(f"cannot read {path!r}: sheet files are read only on the command line")


def _no_progress(total: int) -> AbstractContextManager[Callable[[int], None] | None]:
    return nullcontext(None)


@dataclass(frozen=True, slots=True)
class Resources:
    """What a command may reach beyond its own arguments.

    The default, :data:`BUILTIN`, reaches nothing: ladders are the built-in ones
    and no file is ever opened because a user typed its name. The CLI passes
    resources that read the files a local user names.
    """

    ladder: Callable[[str | None], Ladder] = _builtin_ladder
    """A ladder by name (None: the default ladder)."""
    encounter: Callable[[str], Encounter] = _no_encounter
    """An encounter by name."""
    party: Callable[[str], list[tuple[str, int, bool]]] = _no_party
    """``(name, Dex modifier, is a PC)`` of each combatant, by name, for initiative."""
    progress: Callable[[int], AbstractContextManager[Callable[[int], None] | None]] = _no_progress
    """For long runs: a context giving a callback for the work done so far, or None."""
    limits: CommandLimits = UNLIMITED
    """What one command may cost (:func:`referee.commands.run` sets it from ``limits=``)."""
    sheet: Callable[[str | None], Sheet | None] = _no_sheet
    """The character sheet a command's trait names are read from: by the name given
    with ``--sheet``, or (None) the caller's default sheet, if it has one. A game
    room passes the roller's sheet; the CLI reads files (and ``REFEREE_SHEET``)."""


BUILTIN = Resources()
"""Built-in ladders only, no files, no sheet, no progress display."""


def resources_of(ctx: Any) -> Resources:
    """What a command may reach: its click context's object, as the reader passes it
    (:data:`BUILTIN` when there is none)."""
    found = getattr(ctx, "obj", None)
    return found if isinstance(found, Resources) else BUILTIN


def with_sheet(
    sheet: Sheet | None,
    resources: Resources = BUILTIN,
    others: Mapping[str, Sheet] | None = None,
) -> Resources:
    """``resources`` whose default sheet is ``sheet`` (``--sheet`` names no file then):
    how a bot or a game room lets a command roll by trait name. ``others`` are the
    other sheets a command may name (a target: ``--vs @orc`` in a game room), by the
    name it gives them.

    >>> from referee.sheets import read_sheet
    >>> ron = read_sheet(b'system = "fudge"\\nname = "Ron"\\n[traits]\\nNotice = "Fair"')
    >>> with_sheet(ron).sheet(None).name
    'Ron'
    """

    named = dict(others or {})

    def only(path: str | None) -> Sheet | None:
        if path is None:
            return sheet
        if path in named:
            return named[path]
        who = f"rolls as {sheet.name}, from the sheet given" if sheet else "reads no sheet file"
        raise CommandError(f"cannot read {path!r}: this command {who}")

    return replace(resources, sheet=only)
