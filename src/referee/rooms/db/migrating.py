"""The database's schema, at the newest revision (:data:`HEAD`) before the rooms open it.

* A database already there opens without importing Alembic.
* A new one (no table at all) is made from :data:`.schema.metadata` and stamped
  :data:`HEAD` in one transaction, as Alembic's cookbook builds a database from scratch
  ("Building an Up to Date Database from Scratch"). It needs no Alembic either.
* An older one is brought there by Alembic's migrations (``migrations/``).

Alembic and its seven migrations cost about 0.45 s of CPU, which a bot's first start
on a new database paid before it answered (issue 74 §2). ``tests/test_schema_head.py``
holds both ways to the same tables, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from .schema import metadata

__all__ = ["HEAD", "create_new", "migrate", "schema_version"]


HEAD = "0007"
"""The newest migration's revision (``migrations/versions``; a test holds it to
Alembic's own head): a database already there opens without importing Alembic."""

VERSION = sa.Table(
    "alembic_version",
    sa.MetaData(),
    sa.Column("version_num", sa.String(32), nullable=False),
    sa.PrimaryKeyConstraint("version_num", name="alembic_version_pkc"),
)
"""Alembic's table of the schema's revision, as Alembic itself creates it."""

_CREATING = 0x7265_6665_7265_6501
"""PostgreSQL: the advisory lock that makes two processes opening one new database at
once (a bot and a server) create its tables one after the other."""


def migrate(url: str) -> None:
    """Bring the database at ``url`` to the newest schema (Alembic ``upgrade head``).

    Runs its own event loop: call it from a thread when one is already running.
    """
    # here, not at the top: 0.2 s of every server's and bot's start-up otherwise, which
    # a database at HEAD does without (issue 74 §2; Store.open asks first)
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).with_name("migrations")))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    command.upgrade(config, "head")


async def schema_version(engine: AsyncEngine) -> str | None:
    """The database's schema revision (Alembic's ``alembic_version``), or None for a
    database with none yet (a new one)."""
    async with engine.connect() as conn:
        has = await conn.run_sync(lambda c: sa.inspect(c).has_table("alembic_version"))
        if not has:
            return None
        found = await conn.scalar(sa.text("SELECT version_num FROM alembic_version"))
    return None if found is None else str(found)


async def create_new(engine: AsyncEngine) -> bool:
    """Make a new database's tables at :data:`HEAD`, and say so; False, touching
    nothing, when the database has a table already (it is Alembic's to migrate).

    One transaction, taken before the database is looked at (SQLite's write lock;
    PostgreSQL's advisory lock), so that of two processes that find the same database
    new, the second finds the first's tables.
    """
    async with engine.begin() as conn:
        await _lock(conn)
        if await conn.run_sync(lambda c: sa.inspect(c).get_table_names()):
            return False
        await conn.run_sync(metadata.create_all)
        await conn.run_sync(VERSION.create)
        await conn.execute(VERSION.insert().values(version_num=HEAD))
    return True


async def _lock(conn: AsyncConnection) -> None:
    """Take the database for the creation, until the transaction ends."""
    if conn.dialect.name == "sqlite":
        # Python's sqlite3 begins no transaction before DDL: this one holds the write
        # lock from here to the commit, and the other writers wait (their timeout).
        await conn.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        await conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _CREATING})
