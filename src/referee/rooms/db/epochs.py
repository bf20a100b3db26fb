"""Epochs: each holds two committed server seeds (public, secret), kept in the
database, out of every view, until revealed; the lock fixes its players' mix.

See the contract's "Randomness: commit, mix, reveal". :mod:`.store` calls these
inside its transactions, with the room's row already locked.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from ...stream import commitment, mix
from ..errors import ApiError
from .schema import client_seeds, epochs, rooms
from .synced import Conn

__all__ = [
    "ARCHIVED",
    "StoreParts",
    "Conflict",
    "Epoch",
    "EpochWrites",
    "lock_epoch",
    "new_epoch",
    "read_epochs",
]


@dataclass(slots=True)
class Epoch:
    """The current epoch of a room, as a roll needs it (read inside its transaction)."""

    number: int
    public: bytes
    secret: bytes
    mix: str | None
    """The lock's mix; None until the epoch's first roll."""

    def seed(self, visibility: str) -> bytes:
        """The server seed a roll of this visibility draws from."""
        return self.public if visibility == "public" else self.secret


async def read_epochs(conn: Conn, names: list[str]) -> dict[str, Epoch]:
    """The current epoch of each room in ``names``, as a roll needs it."""
    return {
        row.room_id: Epoch(
            row.epoch, bytes.fromhex(row.public_seed), bytes.fromhex(row.secret_seed), row.mix
        )
        for row in await conn.execute(_CURRENT, {"rooms": names})
    }


_CURRENT = (
    sa.select(epochs)
    .join(rooms, sa.and_(rooms.c.id == epochs.c.room_id, rooms.c.epoch == epochs.c.epoch))
    .where(rooms.c.id.in_(sa.bindparam("rooms", expanding=True)))
)
"""Rooms' current epochs."""


async def lock_epoch(
    conn: Conn,
    room: str,
    epoch: Epoch,
    add: Callable[[str, Mapping[str, Any]], dict[str, Any]],
) -> None:
    """Lock the epoch's client seeds into its mix, with a ``lock`` entry."""
    rows = await conn.execute(
        sa.select(client_seeds.c.member_id, client_seeds.c.seed).where(
            client_seeds.c.room_id == room, client_seeds.c.epoch == epoch.number
        )
    )
    seeds = {m: sd for m, sd in rows}
    epoch.mix = mix(seeds)
    await conn.execute(
        sa.update(epochs)
        .where(epochs.c.room_id == room, epochs.c.epoch == epoch.number)
        .values(mix=epoch.mix)
    )
    add("lock", {"epoch": epoch.number, "seeds": seeds, "mix": epoch.mix})


async def new_epoch(conn: AsyncConnection, room: str, number: int) -> dict[str, Any]:
    """Fresh server seeds for epoch ``number``; the fields of its ``epoch`` entry."""
    public, secret = secrets.token_bytes(32), secrets.token_bytes(32)
    await conn.execute(
        sa.insert(epochs).values(
            room_id=room,
            epoch=number,
            public_seed=public.hex(),
            secret_seed=secret.hex(),
            mix=None,
            closed=False,
            declassified=False,
        )
    )
    await conn.execute(sa.update(rooms).where(rooms.c.id == room).values(epoch=number))
    return {
        "epoch": number,
        "commitments": {"public": commitment(public), "secret": commitment(secret)},
    }


class Conflict(ApiError):
    """A write the log refuses: ``status`` 409 (done already, or an archived room), 403
    (not this member's) or 422 (not allowed now)."""


ARCHIVED = "this room is archived: its log and export stay readable, and it takes no writes"
"""What every write to an archived room gets (409)."""


class StoreParts:
    """What the store's mixins use of :class:`.store.Store`: the engine, the writer
    lock, the row lock and the appending (:class:`.appends.Appends` has them)."""

    engine: AsyncEngine

    def _writing(self) -> Any:
        raise NotImplementedError

    async def _take(self, conn: AsyncConnection, room: str) -> Any:
        raise NotImplementedError

    async def _transaction(self, work: Any, *args: Any) -> Any:
        raise NotImplementedError

    async def _reading(self, work: Any, *args: Any) -> Any:
        raise NotImplementedError

    async def _one(
        self, conn: AsyncConnection, room: str, kind: str, fields: Mapping[str, Any]
    ) -> dict[str, Any]:
        raise NotImplementedError

    async def _some(
        self, conn: AsyncConnection, room: str, kind: str, fields: Mapping[str, Any]
    ) -> list[dict[str, Any]]:
        raise NotImplementedError


