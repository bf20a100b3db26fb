"""Files sent to the bot (issue 71 §3.3-§3.5, §3.9): an attachment that is not text is
refused before a byte is fetched; a TOML bomb or a deep file, sent to ``/gurps
simulate``, ``/swn simulate`` or ``/sheet``, is refused with the bound it passed (one
limit, :mod:`referee.untrusted`), never "internal error", and logged in one line;
a simulation's unknown option is refused; and Ctrl-C stops the bot at once with a
simulation running, its asker told. Through both transports, on SQLite and
PostgreSQL (the Ctrl-C test through the gateway alone)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from discord_standin import Bot, GatewayBot, StandIn, gateway_server, interaction, opts, sub
from gateway_standin import wait_until
from rooms_server import Server, make_table

CHANNEL = "1500000000000000991"
DAI_SHEET = (Path(__file__).parents[1] / "examples" / "sheets" / "dai.toml").read_bytes()
GOOD = b"""name = "Dai against an orc"
[[combatants]]
sheet = "example:dai.toml"
side = "pcs"
[[combatants]]
name = "Orc"
side = "orcs"
hp = 12
ht = 11
skill = 12
damage = "2d cut"
dodge = 8
"""
SLOW = b"""name = "A long brawl"
max_rounds = 200
[[combatants]]
name = "Guard"
side = "a"
count = 16
hp = 40
ht = 14
skill = 9
damage = "1d-2 cr"
dodge = 12
[[combatants]]
name = "Orc"
side = "b"
count = 16
hp = 40
ht = 14
skill = 9
damage = "1d-2 cr"
dodge = 12
"""
"""Fought 2,000 times, 18 s of CPU: 20,000 times outlasts any test."""


def _attached(
    rest: StandIn, path: str, body: bytes, filename: str, content_type: str | None
) -> dict[str, Any]:
    rest.files[path] = body
    found: dict[str, Any] = {"id": "9", "filename": filename, "size": len(body),
                             "url": rest.base + path}  # fmt: skip
    if content_type is not None:
        found["content_type"] = content_type
    return {"attachments": {"9": found}}


def _simulate(system: str, resolved: dict[str, Any], **more: Any) -> dict[str, Any]:
    options = [{"type": 1, "name": "simulate", "options": opts(file="9", **more)}]
    return interaction(system, options, channel=CHANNEL, resolved=resolved)


def _said(bot: Bot, payload: dict[str, Any]) -> str:
    got = bot.send(payload).json()
    assert got["data"].get("flags", 0) & 64, got  # ephemeral
    return str(got["data"].get("content"))


@pytest.mark.parametrize(
    ("filename", "content_type", "what"),
    [("x.png", "image/png", "image/png"), ("x.exe", "application/x-msdownload",
      "application/x-msdownload"), ("fight.exe", "text/plain", "a .exe file")],
)  # fmt: skip
def test_an_attachment_that_is_not_text_is_refused_unfetched(
    bot: Bot, rest: StandIn, filename: str, content_type: str, what: str
) -> None:
    path = f"/attachments/91/{filename}"
    resolved = _attached(rest, path, GOOD, filename, content_type)
    for payload in (
        _simulate("gurps", resolved, runs=10),
        _simulate("swn", resolved, runs=10),
        interaction("sheet", opts(file="9"), channel=CHANNEL, resolved=resolved),
    ):
        said = _said(bot, payload)
        assert f"{filename} is {what}, not a text file" in said, said
    assert path not in rest.gets, rest.gets


def test_a_text_attachment_of_any_text_type_is_taken(bot: Bot, rest: StandIn) -> None:
    for n, kind in enumerate(("text/plain; charset=utf-8", "application/toml", None)):
        resolved = _attached(rest, f"/attachments/92/{n}.toml", GOOD, "duel.toml", kind)
        said = _said(bot, _simulate("gurps", resolved, runs=20))
        assert "20 fights" in said, said


def test_bombs_and_deep_files_are_refused_with_their_bound(bot: Bot, rest: StandIn) -> None:
    """A 20 KB dotted key (6.3 s and 559 MB in tomllib before) and deep arrays and
    inline tables (a 2,503-line RecursionError, "internal error" in Discord)."""
    dotted = b"a." * 10_000 + b"a = 1\n"
    arrays = b"x = " + b"[" * 5_000
    tables = b"x = " + b"{a=" * 5_000
    for system, body, said in (
        ("gurps", dotted, "has 10,001 parts (line 1); an encounter's keys have at most 8"),
        ("swn", dotted, "has 10,001 parts (line 1); an encounter's keys have at most 8"),
        ("gurps", arrays, "nests 5000 levels deep (line 1); an encounter needs at most 40"),
        ("swn", tables, "nests 5000 levels deep (line 1); an encounter needs at most 40"),
    ):
        resolved = _attached(rest, f"/attachments/93/{system}.toml", body, "bomb.toml", None)
        got = _said(bot, _simulate(system, resolved, runs=10))
        assert got.startswith("⚠ bomb.toml: ") and said in got, got
    resolved = _attached(rest, "/attachments/93/sheet.toml", arrays, "dai.toml", None)
    got = _said(bot, interaction("sheet", opts(file="9"), channel=CHANNEL, resolved=resolved))
    assert "nests 5000 levels deep (line 1); a character sheet needs at most 40" in got, got
    if isinstance(bot, GatewayBot):  # the bot's own process: its peak, every bomb read
        status = Path(f"/proc/{bot.pid}/status").read_text()
        peak = int(next(line for line in status.splitlines() if line.startswith("VmHWM:"))
                   .split()[1]) // 1024  # fmt: skip
        assert peak < 300, f"the bot's peak memory: {peak} MB"


def test_a_refused_file_is_logged_in_one_line(
    db_url: str, rest: StandIn, capfd: pytest.CaptureFixture[str]
) -> None:
    """Each refused file: one line in the bot's window, naming who sent it and why."""
    hosts = rest.base + "/attachments/"
    arrays = b"x = " + b"[" * 5_000
    with gateway_server(db_url, rest, REFEREE_DISCORD_ATTACHMENT_HOSTS=hosts) as bot:
        capfd.readouterr()
        resolved = _attached(rest, "/attachments/96/bomb.toml", arrays, "bomb.toml", None)
        _said(bot, _simulate("swn", resolved, runs=10))
        _said(bot, interaction("sheet", opts(file="9"), channel=CHANNEL, resolved=resolved))
        logged = ""
        for _ in range(100):
            logged += capfd.readouterr().err
            if logged.count("refused") >= 2:
                break
            time.sleep(0.05)
    lines = [line for line in logged.splitlines() if "refused" in line]
    assert len(lines) == 2, logged
    assert "refused Dai's encounter 'bomb.toml': bomb.toml: the file nests 5000" in lines[0]
    assert "refused a sheet of 5,004 bytes: the file nests 5000 levels deep" in lines[1]
    assert "internal error" not in logged and "Traceback" not in logged, logged


