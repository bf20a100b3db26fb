"""The rooms' storage: SQLAlchemy 2 (async), SQLite by default, PostgreSQL by URL.

Tables (:mod:`.schema`; made or migrated by :mod:`.migrating`):

* ``rooms``: one row per room, holding the next seq and the last chain link;
* ``members``: who is in a room;
* ``tokens``: the sha256 of each member's tokens (never a token itself);
* ``logins``: one-time codes that open the page, stored as hashes too;
* ``entries``: the log, append-only: a row is inserted once and never updated;
* ``sheets``: characters uploaded to a room, their bytes beside the log (:mod:`.sheetstore`).

Appending (:mod:`.appends`) takes the room's row first, which locks it until
the transaction commits: the seq, the chain and the entry are written in one
transaction, so seqs have no gaps and no duplicates however many members roll
at once (on SQLite the database lock serialises writers; on PostgreSQL the row
lock does).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from ..log import GENESIS, decode, hash_token, new_id, new_token
from .adminstore import AdminWrites
from .appends import Appends, Fields
from .epochs import Conflict, Epoch, EpochWrites, new_epoch
from .fightstore import FightWrites
from .held import Held
from .migrating import HEAD, create_new, migrate, schema_version
from .schema import entries, logins, members, rooms, tokens
from .serverkey import server_signer
from .sheetstore import SheetRow, SheetWrites
from .synced import pragmas

__all__ = [
    "DEFAULT_DB",
    "Conflict",
    "Epoch",
    "Fields",
    "Member",
    "SheetRow",
    "Store",
    "migrate",
    "sqlite_url",
]

log = logging.getLogger(__name__)

_T = TypeVar("_T")

_SPANS = (
    "SELECT e.room_id, e.body FROM entries AS e JOIN unnest("
    "CAST($1 AS varchar[]), CAST($2 AS bigint[]), CAST($3 AS bigint[])"
    ") AS w(room, after, upto) ON e.room_id = w.room AND e.seq > w.after AND e.seq <= w.upto"
    " ORDER BY e.room_id, e.seq"
)
"""PostgreSQL: spans of several rooms' logs in one query (:meth:`Store.spans`)."""

DEFAULT_DB = "referee-rooms.sqlite3"
"""The SQLite file used when no URL is given (in the working directory)."""


def sqlite_url(path: str | Path) -> str:
    """The async SQLAlchemy URL of a SQLite file."""
    return f"sqlite+aiosqlite:///{Path(path).resolve()}"


def chosen_db(db: str | None, env: Mapping[str, str]) -> str:
    """The database a server runs on: ``--db``, else ``$REFEREE_DB``, else the SQLite
    file :data:`DEFAULT_DB`; a bare path is a SQLite file."""
    url = db or env.get("REFEREE_DB") or sqlite_url(DEFAULT_DB)
    return url if "://" in url else sqlite_url(url)


@dataclass(frozen=True, slots=True)
class Member:
    """A member of a room, as their token identifies them."""

    room: str
    id: str
    name: str

    @property
    def is_gm(self) -> bool:
        return self.id == "gm"


IDLE_PING = 0.5
"""Seconds a pooled PostgreSQL connection may rest before it is tested on checkout."""


