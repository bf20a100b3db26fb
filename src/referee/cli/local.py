"""What the command line may reach that a game room may not: files a local user names,
and progress bars on a terminal."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from .. import examples
from ..commands.result import Resources
from ..errors import SheetError
from ..examples import ENCOUNTERS, SHEETS

if TYPE_CHECKING:
    from ..sheets import Sheet
    from ..systems.fudge import Ladder
    from ..systems.swn import Encounter

__all__ = ["LOCAL", "PROGRESS_FROM", "SHEET_VARIABLE", "read_sheet_file"]

PROGRESS_FROM = 200_000
"""Runs from this many up show a progress bar (on a terminal, on standard error)."""


def _ladder(name: str | None) -> Ladder:
    # here, not at the top: 15 ms of start-up otherwise (issue 53)
    from ..systems.fudge import get_ladder

    return get_ladder(name)


def _named(name: str, kind: str) -> str:
    """A file by the name a user gave: a path, or a shipped example (``example:NAME``)."""

    return str(examples.path(name, kind)) if examples.is_example(name) else name


def _encounter(name: str) -> Encounter:
    # here, not at the top: 61 ms of start-up otherwise (issue 53)
    from ..systems.swn import load_encounter

    return load_encounter(_named(name, ENCOUNTERS))


def _party(name: str) -> list[tuple[str, int, bool]]:
    # here, not at the top: 67 ms of start-up otherwise (issue 53)
    from ..systems.swn import load_party

    return load_party(_named(name, ENCOUNTERS))


SHEET_VARIABLE = "REFEREE_SHEET"
"""The environment variable naming the sheet a command reads when --sheet is not given."""


def read_sheet_file(path: str) -> Sheet:
    """The sheet in the file at ``path``, or the shipped example ``example:NAME``
    (:mod:`referee.examples`): its size is checked before it is read, and any error
    names the file.

    Raises:
        SheetError: no such file or example, not readable, too large, or not a sheet.
    """

    # here, not at the top: 15 ms of start-up otherwise (issue 53)
    from ..sheets import MAX_BYTES, read_sheet

    shown, path = path, _named(path, SHEETS)
    try:
        size = os.path.getsize(path)
        if size > MAX_BYTES:
            raise SheetError(
                f"{path}: the file is {size:,} bytes; a character sheet may be at most "
                f"{MAX_BYTES:,}"
            )
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise SheetError(f"cannot read the sheet {path!r}: there is no such file") from None
    except OSError as exc:
        raise SheetError(f"cannot read the sheet {path!r}: {exc.strerror or exc}") from None
    try:
        return read_sheet(data)
    except SheetError as exc:
        raise SheetError(f"{shown}: {exc}", exc.line) from None


def _sheet(path: str | None) -> Sheet | None:
    if path is None:
        path = os.environ.get(SHEET_VARIABLE) or None
    return None if path is None else read_sheet_file(path)


@contextmanager
def _progress(total: int) -> Iterator[Callable[[int], None] | None]:
    if total < PROGRESS_FROM or not sys.stderr.isatty():
        yield None
        return
    # here, not at the top: each import costs 30-40 ms of start-up otherwise (issue 53)
    from rich.console import Console
    from rich.progress import Progress

    with Progress(transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task("working", total=total)
        yield lambda done: bar.update(task, completed=done)


LOCAL = Resources(
    ladder=_ladder, encounter=_encounter, party=_party, progress=_progress, sheet=_sheet
)
"""Ladder, encounter, party and sheet files by path or as shipped examples
(``example:NAME``; and ``REFEREE_SHEET``), and progress bars: for local users only."""
