"""Options and helpers shared by the game-system commands (``referee gurps``, ``fudge``, ...)."""

from __future__ import annotations

import json
from typing import Annotated, Any, NoReturn

import typer

from .cli import error_text
from .errors import RefereeError
from .rng import RandomSource

__all__ = ["JsonOpt", "SeedOpt", "emit", "fail", "rng_for", "system_app"]

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the documented JSON.")]
SeedOpt = Annotated[int | None, typer.Option("--seed", help="Seed for reproducible rolls.")]


def system_app(help_text: str) -> typer.Typer:
    """A sub-application for one game system, configured like the main one."""
    return typer.Typer(
        help=help_text,
        no_args_is_help=True,
        add_completion=False,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
    )


def rng_for(seed: int | None) -> RandomSource | None:
    """A seeded source for ``--seed``, or None for the default secure source."""
    from .rng import seeded

    return None if seed is None else seeded(seed)


def fail(exc: RefereeError) -> NoReturn:
    """Print the one-line error and exit with status 2."""
    typer.echo(error_text(exc), err=True)
    raise typer.Exit(2)


def emit(data: dict[str, Any], as_json: bool) -> None:
    """Print ``data`` as JSON, or its ``"text"`` entry."""
    typer.echo(json.dumps(data, ensure_ascii=False) if as_json else data["text"])
