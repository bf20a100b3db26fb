"""What the Discord front end keeps, in the rooms' own database (migrations 0005 and
0006): each channel's GM, GM channel and room; the room member each Discord user rolls
as; the sheets of channels with no room; the secret rolls of such channels until the
GM reveals them; the interactions seen within their 5 minutes (replays, for every
server and worker); and the players' rolls that did not reach the GM's channel. Writes
take the rooms' store's writer lock, as every write does."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from ..db.schema import (
    discord_channels,
    discord_members,
    discord_missed,
    discord_secrets,
    discord_seen,
    discord_sheets,
)

if TYPE_CHECKING:
    from ..db.store import Store

__all__ = ["Channel", "DiscordStore", "Missed"]


@dataclass(frozen=True, slots=True)
class Channel:
    """A channel's set-up (a channel never set up has none of it)."""

    id: str
    gm_user: str | None = None
    gm_channel: str | None = None
    room: str | None = None


FRESH = 2.0
"""Seconds a channel's set-up and a player's sheet, once read, are used without asking
the database again (this server's own changes show at once; another server's, on a
shared PostgreSQL, within this time)."""


class DiscordStore:
    """The Discord tables, on the rooms' :class:`~referee.rooms.db.store.Store`."""

    def __init__(self, store: Store, fresh: float = FRESH) -> None:
        self.store = store
        self.fresh = fresh
        self._kept: dict[tuple[str, ...], tuple[float, Any]] = {}
        self._swept = 0.0

    def _recall(self, key: tuple[str, ...]) -> tuple[bool, Any]:
        found = self._kept.get(key)
        if found is None or time.monotonic() - found[0] > self.fresh:
            return False, None
        return True, found[1]

    def _keep(self, key: tuple[str, ...], value: Any) -> None:
        if len(self._kept) > 50_000:
            self._kept.clear()
        self._kept[key] = (time.monotonic(), value)

    def forget(self, room: str) -> None:
        """Read ``room``'s channels and members afresh: its GM's token changed, and the
        links and GM standing the old one proved are gone from the database."""
        for key, (_, value) in list(self._kept.items()):
            if (key[0] == "member" and key[1] == room) or (
                key[0] == "channel" and value.room == room
            ):
                del self._kept[key]

    async def _get(self, query: sa.Select[Any]) -> sa.Row[Any] | None:
        row: sa.Row[Any] | None = await self.store._reading(_first, query)
        return row

    async def _write(self, *statements: sa.Executable) -> Any:
        """``statements`` in one transaction (SQLite's in one thread hop, :mod:`..db.synced`)."""
        return await self.store._transaction(_executed, statements)

    async def channel(self, channel: str, now: bool = False) -> Channel:
        """A channel's set-up; ``now``: as the database has it now, not as this server
        read it within :data:`FRESH` seconds (who may change it, where secrets go)."""
        known, found = self._recall(("channel", channel))
        if known and not now:
            return found  # type: ignore[no-any-return]
        row = await self._get(
            sa.select(discord_channels).where(discord_channels.c.channel_id == channel)
        )
        made = (
            Channel(channel)
            if row is None
            else Channel(channel, row.gm_user, row.gm_channel, row.room_id)
        )
        self._keep(("channel", channel), made)
        return made

    async def set_channel(self, channel: Channel) -> None:
        table = discord_channels
        await self._write(
            sa.delete(table).where(table.c.channel_id == channel.id),
            sa.insert(table).values(
                channel_id=channel.id,
                gm_user=channel.gm_user,
                gm_channel=channel.gm_channel,
                room_id=channel.room,
            ),
        )
        self._keep(("channel", channel.id), channel)

    async def member(self, room: str, user: str) -> str | None:
        """The id of the member ``user`` rolls as in ``room``, if any."""
        known, found = self._recall(("member", room, user))
        if known and found is not None:
            return found  # type: ignore[no-any-return]
        t = discord_members
        row = await self._get(
            sa.select(t.c.member_id).where(t.c.room_id == room, t.c.user_id == user)
        )
        made = None if row is None else str(row.member_id)
        self._keep(("member", room, user), made)
        return made

    async def set_member(self, room: str, user: str, member: str) -> None:
        """``user`` rolls as ``member`` in ``room`` from now on (the GM, on linking)."""
        t = discord_members
        await self._write(
            sa.delete(t).where(t.c.room_id == room, t.c.user_id == user),
            sa.insert(t).values(room_id=room, user_id=user, member_id=member),
        )
        self._keep(("member", room, user), member)

    async def users(self, room: str) -> dict[str, str]:
        """Each member of ``room`` that a Discord user rolls as: member id → user id (a
        fight's prompts mention their players)."""
        t = discord_members
        query = sa.select(t.c.member_id, t.c.user_id).where(t.c.room_id == room)
        rows = await self.store._reading(_all, query)
        return {str(r.member_id): str(r.user_id) for r in rows}

    async def claim_member(self, room: str, user: str, member: str) -> str:
        """Record that ``user`` rolls as ``member`` in ``room``, unless another server
        recorded another member for them first: the member that counts."""
        t = discord_members
        try:
            await self._write(sa.insert(t).values(room_id=room, user_id=user, member_id=member))
        except sa.exc.IntegrityError:
            self._kept.pop(("member", room, user), None)
            found = await self.member(room, user)
            assert found is not None
            return found
        self._keep(("member", room, user), member)
        return member

    async def sheet(self, channel: str, user: str) -> tuple[str, bytes] | None:
        """``(sha256, body)`` of ``user``'s sheet in a channel with no room."""
        known, found = self._recall(("sheet", channel, user))
        if known:
            return found  # type: ignore[no-any-return]
        t = discord_sheets
        row = await self._get(
            sa.select(t.c.sha256, t.c.body).where(t.c.channel_id == channel, t.c.user_id == user)
        )
        made = None if row is None else (str(row.sha256), bytes(row.body))
        self._keep(("sheet", channel, user), made)
        return made

    async def sheets(self, channel: str) -> list[tuple[str, str, bytes]]:
        """``(user, sha256, body)`` of every sheet loaded in a channel with no room."""
        t = discord_sheets
        async with self.store.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(t.c.user_id, t.c.sha256, t.c.body).where(t.c.channel_id == channel)
            )
            return [(str(r.user_id), str(r.sha256), bytes(r.body)) for r in rows]

    async def set_sheet(self, channel: str, user: str, sha: str, body: bytes) -> None:
        t = discord_sheets
        await self._write(
            sa.delete(t).where(t.c.channel_id == channel, t.c.user_id == user),
            sa.insert(t).values(channel_id=channel, user_id=user, sha256=sha, body=body),
        )
        self._keep(("sheet", channel, user), (sha, body))

    async def keep_secret(self, channel: str, gm_user: str, reply: dict[str, Any]) -> int:
        """Keep a secret roll's public message until the GM reveals it: its number."""
        t = discord_secrets
        result = await self._write(
            sa.insert(t)
            .values(channel_id=channel, gm_user=gm_user, reply=json.dumps(reply))
            .returning(t.c.number)
        )
        return int(result.scalar_one())

    async def take_secret(self, channel: str, number: int, gm_user: str) -> dict[str, Any] | None:
        """The message of ``gm_user``'s secret roll ``number`` in ``channel``, forgotten
        once taken (a roll is revealed once); None if they have no such roll."""
        t = discord_secrets
        result = await self._write(
            sa.delete(t)
            .where(t.c.number == number, t.c.channel_id == channel, t.c.gm_user == gm_user)
            .returning(t.c.reply)
        )
        row = result.first()
        return None if row is None else dict(json.loads(row.reply))

    async def seen(self, signature: str, until: float, now: float) -> bool:
        """Record an interaction's signature until ``until``: whether it was recorded
        already (a replay), by this server or any other on the database."""
        t = discord_seen
        statements: list[sa.Executable] = []
        if now - self._swept > 30:  # the expired ones go, every 30 seconds or so
            self._swept = now
            statements.append(sa.delete(t).where(t.c.until < now))
        statements.append(sa.insert(t).values(signature=signature, until=until))
        try:
            await self._write(*statements)
        except sa.exc.IntegrityError:
            return True
        return False

    async def missed(self, channel: str, gm_user: str, roll: str, why: str) -> None:
        """A player's roll (``roll``: "#381 (Ayla, blind)") did not reach ``gm_user``'s
        GM channel (``why``: Discord's answer)."""
        t = discord_missed
        mine = (t.c.channel_id == channel, t.c.gm_user == gm_user)
        async with self.store._writing(), self.store.engine.begin() as conn:
            row = (await conn.execute(sa.select(t.c.count, t.c.why).where(*mine))).first()
            if row is None:
                made = Missed((roll,), why, 0, 1)
                await conn.execute(sa.insert(t).values(channel_id=channel, gm_user=gm_user,
                                                       count=1, why=made.kept()))  # fmt: skip
            else:
                was = Missed.of(int(row[0]), str(row[1]))
                made = Missed((*was.rolls, roll)[-MOST_MISSED:], why, was.told, was.count + 1)
                await conn.execute(
                    sa.update(t).where(*mine).values(count=made.count, why=made.kept())
                )

    async def missed_rolls(self, channel: str, gm_user: str, untold: bool = False) -> Missed | None:
        """The players' rolls that missed ``gm_user``'s GM channel, kept until the GM
        sets a GM channel the bot can post in (:meth:`clear_missed`); with ``untold``,
        only those not told yet, which are told from then on."""
        t = discord_missed
        mine = (t.c.channel_id == channel, t.c.gm_user == gm_user)
        row = await self._get(sa.select(t.c.count, t.c.why).where(*mine))
        if row is None:
            return None  # (a read: most commands have nothing to tell)
        count, kept = tuple(row)
        found = Missed.of(int(count), str(kept))
        if not untold:
            return found
        if found.told >= found.count:
            return None
        told = Missed(found.rolls, found.why, found.count, found.count)
        await self._write(sa.update(t).where(*mine).values(why=told.kept()))
        new = found.count - found.told
        return Missed(found.rolls[-new:], found.why, 0, new)

    async def clear_missed(self, channel: str, gm_user: str) -> Missed | None:
        """Forget the rolls that missed ``gm_user``'s GM channel (the GM set one that
        the bot posted in): those that were kept."""
        t = discord_missed
        result = await self._write(
            sa.delete(t)
            .where(t.c.channel_id == channel, t.c.gm_user == gm_user)
            .returning(t.c.count, t.c.why)
        )
        row = result.first()
        return None if row is None else Missed.of(int(row.count), str(row.why))


