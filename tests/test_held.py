"""The held connections of the hot statements (:mod:`referee.rooms.db.held`), on a real
PostgreSQL: a statement's own error keeps the connection; a dropped one is replaced
before use, and its process leaves the server's own; a read that broke mid-statement
is run again once, a write never."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from referee.rooms.db.held import Held
from referee.rooms.db.store import Store
from rooms_server import fresh_db

PID = "SELECT pg_backend_pid()"


@pytest.fixture
def db(postgres: str, tmp_path: Path) -> str:
    return fresh_db(postgres, tmp_path)


@pytest.fixture
async def store(db: str) -> AsyncIterator[Store]:
    opened = await Store.open(db)
    try:
        yield opened
    finally:
        await opened.close()


async def terminate(store: Store, pid: int) -> None:
    """End a database process from another connection, as an administrator or a
    restart would."""
    async with store.engine.connect() as conn:
        raw = (await conn.get_raw_connection()).driver_connection
        assert raw is not None
        assert await raw.fetchval("SELECT pg_terminate_backend($1)", pid)


async def pid_of(held: Held) -> int:
    (row,) = await held.fetch(PID)
    pid: int = row[0]
    return pid


async def test_a_statement_error_keeps_the_connection(store: Store) -> None:
    held = store.writer
    pid = await pid_of(held)
    assert pid in store.own_pids
    with pytest.raises(asyncpg.DivisionByZeroError):
        await held.fetch("SELECT 1 / $1::int", 0)
    assert await pid_of(held) == pid


async def test_a_dropped_connection_is_replaced_before_use(store: Store) -> None:
    held = store.writer
    pid = await pid_of(held)
    await terminate(store, pid)
    await asyncio.sleep(0.2)  # the driver reads the end of the connection
    again = await pid_of(held)
    assert again != pid
    assert again in store.own_pids and pid not in store.own_pids


async def _broken_mid_statement(store: Store, held: Held, again: bool) -> list[object]:
    pid = await pid_of(held)
    running = asyncio.create_task(held.fetch("SELECT pg_sleep(0.5), pg_backend_pid()", again=again))
    await asyncio.sleep(0.15)
    await terminate(store, pid)
    rows: list[object] = await running
    return rows


async def test_a_read_broken_mid_statement_is_run_again_once(store: Store) -> None:
    held = store.news
    pid = await pid_of(held)
    (row,) = await _broken_mid_statement(store, held, again=True)
    assert isinstance(row, asyncpg.Record) and row[1] != pid


async def test_a_write_broken_mid_statement_is_not_run_again(store: Store) -> None:
    held = store.writer
    with pytest.raises((asyncpg.PostgresError, asyncpg.InterfaceError, OSError)):
        await _broken_mid_statement(store, held, again=False)
    assert await pid_of(held) in store.own_pids  # and the next statement runs afresh
