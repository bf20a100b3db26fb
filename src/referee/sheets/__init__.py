"""Character sheets: what a character can roll, read from the files players keep.

One frozen :class:`Sheet` for every system and format, read from bytes by
:func:`read_sheet` (readers never open files; the CLI reads them, bounded to
:data:`MAX_BYTES` and checked in one linear pass for depth, long numbers and long
dotted keys before any parser runs, so that any file is answered in well under a second):

* GCS (GURPS Character Sheet) files, versions 2 to 5 (:mod:`.gcs`);
* referee's TOML sheets for GURPS, Stars Without Number and Fudge (:mod:`.native`);
* Foundry VTT ``swnr`` actor exports (:mod:`.foundry`).

Names are matched in one place (:mod:`.match`): :func:`find_trait` and
:func:`find_attack`.

>>> sheet = read_sheet(b'system = "fudge"\\nname = "Ron"\\n[traits]\\n"Ranged Combat" = "Good"')
>>> sheet.name, find_trait(sheet, "ranged").full_name, find_trait(sheet, "ranged").level
('Ron', 'Ranged Combat', 1)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import SheetError
from .match import find_attack, find_trait
from .model import Attack, Kind, Sheet, Trait

if TYPE_CHECKING:
    from .formats import MAX_BYTES, MAX_DEPTH

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "SYSTEM_NAMES",
    "Attack",
    "Kind",
    "Sheet",
    "SheetError",
    "Trait",
    "find_attack",
    "find_trait",
    "read_sheet",
    "require",
]

SYSTEM_NAMES = {"gurps": "GURPS", "swn": "Stars Without Number", "fudge": "Fudge"}
"""The systems' names, as a message says them."""


def read_sheet(data: bytes) -> Sheet:
    """Read a character sheet of any supported format from its bytes.

    Raises:
        SheetError: the file is too large, too deep, or holds a number or a dotted
            key longer than a sheet has (naming the line); malformed (naming the line),
            of an unsupported kind (GCS XML or version 1, naming how to convert it),
            or holds values a sheet cannot have.
    """
    # here, not at the top: the readers and their parsers (tomllib, the bounds' checks)
    # are loaded when a sheet is read, not by every command that may take one (issue 74)
    from .formats import kind_of, load_json
    from .gcs import gcs_sheet, is_gcs, read_gcs
    from .native import read_toml

    kind = kind_of(data)  # each reader checks the bounds before it parses
    if kind == "toml":
        return read_toml(data)

    if kind == "xml":
        return read_gcs(data)  # refuses, saying how to convert it
    doc = load_json(data)
    if is_gcs(doc):
        return gcs_sheet(doc)
    # here, not at the top: 82 ms of start-up otherwise (issue 53)
    from .foundry import is_foundry_swnr, read_foundry_swnr

    if is_foundry_swnr(doc):
        assert isinstance(doc, dict)
        return read_foundry_swnr(doc)
    raise SheetError("this JSON is neither a GCS character file nor a Foundry swnr actor export")


def __getattr__(name: str) -> int:
    """:data:`MAX_BYTES` and :data:`MAX_DEPTH`, from :mod:`.formats` when first asked
    for (issue 74)."""
    if name in ("MAX_BYTES", "MAX_DEPTH"):
        from . import formats

        value: int = getattr(formats, name)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def require(sheet: Sheet, system: str, command: str) -> Sheet:
    """``sheet``, if it is for ``system``.

    Raises:
        SheetError: a sheet of another system (a GCS file given to ``swn save``).
    """
    if sheet.system != system:
        raise SheetError(
            f"{sheet.name}'s sheet ({sheet.source}) is a {SYSTEM_NAMES[sheet.system]} sheet; "
            f"'{command}' needs a {SYSTEM_NAMES[system]} sheet"
        )
    return sheet
