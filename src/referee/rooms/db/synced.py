"""SQLite's appends in one thread hop a batch, not a hop a call (issue 43).

Through ``aiosqlite``, every call SQLAlchemy makes on a connection (make a cursor,
execute, fetch, close, begin, commit) is a hop to aiosqlite's thread and back, each
a wake-up of the event loop: about twenty for one batch of appends, whatever its
size: 1.1 ms of CPU for an append alone. Here a batch runs whole in a thread of its
own, on a plain ``sqlite3`` connection of the same file, and the event loop is woken
once, when it has committed: 0.35 ms (``bench/bench_append.py``).

The batch is the code PostgreSQL runs when it does not know the rooms' heads
(:meth:`.appends.Appends._append_many`): its coroutine is driven to its end in that
thread over :class:`Synced`, a connection whose ``execute`` never suspends. A
coroutine that did suspend would be a bug, and raises. Writers still queue on the
store's lock (:meth:`.appends.Appends._writing`), held until the batch has committed
or rolled back (even if its caller is cancelled), so within one server this
connection and the async engine's do not wait on SQLite's.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url

__all__ = ["Chooser", "Conn", "SyncReader", "Synced", "SyncWriter", "pragmas"]

_T = TypeVar("_T")


class Conn(Protocol):
    """What an append's statements need of a connection: an
    :class:`~sqlalchemy.ext.asyncio.AsyncConnection`, or :class:`Synced`."""

    async def execute(self, statement: Any, parameters: Any = None, /) -> Any: ...

    async def scalar(self, statement: Any, parameters: Any = None, /) -> Any: ...

    async def exec_driver_sql(self, statement: str, parameters: Any = None, /) -> Any: ...


class Synced:
    """A synchronous connection behind the coroutine interface of :class:`Conn`: its
    calls run at once, in the caller's thread, and never suspend."""

    def __init__(self, conn: sa.Connection) -> None:
        self.conn = conn

    async def execute(self, statement: Any, parameters: Any = None, /) -> Any:
        return self.conn.execute(statement, parameters)

    async def scalar(self, statement: Any, parameters: Any = None, /) -> Any:
        return self.conn.scalar(statement, parameters)

    async def exec_driver_sql(self, statement: str, parameters: Any = None, /) -> Any:
        return self.conn.exec_driver_sql(statement, parameters)


def pragmas(dbapi: Any, _record: Any) -> None:
    """Every SQLite connection of the rooms: the write-ahead log, synced at each
    checkpoint rather than at each commit, and foreign keys enforced."""
    cur = dbapi.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    # Writers never checkpoint: a checkpoint syncs the file to disk, and that would
    # stall every room's writes behind it. A task of its own does it (.store).
    cur.execute("PRAGMA wal_autocheckpoint=0")
    cur.close()


class SyncWriter:
    """One thread and one ``sqlite3`` connection, for batches of appends (see the module)."""

    THREAD = "referee-sqlite-writer"

    def __init__(self, url: URL | str) -> None:
        url = make_url(url).set(drivername="sqlite+pysqlite")
        self.engine = sa.create_engine(
            url,
            poolclass=sa.pool.StaticPool,
            # Opened in the writer's thread, closed from another (Store.close).
            connect_args={"timeout": 30, "check_same_thread": False},
        )
        sa.event.listen(self.engine, "connect", pragmas)
        self._thread = ThreadPoolExecutor(1, thread_name_prefix=self.THREAD)
        self.cpu = 0.0
        """The thread's CPU seconds for the last batch."""

    async def run(self, work: Callable[..., Coroutine[Any, Any, _T]], *args: Any) -> _T:
        """``work(conn, *args)`` in one transaction, in the writer's thread: committed
        if it returns, rolled back if it raises (and the exception raised here)."""
        loop = asyncio.get_running_loop()
        done = loop.run_in_executor(self._thread, self._drive, work, args)
        try:
            return await asyncio.shield(done)
        except asyncio.CancelledError:
            # The thread goes on to commit or roll back: the caller keeps the store's
            # lock until it has, so that no other writer meets SQLite's lock meanwhile.
            with contextlib.suppress(Exception):
                await done
            raise

    def _drive(self, work: Callable[..., Coroutine[Any, Any, _T]], args: tuple[Any, ...]) -> _T:
        cpu = time.thread_time()
        try:
            return self._write(work, args)
        finally:
            self.cpu = time.thread_time() - cpu

    def _connection(self) -> contextlib.AbstractContextManager[sa.Connection]:
        """A connection in one transaction, committed at its end (rolled back on error)."""
        return self.engine.begin()

    def _write(self, work: Callable[..., Coroutine[Any, Any, _T]], args: tuple[Any, ...]) -> _T:
        with self._connection() as conn:
            coroutine = work(Synced(conn), *args)
            try:
                coroutine.send(None)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
            coroutine.close()
            raise RuntimeError("a synchronous SQLite write or read waited on something")

    def close(self) -> None:
        self._thread.shutdown(wait=True)
        self.engine.dispose()


