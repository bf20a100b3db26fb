"""What the commands that roll by trait name share: the ``--sheet`` option, finding
the sheet, and naming the trait in the result.

A command reads a sheet only when it names a trait (``gurps check Stealth``), so
``gurps check 12`` never opens ``REFEREE_SHEET``. Options given with a sheet
override it, and the text says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import NoSheetError
from .result import resources_of

if TYPE_CHECKING:  # the sheets' model is imported when a sheet is read (issue 74)
    from ..sheets import Sheet, Trait

__all__ = [
    "TargetNameOpt",
    "VsOpt",
    "RESOLVED",
    "SheetOpt",
    "labelled",
    "maybe_sheet",
    "override",
    "resolved_as",
    "sheet_for",
    "trait_json",
]

VsOpt = Annotated[
    str | None,
    typer.Option("--vs", metavar="SHEET", help="The target's sheet (a file; @NAME in a room)."),
]
"""A target's sheet, which an exchange, a blow or an SWN attack reads its numbers from."""
TargetNameOpt = Annotated[str | None, typer.Option(help="The target's name.")]
"""A target's name, over its sheet's."""

SheetOpt = Annotated[
    str | None,
    typer.Option(
        "--sheet",
        metavar="FILE",
        help="The character's sheet: a GCS file, a TOML sheet or a Foundry swnr export, "
        "or example:NAME for one shipped with referee ('referee sheet --examples' lists "
        "them) (default: $REFEREE_SHEET). Trait names are read from it.",
    ),
]


def sheet_for(
    ctx: typer.Context, path: str | None, system: str, command: str, name: str | None = None
) -> Sheet:
    """The sheet a command's trait names are read from (``--sheet``, else the caller's);
    ``name`` is the name to read, for the message when there is no sheet.

    Raises:
        CommandError: no sheet to read names from.
        SheetError: the sheet cannot be read, or is for another system.
    """
    sheet = resources_of(ctx).sheet(path)
    if sheet is None:
        what = "a name" if name is None else repr(name)
        raise NoSheetError(
            f"'{command}' was given {what} to read from a character sheet, and there is no "
            "sheet to read it from",
            command,
        )
    from ..sheets import require

    return require(sheet, system, command)


def maybe_sheet(ctx: typer.Context, path: str | None, system: str, command: str) -> Sheet | None:
    """The sheet if one is given (``--sheet`` or the caller's default), else None.

    A sheet given with ``--sheet`` must be for ``system``; the caller's default sheet
    (``REFEREE_SHEET``) of another game does not apply to a command that names
    nothing from it, so ``swn save --level 2`` still works with a GURPS character set.
    """
    sheet = resources_of(ctx).sheet(path)
    if sheet is None or (path is None and sheet.system != system):
        return None
    from ..sheets import require

    return require(sheet, system, command)


def trait_json(trait: Trait, sheet: Sheet) -> dict[str, Any]:
    """``{"name", "specialization", "level", "kind", "sheet"}``: the trait a roll used."""
    return {
        "name": trait.name,
        "specialization": trait.specialization,
        "level": trait.level,
        "kind": trait.kind.value,
        "sheet": sheet.name,
    }


def override(what: str, given: int, on_sheet: int | None) -> str | None:
    """``--level 5 over the sheet's 3``: what the text says when an option overrides
    the sheet (None when they agree or the sheet has no value)."""
    if on_sheet is None or on_sheet == given:
        return None
    return f"{what} {given} over the sheet's {on_sheet}"


RESOLVED = "referee.resolved"
"""The click context's ``meta`` key of what a command took from the sheet."""

Raw = str | list[str] | bool | None
"""A parameter's value as typed: a word, several (a list option, or the words of an
argument), a flag (True: given), or None (left out)."""


def resolved_as(ctx: typer.Context, **params: Raw) -> None:
    """Record that, rolled with no sheet, the command takes these parameters as typed
    (``words=["16", "-2"], label="Stealth"``): what :func:`referee.commands.resolve`
    writes out in place of the sheet's names."""
    ctx.meta.setdefault(RESOLVED, {}).update(params)


def labelled(name: str, given: str | None) -> str:
    """The label of a roll resolved from a sheet: the trait's name, then the label the
    player gave, if any (``Stealth: past the guard``), unless it names the trait already
    (``Longbow (shock -4)``, as a room's fight labels an attack: issue 71 §1.10)."""
    if not given:
        return name
    if given == name or given.startswith(f"{name}: ") or given.startswith(f"{name} ("):
        return given
    return f"{name}: {given}"
