"""Appending to rooms' logs: the seqs, the chain, and the batches (group commit).

Appends that arrive together are written in one transaction, for every room in
it, in a few statements however many rooms and entries (every statement costs a
turn of the event loop, which under load is the dearest part of a write). Each
room's row is locked first, so its seqs are its next ones, with no gaps; on
PostgreSQL the rows are locked in id order, so two servers' batches never
deadlock. :class:`.store.Store` mixes this in.

On PostgreSQL a server also remembers each room's head after its own writes
(:class:`Head`: the next seq, the last link, the locked epoch). While the heads it
remembers are current, a batch is one statement, with no transaction around it
(:data:`_WRITE_IF_HEADS`): it locks the rooms' rows in id order, writes only the
rooms whose ``next_seq`` is still the one remembered, and announces what it wrote.
Every change to a room appends to its log, so an unchanged ``next_seq`` means an
unchanged room. A room that another server wrote meanwhile is left out; its
appends are written again the usual way (their rolls made again with their new seqs).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from .epochs import Epoch, lock_epoch, read_epochs
from .log import Frames, encode, new_salt, now, seal
from .notices import notify
from .schema import entries, epochs, rooms

__all__ = ["Appends", "Fields"]

log = logging.getLogger(__name__)

Fields = Mapping[str, Any] | Callable[[int, Epoch], Mapping[str, Any]]
"""An entry's fields, or (for a roll) a function of its seq and epoch that makes them."""

_TAKE = (
    sa.update(rooms)
    .where(rooms.c.id.in_(sa.bindparam("ids", expanding=True)))
    .values(next_seq=rooms.c.next_seq)
    .returning(rooms.c.id, rooms.c.next_seq, rooms.c.last_chain, rooms.c.epoch)
)
"""Lock rooms' rows for this transaction; their ``next_seq``, ``last_chain`` and ``epoch``."""

_TAKE_IN_ORDER = (
    sa.select(
        rooms.c.id,
        rooms.c.next_seq,
        rooms.c.last_chain,
        rooms.c.epoch,
        epochs.c.public_seed,
        epochs.c.secret_seed,
        epochs.c.mix,
    )
    .outerjoin(  # a room's first entry comes before its first epoch
        epochs, sa.and_(epochs.c.room_id == rooms.c.id, epochs.c.epoch == rooms.c.epoch)
    )
    .where(rooms.c.id.in_(sa.bindparam("ids", expanding=True)))
    .order_by(rooms.c.id)
    .with_for_update(of=rooms)
)
"""PostgreSQL: lock rooms' rows in id order (the lock follows the sort, so two servers'
batches never deadlock); with their ``next_seq``, ``last_chain`` and current epoch."""

_WRITE_IF_HEADS = sa.text(
    """
    WITH locked AS MATERIALIZED (
        SELECT r.id, r.next_seq FROM rooms AS r
        WHERE r.id = ANY(CAST(:ids AS varchar[])) ORDER BY r.id FOR UPDATE
    ), heads AS (
        SELECT h.id, h.next, h.chain
        FROM unnest(
            CAST(:ids AS varchar[]), CAST(:seen AS bigint[]),
            CAST(:nexts AS bigint[]), CAST(:chains AS varchar[])
        ) AS h(id, seen, next, chain)
        JOIN locked ON locked.id = h.id AND locked.next_seq = h.seen
    ), moved AS (
        UPDATE rooms SET next_seq = heads.next, last_chain = heads.chain
        FROM heads WHERE rooms.id = heads.id
        RETURNING rooms.id
    ), added AS (
        INSERT INTO entries (room_id, seq, kind, ref, body)
        SELECT e.room, e.seq, e.kind, e.ref, e.body
        FROM unnest(
            CAST(:rooms AS varchar[]), CAST(:seqs AS bigint[]), CAST(:kinds AS varchar[]),
            CAST(:refs AS bigint[]), CAST(:bodies AS text[])
        ) AS e(room, seq, kind, ref, body)
        WHERE e.room IN (SELECT id FROM heads)
    )
    SELECT e.room, pg_notify('referee_rooms', e.room || ':' || e.seq)
    FROM unnest(CAST(:rooms AS varchar[]), CAST(:seqs AS bigint[])) AS e(room, seq)
    WHERE e.room IN (SELECT id FROM moved)
    """
)
"""PostgreSQL: one batch of appends in one statement, for the rooms (``ids``) whose
``next_seq`` is still ``seen``: lock the rows in id order, move them on, insert
their entries, and announce each (:mod:`.notices`); one row back per entry written."""

_MOVE = (
    sa.update(rooms)
    .where(rooms.c.id == sa.bindparam("b_id"))
    .values(next_seq=sa.bindparam("b_next"), last_chain=sa.bindparam("b_chain"))
)
"""A room's next seq and last chain link, after its appends."""


