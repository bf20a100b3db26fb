"""What the command line may reach that a game room may not: files a local user names,
and progress bars on a terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ..commands.result import Resources

if TYPE_CHECKING:
    from ..systems.fudge import Ladder
    from ..systems.swn import Encounter

__all__ = ["LOCAL", "PROGRESS_FROM"]

PROGRESS_FROM = 200_000
"""Runs from this many up show a progress bar (on a terminal, on standard error)."""


def _ladder(name: str | None) -> Ladder:
    from ..systems.fudge import get_ladder

    return get_ladder(name)


def _encounter(name: str) -> Encounter:
    from ..systems.swn import load_encounter

    return load_encounter(name)


def _party(name: str) -> list[tuple[str, int, bool]]:
    from ..systems.swn import load_party

    return load_party(name)


@contextmanager
def _progress(total: int) -> Iterator[Callable[[int], None] | None]:
    if total < PROGRESS_FROM or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task("working", total=total)
        yield lambda done: bar.update(task, completed=done)


LOCAL = Resources(ladder=_ladder, encounter=_encounter, party=_party, progress=_progress)
"""Ladder, encounter and party files by path, and progress bars: for local users only."""
