"""``referee discord run`` when the gateway misbehaves (issue 67 §2, §3 and part of §4),
through the gateway stand-in (:mod:`gateway_standin`): interactions that reach the bot
after Discord's 3-second answer window are not rolled or logged; frames the bot cannot
read are skipped, and the session goes on; a token refused at IDENTIFY is said to be
refused; an interaction's token never reaches the log; and a missing or malformed
token is reported before the heavy imports."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import zygote
from discord_standin import TOKEN, StandIn, gateway_server, interaction, opts, sub
from gateway_standin import wait_until
from rooms_server import Server, make_table

GM, ALICE, BOB = "1400000000000000951", "1400000000000000952", "1400000000000000953"
CHANNEL, NOTES = "1500000000000000951", "1500000000000000959"
CAN_MANAGE = str(1 << 4)


def callback(payload: dict[str, Any]) -> str:
    return f"/interactions/{payload['id']}/{payload['token']}/callback"


def test_interactions_past_discords_answer_window_are_neither_rolled_nor_logged(
    db_url: str, rest: StandIn, capfd: pytest.CaptureFixture[str]
) -> None:
    """§2: the socket drops and Discord is out of reach for 6 s; meanwhile a public
    /roll and Bob's blind /roll are sent. After the resume they arrive 6 s old, past
    the 3 s Discord waits: neither is rolled, logged, posted to the GM or answered,
    and the bot's log says what happened. A later one is answered as ever."""
    with gateway_server(db_url, rest, REFEREE_DISCORD_ANSWER_WINDOW="3") as bot:
        table = make_table(Server(bot.base, db_url))
        got = bot.ask("referee", sub("link", room=table.room, token=table.tokens["gm"]), user=GM,
                      channel=CHANNEL, permissions=CAN_MANAGE)  # fmt: skip
        assert "rolls into room" in got["data"]["content"], got
        got = bot.ask("referee", sub("gm-channel", channel=NOTES), user=GM, channel=CHANNEL)
        assert "You are this channel's GM" in got["data"]["content"], got
        before = bot.ask("roll", opts(exprs="1d4"), user=ALICE, channel=CHANNEL)
        assert before["data"]["embeds"][0]["title"] == "roll 1d4", before
        gateway, posts = bot.gateway, len(rest.posted(NOTES))
        capfd.readouterr()
        gateway.refuse(6)
        gateway.drop(bot.session)
        late = [
            interaction("roll", opts(exprs="1d7"), user=ALICE, username="ayla", channel=CHANNEL),
            interaction("roll", opts(exprs="1d9", visibility="blind"), user=BOB,
                        username="bob", channel=CHANNEL),
        ]  # fmt: skip
        for payload in late:
            gateway.dispatch(bot.session, payload)
        gateway.wait_for(lambda: gateway.live(bot.session))
        assert gateway.turned_away >= 1 and gateway.resumes, gateway
        after = bot.send(interaction("roll", opts(exprs="1d6"), user=ALICE, channel=CHANNEL))
        assert after.json()["data"]["embeds"][0]["title"] == "roll 1d6", after.json()
        logged = capfd.readouterr().err
        rolls = [x["command"] for x in table.log("gm") if x["kind"] == "roll"]
    assert rolls == ["roll 1d4", "roll 1d6"], rolls  # the late ones: not rolled, not logged
    assert not any(callback(p) in rest.answered for p in late), rest.answered
    assert len(rest.posted(NOTES)) == posts  # Bob's blind roll never reached the GM
    for payload, what in zip(late, ("/roll by ayla", "/roll by bob"), strict=True):
        said = re.search(rf"interaction {payload['id']} \({what}\) came ([\d.]+) s after", logged)
        assert said and float(said[1]) >= 6, logged
    assert logged.count("past the 3 s Discord waits for an answer: not rolled, not logged") == 2
    assert "Traceback" not in logged, logged


def test_the_answer_window_is_read_against_the_clock_the_gateway_is_given(
    tmp_path: Path, rest: StandIn
) -> None:
    """The same rule with the clock injected (a real front end on a real SQLite file,
    answering through the REST stand-in): 3.05 s old is refused, 1 s old is answered
    at once, and 2.8 s old, with too little of its window left to finish, is deferred
    at once and finished by webhook."""
    asyncio.run(_answer_window(tmp_path, rest))


