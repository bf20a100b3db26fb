"""The example files shipped with referee, so that every example in the help runs
wherever it is pasted: character sheets (a GCS file and referee's TOML sheets) and
Stars Without Number and GURPS encounters (``SOURCE.md`` says where each comes from).

A command line names one as ``example:NAME``, NAME being the file's name as
``referee sheet --examples`` lists it: ``--sheet example:dai.gcs``, ``swn simulate
example:warrior_vs_3_thugs.toml``. Any other text is a path (a file whose name does
start with ``example:`` is read as ``./example:...``). Only the command line reads
them; a game room reads no file by name.

>>> names(SHEETS)
['bouncer.toml', 'dai.gcs', 'dai.toml', 'juno.toml', 'ron.toml', 'vex.toml']
>>> path("example:vex.toml", SHEETS).name
'vex.toml'
>>> [(e["example"], e["name"], e["system"]) for e in catalog()["sheets"]][1]
('example:dai.gcs', 'Dai Blackthorn', 'gurps')
"""

from __future__ import annotations

from pathlib import Path

from ..errors import RefereeError, RuleError, SheetError

__all__ = [
    "ENCOUNTERS",
    "GURPS_ENCOUNTERS",
    "PREFIX",
    "SHEETS",
    "catalog",
    "is_example",
    "names",
    "path",
]

PREFIX = "example:"
"""What starts the name of a shipped example."""
SHEETS = "sheets"
"""The kind of the example character sheets (``--sheet``, ``--sheet2``, ``sheet``)."""
ENCOUNTERS = "swn"
"""The kind of the example SWN encounters and party (``swn simulate``, ``swn initiative``)."""
GURPS_ENCOUNTERS = "gurps"
"""The kind of the example GURPS encounters (``gurps simulate``); their sheets are in its
``sheets`` folder."""

_HERE = Path(__file__).parent
_SUFFIXES = {SHEETS: (".gcs", ".toml", ".json"), ENCOUNTERS: (".toml",),
             GURPS_ENCOUNTERS: (".toml",)}  # fmt: skip
_WHAT = {SHEETS: "example sheet", ENCOUNTERS: "example encounter",
         GURPS_ENCOUNTERS: "example GURPS encounter"}  # fmt: skip
_ERRORS: dict[str, type[RefereeError]] = {SHEETS: SheetError, ENCOUNTERS: RuleError,
                                          GURPS_ENCOUNTERS: RuleError}  # fmt: skip


def is_example(name: str) -> bool:
    """Whether ``name`` names a shipped example (``example:NAME``) rather than a file."""
    return name.startswith(PREFIX)


def names(kind: str) -> list[str]:
    """The shipped examples of ``kind`` (:data:`SHEETS` or :data:`ENCOUNTERS`), by name."""
    return sorted(p.name for p in (_HERE / kind).iterdir() if p.suffix in _SUFFIXES[kind])


def path(name: str, kind: str) -> Path:
    """The file of the example ``example:NAME`` of ``kind``.

    Raises:
        SheetError: (a sheet) no such example; the message lists them.
        RuleError: (an encounter) the same.
    """
    wanted = name.removeprefix(PREFIX)
    known = names(kind)
    if wanted not in known:
        listed = ", ".join(PREFIX + n for n in known)
        raise _ERRORS[kind](
            f"there is no {_WHAT[kind]} {name!r}; the {_WHAT[kind]}s are {listed} "
            "('referee sheet --examples' lists them)"
        )
    return _HERE / kind / wanted


def catalog() -> dict[str, list[dict[str, str]]]:
    """Every shipped example, as ``referee sheet --examples --json`` prints them:
    ``sheets`` with the character's name, system and format; ``encounters`` (SWN) with
    the encounter's name (a party for ``swn initiative`` has none); ``gurps_encounters``
    with theirs."""
    # here, not at the top: each import costs 5-15 ms of start-up otherwise (issue 53)
    import tomllib

    from ..sheets import read_sheet

    sheets = []
    for name in names(SHEETS):
        sheet = read_sheet(path(name, SHEETS).read_bytes())
        sheets.append(
            {"example": PREFIX + name, "name": sheet.name, "system": sheet.system,
             "source": sheet.source}
        )  # fmt: skip
    encounters = []
    for name in names(ENCOUNTERS):
        data = tomllib.loads(path(name, ENCOUNTERS).read_text(encoding="utf-8"))
        title = data.get("name") or "a party and its foes, for swn initiative"
        encounters.append({"example": PREFIX + name, "name": str(title)})
    gurps = []
    for name in names(GURPS_ENCOUNTERS):
        data = tomllib.loads(path(name, GURPS_ENCOUNTERS).read_text(encoding="utf-8"))
        gurps.append({"example": PREFIX + name, "name": str(data.get("name", name))})
    return {"sheets": sheets, "encounters": encounters, "gurps_encounters": gurps}
