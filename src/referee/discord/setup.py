"""Setting a channel up: ``/referee link|unlink|gm-channel|reveal|status``, ``/seed``
and ``/sheet``; and the autocomplete of trait and weapon names from the caller's sheet.

A channel's GM is the Discord user who linked it to a room (with the room's GM token),
or who ran ``/referee gm-channel`` there first; ``gm-channel`` by a new GM needs the
Manage Channels permission in the channel (Discord sends the caller's permissions
with each interaction).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .interactions import Discord

from .calls import Call, Done, Refusal
from .replies import message, note
from .slash import option_values
from .store import Channel

__all__ = ["HANDLERS", "complete"]

MANAGE_CHANNELS, ADMINISTRATOR = 1 << 4, 1 << 3


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
    channel = await bot.store.channel(call.channel)
    if sub == "status":
        return _now(await _status(bot, call, channel))
    if sub == "gm-channel":
        target = options.get("channel")
        if not isinstance(target, str) or not target.isdigit() or len(target) > 20:
            raise Refusal("name a channel: /referee gm-channel channel:#gm-notes")
        if target == call.channel:
            raise Refusal("the GM's channel is another one, private: here everyone would see")
        if channel.room and channel.gm_user != call.user:
            raise Refusal(
                f"this channel rolls into room {channel.room}: its GM is whoever linked it "
                "with the room's GM token (/referee link), and only they set the GM channel"
            )
        admin = bool(call.permissions & ADMINISTRATOR)
        if channel.gm_user not in (None, call.user) and not admin:
            raise Refusal(
                f"this channel's GM is <@{channel.gm_user}>: only they change it "
                "(or a server administrator, or whoever links it with the room's GM token)"
            )
        if channel.gm_user is None and not call.permissions & (MANAGE_CHANNELS | ADMINISTRATOR):
            raise Refusal("to become this channel's GM you need the Manage Channels permission")
        await bot.store.set_channel(Channel(call.channel, call.user, target, channel.room))
        return _now(
            f"You are this channel's GM: blind and secret rolls go to <#{target}>. "
            "Keep that channel private, and let the bot see it and send messages with "
            "embeds there."
        )
    if sub == "link":
        return _now(await _link(bot, call, channel, options))
    if sub == "page":
        return _now(await _page(bot, call, channel))
    if channel.gm_user != call.user:
        raise Refusal(f"only this channel's GM may /referee {sub}")
    if sub == "unlink":
        await bot.store.set_channel(Channel(call.channel, call.user, channel.gm_channel, None))
        return _now("This channel's rolls are no longer logged to a room.")
    if sub == "reveal":
        number = options.get("roll")
        if not isinstance(number, int) or isinstance(number, bool) or not 0 <= number < 2**53:
            raise Refusal("give the secret roll's number: /referee reveal roll:12")
        return await _reveal(bot, call, channel, number)
    raise Refusal(f"/referee has no {sub!r}")


async def _status(bot: Discord, call: Call, channel: Channel) -> str:
    lines = [
        f"Room: {channel.room} ({bot.room_url(call, channel.room)})"
        if channel.room
        else "Room: none, rolls here are not logged (/referee link)",
        f"GM: <@{channel.gm_user}>" if channel.gm_user else "GM: none yet (/referee gm-channel)",
        f"GM channel: <#{channel.gm_channel}>" if channel.gm_channel else "GM channel: none",
    ]
    sheet = await _sheet_of(bot, call, channel)
    lines.append(f"Your character: {sheet.name}" if sheet else "Your character: none (/sheet)")
    return "\n".join(lines)


async def _link(bot: Discord, call: Call, channel: Channel, options: Mapping[str, Any]) -> str:
    """Link the channel to a room: the room's GM token proves the caller its GM (and
    makes them the channel's GM, whoever was before)."""
    from ..rooms.errors import ApiError
    from ..rooms.routes.api import authenticate, writable

    room, token = options.get("room"), options.get("token")
    if not isinstance(room, str) or not isinstance(token, str):
        raise Refusal("give the room and its GM token: /referee link room:ID token:TOKEN")
    try:  # as the API checks a token, unknown tokens and rooms counted against the user
        member = await authenticate(bot.st, room, token, f"discord:{call.user}")
    except ApiError as exc:
        raise Refusal(f"that is not the GM's token of room {room[:64]!r} ({exc.message})") from None
    if not member.is_gm:
        raise Refusal(f"that is not the GM's token of room {room[:64]!r}")
    await writable(bot.st, room)
    await bot.store.set_member(room, call.user, member.id)
    # A GM channel chosen by someone else goes: it may be a player's.
    kept = channel.gm_channel if channel.gm_user == call.user else None
    await bot.store.set_channel(Channel(call.channel, call.user, kept, room))
    then = "" if kept else " Now choose your GM channel: /referee gm-channel."
    return (
        f"This channel now rolls into room {room}, and you are its GM here: every roll is "
        f"logged, and each player is a member. The log: {bot.room_url(call, room)}.{then}"
    )


