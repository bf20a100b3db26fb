"""The database's schema: Alembic's migrations (``migrations/``), run when a database
is not at the newest (:data:`HEAD`), so that one already there opens without importing
Alembic (0.2 s of a server's or a bot's start-up; issue 74 §2)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = ["HEAD", "migrate", "schema_version"]


HEAD = "0007"
"""The newest migration's revision (``migrations/versions``; a test holds it to
Alembic's own head): a database already there opens without importing Alembic."""


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
