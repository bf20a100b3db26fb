"""Live updates across server processes, through PostgreSQL ``LISTEN/NOTIFY``.

Each batch of appends notifies ``room:seq`` for the last entry it writes to
each room, on the channel ``referee_rooms`` (:func:`notify`): a server reads a
room's log up to the seq announced, so the entries before it need no notice
of their own. PostgreSQL delivers a
notification only when its transaction commits, and only its few bytes: no
entry, however public, passes through the channel, since its payloads are
capped at 8000 bytes and any database user may listen. Each server process
keeps one listening connection (:class:`Listener`); for the rooms it follows,
it reads the new entries from the log, and its sockets send each member their
own view of them (:mod:`.live`).

After a dropped connection the listener reconnects (backing off up to a
few seconds) and, before anything else, tells its owner to catch up from the
log: every entry written meanwhile is read from the database, so nothing is
lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection

__all__ = ["CHANNEL", "Listener", "notify"]

CHANNEL = "referee_rooms"

_NOTIFY = sa.text(f"SELECT pg_notify('{CHANNEL}', p) FROM unnest(CAST(:ps AS text[])) AS p")

log = logging.getLogger(__name__)


async def notify(conn: AsyncConnection, written: Sequence[tuple[str, int]]) -> None:
    """Announce new entries, ``(room, last seq)`` pairs, when the caller's transaction
    commits."""
    await conn.execute(_NOTIFY, {"ps": [f"{room}:{seq}" for room, seq in written]})


class Listener:
    """One process's listening connection: ``on_notice(room, seq, pid)`` for each
    notification (``pid``: the database process that sent it), and ``on_connect()``
    each time it (re)connects, before any notice."""

    PING = 5.0
    """Seconds between checks that the connection still answers."""
    BACKOFF = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)

    def __init__(
        self,
        url: str,
        on_notice: Callable[[str, int, int], None],
        on_connect: Callable[[], None],
    ) -> None:

        parsed = make_url(url).set(drivername="postgresql")
        self.dsn = parsed.render_as_string(hide_password=False)
        self.on_notice = on_notice
        self.on_connect = on_connect
        self.connected = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Connect (waiting for the first connection) and keep listening."""
        self._task = asyncio.create_task(self._run())
        await asyncio.wait_for(self.connected.wait(), 30)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def _received(self, _conn: Any, pid: int, _channel: str, payload: str) -> None:
        room, _, seq = payload.rpartition(":")
        if room and seq.isdigit():
            self.on_notice(room, int(seq), pid)

    async def _run(self) -> None:
        # here, not at the top: 45 ms of a SQLite server's start otherwise (issue 74
        # §2); a PostgreSQL server's engine has loaded it already
        import asyncpg

        failures = 0
        while True:
            conn = None
            try:
                conn = await asyncpg.connect(
                    self.dsn, server_settings={"application_name": f"referee-listen:{os.getpid()}"}
                )
                lost = asyncio.Event()
                conn.add_termination_listener(lambda _c, lost=lost: lost.set())
                await conn.add_listener(CHANNEL, self._received)
                failures = 0
                self.on_connect()
                self.connected.set()
                while not lost.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(lost.wait(), self.PING)
                    if not lost.is_set():
                        await asyncio.wait_for(conn.fetchval("SELECT 1"), self.PING)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database went away: reconnect and catch up
                log.warning("referee rooms: lost the notice connection (%s); reconnecting", exc)
            finally:
                self.connected.clear()
                if conn is not None and not conn.is_closed():
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(conn.close(), 2)
            await asyncio.sleep(self.BACKOFF[min(failures, len(self.BACKOFF) - 1)])
            failures += 1