async def _page(bot: Discord, call: Call, channel: Channel) -> str:
    """A one-time link to the room's page as the caller's member: there they see the
    log as the API shows it to them, send their seed, and export the log to verify."""
    import time

    from ..rooms.routes.api import LOGIN_SECONDS
    from .rolling import member_of

    if not channel.room:
        raise Refusal("this channel has no room: a GM links one with /referee link")
    member = await member_of(bot, channel.room, call)
    assert member is not None
    code = await bot.st.store.add_login(channel.room, member.id, time.time() + LOGIN_SECONDS)
    url = f"{call.base_url.rstrip('/')}/rooms/{channel.room}/enter?code={code}"
    return (
        f"Your link to room {channel.room}'s page, as {member.name} (it works once, for "
        f"{LOGIN_SECONDS // 60} minutes; keep it to yourself): {url}"
    )


async def _reveal(bot: Discord, call: Call, channel: Channel, number: int) -> Done:
    if channel.room:
        from ..rooms.routes.api import reveal_roll
        from .rolling import member_of, room_embed

        member = await member_of(bot, channel.room, call)
        assert member is not None
        _entry, target = await reveal_roll(bot.st, channel.room, member, number)
        shown = room_embed(bot, call, target, "", revealed={number})  # as anyone sees it now
        assert shown is not None
        return Done(message(f"Revealed: roll #{number}", [shown]))
    found = await bot.store.take_secret(call.channel, number, call.user)
    if found is None:
        raise Refusal(f"no secret roll #{number} of yours in this channel to reveal")
    return Done(found)


async def seed(bot: Discord, call: Call) -> Done:
    from ..rooms.log import view
    from ..rooms.routes.api import SEED, conflicts, writable
    from .rolling import member_of

    channel = await bot.store.channel(call.channel)
    if not channel.room:
        raise Refusal("this channel has no room: a seed mixes into a room's rolls")
    value = _options(call).get("seed")
    if not isinstance(value, str) or not SEED.fullmatch(value):
        raise Refusal("a client seed is 16 to 128 printable ASCII characters")
    member = await member_of(bot, channel.room, call)
    assert member is not None
    if member.is_gm:
        raise Refusal("only players send client seeds")
    await writable(bot.st, channel.room)
    made = await conflicts(bot.st.store.add_seed(channel.room, member.id, value))
    for entry in made:
        bot.st.published(channel.room, entry)
    last = view(made[-1], member.id)
    return _now(f"Your seed is in: it mixes into your rolls from epoch {last.get('epoch')} on.")


MAX_SHEET = 1024 * 1024
"""A sheet's largest file (1 MiB), as the rooms take."""


async def sheet(bot: Discord, call: Call) -> Done:
    attachment_id = _options(call).get("file")
    attachments = (call.data.get("resolved") or {}).get("attachments") or {}
    if not isinstance(attachments, dict):
        attachments = {}
    found = attachments.get(attachment_id) if isinstance(attachment_id, str) else None
    if not isinstance(found, dict) or not isinstance(found.get("url"), str):
        raise Refusal("attach the sheet file: /sheet file:(your .gcs or .toml)")
    size = found.get("size")
    if not isinstance(size, int) or size > MAX_SHEET:
        raise Refusal("the sheet is over 1 MiB: a sheet file is 1 MiB at most")
    if not bot.rest.allowed(found["url"]):
        raise Refusal("the file is not on Discord's attachment hosts")
    return await _load(bot, call, found["url"])