MOST_MISSED = 50
"""The rolls that missed a GM channel named at most (the latest): the count goes on."""


@dataclass(frozen=True, slots=True)
class Missed:
    """Players' rolls that did not reach a GM's channel."""

    rolls: tuple[str, ...]
    """Each roll, as its GM is told of it: ``#381 (Ayla, blind)``."""
    why: str
    """Discord's answer to the last post that failed."""
    told: int
    """How many of them the GM was told of after a roll of theirs."""
    count: int
    """How many (the rolls named are the latest :data:`MOST_MISSED`)."""

    def kept(self) -> str:
        """As the table's ``why`` column keeps it (JSON)."""
        return json.dumps({"rolls": list(self.rolls), "why": self.why, "told": self.told})

    @classmethod
    def of(cls, count: int, kept: str) -> Missed:
        """From the table's row; a row of an older version (its ``why`` plain text)
        names no rolls and was never told.

        >>> Missed.of(2, "Discord answered 403")
        Missed(rolls=(), why='Discord answered 403', told=0, count=2)
        >>> Missed.of(1, Missed(("#3 (Ayla, blind)",), "403", 0, 1).kept()).rolls
        ('#3 (Ayla, blind)',)
        """
        try:
            found = json.loads(kept)
        except ValueError:
            found = None
        if not isinstance(found, dict):
            return cls((), kept, 0, count)
        rolls = tuple(str(r) for r in found.get("rolls") or () if isinstance(r, str))
        told = found.get("told")
        return cls(rolls, str(found.get("why", "")), told if isinstance(told, int) else 0, count)


async def _first(conn: Any, query: sa.Select[Any]) -> sa.Row[Any] | None:
    row: sa.Row[Any] | None = (await conn.execute(query)).first()
    return row


async def _all(conn: Any, query: sa.Select[Any]) -> list[sa.Row[Any]]:
    return list((await conn.execute(query)).all())


async def _executed(conn: Any, statements: tuple[sa.Executable, ...]) -> Any:
    """The statements' last result, its rows read before the transaction commits (SQLite
    commits no transaction with a statement's rows still unread)."""
    result = None
    for statement in statements:
        result = await conn.execute(statement)
        if result.returns_rows:
            result = result.freeze()()
    return result
