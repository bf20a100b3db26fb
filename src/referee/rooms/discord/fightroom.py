"""The room's fight on Discord (issue 72 §2; contract v1.5, "one fight, every front end"):
``/fight`` for the GM, one status message a fight, and buttons for every turn, defense and
call, in a channel linked to a room, for a group that never opens the page.

Every press is a member's action, as a click on the page is: it goes through the fight
service (:mod:`..service.fighting`), which decides who may take it and refuses with why
(ephemeral here); nothing is rolled for a refusal. A ``custom_id``, a button's label and
a select's option are public (every client in the channel receives them): they carry
combatant ids and call ids, which name a hidden NPC only by its opaque id, and only the
GM's ephemeral messages list a hidden NPC at all. What the channel reads is the fight as
a player sees it.

``custom_id``: ``rf:VERB:ARGS``: ``att:CID`` (a select whose value is ``TARGET|WEAPON``,
the weapon's index on the sheet), ``man:CID:I`` (a maneuver of
:data:`..service.fighting.turns.OTHER_MANEUVERS`), ``def:CALL:I`` (a defense choice),
``call:CALL`` (a call's roll), ``end:CID`` (end the turn), ``gm`` (the GM's controls),
``pg:CID:N`` (the attack list's page N).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..db.store import Member
from ..service import fighting
from ..service.fighting.turns import turn_of
from .calls import Call, Done, Refusal
from .fightposts import call_message, status_message, turn_message
from .replies import note

if TYPE_CHECKING:
    from .interactions import Discord

__all__ = ["FightDesk", "after", "fight", "follow", "private", "refresh", "settled"]

log = logging.getLogger(__name__)

REPLY, UPDATE = 4, 7
EPHEMERAL = 64
NOBODY = "p:~channel"
"""The member id the channel's public view is made as: a player who is no one, who sees
what every player sees."""
COALESCE = 0.4
"""Seconds a status edit waits for more changes (Discord limits a message's edits)."""


@dataclass
class Desk:
    """One channel's running fight on Discord (in this process)."""

    room: str
    status: str | None = None
    """The status message's id."""
    prompted: set[str] = field(default_factory=set)
    """The turns and calls already prompted (``turn:ROUND:CID``, ``call:ID``)."""
    secret: bool = True
    """The GM's NPCs roll in secret (the default, contract v1.4)."""
    editing: asyncio.Task[None] | None = None
    dirty: bool = False
    pending: asyncio.Future[None] | None = None
    """What a press does after it answers (the channel's prompts and status, a line for
    the channel): the next press of the channel waits for it (:func:`settled`)."""
    following: asyncio.Future[None] | None = None
    """A refresh for a change made elsewhere (the page), waiting for it to settle."""
    behind: bool = False
    """A change was made elsewhere that no refresh has read yet: set at each change, and
    cleared by :func:`follow` just before it reads, so that a change landing during a
    refresh gets one more (none is lost)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    """One refresh at a time: a prompt is posted once."""


class FightDesk:
    """Each channel's :class:`Desk`, in one bot."""

    def __init__(self) -> None:
        self.desks: dict[str, Desk] = {}

    def of(self, channel: str, room: str) -> Desk:
        desk = self.desks.get(channel)
        if desk is None or desk.room != room:
            desk = self.desks[channel] = Desk(room)
        return desk


def private(call: Call) -> bool:
    """Every /fight answer is ephemeral: what the channel sees is the status message."""
    return True


def _options(call: Call) -> tuple[str, dict[str, Any]]:
    options = call.data.get("options") or [{}]
    sub = options[0]
    values = {str(o.get("name")): o.get("value") for o in sub.get("options") or ()}
    return str(sub.get("name", "")), values


async def fight(bot: Discord, call: Call) -> Done:
    """``/fight SUB``: the GM's hand on the fight, and its status for anyone."""
    sub, options = _options(call)
    channel = await bot.store.channel(call.channel, now=True)
    if not channel.room:
        raise Refusal("this channel is linked to no room: /referee link it first")
    room = channel.room
    desk = bot.fight_desk.of(call.channel, room)
    await settled(desk)
    if sub == "status":
        desk.status = None
        await refresh(bot, call.channel, room)
        return Done(note("The fight's status is posted below."))
    if channel.gm_user != call.user:
        raise Refusal(f"only this channel's GM may /fight {sub}")
    gm = Member(room, "gm", "GM")
    st = bot.st
    said = ""
    if sub == "start":
        event: dict[str, Any] = {"kind": "start"}
        if options.get("sides"):
            event["group"] = True
        await fighting.event(st, room, gm, event)
        said = "The fight starts: the order is the rules' (initiative rolls are buttons)."
    elif sub == "add":
        said = await _add(bot, room, gm, options)
    elif sub in ("reveal", "remove"):
        cid = await _combatant(bot, room, str(options.get("who") or ""))
        await fighting.event(st, room, gm, {"kind": sub, "combatant": cid})
        said = f"{sub.title()}d."
    elif sub == "next":
        await fighting.event(st, room, gm, {"kind": "next"})
        said = "Next turn."
    elif sub == "end":
        bot.fight_desk.desks.pop(call.channel, None)
        return Done(note("The fight is no longer run in this channel; the room's log keeps it."))
    elif sub == "odds":
        got = await fighting.fight_odds(st, room, gm, 10_000, None)
        return Done(note(_odds_text(got)))
    elif sub == "settings":
        if isinstance(options.get("secret"), bool):
            desk.secret = options["secret"]
        if isinstance(options.get("gm-defends"), bool):
            await fighting.event(st, room, gm, {"kind": "defenses", "gm": options["gm-defends"]})
        said = f"Your NPCs roll {'in secret' if desk.secret else 'in public'}."
    else:
        raise Refusal(f"/fight has no {sub!r}")
    await refresh(bot, call.channel, room)
    return Done(note(said))


async def _add(bot: Discord, room: str, gm: Member, options: dict[str, Any]) -> str:
    """Add ``sheet`` (``@dai``) to the fight: a player's character once; the GM's NPC
    ``count`` times (``Orc 1``, ``Orc 2``...), hidden if asked."""
    name = str(options.get("sheet") or "").removeprefix("@")
    count = options.get("count") or 1
    hidden = options.get("hidden") is True
    rows = await bot.st.sheets.of(bot.st, room)
    row = rows.get(name)
    if row is None:
        raise Refusal(f"no sheet {name!r} in this room (/sheet loads one)")
    if row.owner != "gm" and (count != 1 or hidden):
        raise Refusal("a player's character joins once, in view: count and hidden are NPCs'")
    sheet = await bot.st.sheets.sheet(bot.st, room, row)
    for i in range(1, int(count) + 1):
        event: dict[str, Any] = {"kind": "add", "sheet": name}
        if hidden:
            event["hidden"] = True
        if count > 1:
            event["name"] = f"{sheet.name} {i}"
            if not hidden:
                event["combatant"] = f"{name}-{i}"
        await fighting.event(bot.st, room, gm, event)
    return (
        f"Added {sheet.name}"
        + (f" ×{count}" if count > 1 else "")
        + (" (hidden)." if hidden else ".")
    )


async def _combatant(bot: Discord, room: str, who: str) -> str:
    """A combatant's id from its id or its name (the GM's view)."""
    fight = await fighting.seen(bot.st, room, Member(room, "gm", "GM"))
    for c in fight["combatants"]:
        if who in (c["combatant"], c["name"]):
            return str(c["combatant"])
    raise Refusal(f"no combatant {who!r} in this fight")


def _odds_text(got: dict[str, Any]) -> str:
    h = got.get("headline") or {}
    wins = [f"{side} {float(p):.1%}" for side, p in (h.get("win") or {}).items()]
    rounds = h.get("rounds")
    tail = f"; {float(rounds):.1f} rounds on average" if rounds is not None else ""
    return "Odds from here: " + (", ".join(wins) or "no side can win") + tail


# --- The status message and the prompts -------------------------------------------------


def after(bot: Discord, channel: str, room: str, *steps: Callable[[], Awaitable[None]]) -> None:
    """Do ``steps`` once the press has answered (Discord waits for no post of ours), in
    order, after what the channel's last press left to do; a failure is logged."""
    desk = bot.fight_desk.of(channel, room)
    before = desk.pending

    async def run() -> None:
        if before is not None:
            with contextlib.suppress(Exception):
                await before
        for step in steps:
            try:
                await step()
            except Exception as exc:  # noqa: BLE001 - logged; the fight goes on
                log.warning("referee discord: the fight's channel was not brought up: %s", exc)

    desk.pending = asyncio.ensure_future(run())
    bot.keep(desk.pending)


async def settled(desk: Desk) -> None:
    """Wait for what the channel's last press left to do, so that presses take turns."""
    if desk.pending is not None and not desk.pending.done():
        with contextlib.suppress(Exception):
            await desk.pending


async def follow(bot: Discord, channel: str, room: str) -> None:
    """Follow changes made by another front end (the page): once they settle, refresh;
    again while changes keep coming (:attr:`Desk.behind`), each read after the last
    change it answers for."""
    desks = bot.fight_desk.desks
    while (desk := desks.get(channel)) is not None and desk.room == room and desk.behind:
        await asyncio.sleep(COALESCE)
        if desks.get(channel) is not desk:  # the fight ended, or the channel moved on
            return
        desk.behind = False
        try:
            await refresh(bot, channel, room)
        except Exception as exc:  # noqa: BLE001 - logged; the fight goes on
            log.warning("referee discord: the fight's channel did not follow: %s", exc)


async def refresh(bot: Discord, channel: str, room: str) -> None:
    """Bring the channel up to the fight: the status message (edits coalesced), a
    prompt for a player's character whose turn it is, and one for each call on a
    player's character (its defense, its HT rolls), each once."""
    desk = bot.fight_desk.of(channel, room)
    async with desk.lock:
        await _refresh(bot, channel, room, desk)


async def _refresh(bot: Discord, channel: str, room: str, desk: Desk) -> None:
    st = bot.st
    public = await fighting.seen(st, room, Member(room, NOBODY, ""))
    whole = await fighting.seen(st, room, Member(room, "gm", "GM"))
    users = await bot.store.users(room)
    message = status_message(public, whole)
    if desk.status is None:
        made = await bot.rest.post(channel, message)
        desk.status = str((made or {}).get("id") or "") or None
    else:
        desk.dirty = True
        if desk.editing is None or desk.editing.done():
            desk.editing = asyncio.ensure_future(_edit_later(bot, channel, room, desk))
    by_id = {c["combatant"]: c for c in whole["combatants"]}
    current = by_id.get(whole.get("current") or "")
    if current is not None and current["owner"] != "gm" and whole.get("round"):
        key = f"turn:{whole['round']}:{current['combatant']}"
        if key not in desk.prompted and not current["values"].get("acted"):
            owner = Member(room, current["owner"], "")
            turn = await turn_of(st, room, owner, current["combatant"])
            if turn is not None:
                desk.prompted.add(key)
                await bot.rest.post(channel, turn_message(turn, users.get(current["owner"])))
    for call in whole["calls"]:
        who = by_id.get(call["combatant"])
        key = f"call:{call['call']}"
        if who is None or who["owner"] == "gm" or key in desk.prompted:
            continue
        desk.prompted.add(key)
        await bot.rest.post(channel, call_message(call, who, users.get(who["owner"])))


async def _edit_later(bot: Discord, channel: str, room: str, desk: Desk) -> None:
    """Edit the status message once the changes settle (at most one edit a
    :data:`COALESCE` seconds)."""
    try:
        while desk.dirty:
            desk.dirty = False
            await asyncio.sleep(COALESCE)
            public = await fighting.seen(bot.st, room, Member(room, NOBODY, ""))
            whole = await fighting.seen(bot.st, room, Member(room, "gm", "GM"))
            if desk.status:
                await bot.rest.edit(channel, desk.status, status_message(public, whole))
    except Exception as exc:  # noqa: BLE001 - a lost edit is logged, the fight goes on
        log.warning("referee discord: the fight's status was not edited: %s", exc)
