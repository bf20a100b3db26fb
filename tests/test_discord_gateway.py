"""``referee discord run`` (issue 54): what only the gateway has. Everything the HTTP
endpoint does runs on both transports in the other Discord tests (their ``bot``
fixture); here, through the gateway stand-in (:mod:`gateway_standin`): a connection
dropped mid-session and resumed, with the interactions sent meanwhile answered once
each; an interaction delivered twice, even to a restarted bot, answered once; a token
Discord refuses; and shapes Discord would not send, which stop nothing."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import zygote
from discord_standin import TOKEN, StandIn, gateway_server, interaction, opts, sub
from gateway_standin import wait_until

GM, ALICE = "1400000000000000901", "1400000000000000902"
CHANNEL, NOTES = "1500000000000000901", "1500000000000000909"
CAN_MANAGE = str(1 << 4)


def test_a_drop_mid_session_resumes_and_loses_nothing(db_url: str, rest: StandIn) -> None:
    with gateway_server(db_url, rest) as bot:
        gateway = bot.gateway
        got = bot.ask("referee", sub("gm-channel", channel=NOTES), user=GM, channel=CHANNEL,
                      permissions=CAN_MANAGE)  # fmt: skip
        assert "You are this channel's GM" in got["data"]["content"], got
        secret = bot.ask("roll", opts(exprs="1d20", visibility="secret"), user=GM,
                         channel=CHANNEL)  # fmt: skip
        assert secret["data"]["flags"] == 64 and secret["data"]["embeds"], secret
        identified = gateway.identifies
        # Discord drops the connection; two interactions come while the bot is away.
        gateway.drop(bot.session)
        assert not gateway.live(bot.session)
        away = [
            interaction("roll", opts(exprs="2d6", visibility="blind"), user=ALICE, channel=CHANNEL),
            interaction("roll", opts(exprs="3d6"), user=ALICE, channel=CHANNEL),
        ]
        before = len(rest.calls)
        for payload in away:
            gateway.dispatch(bot.session, payload)
        gateway.wait_for(lambda: gateway.live(bot.session))
        assert gateway.identifies == identified  # resumed, not a new session
        assert gateway.resumes, gateway
        paths = [f"/interactions/{p['id']}/{p['token']}/callback" for p in away]
        wait_until(lambda: all(p in rest.callbacks for p in paths), what="the missed answers")
        assert rest.callbacks[paths[0]]["data"]["content"].startswith("Rolled blind (#")
        assert rest.callbacks[paths[1]]["data"]["embeds"][0]["title"] == "roll 3d6"
        rest.wait_for(before + 1)  # the blind roll's result, in the GM's channel
        assert rest.calls[before]["path"] == f"/channels/{NOTES}/messages"
        # Delivered again (a replay after another resume): answered once, not twice.
        gateway.dispatch(bot.session, away[1])
        after = interaction("roll", opts(exprs="1d6"), user=ALICE, channel=CHANNEL)
        answer = bot.send(after).json()  # a later one is answered: the repeat was seen
        assert answer["data"]["embeds"][0]["title"] == "roll 1d6"
        assert [rest.answered.count(p) for p in paths] == [1, 1]


def test_an_interaction_delivered_again_to_a_restarted_bot_is_not_answered_again(
    db_url: str, rest: StandIn
) -> None:
    payload = interaction("roll", opts(exprs="3d6"), user=ALICE, channel=CHANNEL)
    path = f"/interactions/{payload['id']}/{payload['token']}/callback"
    with gateway_server(db_url, rest) as first:
        assert first.send(payload).json()["type"] == 4
    with gateway_server(db_url, rest) as restarted:
        restarted.gateway.dispatch(restarted.session, payload)
        fresh = interaction("roll", opts(exprs="2d6"), user=ALICE, channel=CHANNEL)
        assert restarted.send(fresh).json()["type"] == 4
    assert rest.answered.count(path) == 1


def test_shapes_discord_would_not_send_stop_nothing(db_url: str, rest: StandIn) -> None:
    with gateway_server(db_url, rest) as bot:
        bad = interaction("roll", opts(exprs="3d6"))
        bad["member"]["user"]["id"] = "not-a-snowflake"
        no_token = interaction("roll", opts(exprs="3d6"))
        del no_token["token"]
        climbing = {**interaction("roll", opts(exprs="3d6")), "token": "../../channels/9/messages"}
        before = len(rest.calls)
        for payload in (bad, no_token, {**interaction("roll"), "type": 3}, climbing):
            bot.gateway.dispatch(bot.session, payload)
        time.sleep(0.3)
        assert not any(str(bad["id"]) in p for p in rest.answered)
        assert not any("channels/9" in p for p in rest.answered), rest.answered
        assert not any("channels/9" in c["path"] for c in rest.calls[before:]), rest.calls
        good = bot.send(interaction("roll", opts(exprs="1d20"))).json()
        assert good["data"]["embeds"][0]["title"] == "roll 1d20"


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``referee discord run --port 0 ARGS`` to its end, forked (tests/zygote.py)."""
    full = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **env}
    full.pop("REFEREE_DISCORD_PUBLIC_KEY", None)
    return zygote.run(["discord", "run", "--port", "0", *args], full, timeout=60)


