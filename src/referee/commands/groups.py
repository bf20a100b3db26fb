"""The groups that command lines are read in: every command's, built once, and the
dice commands' alone, which a bare roll is read in until every command is built (a
bot's first ``/roll``: issue 74 §2). :mod:`.reader` reads lines against them; the
CLI builds its own (:func:`build_group`)."""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from importlib import import_module

import typer
from typer.core import TyperGroup

from .coercion import lighten
from .line import is_word
from .registry import ALIASES, COMMANDS, DECLARED_BY, NAMED_BY, root_app

__all__ = ["build_group", "every_command", "group_for", "load", "warm"]


def load(first: str | None = None, second: str | None = None) -> None:
    """Declare the commands of the group that ``first`` names (``gurps``, an alias, or
    ``roll``), or with no word every command: each system's commands are loaded when
    that system is asked for, so ``referee gurps check 12`` does not import SWN's
    encounter simulator (:data:`.registry.DECLARED_BY`). With ``second``, the word
    after it, only the module that declares that word's commands when one does
    (:data:`.registry.NAMED_BY`): ``gurps check`` loads neither GURPS's exchange nor
    its simulator."""
    if first is None:
        names = {m for group in DECLARED_BY.values() for m in group}
    else:
        group = ALIASES.get(first, first)
        one = NAMED_BY.get(group, {}).get(second) if second is not None else None
        names = {one} if one is not None else set(DECLARED_BY.get(group, ()))
    for name in sorted(names):
        import_module(f"{__package__}.{name}")


def build_group() -> TyperGroup:
    """A fresh group of every command (the CLI adds its own options to its copy)."""
    load()
    return _built(root_app())


def _built(app: typer.Typer) -> TyperGroup:
    """The click group typer builds from ``app``, its values read without pydantic."""
    # typer builds each parameter's pydantic adapter on its first use, inside a context
    # that sets PYDANTIC_DISABLE_PLUGINS and then deletes it when it was unset: two
    # threads doing so at once fail with KeyError (seen under load in issue 53). Set to
    # "" (which disables no plugin, as unset does), it is put back, never deleted.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "")
    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    lighten(group)  # plain values without pydantic (.coercion)
    return group


_SHARED: TyperGroup | None = None
_BUILDING = threading.Lock()


def every_command() -> TyperGroup:
    """The group of every command (built once, by one thread while others wait; any
    thread may read it)."""
    global _SHARED
    if _SHARED is None:
        with _BUILDING:
            if _SHARED is None:
                _SHARED = build_group()
    return _SHARED


def warm() -> None:
    """Build the group of every command now (a server does so before its first line
    names a system's command: 0.3-0.5 s of imports)."""
    every_command()


@functools.cache
def _dice_group() -> TyperGroup:
    """The dice commands alone (``roll``, ``odds``, ``sample``): what a bare expression
    or a ``roll`` line needs, read before every command is built (a bot's first
    ``/roll``: issue 74 §2). The same functions, declarations and coercion as in the
    group of every command."""
    load("roll")
    app = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)
    for name in _DICE:
        meta = COMMANDS[(name,)]
        assert meta.function is not None
        app.command(name, epilog=meta.epilog)(meta.function)
    return _built(app)


_DICE = tuple(name for name, modules in DECLARED_BY.items() if modules == DECLARED_BY["roll"])
"""The dice commands' names (``roll``, ``odds``, ``sample``)."""


def group_for(words: Sequence[str]) -> TyperGroup:
    """The group to find the command ``words`` name in: until every command is built,
    the dice commands alone for a line that names one or is a bare expression (what a
    bot's first ``/roll`` reads, in milliseconds: issue 74 §2); else every command."""
    if _SHARED is None and words and (words[0] in _DICE or not is_word(words[0])):
        return _dice_group()
    return every_command()
