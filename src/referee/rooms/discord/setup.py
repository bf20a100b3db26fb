"""Setting a channel up: ``/referee link|unlink|gm-channel|reveal|page|status``,
``/seed`` and ``/sheet``; and the autocomplete of trait and weapon names from the
caller's sheet. Who may change a channel's link and GM channel: :mod:`.linking`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..errors import ApiError
from ..service import LOGIN_SECONDS, SEED, add_seed, reveal_roll
from .rolling import room_embed

if TYPE_CHECKING:
    from .interactions import Discord

import time

from ..log import view
from . import characters, fightroom, linking
from .calls import Call, Done, Refusal
from .members import member_of, missed_note
from .replies import message, note
from .slash import option_values
from .store import Channel

__all__ = ["HANDLERS"]


def _options(call: Call) -> dict[str, Any]:
    return {str(o.get("name")): o.get("value") for o in option_values(call.data)}


def _sub(call: Call) -> str:
    options = call.data.get("options") or [{}]
    return str(options[0].get("name", ""))


def _now(text: str) -> Done:
    return Done(note(text))


def _private(call: Call) -> bool:
    """Every answer of these commands is ephemeral, but a reveal's (to the channel)."""
    return not (call.data.get("name") == "referee" and _sub(call) == "reveal")


async def referee(bot: Discord, call: Call) -> Done:

    sub = _sub(call)
    options = _options(call)
    channel = await bot.store.channel(call.channel, now=True)  # who may change it: now
    if sub == "status":
        return _now(await _status(bot, call, channel))
    if sub == "gm-channel":
        return await linking.gm_channel(bot, call, channel, options)
    if sub == "link":
        return await linking.link(bot, call, channel, options)
    if sub == "unlink":
        return await linking.unlink(bot, call, channel, options)
    if sub == "page":
        return _now(await _page(bot, call, channel))
    if channel.gm_user != call.user:
        raise Refusal(f"only this channel's GM may /referee {sub}")
    if sub == "reveal":
        number = options.get("roll")
        if not isinstance(number, int) or isinstance(number, bool) or not 0 <= number < 2**53:
            raise Refusal("give the secret roll's number: /referee reveal roll:12")
        return await _reveal(bot, call, channel, number)
    raise Refusal(f"/referee has no {sub!r}")


async def _status(bot: Discord, call: Call, channel: Channel) -> str:
    public = channel.gm_user != call.user  # a player's answer: no link to this computer
    lines = [
        f"Room: {channel.room} ({bot.room_url(call, channel.room, public)})"
        if channel.room
        else "Room: none, rolls here are not logged (/referee link)",
        f"GM: <@{channel.gm_user}>" if channel.gm_user else "GM: none yet (/referee gm-channel)",
        f"GM channel: <#{channel.gm_channel}>" if channel.gm_channel else "GM channel: none",
    ]
    sheet = await characters.sheet_of(bot, call, channel)
    lines.append(f"Your character: {sheet.name}" if sheet else "Your character: none (/sheet)")
    if channel.gm_user == call.user:
        lines.append(await missed_note(bot, call) or "Every roll reached your GM channel.")
    return "\n".join(lines)


async def _page(bot: Discord, call: Call, channel: Channel) -> str:
    """A one-time link to the room's page as the caller's member: there they see the
    log as the API shows it to them, send their seed, and export the log to verify."""
    if not channel.room:
        raise Refusal("this channel has no room: a GM links one with /referee link")
    if not call.base_url:
        raise Refusal(
            "this bot serves no room pages (referee discord run --no-serve, and no "
            "REFEREE_PUBLIC_URL): the room's log is kept all the same, and its GM can "
            "export it"
        )
    member = await member_of(bot, channel.room, call)
    assert member is not None
    code = await bot.st.store.add_login(channel.room, member.id, time.time() + LOGIN_SECONDS)
    url = f"{call.base_url.rstrip('/')}/rooms/{channel.room}/enter?code={code}"
    where = ""
    if bot.local_pages and channel.gm_user != call.user:
        where = (
            ". The pages are served on the GM's own computer only, so it opens there "
            "alone (the GM can give them an address others reach: REFEREE_PUBLIC_URL)"
        )
    signer = bot.st.store.signer  # contract v1.5: the key that signs the room's log
    signed = f"; the server signs its log with key {signer.fingerprint}" if signer else ""
    return (
        f"Your link to room {channel.room}'s page, as {member.name} (it works once, for "
        f"{LOGIN_SECONDS // 60} minutes; keep it to yourself{signed}){where}: {url}"
    )


async def _reveal(bot: Discord, call: Call, channel: Channel, number: int) -> Done:
    if channel.room:
        member = await member_of(bot, channel.room, call)
        assert member is not None
        _entry, target = await reveal_roll(bot.st, channel.room, member, number)
        shown = room_embed(bot, call, target, "", {number}, public=True)  # as anyone sees it
        assert shown is not None
        return Done(message(f"Revealed: roll #{number}", [shown]))
    found = await bot.store.take_secret(call.channel, number, call.user)
    if found is None:
        raise Refusal(f"no secret roll #{number} of yours in this channel to reveal")
    return Done(found)


async def seed(bot: Discord, call: Call) -> Done:

    channel = await bot.store.channel(call.channel)
    if not channel.room:
        raise Refusal("this channel has no room: a seed mixes into a room's rolls")
    value = _options(call).get("seed")
    if not isinstance(value, str) or not SEED.fullmatch(value):
        raise Refusal("a client seed is 16 to 128 printable ASCII characters")
    member = await member_of(bot, channel.room, call)
    assert member is not None
    try:
        made = await add_seed(bot.st, channel.room, member, value)
    except ApiError as exc:
        if exc.status == 403:
            raise Refusal(exc.message) from None
        raise
    last = view(made[-1], member.id)
    return _now(f"Your seed is in: it mixes into your rolls from epoch {last.get('epoch')} on.")


HANDLERS: dict[str, tuple[Callable[[Discord, Call], Awaitable[Done]], Callable[[Call], bool]]] = {
    "referee": (referee, _private),
    "seed": (seed, _private),
    "sheet": (characters.sheet, _private),
    "fight": (fightroom.fight, fightroom.private),
}
"""The commands of the front end itself, with whether each answer is ephemeral; every
other name is a rolling command (:mod:`.rolling`)."""
