"""The room member a Discord user rolls as (joined at their first roll), and what a
channel's GM is told of rolls that missed their GM channel: shared by the rolls, the
sheets and the channel's set-up."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..service import join as join_room
from .calls import Call, Refusal

if TYPE_CHECKING:
    from ..db.store import Member
    from .interactions import Discord

__all__ = ["member_of", "missed_note"]


async def member_of(bot: Discord, room: str, call: Call, join: bool = True) -> Member | None:
    """The room member the Discord user rolls as: joined on their first roll (as the
    API's join does, one member per user, whatever arrives at once); None without
    ``join`` for a user not yet in the room.

    Raises:
        Refusal: a user the GM removed from the room (out on every path at once: the
            member is read as the room's own token check reads it).
    """
    st = bot.st
    found = await bot.store.member(room, call.user)
    if found is None:
        if not join:
            return None
        key = (room, call.user)
        lock, users = bot.joining.get(key, (asyncio.Lock(), 0))
        bot.joining[key] = (lock, users + 1)
        try:
            async with lock:
                found = await bot.store.member(room, call.user)
                if found is None:
                    made, _token, _entry = await join_room(st, room, call.name)
                    found = await bot.store.claim_member(room, call.user, made)
        finally:
            lock, users = bot.joining[key]
            if users > 1:
                bot.joining[key] = (lock, users - 1)
            else:
                del bot.joining[key]
    member = await st.member_by_id(room, found)
    if member is None:
        raise Refusal(f"you are no longer a member of room {room}: the GM removed you")
    st.spend(member)
    return member


async def missed_note(bot: Discord, call: Call) -> str | None:
    """What the channel's GM is told, once, of players' rolls that did not reach their
    GM channel (the bot could not post there)."""
    found = await bot.store.take_missed(call.channel, call.user)
    if found is None:
        return None
    count, why = found
    rolls = "1 player's roll" if count == 1 else f"{count} players' rolls"
    return (
        f"⚠ {rolls} did not reach your GM channel ({why}): let the bot post there, or "
        "choose another with /referee gm-channel."
    )