async def _answer_window(tmp_path: Path, rest: StandIn) -> None:
    from referee.rooms.db.store import Store, sqlite_url
    from referee.rooms.discord.config import DiscordConfig
    from referee.rooms.discord.gateway import Gateway
    from referee.rooms.discord.interactions import Discord
    from referee.rooms.state import State

    now = 1_700_000_000.0
    store = await Store.open(sqlite_url(tmp_path / "rooms.sqlite3"))
    try:
        bot = Discord(State(store), DiscordConfig("", TOKEN, rest.base))
        gateway = Gateway(bot, TOKEN, "", clock=lambda: now)
        late, fresh, tight = (
            interaction("roll", opts(exprs="3d6"), channel="1500000000000000961", at=now - age)
            for age in (3.05, 1.0, 2.8)
        )
        before = len(rest.calls)
        for payload in (late, fresh, tight):
            await gateway.deliver(payload)
        for _ in range(200):  # the deferred one's webhook
            if len(rest.calls) > before:
                break
            await asyncio.sleep(0.05)
        await bot.close()
    finally:
        await store.close()
    assert (gateway.late, gateway.answered) == (1, 2), gateway
    assert callback(late) not in rest.answered, rest.answered
    assert rest.callbacks[callback(fresh)]["type"] == 4
    assert rest.callbacks[callback(tight)]["type"] == 5  # 0.2 s left: deferred at once
    (finished,) = rest.calls[before:]
    assert finished["method"] == "PATCH" and finished["path"].endswith("/messages/@original")
    assert f"/webhooks/{tight['application_id']}/{tight['token']}/" in finished["path"]
    assert finished["json"]["embeds"][0]["title"] == "roll 3d6", finished


def test_frames_the_bot_cannot_read_are_skipped_and_the_session_goes_on(
    db_url: str, rest: StandIn, capfd: pytest.CaptureFixture[str]
) -> None:
    """§3: op 0 with ``d: null`` (an interaction, and an event no one knows), with
    ``d: []``, a frame that is not JSON and one that is not an object: each is skipped
    with one line in the log, and the bot keeps its session (no new IDENTIFY, not even
    a RESUME). Skipped dispatches keep their sequence number: a RESUME after them does
    not ask for them again."""
    with gateway_server(db_url, rest) as bot:
        gateway, identified = bot.gateway, bot.gateway.identifies
        resumed = len(gateway.resumes)
        capfd.readouterr()
        gateway.dispatch_raw(bot.session, "INTERACTION_CREATE", None)
        gateway.dispatch_raw(bot.session, "SOMETHING_DISCORD_ADDED", None)
        gateway.dispatch_raw(bot.session, "INTERACTION_CREATE", [])
        gateway.send_raw(bot.session, "this is not JSON")
        gateway.send_raw(bot.session, "[1, 2, 3]")
        got = bot.send(interaction("roll", opts(exprs="1d20"), channel=CHANNEL)).json()
        assert got["data"]["embeds"][0]["title"] == "roll 1d20", got
        assert (gateway.identifies, len(gateway.resumes)) == (identified, resumed), gateway
        logged = capfd.readouterr().err
        skipped = [line for line in logged.splitlines() if "skipped" in line]
        assert len(skipped) == 5, logged
        assert "'INTERACTION_CREATE' (sequence" in skipped[0] and "data is null" in skipped[0]
        assert "'SOMETHING_DISCORD_ADDED'" in skipped[1] and "data is a list" in skipped[2]
        assert "not JSON ('this is not JSON')" in skipped[3] and "not a JSON object" in skipped[4]
        assert "mappingproxy" not in logged and "Traceback" not in logged, logged
        # A drop: the RESUME names the last sequence number, skipped dispatches included.
        sent = len(gateway.sessions[bot.session].sent)
        gateway.drop(bot.session)
        gateway.wait_for(lambda: gateway.live(bot.session))
        assert gateway.resumes[-1] == sent, (gateway.resumes, sent)
        # A text frame on a compressed connection: hikari reconnects, and resumes.
        gateway.send_text(bot.session, "not JSON, not compressed")
        wait_until(lambda: len(gateway.resumes) > resumed + 1, what="a second resume")
        gateway.wait_for(lambda: gateway.live(bot.session))
        got = bot.send(interaction("roll", opts(exprs="2d20"), channel=CHANNEL)).json()
        assert got["data"]["embeds"][0]["title"] == "roll 2d20", got
        assert gateway.identifies == identified, gateway
        assert "skipped" not in capfd.readouterr().err  # none was sent again


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **env}
    full.pop("REFEREE_DISCORD_PUBLIC_KEY", None)
    return zygote.run(["discord", "run", "--port", "0", *args], full, timeout=60)


def test_a_token_the_gateway_refuses_at_identify_is_said_to_be_refused(
    db_url: str, rest: StandIn
) -> None:
    """§3: the REST API takes the token, and the gateway closes with 4004 at IDENTIFY:
    the token was refused (with the 401 case's hint), not "could not reach"."""
    gateway = rest.gateway_standin
    gateway.token = "not the bot's"
    try:
        env = {"REFEREE_DISCORD_API": rest.base, "REFEREE_DISCORD_TOKEN": TOKEN}
        done = _run(env, "--db", db_url)
    finally:
        gateway.token = rest.token
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "referee discord run: Discord refused the bot's token (4004 " in done.stderr
    assert "copy it again from the application's Bot page" in done.stderr, done.stderr
    assert "could not reach" not in done.stderr and "Traceback" not in done.stderr


