"""The registry of commands: each declared once, by the modules that define them.

A command is a function whose signature is its command-line interface (read
by typer): positional arguments, options, their help and their examples. It
returns a :data:`~.result.Plan`, which the caller runs with a random source.
:mod:`.reader` parses command lines against these declarations; the CLI
shows the same commands, adding ``--json``, ``--seed``, ``-n`` and ``--secret``.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

import typer

from ..errors import RuleError
from ..rng import RandomSource
from ..systems import SYSTEMS
from .result import Plan, Reply

__all__ = [
    "ALIASES",
    "COMMANDS",
    "DECLARED_BY",
    "DEFAULTS",
    "GROUP_HELP",
    "NAMED_BY",
    "Command",
    "Twin",
    "command",
    "LabelOpt",
    "NamesOpt",
    "label_reply",
    "read_names",
    "root_app",
    "twins",
]


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
    (): "Resolve tabletop RPG dice: fair rolls, exact odds, bulk simulation.\n\n"
    "'referee --version' prints the version; 'referee' alone opens the prompt.",
    ("gurps",): "GURPS success rolls, contests, reactions and damage, with exact odds.",
    ("fudge",): "Fudge dice (4dF) on a trait ladder, as Psi-punk uses them, with exact odds.\n\n"
    "Levels are ladder names or unique prefixes (Good, gr, Great+1) or numbers (+2, 0, -1).",
    ("swn",): "Stars Without Number (revised): saves, skill checks, combat, injury, morale, "
    "and an encounter simulator, with exact odds.",
    ("swn", "odds"): "Exact odds of a save, check, attack, stabilization or morale roll.",
    ("gurps", "odds"): "Exact odds of a success roll (the default), contest, reaction or damage.",
    ("fudge", "odds"): "Exact odds of an action (the default) or an opposed action.",
}
DECLARED_BY: dict[str, tuple[str, ...]] = {
    "roll": ("dice",),
    "odds": ("dice",),
    "sample": ("dice",),
    "sheet": ("character",),
    "gurps": (
        "gurps",
        "gurps_blow",
        "gurps_combat",
        "gurps_defend",
        "gurps_slam",
        "gurps_simulate",
    ),
    "fudge": ("fudge",),
    "swn": ("swn", "swn_attack"),
}
"""The modules of :mod:`referee.commands` that declare each first word's commands:
:func:`.reader.load` imports only those a command line names (a test checks that
together they declare every command, and each only its own words)."""
NAMED_BY: dict[str, dict[str, str]] = {
    "gurps": {
        **dict.fromkeys(("check", "contest", "damage", "reaction", "retry", "table"), "gurps"),
        "attack": "gurps_combat",
        "blow": "gurps_blow",
        "defend": "gurps_defend",
        "simulate": "gurps_simulate",
        "slam": "gurps_slam",
    },
    "swn": {
        **dict.fromkeys(
            ("check", "initiative", "morale", "oppose", "save", "simulate", "stabilize"), "swn"
        ),
        "attack": "swn_attack",
    },
}
"""Of a group that several modules declare, the one module that declares each second
word's commands (``gurps check``: :mod:`.gurps`): :func:`.reader.load` imports only
that one for ``referee gurps check 12`` (issue 74; a test checks the map is exact). A
word not here (``gurps odds``, whose commands every module declares) loads the group."""
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
    notes: str = "",
) -> Callable[[Callable[..., Plan]], Callable[..., Plan]]:
    """Register a function as the command ``path`` (``"gurps check"``).

    ``examples`` are shown under ``--help``, each as it pastes into a shell, after
    ``notes`` (kept as written, line by line).
    """
    words = tuple(path.split())

    def deco(fn: Callable[..., Plan]) -> Callable[..., Plan]:
        parts = [f"\b\n{notes.rstrip()}"] if notes else []
        if examples:  # each example kept on its one line (\b: click does not rewrap it)
            parts.append("Examples:\n\n" + "\n\n".join(f"\b\n  referee {e}" for e in examples))
        epilog = "\n\n".join(parts) or None
        _app(words[:-1]).command(words[-1], epilog=epilog)(fn)
        COMMANDS[words] = Command(words, rolls, joins, secret, fn, epilog)
        return fn

    return deco


def root_app() -> typer.Typer:
    """The typer application holding every declared command."""
    return _app(())


Twin = tuple[Callable[[RandomSource], Reply], Callable[[], Reply]]
"""A rolling plan and the plan of its exact odds (which draws nothing)."""

DEFAULTS: dict[tuple[str, ...], str] = {}
"""A group's default command, used when the next word names none (``gurps odds 12``)."""


