"""A database at the newest schema opens without Alembic (issue 74 §2): ``Store.open``
reads its ``alembic_version`` first, makes a new database from the schema's tables
(stamped :data:`HEAD`), and migrates only one behind :data:`HEAD`. ``HEAD`` is
Alembic's own head, so a new migration that forgets it fails here; and the tables
Alembic's migrations make are the tables the schema declares, on both backends, so a
migration and the schema cannot drift apart."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from referee.rooms.db.migrating import HEAD, schema_version
from referee.rooms.db.store import Store, migrate, sqlite_url

OPEN = """
import asyncio, json, sys
from referee.rooms.db.store import Store
async def main():
    store = await Store.open(sys.argv[1])
    await store.close()
asyncio.run(main())
print(json.dumps("alembic" in sys.modules))
"""


def test_head_is_alembic_s_head() -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    import referee.rooms.db.migrating as migrating

    config = Config()
    where = Path(migrating.__file__).with_name("migrations")
    config.set_main_option("script_location", str(where))
    assert ScriptDirectory.from_config(config).get_current_head() == HEAD


def _opened(url: str) -> bool:
    """Whether opening the store at ``url`` in a fresh process imported Alembic."""
    done = subprocess.run(
        [sys.executable, "-c", OPEN, url], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return bool(json.loads(done.stdout.strip().splitlines()[-1]))


def _alembic(url: str, revision: str) -> None:
    """Alembic's ``upgrade`` of the database at ``url`` to ``revision``."""
    from alembic import command
    from alembic.config import Config

    import referee.rooms.db.migrating as migrating

    config = Config()
    config.set_main_option("script_location", str(Path(migrating.__file__).with_name("migrations")))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    command.upgrade(config, revision)


def _version(url: str) -> str | None:
    async def version() -> str | None:
        store = await Store.open(url)
        try:
            return await schema_version(store.engine)
        finally:
            await store.close()

    return asyncio.run(version())


def test_a_new_database_is_made_at_head_and_an_older_one_migrated_by_alembic(
    tmp_path: Path,
) -> None:
    url = sqlite_url(tmp_path / "rooms.sqlite3")
    assert _opened(url) is False  # a new one: made at HEAD, without Alembic
    assert _version(url) == HEAD
    assert _opened(url) is False  # at HEAD: no Alembic

    older = sqlite_url(tmp_path / "older.sqlite3")
    _alembic(older, "0006")
    assert _opened(older) is True  # behind HEAD: Alembic's migrations
    assert _version(older) == HEAD


def _tables(url: str) -> dict[str, Any]:
    """Every table of the database at ``url``, as SQLAlchemy's inspector reads it: its
    columns (name, type, nullability, default), keys and indexes, and the revision."""
    from sqlalchemy.ext.asyncio import create_async_engine

    async def read() -> dict[str, Any]:
        engine = create_async_engine(url)
        try:
            async with engine.connect() as conn:
                return await conn.run_sync(_read)
        finally:
            await engine.dispose()

    return asyncio.run(read())


def _read(conn: sa.Connection) -> dict[str, Any]:
    seen = sa.inspect(conn)
    tables: dict[str, Any] = {}
    for name in sorted(seen.get_table_names()):
        tables[name] = {
            "columns": [
                (c["name"], str(c["type"]), c["nullable"], c.get("default"))
                for c in seen.get_columns(name)
            ],
            "primary key": seen.get_pk_constraint(name)["constrained_columns"],
            "foreign keys": sorted(
                (tuple(k["constrained_columns"]), k["referred_table"], tuple(k["referred_columns"]))
                for k in seen.get_foreign_keys(name)
            ),
            "indexes": sorted(
                (i["name"], tuple(i["column_names"]), bool(i["unique"]))
                for i in seen.get_indexes(name)
            ),
            "unique": sorted(tuple(u["column_names"]) for u in seen.get_unique_constraints(name)),
        }
    tables["revision"] = conn.scalar(sa.text("SELECT version_num FROM alembic_version"))
    return tables


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_alembic_s_tables_are_the_schema_s_tables(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from referee.rooms.db.schema import metadata
    from rooms_server import fresh_db

    like = sqlite_url(tmp_path / "like.sqlite3")
    if backend == "postgresql":
        like = request.getfixturevalue("postgres")
    migrated, made = fresh_db(like, tmp_path), fresh_db(like, tmp_path)
    migrate(migrated)  # every migration, from none
    assert _version(made) == HEAD  # made from the schema's tables
    assert _tables(migrated) == _tables(made)
    assert _tables(made)["revision"] == HEAD
    assert set(_tables(made)) == {*metadata.tables, "alembic_version", "revision"}

    async def drift() -> list[Any]:
        from sqlalchemy.ext.asyncio import create_async_engine

        engine = create_async_engine(migrated)
        try:
            async with engine.connect() as conn:
                return await conn.run_sync(
                    lambda c: compare_metadata(
                        MigrationContext.configure(
                            c, opts={"compare_type": True, "compare_server_default": True}
                        ),
                        metadata,
                    )
                )
        finally:
            await engine.dispose()

    assert asyncio.run(drift()) == []  # Alembic's own comparison finds nothing either


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_processes_opening_one_new_database_at_once_all_open_it(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Three processes find one database new at the same moment (a bot and servers
    started together): one makes its tables, the others wait for it and open them."""
    from rooms_server import fresh_db

    like = sqlite_url(tmp_path / "like.sqlite3")
    if backend == "postgresql":
        like = request.getfixturevalue("postgres")
    url = fresh_db(like, tmp_path)
    opening = [
        subprocess.Popen(
            [sys.executable, "-c", OPEN, url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for process in opening:
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
    assert _version(url) == HEAD
    assert _tables(url)["revision"] == HEAD