class SyncReader(SyncWriter):
    """One thread and one ``sqlite3`` connection for reads (the fight read on from the
    log, a member, an entry): one hop a read, where aiosqlite makes one a call (a
    connection's checkout, execute, fetch and rollback: about six). WAL lets it read
    beside the writer. ``work`` runs outside any transaction of its own making; what it
    reads is one snapshot only within one statement."""

    THREAD = "referee-sqlite-reader"

    def _connection(self) -> contextlib.AbstractContextManager[sa.Connection]:
        return self.engine.connect()


class Chooser:
    """Whether SQLite's next batch goes to the writer's thread or through aiosqlite,
    by how the thread fares under the load of the moment (issue 51).

    The writer's thread is one hop a batch, but it runs the batch's Python (making the
    rolls, SQLAlchemy) beside the event loop, and the two share one interpreter lock.
    While the loop is idle the thread has it to itself, and one append at a time costs
    a third of aiosqlite's CPU. While the loop is busy (many connections, live sockets
    to feed), every release of the lock in the thread (each SQLite call) waits up to
    the switch interval to get it back, and each forced hand-over waits for the other
    thread to be scheduled, which on a machine busy with other processes stalls both:
    under ``bench/bench_wrk.py`` a batch of 25 rolls took 31-58 ms in the thread for
    9-13 ms of its CPU, and every roll in the queue waits for its batch. Through
    aiosqlite the batch's Python runs on the loop and only SQLite's own calls leave it.

    So the thread's batches are timed over windows of :attr:`WINDOW` seconds: the wall
    time from the loop's hand-over to its answer, against the thread's CPU time and
    the loop's own CPU time meanwhile. When the wall time passes :attr:`RATIO` times
    the thread's CPU (the thread mostly waits) while the loop ran for over
    :attr:`BUSY` of it (the loop held the lock: a thread that waits for a core alone,
    on a machine busy with other processes, would fare no better through aiosqlite),
    the batches go through aiosqlite for :attr:`AWAY` seconds, then the thread is
    tried again. A quiet server keeps the thread (a batch's wall time there was
    1.1-1.3 times its CPU; under the load above, 3.4-4.6 times)."""

    WINDOW = 0.25
    """Seconds of the thread's batches that make one measure."""
    LEAST = 4
    """Fewest batches a window needs to count."""
    RATIO = 3.0
    """Wall time over CPU time past which the thread is left for a while."""
    BUSY = 0.5
    """Share of the batches' wall time the loop must have run meanwhile."""
    AWAY = 5.0
    """Seconds the batches go through aiosqlite before the thread is tried again."""

    MODES = ("auto", "thread", "aiosqlite")
    """``auto`` measures as above; ``thread`` and ``aiosqlite`` fix the path (to
    compare them under one load: ``REFEREE_SQLITE_WRITES``, read by the store)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, mode: str = "auto") -> None:
        if mode not in self.MODES:
            raise ValueError(
                f"REFEREE_SQLITE_WRITES: {mode!r} is not one of {', '.join(self.MODES)}"
            )
        self.clock = clock
        self.mode = mode
        self.threaded = mode != "aiosqlite"
        """Whether the next batch goes to the writer's thread (else through aiosqlite)."""
        self.ratio: float | None = None
        """The thread's last measured wall time over CPU time."""
        self._began = self._wall = self._cpu = self._loop = 0.0
        self._batches = 0
        self._reset(clock())
        self._back = 0.0

    def took(self, wall: float, cpu: float, loop: float) -> None:
        """A batch in the thread took ``wall`` seconds, ``cpu`` of them the thread's CPU,
        while the loop's thread ran for ``loop`` seconds of CPU."""
        now = self.clock()
        self._wall += wall
        self._cpu += cpu
        self._loop += loop
        self._batches += 1
        if now - self._began < self.WINDOW or self.mode != "auto":
            return
        if self._batches >= self.LEAST:
            self.ratio = self._wall / max(self._cpu, 1e-6)
            if self.ratio > self.RATIO and self._loop > self.BUSY * self._wall:
                self.threaded, self._back = False, now + self.AWAY
        self._reset(now)

    def _reset(self, now: float) -> None:
        self._began, self._wall, self._cpu, self._loop, self._batches = now, 0.0, 0.0, 0.0, 0

    def away(self) -> None:
        """A batch went through aiosqlite: back to the thread once :attr:`AWAY` has passed."""
        now = self.clock()
        if now >= self._back and self.mode == "auto":
            self.threaded = True
            self._reset(now)
