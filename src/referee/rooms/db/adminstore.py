"""Room administration in the database (contract v1.1): removing a member, a new
invite, archiving, a new GM token. Each writes its entry in the transaction that makes
the change.

Mixed into :class:`.store.Store` (see :class:`.epochs.StoreParts`).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from ..log import hash_token, new_token
from .epochs import Conflict, StoreParts
from .schema import discord_channels, discord_members, logins, members, rooms, tokens

__all__ = ["AdminWrites"]


class AdminWrites(StoreParts):
    """The GM's controls."""

    async def leave(self, room: str, member: str) -> dict[str, Any]:
        """Remove ``member``: every token and page link of theirs is deleted, and the
        ``leave`` entry appended, in one transaction.

        Raises:
            Conflict: 404 for no such member, 409 for one who left already, 422 for the GM.
        """
        if member == "gm":
            raise Conflict(422, "the GM cannot leave their own room (archive it instead)")
        async with self._writing(), self.engine.begin() as conn:
            await self._take(conn, room)
            left = await conn.scalar(
                sa.select(members.c.left).where(
                    members.c.room_id == room, members.c.member_id == member
                )
            )
            if left is None:
                raise Conflict(404, f"no member {member!r} in this room")
            if left:
                raise Conflict(409, f"{member} has left already")
            entry = await self._one(conn, room, "leave", {"member": member})
            await conn.execute(
                sa.update(members)
                .where(members.c.room_id == room, members.c.member_id == member)
                .values(left=True)
            )
            for table in (tokens, logins):
                await conn.execute(
                    sa.delete(table).where(table.c.room_id == room, table.c.member_id == member)
                )
        return entry

    async def new_invite(self, room: str) -> tuple[str, dict[str, Any]]:
        """A new invite (the old one stops working): ``(invite, the invite entry)``."""
        invite = new_token()
        async with self._writing(), self.engine.begin() as conn:
            await self._take(conn, room)
            entry = await self._one(conn, room, "invite", {})
            await conn.execute(
                sa.update(rooms).where(rooms.c.id == room).values(invite_hash=hash_token(invite))
            )
        return invite, entry

    async def new_gm_token(
        self, room: str, expires: float, keep: str | None = None
    ) -> tuple[str, str, dict[str, Any]]:
        """A new GM token, the old one stopping everywhere: ``(token, a one-time page
        link's code good until expires, the token entry)``.

        In one transaction: the ``token`` entry (``"member": "gm"``, never the token);
        every token and unused one-time page link of the GM deleted, but for the page
        session ``keep`` (the page that asked keeps working); the new token's hash and
        the new link's stored; every Discord channel linked to the room unlinked (a
        link was proved with the old token), and no Discord account stays the room's
        GM (each proved it with the old token; linking again with the new one proves
        it anew)."""
        token, code = new_token(), new_token()
        kept = [] if keep is None else [hash_token(keep)]
        async with self._writing(), self.engine.begin() as conn:
            await self._take(conn, room)
            entry = await self._one(conn, room, "token", {"member": "gm"})
            await conn.execute(
                sa.delete(tokens).where(
                    tokens.c.room_id == room,
                    tokens.c.member_id == "gm",
                    tokens.c.token_hash.not_in(kept),
                )
            )
            await conn.execute(
                sa.delete(logins).where(logins.c.room_id == room, logins.c.member_id == "gm")
            )
            await conn.execute(
                sa.insert(tokens).values(token_hash=hash_token(token), room_id=room, member_id="gm")
            )
            await conn.execute(
                sa.insert(logins).values(
                    code_hash=hash_token(code), room_id=room, member_id="gm", expires=expires
                )
            )
            await conn.execute(
                sa.update(discord_channels)
                .where(discord_channels.c.room_id == room)
                .values(room_id=None)
            )
            await conn.execute(
                sa.delete(discord_members).where(
                    discord_members.c.room_id == room, discord_members.c.member_id == "gm"
                )
            )
        return token, code, entry

    async def archive(self, room: str) -> dict[str, Any]:
        """Archive ``room``: its ``archive`` entry is its last; every write after gets 409."""
        async with self._writing(), self.engine.begin() as conn:
            await self._take(conn, room)
            entry = await self._one(conn, room, "archive", {})
            await conn.execute(sa.update(rooms).where(rooms.c.id == room).values(archived=True))
        return entry
