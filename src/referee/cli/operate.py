"""``referee rooms``: running a campaign's database (copying it, backing it up)."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

__all__ = ["rooms_app"]

rooms_app = typer.Typer(
    help="Run the game rooms' database: move every room to another database, or back "
    "up a running SQLite one.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def _url(text: str) -> str:
    # here, not at the top: 741 ms of start-up otherwise (issue 53)
    from ..rooms.db.store import sqlite_url

    return text if "://" in text else sqlite_url(text)


@rooms_app.command(
    "copy",
    epilog="A bare path is a SQLite file. The target may be empty or new; it must not hold "
    "any of the rooms.\n\nExamples:\n\n"
    "\b\n  referee rooms copy --from referee-rooms.sqlite3 "
    "--to postgresql+asyncpg://referee@localhost/referee\n\n"
    "\b\n  referee rooms copy --from postgresql+asyncpg://referee@localhost/referee "
    "--to rooms-copy.sqlite3",
)
def copy(
    source: Annotated[str, typer.Option("--from", metavar="URL", help="The database to copy.")],
    target: Annotated[str, typer.Option("--to", metavar="URL", help="The database to copy to.")],
) -> None:
    """Copy every room to another database (SQLite to PostgreSQL, or back): the log byte
    for byte, members with their tokens, sheets, epochs and seeds; every room's chain is
    checked on the target before it says so."""
    # here, not at the top: each import costs 41-662 ms of start-up otherwise (issue 53)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from ..rooms.db.copy import CopyError, copy_rooms

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=True,
    ) as bar:
        task = bar.add_task("copying rows", total=None)
        try:
            done = copy_rooms(
                _url(source),
                _url(target),
                lambda n, total: bar.update(task, completed=n, total=total),
            )
        except CopyError as exc:
            print(f"referee rooms copy: {exc}", file=sys.stderr)
            raise typer.Exit(1) from None
    print(
        f"copied {done.rooms} rooms ({done.entries:,} log entries, {done.rows:,} rows); "
        "every room's chain checked on the target"
    )


@rooms_app.command(
    "backup",
    epilog="For PostgreSQL use pg_dump (see docs/rooms/campaign.md).\n\nExamples:\n\n"
    "\b\n  referee rooms backup rooms-2026-11-24.sqlite3\n\n"
    "\b\n  referee rooms backup nightly.sqlite3 --db /srv/referee/rooms.sqlite3",
)
def backup(
    file: Annotated[str, typer.Argument(metavar="FILE", help="The backup to write (a new file).")],
    db: Annotated[
        str | None,
        typer.Option(
            help="The SQLite database (default: $REFEREE_DB, else referee-rooms.sqlite3)."
        ),
    ] = None,
) -> None:
    """Back up a running SQLite database (SQLite's online backup API: a consistent copy,
    taken while rolls go on)."""

    # here, not at the top: each import costs 627-705 ms of start-up otherwise (issue 53)
    from ..rooms.db.copy import CopyError, backup_sqlite
    from ..rooms.db.store import DEFAULT_DB

    path = db or os.environ.get("REFEREE_DB") or DEFAULT_DB
    if "://" in path:
        if not path.startswith("sqlite"):
            print("referee rooms backup: only SQLite; for PostgreSQL use pg_dump", file=sys.stderr)
            raise typer.Exit(2)
        path = path.split(":///", 1)[1]
    try:
        pages = backup_sqlite(path, file)
    except CopyError as exc:
        print(f"referee rooms backup: {exc}", file=sys.stderr)
        raise typer.Exit(1) from None
    print(f"backed up {path} to {file} ({pages:,} pages, integrity checked)")