@dataclass(frozen=True, slots=True)
class Head:
    """What a room's next append needs, as this server last wrote it: the next seq,
    the last chain link, and the current epoch (locked: its mix is known)."""

    seq: int
    chain: str
    epoch: Epoch


_Batch = list[tuple[str, str, Fields, asyncio.Future[dict[str, Any]]]]
_Rooms = list[tuple[str, list[int]]]
_Results = dict[int, dict[str, Any] | Exception]


class Appends:
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
        self.frames = Frames()
        """Entries already encoded (their whole form kept as they are written and read)."""
        # SQLite has one writer at a time: queue writers here rather than on its lock.
        self._write = asyncio.Lock()
        self._queue: list[tuple[str, str, Fields, asyncio.Future[dict[str, Any]]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self.on_commit: Callable[[list[dict[str, Any]]], None] | None = None
        """Told of the entries of each batch of appends (:meth:`append`) once they are
        committed, in seq order within each room, before their callers are answered."""

    async def _take(self, conn: AsyncConnection, room: str) -> Any:
        """Lock ``room``'s row for this transaction; its ``next_seq``, ``last_chain``, ``epoch``."""
        return (await conn.execute(_TAKE, {"ids": [room]})).one()

    async def _append_many(
        self,
        conn: AsyncConnection,
        groups: list[tuple[str, list[tuple[str, Fields]]]],
        written: list[dict[str, Any]] | None = None,
        heads: dict[str, Head] | None = None,
    ) -> list[list[dict[str, Any] | Exception]]:
        """Append entries to rooms inside the caller's transaction: for each room, each
        sealed entry, or the exception that its fields' function raised (that item is
        left out). Every entry written (the ``lock`` entries too) is added to ``written``;
        each room's head after them to ``heads`` (if its epoch is locked), for the caller
        to remember once the transaction commits.

        Each room's row is locked first, so the seqs are the room's next ones with no
        gaps. Before the first roll of an epoch, its ``lock`` entry is written. However
        many rooms and entries, this takes four statements: lock the rooms and read
        their epochs (one statement on PostgreSQL, two on SQLite), insert the entries,
        move the rooms on; on PostgreSQL a fifth announces the entries."""
        names = [room for room, _ in groups]
        for room in names:  # this transaction moves them on: their heads are stale
            self.heads.pop(room, None)
        current: dict[str, Epoch] = {}
        if self.sqlite:  # the UPDATE takes the database's write lock at once
            rows = {r.id: r for r in await conn.execute(_TAKE, {"ids": names})}
            if any(callable(f) for _, items in groups for _, f in items):
                current = await read_epochs(conn, names)
        else:  # row locks, taken in one order by every server: no deadlock
            rows = {r.id: r for r in await conn.execute(_TAKE_IN_ORDER, {"ids": names})}
            current = {
                r.id: Epoch(
                    r.epoch, bytes.fromhex(r.public_seed), bytes.fromhex(r.secret_seed), r.mix
                )
                for r in rows.values()
                if r.public_seed is not None
            }
        out: list[list[dict[str, Any] | Exception]] = []
        sealed_all: list[dict[str, Any]] = [] if written is None else written
        moved: list[dict[str, Any]] = []
        for room, items in groups:
            row = rows[room]
            log = _Sealer(room, row.next_seq, row.last_chain, sealed_all)
            epoch = current.get(room)
            got: list[dict[str, Any] | Exception] = []
            for kind, fields in items:
                if callable(fields):
                    assert epoch is not None
                    if epoch.mix is None:
                        await lock_epoch(conn, room, epoch, log.add)
                    try:
                        made = fields(log.seq, epoch)
                    except Exception as exc:  # this roll fails alone: its caller is told
                        got.append(exc)
                        continue
                    got.append(log.add(kind, made))
                else:
                    got.append(log.add(kind, fields))
            out.append(got)
            if log.seq != row.next_seq:
                moved.append({"b_id": room, "b_next": log.seq, "b_chain": log.chain})
            if heads is not None and epoch is not None and epoch.mix is not None:
                heads[room] = Head(log.seq, log.chain, epoch)
        if sealed_all:
            await conn.execute(
                sa.insert(entries),
                [
                    {
                        "room_id": e["room"],
                        "seq": e["seq"],
                        "kind": e["kind"],
                        "ref": e.get("of") if e["kind"] == "reveal" else None,
                        "body": encode(e),
                    }
                    for e in sealed_all
                ],
            )
            await conn.execute(_MOVE, moved)
            if not self.sqlite:  # the other servers read these when this commits
                await notify(conn, [(e["room"], e["seq"]) for e in sealed_all])
        return out

    async def _one(
        self, conn: AsyncConnection, room: str, kind: str, fields: Mapping[str, Any]
    ) -> dict[str, Any]:
        ((sealed,),) = await self._append_many(conn, [(room, [(kind, fields)])])
        assert isinstance(sealed, dict)
        return sealed

    async def _append(
        self, conn: AsyncConnection, room: str, kind: str, fields: Mapping[str, Any]
    ) -> dict[str, Any]:
        return await self._one(conn, room, kind, fields)

    def _writing(self) -> asyncio.Lock | _NoLock:
        return self._write if self.sqlite else _NoLock()

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

    async def _commit(self, batch: _Batch, rooms_: _Rooms) -> None:
        """Write these rooms' appends (on PostgreSQL, in one statement if this server
        knows their heads, :meth:`_write_if_heads`; else, or for the rooms another
        server moved on meanwhile, in one transaction, in one order everywhere, so two
        servers' transactions cannot deadlock); each caller gets its entry or error."""
        results: _Results = {}
        written: list[dict[str, Any]] = []
        heads: dict[str, Head] = {}
        try:
            if not self.sqlite and all(room in self.heads for room, _ in rooms_):
                rooms_ = await self._write_if_heads(batch, rooms_, results, written, heads)
            if rooms_:
                async with self._writing(), self.engine.begin() as conn:
                    made = await self._append_many(
                        conn,
                        [(room, [(batch[i][1], batch[i][2]) for i in idx]) for room, idx in rooms_],
                        written,
                        heads,
                    )
                    for (_room, idx), sealed in zip(rooms_, made, strict=True):
                        results.update(zip(idx, sealed, strict=True))
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

    async def _write_if_heads(
        self,
        batch: _Batch,
        rooms_: _Rooms,
        results: _Results,
        written: list[dict[str, Any]],
        heads: dict[str, Head],
    ) -> _Rooms:
        """PostgreSQL: write these rooms' appends after the heads this server knows, in
        one statement (:data:`_WRITE_IF_HEADS`); return the rooms it left out, because
        another server moved them on (they are written again, the usual way)."""
        sealed: list[dict[str, Any]] = []
        tried: list[tuple[str, list[int], list[dict[str, Any] | Exception], Head, Head]] = []
        ids, seen, nexts, chains = [], [], [], []
        for room, idx in rooms_:
            head = self.heads[room]
            log = _Sealer(room, head.seq, head.chain, sealed)
            got: list[dict[str, Any] | Exception] = []
            for i in idx:
                _room, kind, fields, _future = batch[i]
                if callable(fields):
                    try:
                        made = fields(log.seq, head.epoch)
                    except Exception as exc:  # this roll fails alone: its caller is told
                        got.append(exc)
                        continue
                    got.append(log.add(kind, made))
                else:
                    got.append(log.add(kind, fields))
            tried.append((room, idx, got, head, Head(log.seq, log.chain, head.epoch)))
            if log.seq != head.seq:
                ids.append(room)
                seen.append(head.seq)
                nexts.append(log.seq)
                chains.append(log.chain)
        done: set[str] = set()
        bodies = [encode(e) for e in sealed]
        if sealed:
            params = {
                "ids": ids,
                "seen": seen,
                "nexts": nexts,
                "chains": chains,
                "rooms": [e["room"] for e in sealed],
                "seqs": [e["seq"] for e in sealed],
                "kinds": [e["kind"] for e in sealed],
                "refs": [e.get("of") if e["kind"] == "reveal" else None for e in sealed],
                "bodies": bodies,
            }
            async with self.reads.connect() as conn:
                done = {room for room, _ in await conn.execute(_WRITE_IF_HEADS, params)}
        for e, text in zip(sealed, bodies, strict=True):
            if e["room"] in done:
                written.append(e)
                self.frames.whole(e, text)
        left: _Rooms = []
        for room, idx, got, before, after in tried:
            if room in done or after.seq == before.seq:  # written, or nothing to write
                results.update(zip(idx, got, strict=True))
                heads[room] = after
            else:  # another server wrote to it: its head is stale
                self.heads.pop(room, None)
                left.append((room, idx))
        return left


class _Sealer:
    """Seals one room's new entries in turn: each gets the next seq and extends the chain."""

    __slots__ = ("chain", "room", "seq", "sealed")

    def __init__(self, room: str, seq: int, chain: str, sealed: list[dict[str, Any]]) -> None:
        self.room, self.seq, self.chain, self.sealed = room, seq, chain, sealed

    def add(self, kind: str, fields: Mapping[str, Any]) -> dict[str, Any]:
        entry = {
            "room": self.room,
            "seq": self.seq,
            "kind": kind,
            "time": now(),
            "salt": new_salt(),
        }
        entry.update(fields)
        sealed = seal(entry, self.chain)
        self.sealed.append(sealed)
        self.seq, self.chain = self.seq + 1, sealed["chain"]
        return sealed


class _NoLock:
    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        return None
