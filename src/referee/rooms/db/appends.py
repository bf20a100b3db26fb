"""Appending to rooms' logs: the seqs, the chain, and the batches (group commit).

Appends that arrive together are written in one transaction, for every room in
it, in a few statements however many rooms and entries (every statement costs a
turn of the event loop, which under load is the dearest part of a write). Each
room's row is locked first, so its seqs are its next ones, with no gaps; on
PostgreSQL the rows are locked in id order, so two servers' batches never
deadlock. :class:`.store.Store` mixes this in. On PostgreSQL, while a server
knows the rooms' heads, a batch is a single statement (:mod:`.heads`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, TypeVar, cast

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from ..fanout.notices import notify
from ..log import Frames, encode
from ..signing import Signer
from .epochs import ARCHIVED, Conflict, Epoch, lock_epoch, read_epochs
from .heads import Batch, Fields, Head, HeadWrites, Results, Rooms, Sealer
from .held import Held
from .schema import entries, rooms
from .synced import Chooser, Conn, SyncReader, SyncWriter

_T = TypeVar("_T")

__all__ = ["Appends", "Fields"]

log = logging.getLogger(__name__)

_TAKE = (
    sa.update(rooms)
    .where(rooms.c.id.in_(sa.bindparam("ids", expanding=True)))
    .values(next_seq=rooms.c.next_seq)
    .returning(rooms.c.id, rooms.c.next_seq, rooms.c.last_chain, rooms.c.epoch, rooms.c.archived)
)
"""Lock rooms' rows for this transaction; their ``next_seq``, ``last_chain`` and ``epoch``."""

_TAKE_IN_ORDER = (
    sa.select(rooms.c.id, rooms.c.next_seq, rooms.c.last_chain, rooms.c.epoch, rooms.c.archived)
    .where(rooms.c.id.in_(sa.bindparam("ids", expanding=True)))
    .order_by(rooms.c.id)
    .with_for_update()
)
"""PostgreSQL: lock rooms' rows in id order (the lock follows the sort, so two servers'
batches never deadlock); with their ``next_seq``, ``last_chain`` and ``epoch``.

Their epochs are read after, in a statement of its own: a row lock that waited for
another transaction (an epoch closed) returns the row as that one left it, but a
table joined in the same statement as it was before (PostgreSQL's READ COMMITTED),
so a join here could miss the new epoch, or see the old one unlocked."""

_MOVE = (
    sa.update(rooms)
    .where(rooms.c.id == sa.bindparam("b_id"))
    .values(next_seq=sa.bindparam("b_next"), last_chain=sa.bindparam("b_chain"))
)
"""A room's next seq and last chain link, after its appends."""

_INSERT_SQLITE = "INSERT INTO entries (room_id, seq, kind, ref, body) VALUES (?, ?, ?, ?, ?)"
_MOVE_SQLITE = "UPDATE rooms SET next_seq = ?, last_chain = ? WHERE rooms.id = ?"
"""SQLite: :data:`entries`' insert and :data:`_MOVE`, as the driver takes them."""


