"""The rooms' storage: SQLAlchemy 2 (async), SQLite by default, PostgreSQL by URL.

Tables (created by the Alembic migrations in ``migrations/``):

* ``rooms``: one row per room, holding the next seq and the last chain link;
* ``members``: who is in a room;
* ``tokens``: the sha256 of each member's tokens (never a token itself);
* ``logins``: one-time codes that open the page, stored as hashes too;
* ``entries``: the log, append-only: a row is inserted once and never updated.

Appending takes the room's row first (``UPDATE rooms SET next_seq = next_seq + 1
... RETURNING``), which locks it until the transaction commits: the seq, the
chain and the entry are written in one transaction, so seqs have no gaps and
no duplicates however many members roll at once (on SQLite the database lock
serialises writers; on PostgreSQL the row lock does).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from .epochs import Conflict, Epoch, EpochWrites, lock_epoch, new_epoch, read_epochs
from .log import GENESIS, hash_token, new_id, new_salt, new_token, now, seal
from .notices import notify
from .schema import entries, epochs, logins, members, rooms, tokens

__all__ = ["DEFAULT_DB", "Conflict", "Epoch", "Fields", "Member", "Store", "migrate", "sqlite_url"]

log = logging.getLogger(__name__)

DEFAULT_DB = "referee-rooms.sqlite3"
"""The SQLite file used when no URL is given (in the working directory)."""


def sqlite_url(path: str | Path) -> str:
    """The async SQLAlchemy URL of a SQLite file."""
    return f"sqlite+aiosqlite:///{Path(path).resolve()}"


def migrate(url: str) -> None:
    """Bring the database at ``url`` to the newest schema (Alembic ``upgrade head``).

    Runs its own event loop: call it from a thread when one is already running.
    """
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).with_name("migrations")))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    command.upgrade(config, "head")


@dataclass(frozen=True, slots=True)
class Member:
    """A member of a room, as their token identifies them."""

    room: str
    id: str
    name: str

    @property
    def is_gm(self) -> bool:
        return self.id == "gm"


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

_MOVE = (
    sa.update(rooms)
    .where(rooms.c.id == sa.bindparam("b_id"))
    .values(next_seq=sa.bindparam("b_next"), last_chain=sa.bindparam("b_chain"))
)
"""A room's next seq and last chain link, after its appends."""


