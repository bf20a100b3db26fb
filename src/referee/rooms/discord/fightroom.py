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
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..db.store import Member
from ..errors import ApiError
from ..service import fighting
from ..service.fighting.turns import OTHER_MANEUVERS, SWN_MANEUVERS, Turn, turn_of
from .calls import Call, Done, Refusal
from .members import member_of
from .replies import note

if TYPE_CHECKING:
    from .interactions import Discord

__all__ = ["FightDesk", "fight", "press", "private"]

log = logging.getLogger(__name__)

REPLY, UPDATE = 4, 7
EPHEMERAL = 64
ACTION_ROW, BUTTON, SELECT = 1, 2, 3
PRIMARY, SECONDARY, SUCCESS, DANGER = 1, 2, 3, 4
PAGE = 25
"""Options a select holds (Discord's limit); a fight of more attacks pages them."""
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
    """Follow a change made by another front end (the page): once it settles, refresh."""
    try:
        await asyncio.sleep(COALESCE)
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


def _state(c: dict[str, Any], pc: bool) -> str:
    """A combatant's state as players see it: a player's character's HP exactly; an
    NPC's as its foes see it (no number of the GM's)."""
    v = c.get("values") or {}
    shown = [x for x in c.get("shown") or c.get("conditions") or []]
    if "hp" in v and "hp_max" in v and pc:
        hp = f"HP {v['hp']}/{v['hp_max']}"
    elif "hp" in v and v.get("hp_max"):
        ratio = v["hp"] / v["hp_max"]
        hp = "unhurt" if ratio >= 1 else "hurt" if ratio > 0.5 else "badly hurt"
    else:
        hp = ""
    return ", ".join(x for x in [hp, *shown] if x)


def status_message(public: dict[str, Any], whole: dict[str, Any]) -> dict[str, Any]:
    """The fight's one status message: the round, whose turn, each combatant as players
    see it (a hidden one as "a hidden combatant"), and the GM's button when an NPC of
    hers acts or has a roll to make."""
    names = {c["combatant"]: c["name"] for c in public["combatants"]}
    lines = []
    current = public.get("current")
    if not public.get("round"):
        waiting = sum(
            1 for c in public["calls"] if "initiative" in c["kind"] or c["kind"] == "tiebreak"
        )
        lines.append(f"**Fight** · starting: {waiting} initiative roll(s) to make"
                     if waiting else "**Fight** · not started")  # fmt: skip
    else:
        whose = names.get(current or "", "a hidden combatant")
        lines.append(f"**Fight** · round {public['round']} · {whose}'s turn")
    for cid in [*public.get("order", []), *[c for c in names if c not in public.get("order", [])]]:
        c = next((x for x in public["combatants"] if x["combatant"] == cid), None)
        mark = "▶ " if cid == current else "• "
        if c is None:
            lines.append(f"{mark}a hidden combatant")
            continue
        state = _state(c, bool(c.get("pc")))
        lines.append(f"{mark}{c['name']}" + (f" — {state}" if state else ""))
    gm_owned = {c["combatant"] for c in whole["combatants"] if c["owner"] == "gm"}
    gm_turn = whole.get("current") in gm_owned and whole.get("round")
    gm_calls = [c for c in whole["calls"] if c["combatant"] in gm_owned]
    components = []
    if gm_turn or gm_calls:
        label = "GM: the NPCs' turn and rolls" if gm_turn else "GM: the NPCs' rolls"
        components = [_row([_button(label, "rf:gm", SECONDARY)])]
    return {"content": "\n".join(lines)[:2000], "components": components,
            "allowed_mentions": {"parse": []}}  # fmt: skip


def _button(
    label: str, custom_id: str, style: int = PRIMARY, disabled: bool = False
) -> dict[str, Any]:
    return {"type": BUTTON, "style": style, "label": label[:80], "custom_id": custom_id[:100],
            "disabled": disabled}  # fmt: skip