@pytest.mark.parametrize(
    ("token", "said"),
    [
        ("", "set REFEREE_DISCORD_TOKEN to the bot's token"),
        ("not a token", "REFEREE_DISCORD_TOKEN is not a bot token"),
        (TOKEN[:-3] + "xyz", "Discord refused the bot's token (401 Unauthorized)"),
    ],
)
def test_a_token_that_is_refused_stops_the_command_clearly(
    db_url: str, rest: StandIn, token: str, said: str
) -> None:
    done = _run({"REFEREE_DISCORD_API": rest.base, "REFEREE_DISCORD_TOKEN": token}, "--db", db_url)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert said in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("referee discord run: "), done.stderr


def test_a_discord_that_cannot_be_reached_stops_the_command_clearly(tmp_path: Path) -> None:
    """No one listens at the API's address: after hikari's retries (about 10 s), the
    command says it could not reach Discord, with no traceback."""
    with socket.socket() as closed:  # a port of this machine's that nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    env = {"REFEREE_DISCORD_API": f"http://127.0.0.1:{port}", "REFEREE_DISCORD_TOKEN": TOKEN}
    done = _run(env, "--db", f"sqlite+aiosqlite:///{tmp_path / 'bot.sqlite3'}")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "referee discord run: could not reach Discord's gateway: " in done.stderr, done.stderr
    assert f"127.0.0.1:{port}" in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_bad_limit_and_a_taken_port_are_clear(db_url: str, rest: StandIn) -> None:
    env = {"REFEREE_DISCORD_API": rest.base, "REFEREE_DISCORD_TOKEN": TOKEN}
    done = _run(env, "--db", db_url, "--limit", "rate=fast")
    assert done.returncode == 2 and "limit rate: 'fast' is not a number" in done.stderr, done
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        full = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **env}
        done = zygote.run(["discord", "run", "--port", port, "--db", db_url], full, timeout=60)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"could not serve the room pages on 127.0.0.1:{port}" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr


def test_a_token_revoked_in_the_middle_of_a_session_stops_the_command_clearly(
    db_url: str, rest: StandIn
) -> None:
    """Discord closes the connection with 4004 (authentication failed), which no
    RESUME can mend: the command ends with a message, and no traceback."""
    gateway = rest.gateway_standin
    before = set(gateway.sessions)
    full = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path),
            "REFEREE_DISCORD_API": rest.base, "REFEREE_DISCORD_TOKEN": TOKEN}  # fmt: skip
    full.pop("REFEREE_DISCORD_PUBLIC_KEY", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "discord", "run", "--no-serve", "--db", db_url],
        env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        assert "connected to Discord's gateway; no room pages" in process.stdout.readline()
        (session,) = set(gateway.sessions) - before
        gateway.drop(session, 4004)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 2, (out, err)
    assert "referee discord run: Discord refused the bot's token (4004 " in err, err
    assert "copy it again from the application's Bot page" in err, err
    assert "Traceback" not in err, err


def test_with_no_pages_a_linked_room_logs_and_page_says_why(db_url: str, rest: StandIn) -> None:
    """``--no-serve``: a room made through another server's pages is linked and logs
    every roll; ``/referee page`` says there are no pages rather than giving a link
    that leads nowhere."""
    from rooms_server import Server, Table, make_table, running

    with running(db_url) as pages:
        table = make_table(pages)
    with gateway_server(db_url, rest, serve=False) as bot:
        channel = "1500000000000000931"
        got = bot.ask("referee", sub("link", room=table.room, token=table.tokens["gm"]),
                      user=GM, channel=channel, permissions=CAN_MANAGE)  # fmt: skip
        assert f"rolls into room {table.room}" in got["data"]["content"], got
        assert "http" not in got["data"]["content"], got
        rolled = bot.ask("roll", opts(exprs="3d6"), user=ALICE, channel=channel)
        assert f"Room {table.room}," in rolled["data"]["embeds"][0]["footer"]["text"], rolled
        page = bot.ask("referee", sub("page"), user=ALICE, channel=channel)
        assert "serves no room pages" in page["data"]["content"], page
    with running(db_url) as pages:  # the log, read through pages served again
        again = Table(Server(pages.base, db_url), table.room, table.invite, table.tokens, table.ids)
        log = again.log("gm")
    assert any(x["kind"] == "roll" and x["command"] == "roll 3d6" for x in log), log
