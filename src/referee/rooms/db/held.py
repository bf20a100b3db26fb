"""PostgreSQL: a pooled connection held by one serial task, for its hot statement.

A statement through SQLAlchemy's async layer costs its server process about half
a millisecond of CPU (the checkout, the greenlet, compiling the parameters, the
result's rows) beside some 80 microseconds in asyncpg itself, measured on one
small read. A server writes every batch of appends and reads every round of other
servers' news with one statement each; with two servers these statements come
close to three times as often a roll as with one (half-size batches, and the
reads), so their cost decides whether a second server adds throughput.

The writer and the news reader each run one statement at a time. Each keeps one
connection from the engine's pool checked out (:class:`Held`), and runs its
statement through the driver. The pool still makes, names and counts the
connection (:attr:`.store.Store.own_pids`); it is tested on checkout as any
other; one that broke is handed back invalidated, and the next statement takes a
fresh one.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

__all__ = ["Held"]


class Held:
    """One connection of ``engine``'s pool, kept checked out between statements."""

    TRIES = 4
    """Connections checked out at most before a statement, while they come back closed."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._conn: AsyncConnection | None = None
        self._driver: Any = None
        self._lock = asyncio.Lock()

    async def fetch(self, query: str, *args: Any, again: bool = False) -> list[Any]:
        """The rows of ``query`` (asyncpg's ``$1`` placeholders) run alone, in
        autocommit. With ``again``, a statement whose connection turned out broken
        is run once more on a fresh one: only for reads, since a write that broke
        may have committed."""
        async with self._lock:
            try:
                return await self._fetch(query, args)
            except Exception:
                if not again or self._driver is not None:
                    raise
            return await self._fetch(query, args)

    async def _fetch(self, query: str, args: tuple[Any, ...]) -> list[Any]:
        for _ in range(self.TRIES):  # one the database dropped is not used
            if self._driver is not None and not self._driver.is_closed():
                break
            await self._drop(invalidate=self._driver is not None)
            self._conn = await self.engine.connect()
            self._driver = (await self._conn.get_raw_connection()).driver_connection
        try:
            rows: list[Any] = await self._driver.fetch(query, *args)
        except BaseException as exc:
            # Broken, ended by the database, or cancelled mid-statement: its state is
            # unknown, so it is not used again. An error of the statement alone (a
            # constraint, a bad value) leaves it as it was.
            from asyncpg import OperatorInterventionError, PostgresConnectionError, PostgresError

            own = isinstance(exc, PostgresError) and not isinstance(
                exc, PostgresConnectionError | OperatorInterventionError
            )
            if not own or self._driver.is_closed():
                await self._drop(invalidate=True)
            raise
        return rows

    async def _drop(self, invalidate: bool = False) -> None:
        conn, self._conn, self._driver = self._conn, None, None
        if conn is not None:
            with contextlib.suppress(Exception):
                if invalidate:
                    await conn.invalidate()
                await conn.close()

    async def close(self) -> None:
        async with self._lock:
            await self._drop()