def test_a_refused_answer_is_logged_without_the_interactions_token(
    db_url: str, rest: StandIn, capfd: pytest.CaptureFixture[str]
) -> None:
    """§4: an answer Discord refuses (404, code 10062) is logged with its path, but not
    the interaction's token, which is good for 15 minutes."""
    with gateway_server(db_url, rest) as bot:
        payload = interaction("roll", opts(exprs="3d6"), channel=CHANNEL)
        rest.answers[callback(payload)] = (404, {"message": "Unknown interaction", "code": 10062})
        try:
            capfd.readouterr()
            bot.gateway.dispatch(bot.session, payload)
            wait_until(lambda: callback(payload) in rest.answered, what="the refused answer")
            err = ""
            for _ in range(100):  # the log line follows the refusal
                err += capfd.readouterr().err
                if "Unknown interaction" in err:
                    break
                time.sleep(0.05)
        finally:
            del rest.answers[callback(payload)]
    assert f"/interactions/{payload['id']}/…/callback" in err, err
    assert "Discord answered 404, code 10062: Unknown interaction" in err, err
    assert payload["token"] not in err, err


@pytest.mark.parametrize(
    ("token", "said"),
    [
        (None, "set REFEREE_DISCORD_TOKEN to the bot's token"),
        ("not a token", "REFEREE_DISCORD_TOKEN is not a bot token (it has spaces)"),
        ("abc.def.ghi", "REFEREE_DISCORD_TOKEN is not a bot token (its first part is not"),
    ],
)
def test_a_missing_or_malformed_token_is_said_before_the_heavy_imports(
    token: str | None, said: str
) -> None:
    """§4: a new Python process (not the tests' zygote, which has imported it all)
    exits 2 with the message before importing hikari, the web app or the database."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("REFEREE_DISCORD_TOKEN", None)
    if token is not None:
        env["REFEREE_DISCORD_TOKEN"] = token
    heavy = ("hikari", "fastapi", "sqlalchemy", "uvicorn", "referee.rooms.app")
    script = (
        "import sys\nfrom referee.cli import main\nsys.argv = ['referee', 'discord', 'run']\n"
        "try:\n    main()\nexcept SystemExit as exc:\n"
        f"    print(exc.code, [m for m in {heavy!r} if m in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.stdout.strip() == "2 []", (done.stdout, done.stderr)
    assert done.stderr.startswith(f"referee discord run: {said}"), done.stderr


def test_register_says_what_it_could_not_reach(monkeypatch: pytest.MonkeyPatch) -> None:
    """§4: an unreachable API is named, with what failed, not only ``ConnectError``."""
    from typer.testing import CliRunner

    from referee.cli.app import app

    with socket.socket() as closed:  # a port of this machine's that nothing listens on
        closed.bind(("127.0.0.1", 0))
        api = f"http://127.0.0.1:{closed.getsockname()[1]}"
    monkeypatch.setenv("REFEREE_DISCORD_TOKEN", TOKEN)
    args = ["discord", "register", "--application-id", "11", "--guild", "23", "--api", api]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 2, out.output
    assert f"could not reach Discord's API at {api} (ConnectError: " in out.output, out.output
    assert "check this computer's connection, or --api" in out.output, out.output


def test_pages_on_this_computer_only_are_not_linked_to_players(db_url: str, rest: StandIn) -> None:
    """§4: ``referee discord run`` serves its pages on 127.0.0.1 by default, which no
    player can open: public replies (and players' own) carry no link, the GM is told
    once (at start, and when linking) how to give one, and a player's ``/referee page``
    says where its link opens. With ``REFEREE_PUBLIC_URL`` the links come back."""
    channel = "1500000000000000971"
    with gateway_server(db_url, rest) as bot:
        hint = bot.process.stdout.readline()
        assert "on this computer only" in hint and "set REFEREE_PUBLIC_URL" in hint, hint
        table = make_table(Server(bot.base, db_url))
        got = bot.ask("referee", sub("link", room=table.room, token=table.tokens["gm"]), user=GM,
                      channel=channel, permissions=CAN_MANAGE)  # fmt: skip
        page = f"{bot.base}/rooms/{table.room}"
        assert page in got["data"]["content"], got  # the GM's own computer opens it
        assert "set REFEREE_PUBLIC_URL to an address they can reach" in got["data"]["content"]
        public = bot.ask("roll", opts(exprs="3d6"), user=ALICE, channel=channel)
        footer = public["data"]["embeds"][0]["footer"]["text"]
        assert footer.startswith(f"Room {table.room}, entry ") and "http" not in footer, footer
        secret = bot.ask("roll", opts(exprs="3d6", visibility="secret"), user=GM, channel=channel)
        assert page in secret["data"]["embeds"][0]["footer"]["text"], secret
        theirs = bot.ask("referee", sub("page"), user=ALICE, channel=channel)
        assert (
            "served on the GM's own computer only, so it opens there alone"
            in theirs["data"]["content"]
        ), theirs
        mine = bot.ask("referee", sub("page"), user=GM, channel=channel)
        assert f"{page}/enter?code=" in mine["data"]["content"], mine
    with gateway_server(db_url, rest, REFEREE_PUBLIC_URL="https://dice.example.org") as bot:
        public = bot.ask("roll", opts(exprs="3d6"), user=ALICE, channel=channel)
        footer = public["data"]["embeds"][0]["footer"]["text"]
        assert f"https://dice.example.org/rooms/{table.room}" in footer, footer
