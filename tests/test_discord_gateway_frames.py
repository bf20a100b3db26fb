"""``referee discord run`` under frames and closes Discord would not send (issue 71
§3.1-§3.2), through the gateway stand-in (:mod:`gateway_standin`): a malformed frame
of any opcode is skipped with one line naming why (a READY or a HELLO it cannot start
from, by starting again), and the bot goes on; the gateway's close codes are followed
as Discord's table has them (tests/data/discord_close_codes.tsv): the reconnectable
ones resumed from, the others ending the bot with what Discord said."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from discord_standin import TOKEN, StandIn, gateway_server, interaction, opts
from gateway_standin import wait_until

CHANNEL = "1500000000000000971"
TABLE = Path(__file__).parent / "data" / "discord_close_codes.tsv"


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """SQLite alone: these tests involve no room."""
    from referee.rooms.db.store import sqlite_url

    return sqlite_url(tmp_path / "rooms.sqlite3")


def _table() -> dict[int, bool]:
    rows = [line.split("\t") for line in TABLE.read_text().splitlines() if line[:1].isdigit()]
    return {int(code): again == "true" for code, _, again in rows}


def test_the_close_codes_follow_discords_table() -> None:
    """Every code of Discord's table: reconnect after the ones it marks so (4001, 4003
    and 4005 among them, which hikari's own list leaves out), and end after 4004 and
    4010-4014; hikari's shard is given the same set."""
    import hikari.impl.shard as shard

    from referee.rooms.discord.gateway import ENDS, RECONNECTS, _follow_the_table, reconnects

    table = _table()
    assert len(table) == 14
    assert {code: reconnects(code) for code in table} == table
    assert RECONNECTS | ENDS == set(table) and not RECONNECTS & ENDS
    _follow_the_table()
    assert set(shard._RECONNECTABLE_CLOSE_CODES) == RECONNECTS


def _roll(bot: object, expr: str) -> None:
    got = bot.send(interaction("roll", opts(exprs=expr), channel=CHANNEL)).json()  # type: ignore[attr-defined]
    assert got["data"]["embeds"][0]["title"] == f"roll {expr}", got


def test_every_reconnectable_close_is_resumed_from(
    db_url: str, rest: StandIn, capfd: pytest.CaptureFixture[str]
) -> None:
    """The stand-in closes the session with each code Discord marks reconnectable, in
    turn: the bot resumes each time (no new IDENTIFY) and answers after each."""
    codes = [code for code, again in _table().items() if again]
    with gateway_server(db_url, rest, serve=False) as bot:
        gateway, identified = bot.gateway, bot.gateway.identifies
        for code in codes:
            resumed = len(gateway.resumes)
            gateway.drop(bot.session, code)
            wait_until(lambda r=resumed: len(gateway.resumes) > r, 30, f"a resume after {code}")
            gateway.wait_for(lambda: gateway.live(bot.session))
            _roll(bot, "1d6")
        assert gateway.identifies == identified, gateway
        assert bot.process.poll() is None
    logged = capfd.readouterr().err
    assert "for good" not in logged and "Traceback" not in logged, logged


@pytest.mark.parametrize("code", sorted(c for c, again in _table().items() if not again))
def test_a_close_discord_marks_final_ends_the_bot_saying_so(
    code: int, db_url: str, rest: StandIn, capfd: pytest.CaptureFixture[str]
) -> None:
    """4004 and 4010-4014, sent in the middle of a session, end the bot (exit 2) with
    Discord's code and words; 4004 as a refused token."""
    with gateway_server(db_url, rest, serve=False) as bot:
        capfd.readouterr()
        bot.gateway.drop(bot.session, code)
        assert bot.process.wait(30) == 2
    logged = capfd.readouterr().err
    if code == 4004:
        assert "Discord refused the bot's token (4004 " in logged, logged
    else:
        said = f"Discord closed the connection for good (code {code}: the stand-in dropped"
        assert said in logged, logged
    assert "Traceback" not in logged, logged


def test_a_ready_or_hello_discord_would_not_send_is_skipped_and_started_again(
    db_url: str, rest: StandIn, capfd: pytest.CaptureFixture[str]
) -> None:
    """A HELLO with no heartbeat interval, then a READY with ``d: {}`` (which ended the
    bot with ``KeyError: 'session_id'``): each is skipped with one line naming why, the
    bot connects again and identifies anew, and it answers."""
    gateway = rest.gateway_standin
    gateway.bad_hello.append({})
    gateway.bad_ready.append({})
    identified = gateway.identifies
    try:
        with gateway_server(db_url, rest, serve=False) as bot:
            _roll(bot, "1d8")
            assert gateway.identifies == identified + 2, gateway
    finally:
        gateway.bad_hello.clear()
        gateway.bad_ready.clear()
    logged = capfd.readouterr().err
    skipped = [line for line in logged.splitlines() if "skipped" in line]
    assert len(skipped) == 2, logged
    assert "a HELLO (op 10) with no heartbeat_interval" in skipped[0], skipped
    assert "the bot connects again" in skipped[0], skipped
    assert "'READY' (sequence 1) whose data has no session_id" in skipped[1], skipped
    assert "Discord is asked for a new session" in skipped[1], skipped
    assert "KeyError" not in logged and "Traceback" not in logged, logged


