"""The fight's buttons and selects on Discord, pressed (issue 72 §2): each press is a
member's action through the fight service (:mod:`..service.fighting`), which decides
who may take it; a refusal is an ephemeral message, and nothing is rolled. A press
answers first (the pressed prompt, updated, its buttons disabled); what it leaves to do
for the channel follows (:func:`.fightroom.after`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..db.store import Member
from ..errors import ApiError
from ..service import fighting
from ..service.fighting.turns import OTHER_MANEUVERS, SWN_MANEUVERS, turn_of
from .calls import Call, Refusal
from .fightposts import button, disabled, row, turn_message
from .fightroom import EPHEMERAL, NOBODY, REPLY, UPDATE, after, refresh
from .members import member_of

if TYPE_CHECKING:
    from .interactions import Discord

__all__ = ["press"]


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
    # A press does not wait for what the last one left to post (its prompts, the status):
    # the fight service decides alone what a press may do, and the posts keep their
    # order among themselves (:func:`.fightroom.after`). Waiting made every press as slow
    # as the channel's posts to Discord.
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
                buttons.append(button(label, f"rf:def:{c['call']}:{i}"))
        else:
            buttons.append(button(f"{who['name']}: {c['kind']}", f"rf:call:{c['call']}"))
    for i in range(0, len(buttons), 5):
        if len(rows) < 5:
            rows.append(row(buttons[i : i + 5]))
    return {"content": "\n".join(content)[:2000], "components": rows}