class EpochWrites(StoreParts):
    """The store's writes of seeds and epochs (mixed into :class:`.store.Store`)."""

    async def add_seed(self, room: str, member: str, seed: str) -> list[dict[str, Any]]:
        """A player's client seed, and the entries it brings (contract v1.2, "Automatic
        rollover"). Before the current epoch's lock, the seed counts for that epoch: one
        ``seed`` entry. After it, the server closes the epoch itself (a ``close`` entry
        with ``"by": "server"``, the public seed revealed and the secret one kept for
        the GM to declassify), opens the next (its ``epoch`` entry) and counts the seed
        for it, all in one transaction: so a player's rolls are mixed with her seed from
        the moment her page sends it, whatever was rolled before she joined. A second
        seed for the epoch it would count for is a Conflict (409)."""
        async with self._writing(), self.engine.begin() as conn:
            await self._take(conn, room)
            epoch = (await read_epochs(conn, [room]))[room]
            counts_for = epoch.number + (1 if epoch.mix is not None else 0)
            taken = await conn.scalar(
                sa.select(sa.func.count())
                .select_from(client_seeds)
                .where(
                    client_seeds.c.room_id == room,
                    client_seeds.c.epoch == counts_for,
                    client_seeds.c.member_id == member,
                )
            )
            if taken:
                raise Conflict(409, f"you have a client seed for epoch {counts_for} already")
            made = []
            if epoch.mix is not None:  # locked: roll over to a new epoch that will mix it
                made = await self._close(conn, room, epoch, declassify=False, by="server")
            await conn.execute(
                sa.insert(client_seeds).values(
                    room_id=room, epoch=counts_for, member_id=member, seed=seed
                )
            )
            fields = {"member": member, "epoch": counts_for, "seed": seed}
            return [*made, await self._one(conn, room, "seed", fields)]

    async def close_epoch(self, room: str, declassify: bool) -> list[dict[str, Any]]:
        """Close the current epoch: its ``close`` entry (the public seed; the secret one if
        ``declassify``), then the next epoch's ``epoch`` entry, in one transaction.

        With ``declassify``, every earlier closed epoch whose secret seed is still kept (one
        the server closed itself when a player's seed came after its lock) is declassified
        first, each with its ``declassify`` entry (issue 67 §4: the GM who closes and
        declassifies means every secret roll so far to be provable)."""
        async with self._writing(), self.engine.begin() as conn:
            await self._take(conn, room)
            epoch = (await read_epochs(conn, [room]))[room]
            made: list[dict[str, Any]] = []
            if declassify:
                kept = await conn.execute(
                    sa.select(epochs.c.epoch, epochs.c.secret_seed)
                    .where(
                        epochs.c.room_id == room,
                        epochs.c.closed.is_(True),
                        epochs.c.declassified.is_(False),
                    )
                    .order_by(epochs.c.epoch)
                )
                for number, secret in kept.all():
                    await conn.execute(
                        sa.update(epochs)
                        .where(epochs.c.room_id == room, epochs.c.epoch == number)
                        .values(declassified=True)
                    )
                    fields = {"epoch": number, "seeds": {"secret": secret}}
                    made.append(await self._one(conn, room, "declassify", fields))
            return [*made, *await self._close(conn, room, epoch, declassify)]

    async def _close(
        self,
        conn: AsyncConnection,
        room: str,
        epoch: Epoch,
        declassify: bool,
        by: str | None = None,
    ) -> list[dict[str, Any]]:
        """Inside the caller's transaction: close ``epoch`` and open the next one; their
        ``close``, ``head`` (contract v1.5) and ``epoch`` entries. ``by`` is set
        (``"server"``) on an automatic close only; the GM's own closes keep the
        contract's two fields."""
        await conn.execute(
            sa.update(epochs)
            .where(epochs.c.room_id == room, epochs.c.epoch == epoch.number)
            .values(closed=True, declassified=declassify)
        )
        seeds = {
            "public": epoch.public.hex(),
            "secret": epoch.secret.hex() if declassify else None,
        }
        fields: dict[str, Any] = {"epoch": epoch.number, "seeds": seeds}
        if by is not None:
            fields["by"] = by
        closed = await self._some(conn, room, "close", fields)  # and its signed head
        nxt = await new_epoch(conn, room, epoch.number + 1)
        return [*closed, await self._one(conn, room, "epoch", nxt)]

    async def declassify(self, room: str, number: int) -> dict[str, Any]:
        """Reveal a closed epoch's secret seed with a ``declassify`` entry."""
        async with self._writing(), self.engine.begin() as conn:
            await self._take(conn, room)
            row = (
                await conn.execute(
                    sa.select(epochs).where(epochs.c.room_id == room, epochs.c.epoch == number)
                )
            ).first()
            if row is None or not row.closed:
                raise Conflict(422, f"epoch {number} is not a closed epoch")
            if row.declassified:
                raise Conflict(409, f"epoch {number} is declassified already")
            await conn.execute(
                sa.update(epochs)
                .where(epochs.c.room_id == room, epochs.c.epoch == number)
                .values(declassified=True)
            )
            return await self._one(
                conn, room, "declassify", {"epoch": number, "seeds": {"secret": row.secret_seed}}
            )