async def _load(bot: Discord, call: Call, url: str) -> Done:
    body = await bot.rest.attachment(url, MAX_SHEET)
    sha = hashlib.sha256(body).hexdigest()
    read = await bot.sheet(sha, body)
    channel = await bot.store.channel(call.channel)
    if channel.room:
        from ..rooms.routes.characters import store_sheet
        from .rolling import member_of

        member = await member_of(bot, channel.room, call)
        assert member is not None
        name = re.sub(r"[^A-Za-z0-9_-]+", "-", read.name).strip("-")[:40] or "sheet"
        rows = await bot.st.sheets.of(bot.st, channel.room)
        taken = rows.get(name)
        if taken is not None and taken.owner != member.id:
            raise Refusal(
                f"room {channel.room} has a sheet @{name} already, another member's: "
                "rename your character to load it"
            )
        own = sorted(r.sheet for r in rows.values() if r.owner == member.id and r.sheet != name)
        if own and not member.is_gm:
            raise Refusal(
                f"you play @{own[0]} in room {channel.room}: load a new version of that "
                "character (the same name), or play another from the room's page"
            )
        await store_sheet(bot.st, channel.room, member, name, body)
        where = f"in room {channel.room}, as @{name}"
    else:
        await bot.store.set_sheet(call.channel, call.user, sha, body)
        where = "in this channel"
    return Done(note(f"Loaded {read.name} ({read.system}) {where}: your rolls use its numbers."))


async def _sheet_of(bot: Discord, call: Call, channel: Channel) -> Any:
    """The caller's sheet here, read, or None (a linked room's: their only one)."""
    if channel.room:
        from .rolling import member_of

        member = await member_of(bot, channel.room, call, join=False)
        if member is None:
            return None
        rows = await bot.st.sheets.of(bot.st, channel.room)
        own = [r for r in rows.values() if r.owner == member.id]
        if len(own) != 1:
            return None
        return await bot.st.sheets.sheet(bot.st, channel.room, own[0])
    found = await bot.store.sheet(call.channel, call.user)
    return None if found is None else await bot.sheet(*found)


async def complete(bot: Discord, call: Call) -> list[dict[str, str]]:
    """Autocomplete choices for the focused option: the caller's trait and weapon names
    that contain what is typed so far (25 at most)."""
    focused = next((o for o in option_values(call.data) if o.get("focused")), None)
    if focused is None:
        return []
    typed = str(focused.get("value") or "")[:100]
    channel = await bot.store.channel(call.channel)
    read = await _sheet_of(bot, call, channel)
    if read is None:
        return []
    names: list[str] = []
    for attack in read.attacks:
        names.append(f"{attack.name} ({attack.usage})" if attack.usage else attack.name)
    if focused.get("name") != "weapon":  # an attack is by weapon; a check by any trait
        for trait in read.traits:
            spec = trait.specialization
            names.append(f"{trait.name} ({spec})" if spec else trait.name)
    # What follows the name (a modifier: "Stealth -2") is kept after each choice.
    head, _, tail = _split(typed)
    seen: dict[str, None] = {}
    for name in names:
        choice = f"{name} {tail}".strip() if tail else name
        if head.lower() in name.lower() and len(seen) < 25 and len(choice) <= 100:
            seen[choice] = None
    return [{"name": n, "value": n} for n in seen]


def _split(typed: str) -> tuple[str, str, str]:
    """``("Stealth", " ", "-2")`` from ``"Stealth -2"``: the name typed, and what follows.

    >>> _split("Stea -2")
    ('Stea', ' ', '-2')
    >>> _split("Broadsword (Swung)")
    ('Broadsword (Swung)', '', '')
    """
    found = re.search(r"\s+([+-]\d.*)$", typed)
    if found is None:
        return typed.strip(), "", ""
    return typed[: found.start()].strip(), " ", found[1].strip()


HANDLERS: dict[str, tuple[Callable[[Discord, Call], Awaitable[Done]], Callable[[Call], bool]]] = {
    "referee": (referee, _private),
    "seed": (seed, _private),
    "sheet": (sheet, _private),
}
"""The commands of the front end itself, with whether each answer is ephemeral; every
other name is a rolling command (:mod:`.rolling`)."""