def _row(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": ACTION_ROW, "components": items[:5]}


def _pct(odds: Fraction | str | None) -> str:
    if odds is None:
        return ""
    return f" · {float(Fraction(str(odds))):.1%}"


def turn_message(turn: Turn, user: str | None, page: int = 0) -> dict[str, Any]:
    """A turn's prompt: the attacks (a select of weapon → foe, each with its level and
    odds to hit; paged by 25), the other maneuvers, and End turn."""
    c = turn.combatant
    who = f"<@{user}>" if user else c.name
    rows: list[dict[str, Any]] = []
    fits = [a for a in turn.attacks if len(f"{a.target}|{a.weapon}") <= 100]
    shown = fits[page * PAGE : (page + 1) * PAGE]
    if shown:
        options = []
        for a in shown:
            level = f"skill {a.level}" if a.level is not None else ""
            options.append({
                "label": f"{a.weapon} → {a.target_name}"[:100],
                "value": f"{a.target}|{a.weapon}",
                "description": (level + _pct(a.odds) + (" to hit" if a.odds is not None else ""))
                .strip(" ·")[:100] or "attack",
            })  # fmt: skip
        select = {"type": SELECT, "custom_id": f"rf:att:{c.id}:{page}",
                  "placeholder": "Attack: a weapon at a foe", "options": options}  # fmt: skip
        rows.append(_row([select]))
    if len(fits) > (page + 1) * PAGE:
        rows.append(_row([_button("More foes…", f"rf:pg:{c.id}:{page + 1}", SECONDARY)]))
    if turn.maneuvers:
        options = [{"label": label[:100], "value": str(i)} for i, label in turn.maneuvers[:PAGE]]
        rows.append(_row([{"type": SELECT, "custom_id": f"rf:man:{c.id}",
                           "placeholder": "Another maneuver (its attack follows)",
                           "options": options}]))  # fmt: skip
    rows.append(_row([_button("End turn", f"rf:end:{c.id}", SECONDARY)]))
    return {"content": f"{who}: {c.name}'s turn.", "components": rows[:5],
            "allowed_mentions": {"users": [user] if user else []}}  # fmt: skip


def call_message(call: dict[str, Any], who: dict[str, Any], user: str | None) -> dict[str, Any]:
    """A call's prompt for a player's character: one button a defense choice (its level
    and exact odds), or the call's one roll."""
    mention = f"<@{user}>" if user else who["name"]
    choices = call.get("choices") or []
    if choices:
        buttons = [
            _button(f"{str(ch['label']).split(':')[0]}{_pct(ch.get('odds'))}",
                    f"rf:def:{call['call']}:{i}", PRIMARY if i == 0 else SECONDARY)
            for i, ch in enumerate(choices[:15])
        ]  # fmt: skip
    else:
        what = call["command"].split("--label")[-1].strip("' ")
        buttons = [_button(f"Roll: {what}"[:80], f"rf:call:{call['call']}")]
    rows = [_row(buttons[i : i + 5]) for i in range(0, len(buttons), 5)][:5]
    text = f"{mention}: {who['name']}, {call['why']}."
    return {"content": text[:2000], "components": rows,
            "allowed_mentions": {"users": [user] if user else []}}  # fmt: skip


def disabled(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A message's components, every one disabled (a used prompt)."""
    out = []
    for row in components or []:
        items = [{**item, "disabled": True} for item in row.get("components") or []]
        out.append({**row, "components": items})
    return out


# --- Presses ---------------------------------------------------------------------------


async def press(bot: Discord, interaction: dict[str, Any], base_url: str) -> dict[str, Any]:
    """The answer to a button or select press (a message component interaction)."""
    found = interaction.get("data")
    data: dict[str, Any] = found if isinstance(found, dict) else {}
    custom_id = str(data.get("custom_id") or "")
    listed = data.get("values")
    values: list[Any] = listed if isinstance(listed, list) else []
    shaped = {**interaction, "data": {"name": "~press"}}
    try:
        call = Call.of(shaped, base_url)
    except ValueError as exc:
        return _says(f"⚠ a malformed press: {exc}")
    parts = custom_id.split(":")
    if len(parts) < 2 or parts[0] != "rf":
        return _says("⚠ that button is not referee's fight's")
    sent = interaction.get("message")
    message: dict[str, Any] = sent if isinstance(sent, dict) else {}
    try:
        return await _pressed(bot, call, parts[1], parts[2:], [str(v) for v in values][:1], message)
    except (Refusal, ApiError) as exc:
        return _says(f"⚠ {exc.message if isinstance(exc, ApiError) else exc}")


def _says(text: str) -> dict[str, Any]:
    return {"type": REPLY, "data": {"content": text[:2000], "flags": EPHEMERAL}}


async def _pressed(
    bot: Discord, call: Call, verb: str, args: list[str], values: list[str], message: dict[str, Any]
) -> dict[str, Any]:
    channel = await bot.store.channel(call.channel)
    if not channel.room:
        raise Refusal("this channel is linked to no room")
    room = channel.room
    st = bot.st
    desk = bot.fight_desk.of(call.channel, room)
    if channel.gm_user == call.user:
        member: Member | None = Member(room, "gm", "GM")
    else:
        member = await member_of(bot, room, call, join=False)
    if member is None:
        raise Refusal("you are not at this table: this is not your character's to do")
    await settled(desk)
    seen = ("gm" if desk.secret else "public") if member.is_gm else None
    mine = bool(int(message.get("flags") or 0) & EPHEMERAL)
    """A press on an ephemeral message (the GM's controls) may show her the whole rolls;
    one on a public message shows what every player may see."""
    out: list[str] = []
    if verb == "att" and args and values:
        target, _, weapon = values[0].partition("|")
        got = await fighting.attack(st, room, member, args[0], target, weapon, visibility=seen)
        out = _told(got, mine)
        if member.is_gm:  # the channel sees what the characters see
            attacker = args[0]
            after(bot, call.channel, room,
                  lambda: _narrate(bot, call.channel, room, attacker, target))  # fmt: skip
    elif verb == "man" and args and values:
        table = (
            OTHER_MANEUVERS
            if (await fighting.seen(st, room, member))["system"] == "gurps"
            else SWN_MANEUVERS
        )
        try:
            name, extra, label = table[int(values[0])]
        except (ValueError, IndexError):
            raise Refusal("no such maneuver") from None
        move = {"kind": "maneuver", "combatant": args[0], "maneuver": name, **extra}
        await fighting.event(st, room, member, move)
        out = [f"{label}."]
    elif verb == "def" and len(args) == 2 and args[1].isdigit():
        got = await fighting.event(st, room, member,
                                   {"kind": "answer", "call": args[0], "choice": int(args[1])},
                                   "call")  # fmt: skip
        out = _told(got, mine)
    elif verb == "call" and len(args) == 1:
        shown = "public" if member.is_gm and not desk.secret else None
        answer = {"kind": "answer", "call": args[0]}
        got = await fighting.event(st, room, member, answer, "call", visibility=shown)
        out = _told(got, mine)
    elif verb == "end" and args:
        now = await fighting.seen(st, room, member)
        if now.get("current") != args[0]:
            raise Refusal("that turn is over")
        await fighting.event(st, room, member, {"kind": "next"})
        out = ["Turn ended."]
    elif verb == "gm":
        if not member.is_gm:
            raise Refusal("the NPCs are the GM's")
        return {"type": REPLY, "data": {**await _gm_controls(bot, room), "flags": EPHEMERAL}}
    elif verb == "pg" and len(args) == 2:
        turn = await turn_of(st, room, member, args[0])
        if turn is None:
            raise Refusal("that turn is over")
        users = await bot.store.users(room)
        return {
            "type": UPDATE,
            "data": turn_message(turn, users.get(turn.combatant.owner), int(args[1])),
        }
    else:
        raise Refusal("that button is not one referee knows")
    after(bot, call.channel, room, lambda: refresh(bot, call.channel, room))
    content = (str(message.get("content") or "") + "\n" + "\n".join(out)).strip()
    used = disabled(message.get("components") or [])
    return {"type": UPDATE, "data": {"content": content[:2000], "components": used}}


def _told(got: dict[str, Any], whole: bool) -> list[str]:
    """What a press did, for the message it was pressed on: each roll's line, a secret
    one as "(a secret roll)" unless the message is the GM's own (``whole``)."""
    rolls = [*(got.get("rolls") or []), *([got["roll"]] if got.get("roll") else []),
             *([got["damage"]] if got.get("damage") else [])]  # fmt: skip
    return [
        str(r.get("text"))
        if not r.get("redacted") and (whole or r.get("visibility") == "public")
        else "(a secret roll)"
        for r in rolls
    ][:6]


async def _narrate(bot: Discord, channel: str, room: str, attacker: str, target: str) -> None:
    """The channel's line for a GM's attack: who attacks whom, as the players know them
    (a hidden attacker as such), and never a number of the roll."""
    public = await fighting.seen(bot.st, room, Member(room, NOBODY, ""))
    names = {c["combatant"]: c["name"] for c in public["combatants"]}
    text = f"⚔ {names.get(attacker, 'A hidden combatant')} attacks {names.get(target, 'someone')}."
    await bot.rest.post(channel, {"content": text, "allowed_mentions": {"parse": []}})


async def _gm_controls(bot: Discord, room: str) -> dict[str, Any]:
    """The GM's ephemeral controls: the current NPC's turn, and a button for each open
    call of an NPC (rolled in secret unless she set otherwise)."""
    gm = Member(room, "gm", "GM")
    whole = await fighting.seen(bot.st, room, gm)
    by_id = {c["combatant"]: c for c in whole["combatants"]}
    rows: list[dict[str, Any]] = []
    content = ["Your NPCs:"]
    current = by_id.get(whole.get("current") or "")
    if current is not None and current["owner"] == "gm":
        turn = await turn_of(bot.st, room, gm, current["combatant"])
        if turn is not None:
            made = turn_message(turn, None)
            rows += made["components"][:3]
            content.append(made["content"])
    buttons = []
    for c in whole["calls"]:
        who = by_id.get(c["combatant"])
        if who is None or who["owner"] != "gm":
            continue
        if c.get("choices"):
            for i, ch in enumerate(c["choices"][:3]):
                label = f"{who['name']}: {str(ch['label']).split(':')[0]}"
                buttons.append(_button(label, f"rf:def:{c['call']}:{i}"))
        else:
            buttons.append(_button(f"{who['name']}: {c['kind']}", f"rf:call:{c['call']}"))
    for i in range(0, len(buttons), 5):
        if len(rows) < 5:
            rows.append(_row(buttons[i : i + 5]))
    return {"content": "\n".join(content)[:2000], "components": rows}
