"""Rolling from Discord: ``/roll``, ``/odds`` and every system command.

Who sees what (the seeds' "the GM rolls in secret"):

* ``public``: the channel sees the result.
* ``secret``, by the channel's GM: an ephemeral reply, only the GM sees it; by a
  player: the player (ephemeral) and the GM's channel.
* ``blind``, by a player: the player gets "rolled blind" (the same words whatever
  the dice), the result goes to the GM's channel through the bot's REST call. The
  GM's own blind roll is a secret one.

A channel linked to a room rolls through the room's own path (:func:`.api.roll_entry`,
the member the Discord user is), so the roll is logged, proven and shown through the
same views as the API's; a channel with no room rolls on the system's secure source,
unlogged, and each reply says so. Either way the command is read by the rooms' reader,
off the event loop, under the shared table's caps.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection
from typing import TYPE_CHECKING, Any, Literal

from ...errors import RefereeError
from ...rng import RecordingSource, default_source
from ..errors import ApiError
from ..log import outcome, view
from ..rolling.reading import room_limits
from ..rolling.rollas import resolve_as
from ..service import roll_entry
from .calls import Call, Done, Refusal
from .characters import carried, named_sheet, sheet_of
from .members import member_of, missed_note
from .replies import blind_note, embed, message, note
from .rest import RestError
from .simulating import asks_simulation, simulate
from .slash import command_line
from .store import Channel

if TYPE_CHECKING:
    from .interactions import Discord

__all__ = ["roll"]

log = logging.getLogger(__name__)

ROOM_VISIBILITY: dict[str, Literal["public", "gm", "blind"]] = {
    "public": "public",
    "secret": "gm",
    "blind": "blind",
}
UNLOGGED = "No room: this roll is not logged (a GM links one with /referee link)"


def private(call: Call) -> bool:
    """Whether the reply is ephemeral: any roll that is not public (from the options),
    and a simulation (:mod:`.simulating`)."""
    if asks_simulation(call.data):
        return True
    return command_line(call.data).visibility != "public"


async def roll(bot: Discord, call: Call) -> Done:
    """A rolling command, or an odds one (which rolls nothing), or a simulation."""
    if asks_simulation(call.data):
        return await simulate(bot, call)
    try:
        return await _roll(bot, call)
    except ApiError as exc:
        raise _no_sheet(exc.message) or exc from None
    except RefereeError as exc:
        raise _no_sheet(str(exc)) or exc from None


async def _roll(bot: Discord, call: Call) -> Done:
    asked = command_line(call.data)
    visibility = asked.visibility
    if asked.line.startswith("odds "):
        return await _odds(bot, asked.line, visibility != "public")
    # Where a secret goes is read as the database has it now (another server's change
    # of GM shows at once); a public roll may use this server's read of 2 seconds ago.
    channel = await bot.store.channel(call.channel, now=visibility != "public")
    if asked.odds:
        line = asked.line.replace(" odds ", " ", 1)
        line = await _with_sheet(bot, call, channel, line, asked.sheet)
        system, rest = line.split(" ", 1)
        return await _odds(bot, f"{system} odds {rest}", visibility != "public")
    is_gm = channel.gm_user == call.user
    if visibility == "blind" and is_gm:
        visibility = "secret"
    if visibility != "public" and not is_gm:
        if channel.gm_user is None or channel.gm_channel is None:
            raise Refusal(
                f"a {visibility} roll goes to the GM, and this channel has none yet: "
                "the GM runs /referee gm-channel"
            )
        if bot.rest.token is None:
            raise Refusal(
                "this server has no bot token (REFEREE_DISCORD_TOKEN): "
                f"a {visibility} roll cannot reach the GM"
            )
    work = _in_room if channel.room else _unlogged
    # Made as a sheet (@NAME first), as a room's command is: the room's rules decide.
    line = f"@{asked.sheet} {asked.line}" if asked.sheet else asked.line
    done = await work(bot, call, channel, line, visibility, is_gm)
    if is_gm:  # told once, after the reply: players' rolls that missed the GM channel
        done.after.append(lambda: _tell_missed(bot, call))
    return done


NO_SHEET = "there is no sheet to read it from"


def _no_sheet(why: str) -> Refusal | None:
    """A trait named with no sheet loaded: the error says where a sheet comes from."""
    if NO_SHEET not in why:
        return None
    return Refusal(f"{why}: load your character here with /sheet")


async def _tell_missed(bot: Discord, call: Call) -> None:
    told = await missed_note(bot, call, untold=True)
    if told:
        await bot.rest.follow_up(call.application, call.token, note(told))


async def _with_sheet(
    bot: Discord, call: Call, channel: Channel, line: str, named: str | None = None
) -> str:
    """``line`` as the caller's character here rolls it (their sheet, loaded in this
    channel or in its room, or the sheet ``named``); ``line`` itself without one."""
    if not channel.room:
        return await _resolved(bot, call, line, channel, named)
    if named is not None:
        sheet = await named_sheet(bot, call, channel, named)
        limits = room_limits(bot.st.limits.draws)
        return (await asyncio.to_thread(resolve_as, line, sheet, limits, {}))[1]
    sheet = await sheet_of(bot, call, channel)
    if sheet is None:
        member = await member_of(bot, channel.room, call, join=False)
        if member is None or not await carried(bot, call, channel.room, member):
            return line
        sheet = await sheet_of(bot, call, channel)
    limits = room_limits(bot.st.limits.draws)
    return (await asyncio.to_thread(resolve_as, line, sheet, limits, {}))[1]


async def _odds(bot: Discord, line: str, ephemeral: bool) -> Done:
    limits = bot.st.limits
    shown, plan = await bot.odds.read(line, limits.draws, limits.read_seconds)

    reply = plan(default_source())  # draws nothing: the odds were computed when read
    return Done(message(embeds=[embed(shown, reply.text, reply.data)], ephemeral=ephemeral))


async def _resolved(
    bot: Discord, call: Call, line: str, channel: Channel, named: str | None = None
) -> str:
    """``line`` as the caller's character rolls it (or the sheet ``named``, if they
    may roll as it), in a channel with no room."""
    limits = room_limits(bot.st.limits.draws)
    if named is not None:
        sheet = await named_sheet(bot, call, channel, named)
        return (await asyncio.to_thread(resolve_as, line, sheet, limits, {}))[1]
    found = await bot.store.sheet(call.channel, call.user)
    if found is None:
        return line
    sha, body = found
    key = (sha, line)
    done: str | None = bot.resolved.get(key)
    if done is None:
        sheet = await bot.sheet(sha, body)
        done = (await asyncio.to_thread(resolve_as, line, sheet, limits, {}))[1]
        bot.resolved.keep(key, done)
    return done


async def _unlogged(
    bot: Discord, call: Call, channel: Channel, line: str, visibility: str, is_gm: bool
) -> Done:

    limits = bot.st.limits
    named = None
    if line.startswith("@"):  # made as a sheet: @NAME, then the roll
        named, _, bare = line[1:].partition(" ")
    resolved = await _resolved(bot, call, bare if named else line, channel, named)
    _shown, plan = await bot.st.plans.read(resolved, limits.draws, limits.read_seconds)
    recorder = RecordingSource(default_source())
    result, text, _refused = outcome(plan, recorder)
    draws = [list(d) for d in recorder.draws]
    whole = embed(line, text, result, draws, UNLOGGED)
    if visibility == "public":
        return Done(message(embeds=[whole]))
    gm = channel.gm_user if not is_gm else call.user
    assert gm is not None
    number = await bot.store.keep_secret(
        call.channel, gm, message(f"Revealed: {call.name}'s secret roll", [whole])
    )
    return await _secret(bot, call, channel, whole, f"#{number}", visibility, is_gm)


async def _secret(
    bot: Discord,
    call: Call,
    channel: Channel,
    whole: dict[str, Any],
    number: str,
    visibility: str,
    is_gm: bool,
    mine: dict[str, Any] | None = None,
) -> Done:
    """The replies of a secret or blind roll: to its roller ``mine`` (the roll as they
    may see it; ``whole`` by default), and ``whole`` to the GM's channel. A player's is
    posted to the GM's channel before the player is answered, so that the one answer
    says whether the GM got it (the same words whatever the dice)."""
    mine = whole if mine is None else mine
    if is_gm:
        return Done(
            message(
                f"Secret roll {number}: only you see it (/referee reveal roll:{number[1:]} "
                "shows it to the channel).",
                [mine],
                ephemeral=True,
            )
        )
    gm_channel, gm = channel.gm_channel, channel.gm_user
    assert gm_channel is not None and gm is not None
    kind = "blind" if visibility == "blind" else "secret"
    to_gm = message(f"{call.name}'s {kind} roll {number} in <#{call.channel}>", [whole])
    try:
        await bot.rest.post(gm_channel, to_gm)
    except RestError as exc:  # the roller is told now, the GM until they fix it
        log.warning("referee discord: %s", exc)
        await bot.store.missed(call.channel, gm, f"{number} ({call.name}, {kind})", str(exc))
        missed = (
            f"⚠ The GM did not get your {kind} roll {number}: the bot could not post in "
            f"their GM channel ({exc}). Tell your GM; their /referee status names it "
            "until they fix it."
        )
        if visibility == "blind":
            return Done(note(missed))
        return Done(message(missed, [mine], True))
    if visibility == "blind":
        return Done(blind_note(number))
    return Done(message(f"Secret roll {number}: you and the GM see it.", [mine], True))


async def _in_room(
    bot: Discord, call: Call, channel: Channel, line: str, visibility: str, is_gm: bool
) -> Done:
    room = channel.room
    assert room is not None
    member = await member_of(bot, room, call)
    assert member is not None
    asked = ROOM_VISIBILITY[visibility]
    try:
        entry = await roll_entry(bot.st, room, member, line, asked)
    except ApiError as exc:  # (refused before any die: nothing was drawn or logged)
        if NO_SHEET not in exc.message or not await carried(bot, call, room, member):
            raise
        entry = await roll_entry(bot.st, room, member, line, asked)
    # Every reply shows the entry as :func:`.log.view` lets its reader see it.
    # (a player's own copy is a player's too: no link to a page on the GM's computer)
    mine = room_embed(bot, call, entry, member.id, public=visibility == "public" or not is_gm)
    if visibility == "public":
        assert mine is not None
        return Done(message(embeds=[mine]))
    gms = room_embed(bot, call, entry, "gm")
    assert gms is not None
    if visibility == "blind":
        assert mine is None  # the roller sees it redacted: "rolled blind"
    return await _secret(bot, call, channel, gms, f"#{entry['seq']}", visibility, is_gm, mine)


def room_embed(
    bot: Discord,
    call: Call,
    entry: dict[str, Any],
    reader: str,
    revealed: Collection[int] = (),
    public: bool = False,
) -> dict[str, Any] | None:
    """A room's roll entry as ``reader`` may see it (:func:`.log.view`), with where its
    log is (a link, unless ``public`` and the pages are this computer's only); None
    when they see it redacted."""
    seen = view(entry, reader, revealed)
    if seen.get("redacted"):
        return None
    room, seq = seen["room"], seen["seq"]
    url = bot.room_url(call, room, public)
    where = f": {url}" if url.startswith("http") else ""
    footer = f"Room {room}, entry {seq}, logged{where} (check it with referee verify)"
    return embed(seen["command"], seen["text"], seen.get("result"), seen["draws"], footer)
