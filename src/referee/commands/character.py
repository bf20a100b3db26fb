"""``referee sheet FILE``: a character as referee reads it."""

from __future__ import annotations

from typing import Annotated

import typer

from .registry import command
from .result import Plan, Reply, resources_of

__all__: list[str] = []


@command(
    "sheet",
    rolls=False,
    examples=[
        "sheet 'tests/data/gcs/Dai Blackthorn.gcs'",
        "sheet examples/sheets/vex.toml --json",
    ],
    notes="Reads GCS files (versions 2 to 5: GCS 4.30 and later), referee's TOML sheets "
    "(GURPS, SWN, Fudge)\nand Foundry swnr actor exports. With no FILE, $REFEREE_SHEET.",
)
def sheet(
    ctx: typer.Context,
    path: Annotated[
        str | None, typer.Argument(metavar="FILE", help="The sheet (default: $REFEREE_SHEET).")
    ] = None,
) -> Plan:
    """Show a character sheet: every trait with its level and the chance of a plain roll,
    and every attack with its damage."""
    from ..errors import CommandError
    from ..render.sheets import sheet_json

    read = resources_of(ctx).sheet(path)
    if read is None:
        raise CommandError("name a sheet file (or set REFEREE_SHEET)", "sheet")
    data = sheet_json(read)
    reply = Reply(data, data["text"])
    return lambda rng: reply
