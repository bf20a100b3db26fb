"""Moving a campaign between databases, and backing one up (issue 28).

:func:`copy_rooms` copies every room from one database to another (SQLite to
PostgreSQL, or back): the log byte for byte, the members with their token hashes
(so everyone gets in with their old links and tokens), the sheets, the epochs with
their seeds, the client seeds, and the server's key (contract v1.5) if the target has
none. It refuses a target that already holds any of the rooms, and before it reports
success it checks every room's chain on the target, entry by entry, against the
room's last link. One-time page links are not copied:
they last ten minutes, and the GM makes new ones by opening the room again.

:func:`backup_sqlite` copies a running SQLite database with SQLite's online backup
API: a consistent snapshot, taken while rolls go on.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine

from ..log import GENESIS, chain_link, decode, digest
from .schema import client_seeds, entries, epochs, members, rooms, server_key, sheets, tokens
from .store import migrate

__all__ = ["CopyError", "Copied", "backup_sqlite", "copy_rooms"]

TABLES = (rooms, members, tokens, epochs, client_seeds, sheets, entries)
"""What a copy takes, in an order that keeps the foreign keys (rooms first)."""

BATCH = 2000
"""Rows read and written at once."""


class CopyError(Exception):
    """A copy the target refuses, or one whose check failed."""


@dataclass(frozen=True, slots=True)
class Copied:
    """What a copy moved, and checked."""

    rooms: int
    entries: int
    rows: int
    """Every row, of every table."""


async def _count(conn: AsyncConnection) -> int:
    total = 0
    for table in TABLES:
        total += int(await conn.scalar(sa.select(sa.func.count()).select_from(table)) or 0)
    return total


async def _copy(
    source_url: str, target_url: str, progress: Callable[[int, int], None] | None
) -> Copied:

    await asyncio.to_thread(migrate, source_url)  # an older source is read as the newest
    await asyncio.to_thread(migrate, target_url)
    source = create_async_engine(source_url)
    target = create_async_engine(target_url)
    try:
        async with source.connect() as read, target.begin() as write:
            ids = list((await read.execute(sa.select(rooms.c.id))).scalars())
            taken = (
                list(
                    (
                        await write.execute(sa.select(rooms.c.id).where(rooms.c.id.in_(ids)))
                    ).scalars()
                )
                if ids
                else []
            )
            if taken:
                raise CopyError(
                    f"the target already holds {len(taken)} of these rooms "
                    f"({', '.join(sorted(taken)[:3])}{'...' if len(taken) > 3 else ''}): "
                    "nothing was copied"
                )
            total, done = await _count(read), 0
            for table in TABLES:
                keys = [c for c in table.primary_key.columns]
                query = sa.select(table).order_by(*keys)
                result = await read.stream(query.execution_options(yield_per=BATCH))
                async for chunk in result.partitions(BATCH):
                    rows = [dict(r._mapping) for r in chunk]
                    await write.execute(sa.insert(table), rows)
                    done += len(rows)
                    if progress is not None:
                        progress(done, total)
            await _copy_key(read, write)
            counted = int(await write.scalar(sa.select(sa.func.count()).select_from(entries)) or 0)
            await _check(write, ids)
        return Copied(len(ids), counted, done)
    finally:
        await source.dispose()
        await target.dispose()


async def _copy_key(read: AsyncConnection, write: AsyncConnection) -> None:
    """The server's key (contract v1.5) goes with the rooms to a target that has none
    yet, so that their heads and the ones signed after the move share one fingerprint.
    A target with a key keeps its own: the copied heads still verify, by the old key."""
    key = (await read.execute(sa.select(server_key))).first()
    has = await write.scalar(sa.select(sa.func.count()).select_from(server_key))
    if key is not None and not has:
        await write.execute(sa.insert(server_key), [dict(key._mapping)])


async def _check(conn: AsyncConnection, ids: list[str]) -> None:
    """Every copied room's chain, on the target: each entry's digest and link, its seqs
    without gaps, and its last link and next seq as the room's row says.

    Raises:
        CopyError: the first room whose copy does not hold.
    """
    heads = {
        r.id: (r.next_seq, r.last_chain)
        for r in await conn.execute(sa.select(rooms.c.id, rooms.c.next_seq, rooms.c.last_chain))
    }
    for room in ids:
        previous, seq = GENESIS, 0
        query = (
            sa.select(entries.c.seq, entries.c.body)
            .where(entries.c.room_id == room)
            .order_by(entries.c.seq)
        )
        for row in await conn.execute(query):
            entry: dict[str, Any] = decode(row.body)
            if row.seq != seq or entry.get("seq") != seq:
                raise CopyError(f"room {room}: seq {seq} is missing on the target")
            d = entry.get("digest", "")
            if d != digest(entry) or entry.get("chain") != chain_link(previous, d):
                raise CopyError(f"room {room}: seq {seq} does not hold its digest or chain")
            previous, seq = entry["chain"], seq + 1
        if heads.get(room) != (seq, previous):
            raise CopyError(f"room {room}: the log ends at seq {seq - 1}, not where its row says")


def copy_rooms(
    source_url: str, target_url: str, progress: Callable[[int, int], None] | None = None
) -> Copied:
    """Copy every room of ``source_url`` to ``target_url`` (both migrated to the newest
    schema first), in one transaction on the target, checked before it commits;
    ``progress(done, total)`` is told of the rows as they go.

    Raises:
        CopyError: the target holds one of the rooms already, or the check failed
            (nothing is copied then).
    """
    return asyncio.run(_copy(source_url, target_url, progress))


def backup_sqlite(path: str | Path, target: str | Path) -> int:
    """Copy the SQLite database at ``path`` to ``target`` with SQLite's online backup
    API, while the server goes on writing (each step copies some pages, and a write
    meanwhile restarts the copy of what it changed): a consistent snapshot. Returns
    the number of pages copied.

    Raises:
        CopyError: ``path`` is not a SQLite database, or ``target`` exists.
    """
    source_path, target_path = Path(path), Path(target)
    if not source_path.is_file():
        raise CopyError(f"no SQLite database at {source_path}")
    if target_path.exists():
        raise CopyError(f"{target_path} exists: choose a new file for the backup")
    source = sqlite3.connect(f"file:{source_path}?mode=ro", uri=True, timeout=30)
    copy = sqlite3.connect(target_path)
    try:
        source.execute("PRAGMA schema_version").fetchone()  # a SQLite file at all?
        source.backup(copy, pages=256, sleep=0.005)
        pages = int(copy.execute("PRAGMA page_count").fetchone()[0])
        ok = copy.execute("PRAGMA integrity_check").fetchone()[0]
        if ok != "ok":
            raise CopyError(f"the backup does not pass SQLite's integrity check: {ok}")
    except sqlite3.DatabaseError as exc:
        copy.close()
        target_path.unlink(missing_ok=True)
        raise CopyError(f"cannot back up {source_path}: {exc}") from None
    finally:
        source.close()
        copy.close()
    return pages