class Store(EpochWrites):
    """The rooms' database. Create with :meth:`open`; close with :meth:`close`."""

    BATCH = 256
    """Most appends written in one transaction."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sqlite = engine.dialect.name == "sqlite"
        # SQLite has one writer at a time: queue writers here rather than on its lock.
        self._write = asyncio.Lock()
        self._queue: list[tuple[str, str, Fields, asyncio.Future[dict[str, Any]]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._checkpoints: asyncio.Task[None] | None = None
        self.on_commit: Callable[[list[dict[str, Any]]], None] | None = None
        """Told of the entries of each batch of appends (:meth:`append`) once they are
        committed, in seq order within each room, before their callers are answered."""
        self.writing: dict[str, tuple[int, int]] = {}
        """Rooms whose appends are being committed now, and the first and last seqs
        written: a notice of these announces this server's own writes (:mod:`.notices`)."""

    @classmethod
    async def open(cls, url: str) -> Store:
        """Migrate the database to the newest schema and connect."""
        await asyncio.to_thread(migrate, url)
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"timeout": 30}
        else:  # a server restarted or a dropped connection: test each before use
            kwargs["pool_pre_ping"] = True
            kwargs["pool_size"] = 20
        engine = create_async_engine(url, **kwargs)
        if url.startswith("sqlite"):

            @sa.event.listens_for(engine.sync_engine, "connect")
            def _pragmas(dbapi: Any, _record: Any) -> None:
                cur = dbapi.cursor()
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=NORMAL")
                cur.execute("PRAGMA foreign_keys=ON")
                # Writers never checkpoint: a checkpoint syncs the file to disk, and that
                # would stall every room's writes behind it. A task of its own does it.
                cur.execute("PRAGMA wal_autocheckpoint=0")
                cur.close()

        store = cls(engine)
        if store.sqlite:
            store._checkpoints = asyncio.create_task(store._checkpoint())
        return store

    CHECKPOINT_SECONDS = 1.0
    """How often the SQLite log (the WAL) is copied into the database file."""

    async def _checkpoint(self) -> None:
        """Copy the SQLite WAL into the database file now and then, on a connection of
        its own, beside the writers (a passive checkpoint waits for no one and makes no
        one wait), so that the WAL stays small without a writer ever syncing the disk."""
        while True:
            await asyncio.sleep(self.CHECKPOINT_SECONDS)
            try:
                async with self.engine.connect() as conn:
                    await conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
            except Exception as exc:  # a busy or closing database: next time
                log.warning("referee rooms: checkpoint failed: %s", exc)

    async def close(self) -> None:
        if self._checkpoints is not None:
            self._checkpoints.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpoints
        await self.engine.dispose()

    # ------------------------------------------------------------------ writing

    async def _take(self, conn: AsyncConnection, room: str) -> Any:
        """Lock ``room``'s row for this transaction; its ``next_seq``, ``last_chain``, ``epoch``."""
        return (await conn.execute(_TAKE, {"ids": [room]})).one()

    async def _append_many(
        self,
        conn: AsyncConnection,
        groups: list[tuple[str, list[tuple[str, Fields]]]],
        written: list[dict[str, Any]] | None = None,
    ) -> list[list[dict[str, Any] | Exception]]:
        """Append entries to rooms inside the caller's transaction: for each room, each
        sealed entry, or the exception that its fields' function raised (that item is
        left out). Every entry written (the ``lock`` entries too) is added to ``written``.

        Each room's row is locked first, so the seqs are the room's next ones with no
        gaps. Before the first roll of an epoch, its ``lock`` entry is written. However
        many rooms and entries, this takes four statements: lock the rooms and read
        their epochs (one statement on PostgreSQL, two on SQLite), insert the entries,
        move the rooms on; on PostgreSQL a fifth announces the entries."""
        names = [room for room, _ in groups]
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
        if sealed_all:
            await conn.execute(
                sa.insert(entries),
                [
                    {
                        "room_id": e["room"],
                        "seq": e["seq"],
                        "kind": e["kind"],
                        "ref": e.get("of") if e["kind"] == "reveal" else None,
                        "body": json.dumps(e, sort_keys=True),
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

    async def _commit(
        self,
        batch: list[tuple[str, str, Fields, asyncio.Future[dict[str, Any]]]],
        rooms_: list[tuple[str, list[int]]],
    ) -> None:
        """One transaction for these rooms' appends (in one order everywhere, so two
        servers' transactions cannot deadlock); each caller gets its entry or error."""
        results: dict[int, dict[str, Any] | Exception] = {}
        written: list[dict[str, Any]] = []
        try:
            async with self._writing(), self.engine.begin() as conn:
                made = await self._append_many(
                    conn,
                    [(room, [(batch[i][1], batch[i][2]) for i in idx]) for room, idx in rooms_],
                    written,
                )
                for (_room, idx), sealed in zip(rooms_, made, strict=True):
                    results.update(zip(idx, sealed, strict=True))
                for e in written:
                    first, _last = self.writing.get(e["room"], (e["seq"], 0))
                    self.writing[e["room"]] = (first, e["seq"])
        except Exception as exc:  # the whole transaction failed: say so to each caller
            for _room, idx in rooms_:
                for i in idx:
                    if not batch[i][3].done():
                        batch[i][3].set_exception(exc)
            return
        finally:
            for room, _idx in rooms_:
                self.writing.pop(room, None)
        if self.on_commit is not None:
            self.on_commit(written)
        for i, got in results.items():
            future = batch[i][3]
            if future.done():
                continue
            if isinstance(got, Exception):
                future.set_exception(got)
            else:
                future.set_result(got)

    async def create_room(
        self, name: str, system: str | None
    ) -> tuple[str, str, str, list[dict[str, Any]]]:
        """A new room with its GM and its first epoch: ``(room id, GM token, invite,
        [room entry, epoch entry])``."""
        room, token, invite = new_id(), new_token(), new_token()
        async with self._writing(), self.engine.begin() as conn:
            await conn.execute(
                sa.insert(rooms).values(
                    id=room,
                    name=name,
                    system=system,
                    invite_hash=hash_token(invite),
                    next_seq=0,
                    last_chain=GENESIS,
                    epoch=1,
                )
            )
            await conn.execute(sa.insert(members).values(room_id=room, member_id="gm", name=name))
            await conn.execute(
                sa.insert(tokens).values(token_hash=hash_token(token), room_id=room, member_id="gm")
            )
            entry = await self._append(conn, room, "room", {"name": name, "system": system})
            first = await new_epoch(conn, room, 1)
            epoch_entry = await self._append(conn, room, "epoch", first)
        return room, token, invite, [entry, epoch_entry]

    async def join(self, room: str, name: str) -> tuple[str, str, dict[str, Any]]:
        """A new player: ``(member id, token, join entry)``."""
        token = new_token()
        async with self._writing(), self.engine.begin() as conn:
            await self._take(conn, room)
            for _ in range(8):
                member = "p:" + new_id()[:8]
                taken = await conn.scalar(
                    sa.select(sa.func.count())
                    .select_from(members)
                    .where(members.c.room_id == room, members.c.member_id == member)
                )
                if not taken:
                    break
            await conn.execute(sa.insert(members).values(room_id=room, member_id=member, name=name))
            await conn.execute(
                sa.insert(tokens).values(
                    token_hash=hash_token(token), room_id=room, member_id=member
                )
            )
            entry = await self._append(conn, room, "join", {"member": member, "name": name})
        return member, token, entry

    async def add_login(self, room: str, member: str, expires: float) -> str:
        """A one-time code that opens the page as ``member`` until ``expires``."""
        code = new_token()
        async with self._writing(), self.engine.begin() as conn:
            await conn.execute(
                sa.insert(logins).values(
                    code_hash=hash_token(code), room_id=room, member_id=member, expires=expires
                )
            )
        return code

    async def use_login(self, code: str, at: float) -> tuple[str, str] | None:
        """Spend a one-time code: ``(room, a new session token)``, or None if the code
        is unknown, spent or older than its expiry."""
        async with self._writing(), self.engine.begin() as conn:
            row = (
                await conn.execute(
                    sa.delete(logins)
                    .where(logins.c.code_hash == hash_token(code))
                    .returning(logins.c.room_id, logins.c.member_id, logins.c.expires)
                )
            ).first()
            if row is None or row.expires < at:
                return None
            token = new_token()
            await conn.execute(
                sa.insert(tokens).values(
                    token_hash=hash_token(token), room_id=row.room_id, member_id=row.member_id
                )
            )
        return row.room_id, token

    # ------------------------------------------------------------------ reading

    async def room(self, room: str) -> dict[str, Any] | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(rooms).where(rooms.c.id == room))).first()
        return None if row is None else dict(row._mapping)

    async def member(self, token: str) -> Member | None:
        """The member a token belongs to, or None."""
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(members.c.room_id, members.c.member_id, members.c.name)
                    .join(
                        tokens,
                        sa.and_(
                            tokens.c.room_id == members.c.room_id,
                            tokens.c.member_id == members.c.member_id,
                        ),
                    )
                    .where(tokens.c.token_hash == hash_token(token))
                )
            ).first()
        return None if row is None else Member(row.room_id, row.member_id, row.name)

    async def entries(
        self, room: str, after: int = -1, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """The entries after seq ``after``, in seq order."""
        return (await self.read(room, after, limit))[0]

    async def read(
        self, room: str, after: int = -1, limit: int | None = None
    ) -> tuple[list[dict[str, Any]], int]:
        """The entries after seq ``after``, in seq order, and their stored size in characters."""
        query = (
            sa.select(entries.c.body)
            .where(entries.c.room_id == room, entries.c.seq > after)
            .order_by(entries.c.seq)
        )
        if limit is not None:
            query = query.limit(limit)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).scalars().all()
        return [json.loads(b) for b in rows], sum(map(len, rows))

    async def entry(self, room: str, seq: int) -> dict[str, Any] | None:
        async with self.engine.connect() as conn:
            body = await conn.scalar(
                sa.select(entries.c.body).where(entries.c.room_id == room, entries.c.seq == seq)
            )
        return None if body is None else json.loads(body)

    async def revealed_through(self, room: str) -> tuple[set[int], int]:
        """The seqs of the rolls revealed so far, and the last seq they were read through."""
        async with self.engine.begin() as conn:  # one transaction: one snapshot on PostgreSQL
            last = await conn.scalar(sa.select(rooms.c.next_seq).where(rooms.c.id == room))
            rows = await conn.execute(
                sa.select(entries.c.ref).where(
                    entries.c.room_id == room,
                    entries.c.kind == "reveal",
                    entries.c.seq < (last or 0),
                )
            )
            return {r for (r,) in rows if r is not None}, (last or 0) - 1


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