class Store(Appends, EpochWrites, SheetWrites, AdminWrites, FightWrites):
    """The rooms' database. Create with :meth:`open`; close with :meth:`close`."""

    def __init__(self, engine: AsyncEngine) -> None:
        super().__init__(engine)
        self._checkpoints: asyncio.Task[None] | None = None
        self.news = Held(self.reads)
        """PostgreSQL: the connection of the other servers' news (:meth:`spans`)."""
        self.own_pids: set[int] = set()
        """PostgreSQL: the server processes of this store's connections (a notice from
        one of them announces this server's own write, which it publishes itself)."""

    async def _read(self, work: Callable[[AsyncConnection], Coroutine[Any, Any, _T]]) -> _T:
        """``work`` on a connection of its own; again, once, if the connection broke
        (the database restarted, or dropped it), on a fresh one."""
        try:
            return await self._reading(work)
        except sa.exc.DBAPIError as exc:
            if not exc.connection_invalidated:
                raise
        async with self.reads.connect() as conn:
            return await work(conn)

    @classmethod
    async def open(cls, url: str) -> Store:
        """Connect, with the database at the newest schema: a new one made there, an
        older one migrated (:mod:`.migrating`)."""
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"timeout": 30}
        else:  # the newest connection first: under load a few stay busy, and warm
            kwargs["pool_size"] = 20
            kwargs["pool_use_lifo"] = True
            # Named, so that pg_stat_activity tells each server's connections apart.
            name = f"referee:{os.getpid()}"
            kwargs["connect_args"] = {"server_settings": {"application_name": name}}
        engine = create_async_engine(url, **kwargs)
        if url.startswith("sqlite"):
            sa.event.listen(engine.sync_engine, "connect", pragmas)
        store = cls(engine)
        if not store.sqlite:  # first: every pooled connection is seen born (own_pids)
            store._watch_pool()
        try:
            if await schema_version(engine) != HEAD and not await create_new(engine):
                await asyncio.to_thread(migrate, url)  # an older database: Alembic's
        except BaseException:
            await store.close()
            raise
        store.signer = await server_signer(engine)
        if store.sqlite:
            store._checkpoints = asyncio.create_task(store._checkpoint())
        return store

    def _watch_pool(self) -> None:
        """PostgreSQL: keep :attr:`own_pids`, and test a pooled connection before use if
        it has rested over :data:`IDLE_PING` seconds: a database that restarted, or a
        connection dropped meanwhile, costs no request, and a busy server pays no round
        trip per query for it (as SQLAlchemy's ``pool_pre_ping`` would). A connection
        that breaks in use invalidates the pool; reads are tried again once
        (:meth:`_read`)."""
        pool = self.engine.sync_engine

        @sa.event.listens_for(pool, "connect")
        def _born(_dbapi: Any, record: Any) -> None:
            record.info["rested"] = time.monotonic()
            record.info["pid"] = pid = record.driver_connection.get_server_pid()
            self.own_pids.add(pid)

        @sa.event.listens_for(pool, "checkin")
        def _rests(_dbapi: Any, record: Any) -> None:
            record.info["rested"] = time.monotonic()

        @sa.event.listens_for(pool, "checkout")
        def _test(dbapi: Any, record: Any, _proxy: Any) -> None:
            if time.monotonic() - record.info.get("rested", 0.0) > IDLE_PING:
                try:
                    dbapi.ping()
                except Exception as exc:  # the pool drops it and connects afresh
                    raise sa.exc.DisconnectionError(str(exc)) from exc

        def _gone(_dbapi: Any, record: Any, *_exc: Any) -> None:
            self.own_pids.discard(record.info.pop("pid", None))

        for event in ("close", "detach", "invalidate", "soft_invalidate"):
            sa.event.listen(pool, event, _gone)

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
        """Finish the appends queued, then close every connection."""
        if self._checkpoints is not None:
            self._checkpoints.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpoints
        if self._flusher is not None and not self._flusher.done():
            await asyncio.wait([self._flusher])  # its callers hear how their appends went
        try:
            await self.writer.close()
            await self.news.close()
            await self.engine.dispose()
        finally:
            for thread in (self.synced, self.synced_reads):  # off the loop: each waits
                if thread is not None:  # for its thread
                    await asyncio.to_thread(thread.close)
            self.synced = self.synced_reads = None

    # ------------------------------------------------------------------ writing

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
            entry = await self._one(conn, room, "room", {"name": name, "system": system})
            first = await new_epoch(conn, room, 1)
            epoch_entry = await self._one(conn, room, "epoch", first)
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
            entry = await self._one(conn, room, "join", {"member": member, "name": name})
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
        query = sa.select(rooms).where(rooms.c.id == room)
        row = await self._read(lambda conn: _first(conn, query))
        return None if row is None else dict(row._mapping)

    async def member(self, token: str) -> Member | None:
        """The member a token belongs to, or None."""
        query = (
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
        row = await self._read(lambda conn: _first(conn, query))
        return None if row is None else Member(row.room_id, row.member_id, row.name)

    async def member_by_id(self, room: str, member: str) -> Member | None:
        """``member`` of ``room``, unless they left (or never were one)."""
        query = sa.select(members.c.name).where(
            members.c.room_id == room, members.c.member_id == member, sa.not_(members.c.left)
        )
        row = await self._read(lambda conn: _first(conn, query))
        return None if row is None else Member(room, member, row.name)

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
        rows = await self._read(lambda conn: _scalars(conn, query))
        got = [decode(b) for b in rows]
        for entry, text in zip(got, rows, strict=True):
            self.frames.whole(entry, text)
        return got, sum(map(len, rows))

    async def spans(self, wanted: list[tuple[str, int, int]]) -> dict[str, list[dict[str, Any]]]:
        """For each ``(room, after, upto)``, the room's entries with ``after < seq <= upto``,
        in seq order: on PostgreSQL in one query, however many rooms."""
        if self.sqlite:
            return {room: await self.entries(room, a, upto - a) for room, a, upto in wanted}
        rooms_, afters, uptos = zip(*wanted, strict=True) if wanted else ((), (), ())
        rows = await self.news.fetch(_SPANS, list(rooms_), list(afters), list(uptos), again=True)
        out: dict[str, list[dict[str, Any]]] = {}
        for room, body in rows:
            entry = decode(body)
            self.frames.whole(entry, body)
            out.setdefault(room, []).append(entry)
        return out

    async def entry(self, room: str, seq: int) -> dict[str, Any] | None:
        query = sa.select(entries.c.body).where(entries.c.room_id == room, entries.c.seq == seq)
        body = (await self._read(lambda conn: _scalars(conn, query)) or [None])[0]
        return None if body is None else decode(body)

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


async def _first(conn: AsyncConnection, query: sa.Select[Any]) -> sa.Row[Any] | None:
    row: sa.Row[Any] | None = (await conn.execute(query)).first()
    return row


async def _scalars(conn: AsyncConnection, query: sa.Select[Any]) -> list[Any]:
    return list((await conn.execute(query)).scalars().all())