def test_a_lookalike_character_is_refused_on_discord_too(
    bot: Bot, rest: StandIn, discord_db: str
) -> None:
    """§3.7 through ``/sheet`` in a linked channel: the rooms' sheet service refuses
    "Dаi Blackthorn" (a Cyrillic а) beside Dai, naming her."""
    channel, gm, ayla, bob = ("1500000000000000997", "1400000000000000997",
                              "1400000000000000998", "1400000000000000999")  # fmt: skip
    table = make_table(Server(bot.base, discord_db))
    got = bot.ask("referee", sub("link", room=table.room, token=table.tokens["gm"]), user=gm,
                  channel=channel, permissions=str(1 << 4))  # fmt: skip
    assert "rolls into room" in got["data"]["content"], got
    dai = DAI_SHEET
    fake = dai.replace(b"Dai Blackthorn", "D\u0430i Blackthorn".encode())
    for user, body, n in ((ayla, dai, 1), (bob, fake, 2)):
        resolved = _attached(rest, f"/attachments/97/{n}.toml", body, "dai.toml", None)
        payload = interaction("sheet", opts(file="9"), user=user, channel=channel,
                              resolved=resolved)  # fmt: skip
        said = _said(bot, payload)
        if n == 1:
            assert "Loaded Dai Blackthorn" in said, said
    assert "reads the same as 'Dai Blackthorn' (@Dai-Blackthorn)" in said, said


def test_a_simulations_unknown_option_is_refused(bot: Bot, rest: StandIn) -> None:
    resolved = _attached(rest, "/attachments/94/duel.toml", GOOD, "duel.toml", None)
    said = _said(bot, _simulate("gurps", resolved, runs=10, seed=7))
    assert "takes no option 'seed': only file and runs" in said, said
    assert "/attachments/94/duel.toml" not in rest.gets


@pytest.mark.alone  # timed: its exit within 5 s (beside other workers it took over 20)
def test_ctrl_c_stops_the_bot_at_once_with_a_simulation_running(
    db_url: str, rest: StandIn, capfd: pytest.CaptureFixture[str]
) -> None:
    """A simulation of minutes is running when the GM presses Ctrl-C: the bot ends
    within seconds (before, it waited for the simulation: 86.8 s for one), its fight's
    process is killed, and the asker's deferred answer says it was abandoned."""
    hosts = rest.base + "/attachments/"
    with gateway_server(db_url, rest, REFEREE_DISCORD_DEFER_AFTER="0.5",
                        REFEREE_DISCORD_ATTACHMENT_HOSTS=hosts) as bot:  # fmt: skip
        resolved = _attached(rest, "/attachments/95/slow.toml", SLOW, "slow.toml", None)
        payload = _simulate("gurps", resolved, runs=20_000)
        answer = bot.send(payload).json()
        assert answer == {"type": 5, "data": {"flags": 64}}, answer  # deferred, ephemeral
        fights = wait_for_fight(bot.pid)
        before = len(rest.calls)
        os.kill(bot.pid, signal.SIGINT)
        start = time.monotonic()
        code = bot.process.wait(20)
        took = time.monotonic() - start
    assert code == 0 and took < 5, (code, took)
    for pid in fights:
        assert not _alive(pid), pid
    told = [c for c in rest.calls[before:] if c["method"] == "PATCH"]
    assert len(told) == 1 and payload["token"] in told[0]["path"], rest.calls[before:]
    assert "it was abandoned" in told[0]["json"]["content"], told
    logged = capfd.readouterr().err
    assert "stopped Dai's simulation of 'slow.toml'" in logged, logged
    assert "Traceback" not in logged, logged


def wait_for_fight(parent: int) -> list[int]:
    """The pids of ``parent``'s fight processes, once there is one."""
    found: list[int] = []

    def look() -> bool:
        found[:] = [
            int(pid)
            for pid in os.listdir("/proc")
            if pid.isdigit() and _child_fight(int(pid), parent)
        ]
        return bool(found)

    wait_until(look, 30, "the simulation's process")
    return found


def _child_fight(pid: int, parent: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        with open(f"/proc/{pid}/cmdline", "rb") as cmd:
            line = cmd.read()
    except (OSError, ValueError, IndexError):
        return False
    return ppid == parent and b"referee.rooms.discord.fight" in line


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False
