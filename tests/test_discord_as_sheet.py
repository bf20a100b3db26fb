"""Rolling as a named sheet on Discord (issue 67 §4): ``@NAME`` first in a command's
words, as a room's command begins, follows the room's rules (a player rolls as her own
sheet, the GM as any), decided by the room's service; in a channel with no room, by the
same rule among the sheets loaded there. Runs on both transports (the ``bot`` fixture)."""

from __future__ import annotations

from typing import Any

from discord_standin import Bot, StandIn, opts, sub
from test_discord_answers import ALICE, GM, NOTES, load_dai, said
from test_discord_answers import link as linked

BOB = "1400000000000000803"
CAN_MANAGE = str(1 << 4)


def text(reply: dict[str, Any]) -> str:
    return str(reply["data"]["embeds"][0]["description"])


def test_a_named_sheet_in_a_linked_channel(bot: Bot, rest: StandIn) -> None:
    channel = "1500000000000000821"
    table = linked(bot, channel)
    load_dai(bot, rest, channel)
    mine = bot.ask("gurps", sub("check", words="@Dai-Blackthorn Stealth"), user=ALICE,
                   channel=channel)  # fmt: skip
    assert text(mine).startswith("Stealth 16"), mine
    gms = bot.ask("roll", opts(exprs="@Dai-Blackthorn 3d6"), user=GM, channel=channel)
    assert gms["data"]["embeds"][0]["title"] == "@Dai-Blackthorn roll 3d6", gms
    odds = bot.ask("gurps", sub("check", words="@Dai-Blackthorn Stealth", odds=True), user=GM,
                   channel=channel)  # fmt: skip
    assert text(odds).startswith("Stealth 16: success 98.1%"), odds
    other = bot.ask("gurps", sub("check", words="@Dai-Blackthorn Stealth"), user=BOB,
                    channel=channel)  # fmt: skip
    assert "the sheet 'Dai-Blackthorn' is another member's" in said(other), other
    unknown = bot.ask("roll", opts(exprs="@Nobody 3d6"), user=GM, channel=channel)
    assert "no sheet 'Nobody' in this room" in said(unknown), unknown
    rolls = [x for x in table.log("gm") if x["kind"] == "roll"]
    assert [(x["command"], x.get("sheet")) for x in rolls] == [
        ("@Dai-Blackthorn gurps check Stealth", "Dai-Blackthorn"),
        ("@Dai-Blackthorn roll 3d6", "Dai-Blackthorn"),
    ], rolls
    assert rolls[1]["roller"] == "gm" and rolls[0]["roller"] != "gm", rolls


def test_a_named_sheet_in_a_channel_with_no_room(bot: Bot, rest: StandIn) -> None:
    channel = "1500000000000000822"
    got = bot.ask("referee", sub("gm-channel", channel=NOTES), user=GM, channel=channel,
                  permissions=CAN_MANAGE)  # fmt: skip
    assert "You are this channel's GM" in said(got), got
    load_dai(bot, rest, channel)
    mine = bot.ask("gurps", sub("check", words="@Dai-Blackthorn Stealth -2"), user=ALICE,
                   channel=channel)  # fmt: skip
    assert text(mine).startswith("Stealth 16-2 = 14"), mine
    assert mine["data"]["embeds"][0]["title"] == "@Dai-Blackthorn gurps check Stealth -2"
    gms = bot.ask("gurps", sub("check", words="@Dai-Blackthorn Stealth"), user=GM,
                  channel=channel)  # fmt: skip
    assert text(gms).startswith("Stealth 16"), gms
    dice = bot.ask("roll", opts(exprs="@Dai-Blackthorn 3d6"), user=ALICE, channel=channel)
    assert "embeds" in dice["data"], dice
    other = bot.ask("roll", opts(exprs="@Dai-Blackthorn 3d6"), user=BOB, channel=channel)
    assert "@Dai-Blackthorn is another player's character" in said(other), other
    unknown = bot.ask("roll", opts(exprs="@Nobody 3d6"), user=ALICE, channel=channel)
    assert "no character @Nobody in this channel" in said(unknown), unknown


def _completed(bot: Bot, typed: str, user: str, channel: str) -> list[str]:
    focused = [{"type": 1, "name": "check", "options": [
        {"name": "words", "type": 3, "value": typed, "focused": True}]}]  # fmt: skip
    got = bot.ask("gurps", focused, kind=4, user=user, channel=channel)
    assert got["type"] == 8, got
    return [c["value"] for c in got["data"]["choices"]]


def test_autocomplete_after_a_named_sheet(bot: Bot, rest: StandIn) -> None:
    """Issue 71 §3.9: after ``@Dai-Blackthorn St``, the owner and the GM are offered
    that sheet's traits, each after its ``@NAME`` (before, nothing was offered);
    another player, who may not roll as Dai, nothing. In a linked channel, and in one
    with no room."""
    linked_channel, bare = "1500000000000000823", "1500000000000000824"
    linked(bot, linked_channel)
    got = bot.ask("referee", sub("gm-channel", channel=NOTES), user=GM, channel=bare,
                  permissions=CAN_MANAGE)  # fmt: skip
    assert "You are this channel's GM" in said(got), got
    for channel in (linked_channel, bare):
        load_dai(bot, rest, channel)
        for user in (ALICE, GM):
            offered = _completed(bot, "@Dai-Blackthorn St", user, channel)
            assert "@Dai-Blackthorn Stealth" in offered, (channel, user, offered)
            assert all(o.startswith("@Dai-Blackthorn ") for o in offered), offered
            kept = _completed(bot, "@Dai-Blackthorn Stea -2", user, channel)
            assert "@Dai-Blackthorn Stealth -2" in kept, (channel, user, kept)
        assert _completed(bot, "@Dai-Blackthorn St", BOB, channel) == [], channel
