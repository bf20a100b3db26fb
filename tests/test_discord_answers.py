"""Discord (issue 50, §2 and the small points): odds read from the loaded sheet, every
reaction outcome, a GM channel that stops taking the bot's posts, Discord's own error
details, a sheet loaded before the channel was linked, and a revealed roll's odds."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from discord_standin import Bot, StandIn, another_server, opts, sub
from rooms_server import Server, Table, make_table

GM, ALICE = "1400000000000000801", "1400000000000000802"
NOTES = "1500000000000000809"
CAN_MANAGE = str(1 << 4)


def said(reply: dict[str, Any]) -> str:
    return str(reply["data"].get("content", ""))


def load_dai(bot: Bot, rest: StandIn, channel: str, user: str = ALICE) -> None:
    import referee.examples

    body = (Path(referee.examples.__file__).parent / "sheets" / "dai.toml").read_bytes()
    path = f"/attachments/{channel}/dai.toml"
    rest.files[path] = body
    resolved = {"attachments": {"9": {"id": "9", "filename": "dai.toml", "size": len(body),
                                      "url": rest.base + path}}}  # fmt: skip
    got = bot.ask("sheet", opts(file="9"), user=user, channel=channel, resolved=resolved)
    assert said(got).startswith("Loaded Dai"), got


def link(bot: Bot, channel: str) -> Table:
    table = make_table(Server(bot.base, ""))
    got = bot.ask("referee", sub("link", room=table.room, token=table.tokens["gm"]), user=GM,
                  channel=channel, permissions=CAN_MANAGE)  # fmt: skip
    assert "rolls into room" in said(got), got
    return table


@pytest.mark.parametrize("linked", [False, True])
def test_odds_read_the_loaded_sheet(bot: Bot, rest: StandIn, linked: bool) -> None:
    channel = "150000000000000081" + str(int(linked))
    if linked:
        link(bot, channel)
    load_dai(bot, rest, channel)
    for options, text in (
        (sub("check", words="Stealth", odds=True), "Stealth 16: success 98.1%"),
        (sub("attack", weapon="Knife (Swung)", odds=True), "Knife (Swung) 17: hits 98.1%"),
    ):
        got = bot.ask("gurps", options, user=ALICE, channel=channel)
        assert "embeds" in got["data"], got
        assert got["data"]["embeds"][0]["description"].startswith(text), got
        assert "Dice" not in str(got["data"]["embeds"][0].get("fields"))  # nothing rolled


def test_reaction_odds_show_all_eight_outcomes(bot: Bot) -> None:
    got = bot.ask("gurps", sub("reaction", modifier=0, visibility="public"),
                  channel="1500000000000000812")  # fmt: skip
    (odds,) = [f["value"] for f in got["data"]["embeds"][0]["fields"] if f["name"] == "Odds"]
    names = [re.sub(r" [\d.]+%$", "", part) for part in odds.split(" · ")]
    bands = ["Disastrous", "Very Bad", "Bad", "Poor", "Neutral", "Good", "Very Good", "Excellent"]
    assert names == bands, odds
    total = sum(float(p) for p in re.findall(r"([\d.]+)%", odds))
    assert abs(total - 100) < 0.5, odds


def test_a_gm_channel_that_stops_taking_posts_is_told(
    discord_db: str, rest: StandIn, capfd: pytest.CaptureFixture[str], transport: str
) -> None:
    """The roller is told, the server logs Discord's words, and the GM hears of it at
    ``/referee status`` and after their next roll. (A server of its own: its log is
    what this test captures.)"""
    with another_server(discord_db, rest, transport=transport) as bot:
        _told(bot, rest, capfd)


def _told(bot: Bot, rest: StandIn, capfd: pytest.CaptureFixture[str]) -> None:
    channel = "1500000000000000813"
    got = bot.ask("referee", sub("gm-channel", channel=NOTES), user=GM, channel=channel,
                  permissions=CAN_MANAGE)  # fmt: skip
    assert "You are this channel's GM" in said(got), got
    rest.answers[f"/channels/{NOTES}/messages"] = (403, {"message": "Missing Permissions",
                                                         "code": 50013})  # fmt: skip
    try:
        before = len(rest.calls)
        # One answer, and a true one (issue 67): never "the result went to the GM" first.
        blind = bot.ask("roll", opts(exprs="1d20", visibility="blind"), user=ALICE,
                        channel=channel)  # fmt: skip
        assert blind["data"]["flags"] == 64 and "embeds" not in blind["data"], blind
        first = re.search(r"The GM did not get your blind roll (#\d+): ", said(blind))
        assert first, blind
        assert "403, code 50013: Missing Permissions" in said(blind), blind
        assert "went to the GM" not in said(blind), blind
        time.sleep(0.3)
        assert [c["path"] for c in rest.calls[before:]] == [f"/channels/{NOTES}/messages"]
        logged = capfd.readouterr().err  # the server logs Discord's code and words
        assert "Discord answered 403, code 50013: Missing Permissions" in logged, logged
        # /referee status names the roll, every time, until the GM acts.
        for _ in range(2):
            status = bot.ask("referee", sub("status"), user=GM, channel=channel)
            assert "1 player's roll did not reach your GM channel" in said(status), status
            assert f"{first[1]} (Dai, blind)" in said(status), status
            assert "Missing Permissions" in said(status), status
        secret = bot.ask("roll", opts(exprs="1d20", visibility="secret"), user=ALICE,
                         channel=channel)  # fmt: skip
        second = re.search(r"The GM did not get your secret roll (#\d+)", said(secret))
        assert second and secret["data"]["embeds"], secret  # she sees her own roll
        # The GM hears of them after their next roll (ephemeral), once.
        before = len(rest.calls)
        bot.ask("roll", opts(exprs="1d20"), user=GM, channel=channel)
        rest.wait_for(before + 1)
        note = rest.calls[before]["json"]
        assert note["flags"] == 64 and "2 players' rolls did not reach" in note["content"], note
        assert f"{first[1]} (Dai, blind), {second[1]} (Dai, secret)" in note["content"], note
        before = len(rest.calls)
        bot.ask("roll", opts(exprs="1d20"), user=GM, channel=channel)
        time.sleep(0.3)
        assert len(rest.calls) == before, rest.calls[before:]  # told once after a roll
        status = bot.ask("referee", sub("status"), user=GM, channel=channel)
        assert "2 players' rolls did not reach your GM channel" in said(status), status
    finally:
        del rest.answers[f"/channels/{NOTES}/messages"]
    # The GM acts: the bot posts in their GM channel again, and the rolls are named once
    # more; then every roll reached it.
    fixed = bot.ask("referee", sub("gm-channel", channel=NOTES), user=GM, channel=channel)
    assert "You are this channel's GM" in said(fixed), fixed
    assert f"Before this, 2 players' rolls did not reach your GM channel, {first[1]}" in said(
        fixed
    ), fixed
    status = bot.ask("referee", sub("status"), user=GM, channel=channel)
    assert "Every roll reached your GM channel" in said(status), status


def test_discords_error_details_are_printed(rest: StandIn, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from referee.cli.app import app

    rest.answers["/applications/11/guilds/23/commands"] = (
        400,
        {"code": 50035, "message": "Invalid Form Body",
         "errors": {"2": {"_errors": [{"code": "APPLICATION_COMMAND_TOO_LARGE",
                                       "message": "Command exceeds maximum size (8000)"}]}}},
    )  # fmt: skip
    monkeypatch.setenv("REFEREE_DISCORD_TOKEN", "bot-token")
    args = ["discord", "register", "--application-id", "11", "--guild", "23", "--api", rest.base]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 2, out.output
    assert "Discord answered 400, code 50035: Invalid Form Body" in out.output, out.output
    assert "2: Command exceeds maximum size (8000)" in out.output, out.output


def test_a_sheet_loaded_before_the_link_goes_with_the_player(bot: Bot, rest: StandIn) -> None:
    channel = "1500000000000000814"
    load_dai(bot, rest, channel)
    table = link(bot, channel)
    got = bot.ask("gurps", sub("check", words="Stealth -2"), user=ALICE, channel=channel)
    assert "embeds" in got["data"], got
    assert got["data"]["embeds"][0]["description"].startswith("Stealth 16-2 = 14"), got
    roll = [x for x in table.log("gm") if x["kind"] == "roll"][-1]
    assert roll["sheet"] == "Dai-Blackthorn", roll
    # With no sheet anywhere, the error says where one comes from.
    for words in (sub("check", words="Stealth"), sub("check", words="Stealth", odds=True)):
        got = bot.ask("gurps", words, user=GM, channel=channel)
        assert said(got).endswith("load your character here with /sheet"), got


def test_a_revealed_roll_lists_its_odds_as_the_original_did(bot: Bot) -> None:
    channel = "1500000000000000815"
    link(bot, channel)
    got = bot.ask("gurps", sub("check", words="14", visibility="secret"), user=GM,
                  channel=channel)  # fmt: skip
    number = int(re.search(r"#(\d+)", said(got))[1])  # type: ignore[index]
    first = {f["name"]: f["value"] for f in got["data"]["embeds"][0]["fields"]}
    shown = bot.ask("referee", sub("reveal", roll=number), user=GM, channel=channel)
    then = {f["name"]: f["value"] for f in shown["data"]["embeds"][0]["fields"]}
    assert then["Odds"] == first["Odds"], (first, then)
    assert first["Odds"].startswith("success "), first
