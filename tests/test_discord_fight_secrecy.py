"""Who may press a fight's buttons on Discord (issue 72 §4, as the room's secrecy
matrix asks of the page): only the character's player, or the GM. Another player who
presses her turn's select, its End turn or her defense, a stranger, and a player the GM
removed from the room are each refused privately ("⚠", ephemeral), nothing is rolled
or logged, and the turn stays hers; the removed player is out on every path at once
(her own character's prompt too)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from discord_standin import Bot, StandIn, opts, sub
from referee.rooms.audit.verify import verify
from rooms_server import Table
from test_discord_answers import ALICE, GM, said
from test_discord_answers import link as linked
from test_discord_fight import (
    ORC,
    STRANGER,
    _ids,
    _load,
    _press,
    _prompt,
    player_sheet,
    settle,
)

BOB = "1400000000000000803"
DAI = (Path(__file__).parents[1] / "examples" / "sheets" / "dai.toml").read_bytes()
WREN = DAI.replace(b"Dai Blackthorn", b"Wren Ash").replace(b"DX = 15", b"DX = 14")
"""Bob's character: DX 14, so that Basic Speed orders Dai, Wren, the orc with no tie."""


def _refused(bot: Bot, channel: str, table: Table, user: str, custom_id: str,
             message: dict[str, Any], values: list[str] | None = None) -> None:  # fmt: skip
    size, current = len(table.log("gm")), table.fight("gm")["current"]
    got = _press(bot, channel, user, custom_id, values, message=message)
    assert got["type"] == 4 and got["data"]["flags"] == 64, got  # her eyes only
    assert got["data"]["content"].startswith("⚠"), got
    assert len(table.log("gm")) == size and table.fight("gm")["current"] == current


def test_only_the_player_or_the_gm_may_press(bot: Bot, rest: StandIn) -> None:
    channel = "1500000000000000855"
    table: Table = linked(bot, channel)
    player_sheet(bot, rest, channel, ALICE, DAI)
    player_sheet(bot, rest, channel, BOB, WREN)
    _load(bot, rest, channel, "orc", ORC)
    for pc in ("@Dai-Blackthorn", "@Wren-Ash", "@Orc-Raider"):
        assert "Added" in said(bot.ask("fight", sub("add", sheet=pc), user=GM, channel=channel))
    assert "starts" in said(bot.ask("fight", sub("start"), user=GM, channel=channel))
    settle(rest)
    fight = table.fight("gm")
    assert fight["order"] == ["Dai-Blackthorn", "Wren-Ash", "Orc-Raider"], fight["order"]
    turn = _prompt(rest, channel, "rf:end:Dai-Blackthorn")
    assert turn is not None and f"<@{ALICE}>" in str(turn["content"])
    select = next(i for i in _ids(turn) if i["custom_id"].startswith("rf:att:"))
    value = [select["options"][0]["value"]]
    for user in (BOB, STRANGER):  # another player, and one not at the table
        _refused(bot, channel, table, user, select["custom_id"], turn, value)
        _refused(bot, channel, table, user, "rf:end:Dai-Blackthorn", turn)
        _refused(bot, channel, table, user, "rf:gm", turn)  # the GM's controls
    # The GM removes Bob: his own character's turn is then refused to him too.
    owners = {c["combatant"]: c["owner"] for c in fight["combatants"]}
    with table.client("gm") as client:
        gone = client.delete(f"/api/rooms/{table.room}/members/{owners['Wren-Ash']}")
    assert gone.status_code == 201, gone.text
    got = _press(bot, channel, ALICE, "rf:end:Dai-Blackthorn", message=turn)
    assert got["type"] in (4, 7), got
    settle(rest)
    assert table.fight("gm")["current"] == "Wren-Ash"
    wren = _prompt(rest, channel, "rf:end:Wren-Ash")
    assert wren is not None
    mine = next(i for i in _ids(wren) if i["custom_id"].startswith("rf:att:"))
    _refused(bot, channel, table, BOB, mine["custom_id"], wren, [mine["options"][0]["value"]])
    _refused(bot, channel, table, BOB, "rf:end:Wren-Ash", wren)
    refused = bot.ask("roll", opts(exprs="3d6"), user=BOB, channel=channel)
    assert "no longer a member" in said(refused), refused
    assert verify(table.export("gm")).ok
