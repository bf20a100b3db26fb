"""Discord (issue 50): a channel's link and GM channel belong to its GM. The attacker's
matrix: every ``/referee`` subcommand × a linked or an unlinked channel × a caller with
Manage Channels, the current GM's token, another room's GM token, an invite, a
player's token, or nothing; then the GM and the players roll secret and blind, and no
secret or blind result reaches a channel that the current GM did not choose. On
PostgreSQL the callers go through a second server (the group's rolls through the
first); on SQLite, one server takes both."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from itertools import count
from typing import Any

import pytest

from discord_standin import Bot, StandIn, another_server, opts, sub
from rooms_server import Server, Table, make_table

GM, ALICE, CO, MALLORY, ADMIN = (f"14000000000000005{i:02d}" for i in range(5))
NOTES, CO_NOTES, MAL_NOTES, ADMIN_NOTES = (f"15000000000000005{i:02d}" for i in range(4))
CAN_MANAGE = str(1 << 4)
_channels = count(1_500_000_000_000_000_600)


@pytest.fixture(scope="module")
def bot(discord_db: str, transport: str, rest: StandIn) -> Iterator[Bot]:
    """The link matrix runs on both transports (issue 54)."""
    with another_server(discord_db, rest, transport=transport) as made:
        yield made


@pytest.fixture(scope="module")
def other(discord_db: str, rest: StandIn, bot: Bot) -> Iterator[Bot]:
    """A second server on PostgreSQL; the same one on SQLite (one file, one server)."""
    with (
        another_server(discord_db, rest, transport=bot.transport)
        if discord_db.startswith("postgresql")
        else nullcontext(bot) as made
    ):
        yield made


@dataclass
class Rooms:
    group: Table
    mallory: Table
    admin: Table


@pytest.fixture(scope="module")
def rooms(bot: Bot) -> Rooms:
    server = Server(bot.base, "")
    return Rooms(make_table(server), make_table(server, "Mine"), make_table(server, "Admin's"))


def said(reply: dict[str, Any]) -> str:
    return str(reply["data"].get("content", ""))


def ephemeral(reply: dict[str, Any]) -> bool:
    return bool(reply["data"].get("flags", 0) & 64)


def set_up(bot: Bot, rooms: Rooms, linked: bool) -> str:
    """A new game channel, the group's GM its GM (and linked to the group's room)."""
    channel = str(next(_channels))
    got = bot.ask("referee", sub("gm-channel", channel=NOTES), user=GM, channel=channel,
                  permissions=CAN_MANAGE)  # fmt: skip
    assert "You are this channel's GM" in said(got), got
    if linked:
        group = rooms.group
        got = bot.ask("referee", sub("link", room=group.room, token=group.tokens["gm"]),
                      user=GM, channel=channel)  # fmt: skip
        assert f"rolls into room {group.room}" in said(got), got
    return channel


@dataclass(frozen=True)
class Caller:
    user: str
    permissions: str
    notes: str
    token: str | None
    """What they give as ``token`` to gm-channel and unlink."""
    link: tuple[str, str]
    """The room and token they give to link."""


def callers(rooms: Rooms) -> dict[str, Caller]:
    group, mine, admin = rooms.group, rooms.mallory, rooms.admin
    return {
        "manage": Caller(ADMIN, CAN_MANAGE, ADMIN_NOTES, None, (admin.room, admin.tokens["gm"])),
        "gm_token": Caller(CO, "0", CO_NOTES, group.tokens["gm"], (group.room, group.tokens["gm"])),
        "other_token": Caller(MALLORY, "0", MAL_NOTES, mine.tokens["gm"],
                              (mine.room, mine.tokens["gm"])),
        "invite": Caller(MALLORY, "0", MAL_NOTES, group.invite, (group.room, group.invite)),
        "player": Caller(MALLORY, "0", MAL_NOTES, group.tokens["bob"],
                         (group.room, group.tokens["bob"])),
        "nothing": Caller(MALLORY, "0", MAL_NOTES, None, (group.room, "x" * 40)),
    }  # fmt: skip


SUBS = ("link", "unlink", "gm-channel", "reveal", "page", "status")


def expected(
    subcommand: str, linked: bool, who: str, caller: Caller, rooms: Rooms
) -> tuple[str, str | None, str | None, bool]:
    """``(GM, GM channel, room, changed)`` after the caller's command, by the rules:
    Manage Channels may change any channel, the linked room's GM token a linked one;
    nothing else changes a channel that has a GM."""
    room = rooms.group.room if linked else None
    allowed = who == "manage" or (who == "gm_token" and linked)
    if not allowed or subcommand not in ("link", "unlink", "gm-channel"):
        return GM, NOTES, room, False
    if subcommand == "link":
        return caller.user, None, caller.link[0], True
    if subcommand == "unlink":
        return GM, NOTES, None, linked
    return caller.user, caller.notes, room, True


def act(bot: Bot, subcommand: str, caller: Caller, channel: str, number: int) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if subcommand == "link":
        options = {"room": caller.link[0], "token": caller.link[1]}
    elif subcommand in ("unlink", "gm-channel") and caller.token:
        options = {"token": caller.token}
    if subcommand == "gm-channel":
        options["channel"] = caller.notes
    if subcommand == "reveal":
        options = {"roll": number}
    return bot.ask("referee", sub(subcommand, **options), user=caller.user, channel=channel,
                   permissions=caller.permissions)  # fmt: skip


def number_of(reply: dict[str, Any]) -> int:
    found = re.search(r"#(\d+)", said(reply))
    assert found, reply
    return int(found[1])


def test_the_link_belongs_to_its_gm(bot: Bot, other: Bot, rest: StandIn, rooms: Rooms) -> None:
    checked = 0
    for linked in (False, True):
        for subcommand in SUBS:
            for who, caller in callers(rooms).items():
                cell = (subcommand, linked, who)
                channel = set_up(bot, rooms, linked)
                secret = bot.ask("roll", opts(exprs="1d20", visibility="secret"), user=GM,
                                 channel=channel)  # fmt: skip
                number = number_of(secret)
                mark = len(rest.calls)
                got = act(other, subcommand, caller, channel, number)
                gm, gm_channel, room, changed = expected(subcommand, linked, who, caller, rooms)
                assert got["type"] == 4 and ephemeral(got), (cell, got)
                assert "embeds" not in got["data"], (cell, got)  # no reveal, no roll
                refused = said(got).startswith("⚠")
                if subcommand in ("link", "unlink", "gm-channel", "reveal"):
                    assert refused == (not changed and not (who == "manage" and linked is False
                                                            and subcommand == "unlink")), (
                        cell, got)  # fmt: skip
                notices = len(rest.calls) - mark
                if not changed:
                    assert notices == 0, (cell, rest.calls[mark:])
                status = bot.ask("referee", sub("status"), user=ALICE, channel=channel)
                assert f"GM: <@{gm}>" in said(status), (cell, status)
                assert (f"GM channel: <#{gm_channel}>" if gm_channel else "GM channel: none") in (
                    said(status)
                ), (cell, status)
                assert (f"Room: {room}" if room else "Room: none") in said(status), (cell, status)
                _roll_and_check(bot, other, rest, rooms, cell, channel, gm, gm_channel, room)
                checked += 1
    assert checked == 2 * len(SUBS) * 6


def _roll_and_check(
    bot: Bot,
    other: Bot,
    rest: StandIn,
    rooms: Rooms,
    cell: Any,
    channel: str,
    gm: str,
    gm_channel: str | None,
    room: str | None,
) -> None:
    """The GM and two players roll secret and blind, on both servers: every result goes
    to ephemeral replies and ``gm_channel`` alone; none is posted elsewhere."""
    mark = len(rest.calls)
    posts = 0
    for server, user, visibility in (
        (other, ALICE, "public"),
        (bot, GM, "secret"),
        (other, ALICE, "blind"),
        (bot, ALICE, "secret"),
        (other, MALLORY, "blind"),
    ):
        got = server.ask("roll", opts(exprs="1d20+3", label="ambush", visibility=visibility),
                         user=user, channel=channel)  # fmt: skip
        if visibility == "public":
            assert not ephemeral(got) and got["data"]["embeds"], (cell, got)
            continue
        assert ephemeral(got), (cell, user, got)
        if user != gm and gm_channel is None:
            assert "has none yet" in said(got), (cell, user, got)
            continue
        assert not said(got).startswith("⚠"), (cell, user, got)
        posts += user != gm
        if room is not None and got["data"].get("embeds"):
            assert f"Room {room}," in got["data"]["embeds"][0]["footer"]["text"], (cell, got)
    rest.wait_for(mark + posts)
    time.sleep(0.05)  # anything more would show now
    sent = rest.calls[mark:]
    results = [c for c in sent if c["path"].endswith("/messages") and c["json"].get("embeds")]
    assert len(results) == posts, (cell, sent)
    for c in results:
        assert c["path"] == f"/channels/{gm_channel}/messages", (cell, c)
    assert all(c["path"].startswith("/channels/") for c in sent), (cell, sent)
    if room == rooms.group.room:  # the group's room still gets the channel's rolls
        log = rooms.group.log("gm", after=-1)
        assert any("ambush" in str(x.get("text", "")) for x in log[-4:]), cell


def test_what_the_group_is_told(bot: Bot, rest: StandIn, rooms: Rooms) -> None:
    """A change is said in the channel, and to the previous GM in their GM channel;
    a change by the GM or a refusal tells nobody else anything."""
    channel = set_up(bot, rooms, linked=True)
    mark = len(rest.calls)
    got = bot.ask("referee", sub("gm-channel", channel=ADMIN_NOTES), user=ADMIN, channel=channel,
                  permissions=CAN_MANAGE)  # fmt: skip
    assert "You are this channel's GM" in said(got), got
    sent = {c["path"]: c["json"]["content"] for c in rest.calls[mark:]}
    assert set(sent) == {f"/channels/{p}/messages" for p in (ADMIN_NOTES, channel, NOTES)}, sent
    here = sent[f"/channels/{channel}/messages"]
    assert f"<@{ADMIN}> changed this channel's set-up" in here
    assert f"its GM is now <@{ADMIN}>" in here and f"now go to <#{ADMIN_NOTES}>" in here
    assert f"where <@{GM}> was GM" in sent[f"/channels/{NOTES}/messages"]
    assert "will come here" in sent[f"/channels/{ADMIN_NOTES}/messages"]
    # The GM takes it back with the room's token, from any account of theirs.
    mark = len(rest.calls)
    got = bot.ask("referee", sub("link", room=rooms.group.room, token=rooms.group.tokens["gm"]),
                  user=GM, channel=channel)  # fmt: skip
    assert "you are its GM here" in said(got), got
    sent = {c["path"]: c["json"]["content"] for c in rest.calls[mark:]}
    assert set(sent) == {f"/channels/{p}/messages" for p in (channel, ADMIN_NOTES)}, sent
    assert (
        "blind and secret rolls wait until the GM chooses" in sent[f"/channels/{channel}/messages"]
    )


def test_a_first_gm_needs_manage_channels_by_link_too(bot: Bot, rooms: Rooms) -> None:
    """A channel nobody set up: Mallory's own room's token does not make her its GM."""
    channel = str(next(_channels))
    mine = rooms.mallory
    got = bot.ask("referee", sub("link", room=mine.room, token=mine.tokens["gm"]), user=MALLORY,
                  channel=channel)  # fmt: skip
    assert "need the Manage Channels permission" in said(got), got
    status = bot.ask("referee", sub("status"), user=ALICE, channel=channel)
    assert "Room: none" in said(status) and "GM: none yet" in said(status), status
    got = bot.ask("referee", sub("link", room=mine.room, token=mine.tokens["gm"]), user=MALLORY,
                  channel=channel, permissions=str(1 << 3))  # fmt: skip
    assert f"rolls into room {mine.room}" in said(got), got  # an Administrator may


def test_a_gm_channel_the_bot_cannot_post_in_is_refused(bot: Bot, rest: StandIn) -> None:
    channel, closed = str(next(_channels)), str(next(_channels))
    rest.answers[f"/channels/{closed}/messages"] = (
        403,
        {"message": "Missing Permissions", "code": 50013},
    )
    got = bot.ask("referee", sub("gm-channel", channel=closed), user=GM, channel=channel,
                  permissions=CAN_MANAGE)  # fmt: skip
    assert said(got).startswith("⚠ the bot cannot post in"), got
    assert "403, code 50013: Missing Permissions" in said(got), got
    status = bot.ask("referee", sub("status"), user=GM, channel=channel)
    assert "GM: none yet" in said(status), status
