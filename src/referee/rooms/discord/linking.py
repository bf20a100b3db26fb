"""Who a channel's set-up belongs to: ``/referee link``, ``unlink`` and ``gm-channel``.

A channel's link and GM channel belong to its GM. Changing them (linking or re-linking
a channel that has a GM, unlinking it, setting its GM channel) takes one of:

* being the channel's GM (who linked it with the room's GM token, or set its GM
  channel first);
* the GM token of the room the channel is linked to (``token:``), which proves its GM
  whatever Discord account they use;
* the Manage Channels or Administrator permission: the guild's own admins.

A channel's first GM needs that permission too, whether by ``gm-channel`` or by
``link``: a token of a room the caller made herself proves nothing about a channel.
Linking needs, besides, the GM token of the room linked. Every change is told in the
channel, and to the previous GM in their GM channel; a new GM channel is checked by
posting to it before it is kept.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import ApiError
from ..service import gm_by_token, link_channel
from .calls import Call, Done, Refusal
from .members import missed_text
from .replies import message, note
from .rest import RestError
from .store import Channel

if TYPE_CHECKING:
    from ..db.store import Member
    from .interactions import Discord

__all__ = ["ADMINISTRATOR", "MANAGE_CHANNELS", "gm_channel", "link", "unlink"]

MANAGE_CHANNELS, ADMINISTRATOR = 1 << 4, 1 << 3
LOCAL = (
    " That page is on your computer only, so the players' replies carry no link to "
    "it: to give them one, set REFEREE_PUBLIC_URL to an address they can reach (see "
    "'The room pages' in referee's Discord guide)."
)


def is_admin(call: Call) -> bool:
    """Whether the caller may manage the guild's channels (Discord sends their
    permissions in the channel with each interaction)."""
    return bool(call.permissions & (MANAGE_CHANNELS | ADMINISTRATOR))


async def _allowed(bot: Discord, call: Call, channel: Channel, token: Any) -> Member | None:
    """Refuse a caller who may not change ``channel``'s set-up; the linked room's GM
    member when ``token`` proves the caller its GM."""
    proved = (
        await gm_by_token(bot.st, channel.room, token, f"discord:{call.user}")
        if channel.room
        else None
    )
    if proved is not None or is_admin(call):
        return proved
    if channel.gm_user is not None and channel.gm_user == call.user:
        return None
    if channel.gm_user is None and channel.room is None:
        raise Refusal(
            "to become this channel's GM you need the Manage Channels permission "
            "(ask a server admin)"
        )
    room = f" (or room {channel.room}'s GM token: token:TOKEN)" if channel.room else ""
    raise Refusal(
        f"this channel's set-up belongs to its GM, <@{channel.gm_user}>: only they{room}, "
        "or a member with the Manage Channels permission, change it"
        if channel.gm_user
        else f"this channel rolls into room {channel.room}: only its GM token (token:TOKEN), "
        "or a member with the Manage Channels permission, changes it"
    )


async def link(bot: Discord, call: Call, channel: Channel, options: Mapping[str, Any]) -> Done:
    """Link the channel to a room: the room's GM token proves the caller its GM, and
    :func:`_allowed` that the channel is theirs to link."""
    room, token = options.get("room"), options.get("token")
    if not isinstance(room, str) or not isinstance(token, str):
        raise Refusal("give the room and its GM token: /referee link room:ID token:TOKEN")
    try:  # the room's side, decided by the service: its GM token, and not archived
        member = await link_channel(bot.st, room, token, f"discord:{call.user}")
    except ApiError as exc:
        raise Refusal(exc.message) from None
    # The room's token is the current link's proof when it is the same room.
    await _allowed(bot, call, channel, token if room == channel.room else None)
    await bot.store.set_member(room, call.user, member.id)
    # A GM channel chosen by someone else goes: it is theirs.
    kept = channel.gm_channel if channel.gm_user == call.user else None
    made = Channel(call.channel, call.user, kept, room)
    await bot.store.set_channel(made)
    told = await _tell(bot, call, channel, made)
    then = "" if kept else " Now choose your GM channel: /referee gm-channel."
    if bot.local_pages:
        then += LOCAL
    signer = bot.st.store.signer  # contract v1.5: the key that signs the room's log
    signed = f" The server signs the log with key {signer.fingerprint}." if signer else ""
    return Done(
        note(
            f"This channel now rolls into room {room}, and you are its GM here: every roll "
            f"is logged, and each player is a member. The log: {bot.room_url(call, room)}."
            f"{signed}{then}{told}"
        )
    )


async def unlink(bot: Discord, call: Call, channel: Channel, options: Mapping[str, Any]) -> Done:
    if channel.gm_user is not None or channel.room:  # (a channel nobody set up: nothing)
        await _allowed(bot, call, channel, options.get("token"))
    if not channel.room:
        return Done(note("This channel has no room to unlink."))
    made = Channel(call.channel, channel.gm_user, channel.gm_channel, None)
    await bot.store.set_channel(made)
    told = await _tell(bot, call, channel, made)
    return Done(note(f"This channel's rolls are no longer logged to a room.{told}"))


async def gm_channel(
    bot: Discord, call: Call, channel: Channel, options: Mapping[str, Any]
) -> Done:
    target = options.get("channel")
    if not isinstance(target, str) or not target.isdigit() or len(target) > 20:
        raise Refusal("name a channel: /referee gm-channel channel:#gm-notes")
    if target == call.channel:
        raise Refusal("the GM's channel is another one, private: here everyone would see")
    proved = await _allowed(bot, call, channel, options.get("token"))
    await _check_post(bot, call, target)
    if proved is not None and channel.room:  # the room's GM, from this account too
        await bot.store.set_member(channel.room, call.user, proved.id)
    made = Channel(call.channel, call.user, target, channel.room)
    await bot.store.set_channel(made)
    told = await _tell(bot, call, channel, made)
    # The bot posts there: the rolls that missed the GM channel are told one last time.
    cleared = await bot.store.clear_missed(call.channel, call.user)
    if cleared is not None:
        where = f" (room {channel.room}'s log has them)" if channel.room else ""
        told += f" Before this, {missed_text(cleared)[2:]}{where}."
    return Done(
        note(
            f"You are this channel's GM: blind and secret rolls go to <#{target}>. Keep "
            "that channel private: the bot posted a first message there, so it may "
            f"post in it.{told}"
        )
    )


async def _check_post(bot: Discord, call: Call, target: str) -> None:
    """Post a first message to a new GM channel: refuse one the bot cannot post in."""
    if bot.rest.token is None:
        raise Refusal(
            "this server has no bot token (REFEREE_DISCORD_TOKEN): blind and secret "
            "rolls could not reach a GM channel"
        )
    try:
        await bot.rest.post(
            target,
            message(
                f"referee: blind and secret rolls of <#{call.channel}> will come here "
                f"(set by <@{call.user}>)."
            ),
        )
    except RestError as exc:
        raise Refusal(
            f"the bot cannot post in <#{target}> ({exc}): let it view that channel, send "
            "messages and embed links there, then run this again"
        ) from None


async def _tell(bot: Discord, call: Call, was: Channel, now: Channel) -> str:
    """Tell the channel that its set-up changed, and the previous GM in their GM
    channel; what the caller is told of a notice that could not be posted."""
    if (was.gm_user, was.gm_channel, was.room) == (now.gm_user, now.gm_channel, now.room):
        return ""
    changes = []
    if was.room != now.room:
        changes.append(
            f"rolls here now go to room {now.room} ({bot.room_url(call, now.room, True)})"
            if now.room
            else "rolls here are no longer logged to a room"
        )
    if was.gm_user != now.gm_user:
        changes.append(f"its GM is now <@{now.gm_user}>")
    if was.gm_channel != now.gm_channel:
        changes.append(
            f"blind and secret rolls now go to <#{now.gm_channel}>"
            if now.gm_channel
            else "blind and secret rolls wait until the GM chooses a GM channel"
        )
    what = "; ".join(changes)
    posts = [(call.channel, f"referee: <@{call.user}> changed this channel's set-up: {what}.")]
    if was.gm_channel:
        posts.append(
            (
                was.gm_channel,
                f"referee: <@{call.user}> changed the set-up of <#{call.channel}>, where "
                f"<@{was.gm_user}> was GM: {what}.",
            )
        )
    got = await asyncio.gather(
        *(bot.rest.post(where, message(text)) for where, text in posts), return_exceptions=True
    )
    failed = [f"<#{where}> ({exc})" for (where, _), exc in zip(posts, got, strict=True) if exc]
    for exc in got:
        if isinstance(exc, BaseException) and not isinstance(exc, RestError):
            raise exc
    return f" (the notice could not be posted in {', '.join(failed)})" if failed else ""