def twins(
    system: str,
    name: str,
    *,
    examples: Sequence[str] = (),
    joins: bool = False,
    prepare: Callable[[dict[str, Any]], None] | None = None,
    extra: Sequence[inspect.Parameter] = (),
    default_odds: bool = False,
    secret: bool = False,
) -> Callable[[Callable[..., Twin]], Callable[..., Twin]]:
    """Register ``fn`` as ``SYSTEM NAME`` (it rolls) and ``SYSTEM odds NAME`` (the exact
    odds of the same roll, from the same options, drawing nothing).

    ``fn`` returns the rolling plan and the odds plan. ``extra`` parameters are
    added to its signature and ``prepare`` turns them into ``fn``'s own (SWN's
    attribute options, for example). With ``default_odds``, ``SYSTEM odds X``
    where X names no command means ``SYSTEM odds NAME X``.
    """

    def deco(fn: Callable[..., Twin]) -> Callable[..., Twin]:
        sig = inspect.signature(fn, eval_str=True)
        own = [p for p in sig.parameters.values() if p.name != "attrs"]
        params = own + list(extra)

        def setup(kwargs: dict[str, Any]) -> Twin:
            if prepare is not None:
                prepare(kwargs)
            return fn(**kwargs)

        def rolling(**kwargs: Any) -> Plan:
            return setup(kwargs)[0]

        def odds_only(**kwargs: Any) -> Plan:
            reply = setup(kwargs)[1]()
            return lambda rng: reply

        for wrapper, doc in (
            (rolling, fn.__doc__),
            (odds_only, f"Exact odds of `{system} {name}`, without rolling (same options)."),
        ):
            functools.update_wrapper(wrapper, fn)
            del wrapper.__wrapped__  # type: ignore[attr-defined]
            wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
            wrapper.__annotations__ = {p.name: p.annotation for p in params}
            wrapper.__doc__ = doc
        command(f"{system} {name}", rolls=True, joins=joins, secret=secret, examples=examples)(
            rolling
        )
        odds_examples = [
            _without_rolling(e.replace(f"{system} {name}", f"{system} odds {name}"))
            for e in examples
        ]
        command(f"{system} odds {name}", rolls=False, joins=joins, examples=odds_examples)(
            odds_only
        )
        if default_odds:
            DEFAULTS[(system, "odds")] = name
        return fn

    return deco


def _without_rolling(example: str) -> str:
    """An example without the options only a rolling command has (``--open``,
    ``--secret``, ``--seed N``, ``-n N``): its odds twin draws nothing.

    >>> _without_rolling("gurps odds reaction -1 --open --seed 3 --json")
    'gurps odds reaction -1 --json'
    """
    return re.sub(r"\s+(--open|--secret|(--seed|-n)\s+\S+)(?=\s|$)", "", example)


def label_reply(reply: Reply, label: str | None) -> Reply:
    """A reply with a label: ``"label"`` in its JSON, and the label before its text."""
    if not label:
        return reply
    data = {**reply.data, "label": label, "text": f"{label}: {reply.text}"}
    return Reply(data, data["text"])


def read_names(text: str | None) -> tuple[str, str]:
    """``--names Alice,Orc``: what the two sides of a contest are called.

    Raises:
        RuleError: not two short names.
    """
    if text is None:
        return ("side 1", "side 2")
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(parts) or any(len(p) > 40 for p in parts):
        raise RuleError(f"--names {text!r}: give two names, like Alice,Orc")
    return parts[0], parts[1]


NamesOpt = Annotated[
    str | None, typer.Option("--names", help="What to call the two sides: Alice,Orc.")
]
LabelOpt = Annotated[str | None, typer.Option("--label", help="What is rolled.")]
