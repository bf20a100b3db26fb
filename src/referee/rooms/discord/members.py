"""The room member a Discord user rolls as (joined at their first roll), and what a
channel's GM is told of rolls that missed their GM channel: shared by the rolls, the
sheets and the channel's set-up."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..service import join as join_room
from .calls import Call, Refusal
from .store import Missed

if TYPE_CHECKING:
    from ..db.store import Member
    from .interactions import Discord

__all__ = ["member_of", "missed_note", "missed_text"]


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


async def missed_note(bot: Discord, call: Call, untold: bool = False) -> str | None:
    """What the channel's GM is told of players' rolls that did not reach their GM
    channel (the bot could not post there), naming them: every time they ask, until
    they set a GM channel the bot can post in; with ``untold``, only those they were
    not told of yet (after a roll of theirs)."""
    found = await bot.store.missed_rolls(call.channel, call.user, untold)
    if found is None:
        return None
    return missed_text(found) + (
        ": let the bot view that channel, send messages and embed links there, then run "
        "/referee gm-channel again (or choose another). Until then /referee status names "
        "them."
    )


def missed_text(found: Missed) -> str:
    """``⚠ 2 players' rolls did not reach your GM channel (#3 (Ayla, blind), ...)``.

    >>> missed_text(Missed(("#3 (Ayla, blind)",), "Discord answered 403", 0, 1))
    "⚠ 1 player's roll did not reach your GM channel, #3 (Ayla, blind) (Discord answered 403)"
    """
    rolls = "1 player's roll" if found.count == 1 else f"{found.count} players' rolls"
    named = ", ".join(found.rolls)
    more = found.count - len(found.rolls)
    if named and more > 0:
        named += f" and {more} before them"
    return f"⚠ {rolls} did not reach your GM channel{', ' + named if named else ''} ({found.why})"
