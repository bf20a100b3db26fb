"""The values of the command layer: a command's reply, its result, and what it may reach."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import CommandError
from ..rng import RandomSource

if TYPE_CHECKING:
    from ..systems.fudge import Ladder
    from ..systems.swn import Encounter

__all__ = ["BUILTIN", "CommandError", "CommandResult", "Plan", "Reply", "Resources"]


@dataclass(frozen=True, slots=True)
class Reply:
    """What a command answers: the object ``--json`` prints, and the human text."""

    data: Any
    """A JSON-ready dict (a list for several rolls)."""
    text: str
    """The line (or lines) a person reads."""


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


def _builtin_ladder(name: str | None) -> Ladder:
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


BUILTIN = Resources()
"""Built-in ladders only, no files, no progress display."""
