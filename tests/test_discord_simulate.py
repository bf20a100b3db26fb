"""``/gurps simulate`` and ``/swn simulate`` with an attached encounter (issue 68 §4),
through the interactions endpoint: an ephemeral answer, the simulator's own text;
``runs`` bounded and the attachment checked before any byte is fetched; a sheet that
is not a shipped example refused (no file is read on the server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import referee.examples
from discord_standin import Bot, StandIn, opts
from referee.rooms.discord.slash import application_commands

CHANNEL = "1500000000000000061"
ENCOUNTER = """name = "Dai against an orc"
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


def _ephemeral(reply: dict[str, Any]) -> bool:
    return bool(reply.get("data", {}).get("flags", 0) & 64)


def _ask(bot: Bot, system: str, url: str, size: int, **more: Any) -> dict[str, Any]:
    resolved = {"attachments": {"9": {"id": "9", "filename": "fight.toml", "size": size,
                                      "url": url}}}  # fmt: skip
    options = [{"type": 1, "name": "simulate", "options": opts(file="9", **more)}]
    return bot.ask(system, options, channel=CHANNEL, resolved=resolved)


def test_simulate_an_attached_encounter(bot: Bot, rest: StandIn) -> None:
    here = Path(referee.examples.__file__).parent
    gurps = ENCOUNTER.encode()
    swn = (here / "swn" / "warrior_vs_3_thugs.toml").read_bytes()
    rest.files["/attachments/6/duel.toml"] = gurps
    rest.files["/attachments/6/thugs.toml"] = swn
    got = _ask(bot, "gurps", rest.base + "/attachments/6/duel.toml", len(gurps), runs=2000)
    assert _ephemeral(got), got
    text = got["data"]["content"]
    assert "2,000 fights" in text and "win:" in text, text
    got = _ask(bot, "swn", rest.base + "/attachments/6/thugs.toml", len(swn), runs=2000)
    assert _ephemeral(got) and "2,000" in got["data"]["content"], got


def test_simulations_that_are_refused(bot: Bot, rest: StandIn) -> None:
    local = ENCOUNTER.replace("example:dai.toml", "dai.toml")
    rest.files["/attachments/7/local.toml"] = local.encode()
    url = rest.base + "/attachments/7/local.toml"
    for runs in (0, 20_001):
        got = _ask(bot, "gurps", url, len(local), runs=runs)
        assert _ephemeral(got) and "must be from 1 to 20,000" in got["data"]["content"], got
    got = _ask(bot, "gurps", "https://example.com/x.toml", 10)
    assert "not on Discord's attachment hosts" in got["data"]["content"]
    got = _ask(bot, "gurps", url, 1024 * 1024)
    assert "256 KiB at most" in got["data"]["content"]
    long = ("max_rounds = 201\n" + ENCOUNTER).encode()
    rest.files["/attachments/7/long.toml"] = long
    got = _ask(bot, "gurps", rest.base + "/attachments/7/long.toml", len(long), runs=10)
    assert "at most 200 here" in got["data"]["content"], got  # the bound on the work
    got = _ask(bot, "gurps", url, len(local), runs=10)  # a sheet by path: no file is read
    assert _ephemeral(got) and "only example: sheets" in got["data"]["content"], got


def test_the_commands_are_offered() -> None:
    for system in ("gurps", "swn"):
        group = next(c for c in application_commands() if c["name"] == system)
        simulate = next(s for s in group["options"] if s["name"] == "simulate")
        assert [o["name"] for o in simulate["options"]] == ["file", "runs"]
