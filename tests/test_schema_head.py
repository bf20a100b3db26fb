"""A database at the newest schema opens without Alembic (issue 74 §2): ``Store.open``
reads its ``alembic_version`` first and migrates only a database behind :data:`HEAD`
(a new one included). ``HEAD`` is Alembic's own head, so a new migration that forgets
it fails here."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from referee.rooms.db.migrating import HEAD, schema_version
from referee.rooms.db.store import Store, sqlite_url

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


def test_a_new_database_is_migrated_and_one_at_head_opens_without_alembic(
    tmp_path: Path,
) -> None:
    url = sqlite_url(tmp_path / "rooms.sqlite3")
    assert _opened(url) is True  # a new one: migrated, with Alembic

    async def version() -> str | None:
        store = await Store.open(url)
        try:
            return await schema_version(store.engine)
        finally:
            await store.close()

    assert asyncio.run(version()) == HEAD
    assert _opened(url) is False  # at HEAD: no Alembic