class Appends(HeadWrites):
    """The store's appends (mixed into :class:`.store.Store`, which makes the engine)."""

    BATCH = 256
    """Most appends written in one transaction."""
    HEADS = 10_000
    """Most rooms' heads remembered (then they are forgotten, and read again)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sqlite = engine.dialect.name == "sqlite"
        # One statement reads and writes need no transaction: on PostgreSQL, none is
        # begun for them (a BEGIN and a ROLLBACK or COMMIT fewer, each a round trip).
        self.reads = (
            engine if self.sqlite else engine.execution_options(isolation_level="AUTOCOMMIT")
        )
        self.heads: dict[str, Head] = {}
        """Rooms' heads after this server's last write to them (PostgreSQL)."""
        self.writer = Held(self.reads)
        """PostgreSQL: the connection of the one-statement batches (:mod:`.held`)."""
        self.frames = Frames()
        """Entries already encoded (their whole form kept as they are written and read)."""
        self.signer: Signer | None = None
        """The server's key, which signs the chain's head after each lock, close and reveal
        (contract v1.5; :meth:`.store.Store.open` reads it from the database)."""
        # SQLite has one writer at a time: queue writers here rather than on its lock.
        self._write = asyncio.Lock()
        self.synced = SyncWriter(engine.url) if self.sqlite else None
        """SQLite: the thread that writes batches of appends (:mod:`.synced`)."""
        self.synced_reads = SyncReader(engine.url) if self.sqlite else None
        """SQLite: the thread of one-hop reads (:meth:`_reading`)."""
        self.paths = Chooser(mode=os.environ.get("REFEREE_SQLITE_WRITES", "auto"))
        """SQLite: whether a batch goes to the writer's thread or through aiosqlite,
        by how the thread fares under the load of the moment (:class:`.synced.Chooser`)."""
        self._queue: list[tuple[str, str, Fields, asyncio.Future[dict[str, Any]]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self.on_commit: Callable[[list[dict[str, Any]]], None] | None = None
        """Told of the entries of each batch of appends (:meth:`append`) once they are
        committed, in seq order within each room, before their callers are answered."""

    def learned(self, entries_: list[dict[str, Any]]) -> None:
        """Entries another server wrote, as read from the log (in seq order, each room's
        next ones): move on the heads this server remembers for their rooms, so that its
        next batch there is still one statement (:mod:`.heads`). A roll of the head's
        epoch moves it on; any other entry, or a gap, forgets it. A head moved on wrongly
        costs nothing but a miss: the statement writes a room only where ``next_seq`` is
        still the one remembered, and every change to a room appends to its log."""
        for entry in entries_:
            room = entry["room"]
            head = self.heads.get(room)
            if head is None or entry["seq"] < head.seq:  # unknown, or already counted
                continue
            if (
                entry["seq"] == head.seq
                and entry["kind"] == "roll"
                and entry.get("epoch") == head.epoch.number
            ):
                self.heads[room] = Head(head.seq + 1, entry["chain"], head.epoch)
            else:
                del self.heads[room]

    async def _take(self, conn: AsyncConnection, room: str) -> Any:
        """Lock ``room``'s row for this transaction; its ``next_seq``, ``last_chain``, ``epoch``."""
        return (await conn.execute(_TAKE, {"ids": [room]})).one()

    async def _append_many(
        self,
        conn: Conn,
        groups: list[tuple[str, list[tuple[str, Fields]]]],
        written: list[dict[str, Any]] | None = None,
        heads: dict[str, Head] | None = None,
        texts: list[tuple[dict[str, Any], str]] | None = None,
    ) -> list[list[dict[str, Any] | Exception]]:
        """Append entries to rooms inside the caller's transaction: for each room, each
        sealed entry, or the exception that its fields' function raised (that item is
        left out). Every entry written (the ``lock`` entries too) is added to ``written``;
        each room's head after them to ``heads`` (if its epoch is locked), for the caller
        to remember once the transaction commits; each entry with its stored text to
        ``texts`` (the text every member who sees it whole is sent, once committed).

        Each room's row is locked first, so the seqs are the room's next ones with no
        gaps. Before the first roll of an epoch, its ``lock`` entry is written. However
        many rooms and entries, this takes four statements: lock the rooms, read their
        epochs, insert the entries, move the rooms on; on PostgreSQL a fifth announces
        the entries."""
        names = [room for room, _ in groups]
        for room in names:  # this transaction moves them on: their heads are stale
            self.heads.pop(room, None)
        # On SQLite the UPDATE takes the database's write lock at once; on PostgreSQL,
        # row locks, taken in one order by every server: no deadlock.
        take = _TAKE if self.sqlite else _TAKE_IN_ORDER
        rows = {r.id: r for r in await conn.execute(take, {"ids": names})}
        current: dict[str, Epoch] = {}
        if any(callable(f) for _, items in groups for _, f in items):
            current = await read_epochs(conn, names)
        out: list[list[dict[str, Any] | Exception]] = []
        sealed_all: list[dict[str, Any]] = []
        moved: list[dict[str, Any]] = []
        for room, items in groups:
            row = rows[room]
            log = Sealer(room, row.next_seq, row.last_chain, sealed_all, self.signer)
            epoch = current.get(room)
            got: list[dict[str, Any] | Exception] = []
            for kind, fields in items:
                if row.archived:  # an archived room takes no more writes
                    got.append(Conflict(409, ARCHIVED))
                    continue
                if callable(fields) and epoch is not None and epoch.mix is None:
                    await lock_epoch(conn, room, epoch, log.add)
                got.append(log.make(kind, fields, epoch))
            out.append(got)
            if log.seq != row.next_seq:
                moved.append({"b_id": room, "b_next": log.seq, "b_chain": log.chain})
            if heads is not None and epoch is not None and epoch.mix is not None:
                heads[room] = Head(log.seq, log.chain, epoch)
        if sealed_all:
            bodies = [encode(e) for e in sealed_all]
            if self.sqlite:  # SQLite's own statements (SQLAlchemy's compiling was half)
                await conn.exec_driver_sql(
                    _INSERT_SQLITE,
                    [
                        (
                            e["room"],
                            e["seq"],
                            e["kind"],
                            e.get("of") if e["kind"] == "reveal" else None,
                            body,
                        )
                        for e, body in zip(sealed_all, bodies, strict=True)
                    ],
                )
                await conn.exec_driver_sql(
                    _MOVE_SQLITE, [(m["b_next"], m["b_chain"], m["b_id"]) for m in moved]
                )
            else:
                await conn.execute(
                    sa.insert(entries),
                    [
                        {
                            "room_id": e["room"],
                            "seq": e["seq"],
                            "kind": e["kind"],
                            "ref": e.get("of") if e["kind"] == "reveal" else None,
                            "body": body,
                        }
                        for e, body in zip(sealed_all, bodies, strict=True)
                    ],
                )
                await conn.execute(_MOVE, moved)
            if not self.sqlite:  # the other servers read these when this commits
                await notify(
                    cast(AsyncConnection, conn),
                    list({e["room"]: e["seq"] for e in sealed_all}.items()),
                )
        if written is not None:  # beside what the caller wrote before (never inserted twice)
            written.extend(sealed_all)
        if texts is not None and sealed_all:  # their stored texts, for the caller
            texts.extend(zip(sealed_all, bodies, strict=True))
        return out

    async def _one(
        self, conn: AsyncConnection, room: str, kind: str, fields: Mapping[str, Any]
    ) -> dict[str, Any]:
        return (await self._some(conn, room, kind, fields))[0]

    async def _some(
        self, conn: AsyncConnection, room: str, kind: str, fields: Mapping[str, Any]
    ) -> list[dict[str, Any]]:
        """One entry appended inside the caller's transaction, and the entries it brings
        after it (a ``close``'s signed ``head``, contract v1.5): every entry written."""
        written: list[dict[str, Any]] = []
        ((sealed,),) = await self._append_many(conn, [(room, [(kind, fields)])], written)
        if isinstance(sealed, Exception):
            raise sealed
        return written

    def _writing(self) -> asyncio.Lock | _NoLock:
        return self._write if self.sqlite else _NoLock()

    async def _reading(self, work: Callable[..., Coroutine[Any, Any, _T]], *args: Any) -> _T:
        """``work(conn, *args)`` on a connection of its own, for reads: on SQLite in the
        reader's thread while the writer's fares well (:class:`.synced.Chooser`), else
        through the async engine. ``work`` must not wait on anything but its connection."""
        if self.synced_reads is not None and self.paths.threaded:
            return await self.synced_reads.run(work, *args)
        async with self.reads.connect() as conn:
            return await work(conn, *args)

    async def _transaction(self, work: Callable[..., Coroutine[Any, Any, _T]], *args: Any) -> _T:
        """``work(conn, *args)`` in one transaction, after the writers queued before it:
        on SQLite in the writer's thread while it fares well (one hop, not one a call:
        :mod:`.synced`), else through the async engine. ``work`` must not wait on
        anything but its connection."""
        async with self._writing():
            if self.synced is not None and self.paths.threaded:
                return await self.synced.run(work, *args)
            async with self.engine.begin() as conn:
                return await work(conn, *args)

    async def append(self, room: str, kind: str, fields: Fields) -> dict[str, Any]:
        """Append one entry to ``room``'s log; return it sealed.

        Appends that arrive together are written in one transaction (group commit),
        each room's in the order they came; an append returns once its transaction
        has committed."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._queue.append((room, kind, fields, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        return await future

    async def _flush(self) -> None:
        """Write queued appends, a batch at a time, each batch in one transaction, until
        the queue is empty. (Every statement waits for a turn of the event loop, which
        under load is the dearest part of a write: a batch's statements are as few as
        its rooms' are, see :meth:`_append_many`.)"""
        while self._queue:
            batch, self._queue = self._queue[: self.BATCH], self._queue[self.BATCH :]
            by_room: dict[str, list[int]] = {}
            for i, (room, *_rest) in enumerate(batch):
                by_room.setdefault(room, []).append(i)
            await self._commit(batch, sorted(by_room.items()))

    async def _commit(self, batch: Batch, rooms_: Rooms) -> None:
        """Write these rooms' appends (on PostgreSQL, in one statement if this server
        knows their heads, :meth:`_write_if_heads`; else, or for the rooms another
        server moved on meanwhile, in one transaction, in one order everywhere, so two
        servers' transactions cannot deadlock); each caller gets its entry or error."""
        results: Results = {}
        written: list[dict[str, Any]] = []
        heads: dict[str, Head] = {}
        texts: list[tuple[dict[str, Any], str]] = []
        try:
            if not self.sqlite and all(room in self.heads for room, _ in rooms_):
                rooms_ = await self._write_if_heads(batch, rooms_, results, written, heads)
            if rooms_:
                groups = [(room, [(batch[i][1], batch[i][2]) for i in idx]) for room, idx in rooms_]
                async with self._writing():
                    if self.synced is not None and self.paths.threaded:
                        # SQLite: the whole batch in one thread hop
                        began, loop = time.perf_counter(), time.thread_time()
                        made = await self.synced.run(
                            self._append_many, groups, written, heads, texts
                        )
                        self.paths.took(
                            time.perf_counter() - began,
                            self.synced.cpu,
                            time.thread_time() - loop,  # the loop's work meanwhile
                        )
                    else:  # PostgreSQL; SQLite through aiosqlite under load (a hop a call)
                        if self.synced is not None:
                            self.paths.away()
                        async with self.engine.begin() as conn:
                            made = await self._append_many(conn, groups, written, heads, texts)
                for (_room, idx), sealed in zip(rooms_, made, strict=True):
                    results.update(zip(idx, sealed, strict=True))
                for entry, text in texts:  # committed: encoded once, stored and sent
                    self.frames.whole(entry, text)
        except Exception as exc:  # the statement or the transaction failed: say so
            failed = {room for room, _ in rooms_}
            written[:] = [e for e in written if e["room"] not in failed]
            for room, idx in rooms_:
                heads.pop(room, None)
                results.update((i, exc) for i in idx)
        if len(self.heads) + len(heads) > self.HEADS:
            self.heads.clear()
        self.heads.update(heads)
        if self.on_commit is not None and written:
            try:
                self.on_commit(written)
            except Exception:  # the entries are committed: their callers must hear so
                log.exception("referee rooms: publishing committed entries failed")
        for i, got in results.items():
            future = batch[i][3]
            if future.done():
                continue
            if isinstance(got, Exception):
                future.set_exception(got)
            else:
                future.set_result(got)


class _NoLock:
    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        return None
