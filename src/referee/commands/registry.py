"""The registry of commands: each declared once, by the modules that define them.

A command is a function whose signature is its command-line interface (read
by typer): positional arguments, options, their help and their examples. It
returns a :data:`~.result.Plan`, which the caller runs with a random source.
:mod:`.reader` parses command lines against these declarations; the CLI
shows the same commands, adding ``--json``, ``--seed``, ``-n`` and ``--secret``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import typer

from ..systems import SYSTEMS
from .result import Plan

__all__ = ["ALIASES", "COMMANDS", "GROUP_HELP", "Command", "command", "root_app"]


@dataclass(frozen=True, slots=True)
class Command:
    """One registered command."""

    path: tuple[str, ...]
    """Its words: ``("gurps", "check")``."""
    rolls: bool
    """Whether it rolls dice (and may run in a game room)."""
    joins: bool
    """Whether its arguments are expressions joined across binary operators."""
    secret: bool = False
    """The rule's default visibility (GURPS reaction rolls are secret)."""
    function: Callable[..., Plan] | None = field(default=None, compare=False, repr=False)
    """The declaring function: its signature is the command's interface."""
    epilog: str | None = field(default=None, compare=False, repr=False)
    """The examples shown under ``--help``."""

    @property
    def name(self) -> str:
        """``gurps check``."""
        return " ".join(self.path)


COMMANDS: dict[tuple[str, ...], Command] = {}
"""Every command, by its words."""

_APPS: dict[tuple[str, ...], typer.Typer] = {}
GROUP_HELP = {
    (): "Resolve tabletop RPG dice: fair rolls, exact odds, bulk simulation.",
    ("gurps",): "GURPS success rolls, contests, reactions and damage, with exact odds.",
    ("fudge",): "Fudge dice (4dF) on a trait ladder, as Psi-punk uses them, with exact odds.\n\n"
    "Levels are ladder names or unique prefixes (Good, gr, Great+1) or numbers (+2, 0, -1).",
    ("swn",): "Stars Without Number (revised): saves, skill checks, combat, injury, morale, "
    "and an encounter simulator, with exact odds.",
    ("swn", "odds"): "Exact odds of a save, check, attack, stabilization or morale roll.",
}
ALIASES = {alias: s.name for s in SYSTEMS.values() for alias in s.aliases}
"""Other names of the system command groups (from the systems registry)."""


def _app(path: tuple[str, ...]) -> typer.Typer:
    found = _APPS.get(path)
    if found is None:
        found = typer.Typer(
            help=GROUP_HELP.get(path),
            no_args_is_help=True,
            add_completion=False,
            rich_markup_mode=None,
            pretty_exceptions_enable=False,
        )
        _APPS[path] = found
        if path:
            _app(path[:-1]).add_typer(found, name=path[-1])
    return found


def command(
    path: str,
    *,
    rolls: bool,
    joins: bool = False,
    secret: bool = False,
    examples: Sequence[str] = (),
) -> Callable[[Callable[..., Plan]], Callable[..., Plan]]:
    """Register a function as the command ``path`` (``"gurps check"``).

    ``examples`` are shown under ``--help``, each as it pastes into a shell.
    """
    words = tuple(path.split())

    def deco(fn: Callable[..., Plan]) -> Callable[..., Plan]:
        epilog = (
            "Examples:\n\n" + "\n\n".join(f"  referee {e}" for e in examples) if examples else None
        )
        _app(words[:-1]).command(words[-1], epilog=epilog)(fn)
        COMMANDS[words] = Command(words, rolls, joins, secret, fn, epilog)
        return fn

    return deco


def root_app() -> typer.Typer:
    """The typer application holding every declared command."""
    return _app(())