def test_malformed_frames_of_every_opcode_are_skipped_naming_why(
    db_url: str, rest: StandIn, capfd: pytest.CaptureFixture[str]
) -> None:
    """Mid-session: a dispatch with ``t`` null, one whose ``s`` is ``"abc"``, an
    opcode Discord does not send, an INVALID_SESSION whose data is not a boolean: each
    skipped with its own reason; a GUILD_CREATE with ``d: {}`` (a 20-line traceback
    before) is passed over in one line, as any event the bot does not read. The
    session goes on: no new IDENTIFY, and the next /roll is answered."""
    with gateway_server(db_url, rest, serve=False) as bot:
        gateway, identified = bot.gateway, bot.gateway.identifies
        capfd.readouterr()
        seq = len(gateway.sessions[bot.session].sent)
        frames: list[dict[str, Any]] = [
            {"op": 0, "t": None, "s": seq + 1, "d": {}},
            {"op": 0, "t": "INTERACTION_CREATE", "s": "abc", "d": {}},
            {"op": 42, "d": {"x": 1}},
            {"op": 9, "d": "yes"},
            {"op": 0, "t": "GUILD_CREATE", "s": seq + 2, "d": {}},
            {"op": 0, "t": "GUILD_CREATE", "s": seq + 3, "d": {}},
            {"op": "0", "t": "READY", "d": {}},
            {"op": 1, "d": "x"},  # a heartbeat asked for, its data odd: answered all the same
            {"op": 11, "d": [1]},  # an ACK with data: nothing reads it
        ]
        raw = [json.dumps(frame) for frame in frames] + ["{not json", "[1, 2]"]
        for text in raw:
            gateway.send_raw(bot.session, text)
        _roll(bot, "1d12")
        # a RECONNECT (op 7) whose data is a number: the bot resumes, and answers again
        # (asked once it has resumed: a dispatch sent meanwhile met the old connection
        # as it closed, which a RESUME would replay, but the stand-in's send failed)
        resumed = len(gateway.resumes)
        gateway.send_raw(bot.session, json.dumps({"op": 7, "d": 5}))
        gateway.wait_for(lambda: len(gateway.resumes) > resumed and gateway.live(bot.session))
        _roll(bot, "1d10")
        assert gateway.identifies == identified, gateway
        logged = capfd.readouterr().err
    skipped = [line for line in logged.splitlines() if "skipped" in line]
    assert len(skipped) == 7, logged
    assert "a dispatch with no event name (sequence" in skipped[0], skipped
    assert "'INTERACTION_CREATE' whose sequence is not a number ('abc')" in skipped[1]
    assert "a frame with opcode 42, which Discord does not send" in skipped[2]
    assert "an INVALID_SESSION (op 9) whose data is not true or false" in skipped[3]
    assert "a frame with no opcode" in skipped[4], skipped
    assert "a frame that is not JSON ('{not json')" in skipped[5], skipped
    assert "a frame that is not a JSON object ('[1, 2]')" in skipped[6], skipped
    assert all(line.endswith("the session goes on") for line in skipped), skipped
    passed = [line for line in logged.splitlines() if "GUILD_CREATE" in line]
    assert len(passed) == 1 and "referee does not read" in passed[0], logged
    assert "Traceback" not in logged and "KeyError" not in logged, logged


def test_discords_error_words_are_logged_without_any_token(
    db_url: str, rest: StandIn, capfd: pytest.CaptureFixture[str]
) -> None:
    """§3.9: an error body that echoes the interaction's token and the bot's (and one
    shaped like a token) is logged with each redacted; before, it was printed as it
    came."""
    with gateway_server(db_url, rest, serve=False) as bot:
        payload = interaction("roll", opts(exprs="3d6"), channel=CHANNEL)
        path = f"/interactions/{payload['id']}/{payload['token']}/callback"
        other = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.GaBcDe.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        words = f"Invalid token {payload['token']} for Bot {TOKEN}; also {other}"
        rest.answers[path] = (400, {"message": words, "code": 50027})
        try:
            capfd.readouterr()
            bot.gateway.dispatch(bot.session, payload)
            wait_until(lambda: path in rest.answered, what="the refused answer")
            err = ""
            for _ in range(100):
                err += capfd.readouterr().err
                if "50027" in err:
                    break
                time.sleep(0.05)
        finally:
            del rest.answers[path]
    assert "Discord answered 400, code 50027: Invalid token … for Bot …; also …" in err, err
    for secret in (payload["token"], TOKEN, other, "GaBcDe"):
        assert secret not in err, (secret, err)


def test_a_refused_token_is_said_as_soon_as_discord_answers(tmp_path: Path, rest: StandIn) -> None:
    """§3.8: a well-made token that Discord refuses (401 from ``GET /gateway/bot``) is
    said while the rest is still importing: the database is never opened (before, the
    refusal came after every import and the database, 3.8-5.4 s from start). A new
    process, not the tests' zygote, which has imported it all."""
    db = tmp_path / "rooms.sqlite3"
    refused = TOKEN[:-3] + "xyz"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path),
           "REFEREE_DISCORD_API": rest.base, "REFEREE_DISCORD_TOKEN": refused}  # fmt: skip
    env.pop("REFEREE_DISCORD_PUBLIC_KEY", None)
    done = subprocess.run(
        [sys.executable, "-m", "referee.cli", "discord", "run", "--no-serve", "--db", str(db)],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr == (
        "referee discord run: Discord refused the bot's token (401 Unauthorized): copy it "
        "again from the application's Bot page into REFEREE_DISCORD_TOKEN\n"
    ), done.stderr
    assert not db.exists()
