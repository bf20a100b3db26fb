"""``referee sheet FILE``: a character as referee reads it; ``referee sheet --examples``:
the example sheets shipped with referee, which any command reads as ``example:NAME``."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import CommandError
from ..examples import catalog
from .registry import command
from .result import Plan, Reply, resources_of

__all__: list[str] = []


@command(
    "sheet",
    rolls=False,
    examples=[
        "sheet --examples",
        "sheet example:dai.gcs",
        "sheet example:vex.toml --json",
    ],
    notes="Reads GCS files (versions 2 to 5: GCS 4.30 and later), referee's TOML sheets "
    "(GURPS, SWN, Fudge)\nand Foundry swnr actor exports. With no FILE, $REFEREE_SHEET.\n"
    "FILE may be example:NAME, a sheet shipped with referee: --examples lists them, and\n"
    "every command's --sheet reads them too (--sheet example:dai.gcs).",
)
def sheet(
    ctx: typer.Context,
    path: Annotated[
        str | None,
        typer.Argument(
            metavar="FILE", help="The sheet, or example:NAME (default: $REFEREE_SHEET)."
        ),
    ] = None,
    examples: Annotated[
        bool,
        typer.Option(
            "--examples",
            help="List the example sheets and the SWN and GURPS encounters shipped with referee.",
        ),
    ] = False,
) -> Plan:
    """Show a character sheet: every trait with its level and the chance of a plain roll,
    and every attack with its damage."""
    # here, not at the top: 15 ms of start-up otherwise (issue 53)
    from ..render.sheets import sheet_json

    if examples:
        if path is not None:
            raise CommandError("give a FILE or --examples, not both", "sheet")
        listed = _examples()
        return lambda rng: listed
    read = resources_of(ctx).sheet(path)
    if read is None:
        raise CommandError(
            "name a sheet file (or set REFEREE_SHEET); 'referee sheet --examples' lists "
            "the example sheets",
            "sheet",
        )
    data = sheet_json(read)
    reply = Reply(data, data["text"])
    return lambda rng: reply


def _examples() -> Reply:
    """The shipped examples (:func:`referee.examples.catalog`), as a table."""
    # here, not at the top: 9 ms of start-up otherwise (issue 53)
    from ..sheets import SYSTEM_NAMES

    found = catalog()
    wide = max(len(e["example"]) for e in found["sheets"] + found["encounters"])
    lines = ["Example sheets, for --sheet example:NAME (or 'referee sheet example:NAME'):"]
    for e in found["sheets"]:
        lines.append(
            f"  {e['example']:<{wide}}  {e['name']} ({SYSTEM_NAMES[e['system']]}, {e['source']})"
        )
    lines.append("SWN encounters, for 'swn simulate example:NAME' and 'swn initiative':")
    lines += [f"  {e['example']:<{wide}}  {e['name']}" for e in found["encounters"]]
    lines.append("GURPS encounters, for 'gurps simulate example:NAME':")
    lines += [f"  {e['example']:<{wide}}  {e['name']}" for e in found["gurps_encounters"]]
    text = "\n".join(lines)
    return Reply({**found, "text": text}, text)
