"""Characters on Discord: ``/sheet`` (a GCS or TOML sheet attached), the caller's
sheet in a channel or its room, and the autocomplete of trait and weapon names."""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING, Any

from ..db.store import Member
from ..errors import ApiError
from ..service import Guardian, readable_sheet, store_sheet, writable
from .attachments import refuse_unless_text
from .calls import Call, Done, Refusal
from .members import member_of
from .replies import note
from .slash import option_values
from .slash import shown_value as _shown
from .store import Channel

if TYPE_CHECKING:
    from ...sheets import Sheet
    from .interactions import Discord

__all__ = [
    "MAX_SHEET",
    "carried",
    "complete",
    "named_sheet",
    "sheet",
    "sheet_name",
    "sheet_of",
    "to_room",
]


MAX_SHEET = 1024 * 1024
"""A sheet's largest file (1 MiB), as the rooms take."""


async def sheet(bot: Discord, call: Call) -> Done:
    """``/sheet file:``: the attachment checked (what Discord sends, its host, its size),
    and in a linked channel the caller's membership, before any byte is fetched."""
    attachment_id = next((o.get("value") for o in option_values(call.data)
                          if o.get("name") == "file"), None)  # fmt: skip
    if attachment_id is not None and not isinstance(attachment_id, str):
        raise Refusal(f"option 'file' is {_shown(attachment_id)}: it is an attachment's id")
    attachments = (call.data.get("resolved") or {}).get("attachments") or {}
    if not isinstance(attachments, dict):
        attachments = {}
    found = attachments.get(attachment_id) if isinstance(attachment_id, str) else None
    if not isinstance(found, dict) or not isinstance(found.get("url"), str):
        raise Refusal("attach the sheet file: /sheet file:(your .gcs or .toml)")
    size = found.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise Refusal(f"the attachment's size is {_shown(size)}: not a number of bytes")
    if size > MAX_SHEET:
        raise Refusal("the sheet is over 1 MiB: a sheet file is 1 MiB at most")
    refuse_unless_text(found)
    if not bot.rest.allowed(found["url"]):
        raise Refusal("the file is not on Discord's attachment hosts")
    channel = await bot.store.channel(call.channel)
    member = None
    if channel.room:  # a removed member is refused here, before the download
        member = await member_of(bot, channel.room, call)
        await writable(bot.st, channel.room)
    body = await bot.rest.attachment(found["url"], MAX_SHEET)
    sha = hashlib.sha256(body).hexdigest()
    read = await bot.sheet(sha, body)
    if channel.room:
        assert member is not None
        name = await to_room(bot, channel.room, member, body, read)
        where = f"in room {channel.room}, as @{name}"
    else:
        await bot.store.set_sheet(call.channel, call.user, sha, body)
        where = "in this channel"
    return Done(note(f"Loaded {read.name} ({read.system}) {where}: your rolls use its numbers."))


def sheet_name(read: Sheet) -> str:
    """The name a character goes by in a room (``@Dai-Blackthorn``)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", read.name).strip("-")[:40] or "sheet"


async def named_sheet(bot: Discord, call: Call, channel: Channel, name: str) -> Sheet:
    """The sheet ``@name`` that the caller rolls as, if they may: in a linked channel,
    as the room's service decides (a player her own sheets, the GM any); in a channel
    with no room, by the same rule (:class:`..service.Guardian`), among the sheets
    loaded there, the channel's GM standing for the room's.

    Raises:
        Refusal: no such sheet here, or another player's.
        ApiError: the room's refusal, in a linked channel.
    """
    if channel.room:
        member = await member_of(bot, channel.room, call)
        assert member is not None
        read: Sheet = await readable_sheet(bot.st, channel.room, member, name)
        return read
    found: dict[str, tuple[str, Sheet]] = {}
    for user, sha, body in await bot.store.sheets(call.channel):
        read = await bot.sheet(sha, body)
        found.setdefault(sheet_name(read), (user, read))

    def as_member(user: str) -> str:
        return "gm" if user == channel.gm_user else f"p:{user}"

    owner, mine = found.get(name, (None, None))
    try:
        Guardian(Member("", as_member(call.user), call.name)).ensure_reads_sheet(
            None if owner is None else as_member(owner), name
        )
    except ApiError as exc:
        if exc.status == 403:
            raise Refusal(f"@{name} is another player's character: you roll as your own") from None
        raise Refusal(f"no character @{name} in this channel (/sheet loads yours)") from None
    assert mine is not None
    return mine


async def to_room(bot: Discord, room: str, member: Member, body: bytes, read: Sheet) -> str:
    """Put a sheet in ``room`` as ``member``'s character: its name there."""
    name = sheet_name(read)
    rows = await bot.st.sheets.of(bot.st, room)
    taken = rows.get(name)
    if taken is not None and taken.owner != member.id:
        raise Refusal(
            f"room {room} has a sheet @{name} already, another member's: "
            "rename your character to load it"
        )
    own = sorted(r.sheet for r in rows.values() if r.owner == member.id and r.sheet != name)
    if own and not member.is_gm:
        raise Refusal(
            f"you play @{own[0]} in room {room}: load a new version of that "
            "character (the same name), or play another from the room's page"
        )
    await store_sheet(bot.st, room, member, name, body)
    return name


async def carried(bot: Discord, call: Call, room: str, member: Member) -> bool:
    """Put the sheet the caller loaded in this channel before it was linked into its
    room, if they have none there yet: whether one was."""
    found = await bot.store.sheet(call.channel, call.user)
    if found is None:
        return False
    rows = await bot.st.sheets.of(bot.st, room)
    if any(r.owner == member.id for r in rows.values()):
        return False
    sha, body = found
    await to_room(bot, room, member, body, await bot.sheet(sha, body))
    return True


async def sheet_of(bot: Discord, call: Call, channel: Channel) -> Any:
    """The caller's sheet here, read, or None (a linked room's: their only one)."""
    if channel.room:
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


_NAMED = re.compile(r"\s*@([A-Za-z0-9_-]{1,40})\s+")
"""A sheet named first in what is typed (``@Dai-Blackthorn St``)."""


async def complete(bot: Discord, call: Call) -> list[dict[str, str]]:
    """Autocomplete choices for the focused option: the caller's trait and weapon names
    that contain what is typed so far (25 at most); after ``@NAME``, those of the sheet
    named, if the caller may roll as it (a player her own, the GM any), each choice
    keeping ``@NAME`` before it."""
    focused = next((o for o in option_values(call.data) if o.get("focused")), None)
    if focused is None:
        return []
    typed = str(focused.get("value") or "")[:100]
    channel = await bot.store.channel(call.channel)
    named = _NAMED.match(typed)
    prefix = ""
    if named:  # "@Dai-Blackthorn St": that sheet's names, if the caller may roll as it
        read = await named_sheet(bot, call, channel, named[1])
        prefix, typed = f"@{named[1]} ", typed[named.end() :]
    else:
        read = await sheet_of(bot, call, channel)
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
        choice = prefix + (f"{name} {tail}".strip() if tail else name)
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
