"""The server's own Ed25519 key (contract v1.5, "Signed heads"), kept in its database.

The key lives in the ``server_key`` table (one row, id 1), beside the seeds it keeps
until they are revealed: a backup of the database keeps it, and every server that
shares one PostgreSQL database signs with the same key. It is made at the first start
that finds none. Two servers starting at once may each make one: each inserts its own
only if the row is still missing (``ON CONFLICT DO NOTHING``), then both read the row
that won, so they sign with one key. The private seed is never logged nor exported.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from ..log import now
from ..signing import Signer
from .schema import server_key

__all__ = ["server_signer"]


async def server_signer(engine: AsyncEngine) -> Signer:
    """The database's key: read, or made and stored if there is none yet (race-safe)."""
    read = sa.select(server_key.c.private_seed).where(server_key.c.id == 1)
    async with engine.connect() as conn:
        found = await conn.scalar(read)
    if found is None:
        made = Signer.new()
        # the dialect's own insert, imported here: PostgreSQL's alone is 55 ms of a
        # SQLite server's start (issue 74 §2)
        insert: Any
        if engine.dialect.name == "postgresql":
            from sqlalchemy.dialects import postgresql

            insert = postgresql.insert(server_key)
        else:
            from sqlalchemy.dialects import sqlite

            insert = sqlite.insert(server_key)
        async with engine.begin() as conn:
            await conn.execute(
                insert.values(
                    id=1,
                    algorithm="ed25519",
                    private_seed=made.seed.hex(),
                    public_key=made.public.hex(),
                    created=now(),
                ).on_conflict_do_nothing(index_elements=["id"])
            )
        async with engine.connect() as conn:
            found = await conn.scalar(read)
    if found is None:  # inserted, or another server's: one is there now
        raise RuntimeError("the server's key could not be stored")
    return Signer.from_seed(bytes.fromhex(str(found)))
