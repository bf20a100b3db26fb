"""Issue 72 §1, "the page, the API, Discord and ``referee verify`` give the same result
on the same dice", on Discord: :mod:`test_one_exchange` holds the room's steps to
``gurps attack``'s exchange on chosen dice; here a whole GURPS fight is played through
Discord's presses alone (through the gateway, on both backends), and each exchange its
log holds is played again by ``gurps attack`` on the dice the server drew for it: the
attack's draws, then the defense's, then the damage's, in that order, as one exchange
draws them. Each must give the same hit, the same defense and the same injury taken off
the target's HP, use every draw, and the export must verify.

The server's dice cannot be chosen (they come from the room's committed seeds), so the
fight is long enough to meet hits, misses, defenses that hold and fail, and damage of
both paths (the player's public ``gurps damage`` taken through the NPC's DR by the
fight, and the GM's ``gurps blow --vs`` against the player's character)."""

from __future__ import annotations

import shlex
from typing import Any

import pytest

from discord_standin import Bot, StandIn, sub
from referee import commands
from referee.rng import ReplaySource
from referee.rooms.audit.verify import verify
from test_discord_answers import ALICE, GM, said
from test_discord_answers import link as linked
from test_discord_fight import ORC, _load, _play, player_sheet

ALDO = b"""system = "gurps"
name = "Aldo Marsh"
hp = 200
dr = 2
dodge = 6
[attributes]
ST = 12
DX = 12
IQ = 10
HT = 12
[skills]
Broadsword = 14
[[attacks]]
name = "Broadsword"
usage = "Swung"
level = 14
damage = "2d cut"
parry = "7"
"""


@pytest.fixture(scope="module")
def transport() -> str:
    """Through the gateway alone: the HTTP endpoint takes the same presses to the same
    service functions (tests/test_discord_fight.py plays whole fights on both)."""
    return "gateway"


DICE = {"Aldo-Marsh": "2d cut", "Orc-Raider": "2d+1 cut"}
DR = {"Aldo-Marsh": 2, "Orc-Raider": 1}
NAMES = {"Aldo-Marsh": "Aldo Marsh", "Orc-Raider": "Orc Raider"}


def _exchanges(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log's exchanges, in order: the attack roll, the defense and damage rolls that
    follow it before the next attack, the target's HP before it and what the fight took
    off them for its damage roll."""
    hp: dict[str, int] = {}
    found: list[dict[str, Any]] = []
    for e in log:
        values = e.get("values") or {}
        if e["kind"] == "combatant" and "hp" in values:
            hp[e["combatant"]] = int(values["hp"])
        if e["kind"] == "change" and "hp" in values:
            old, new = values["hp"]
            assert hp[e["combatant"]] == old, e
            hp[e["combatant"]] = int(new)
            if found and e.get("why") == (found[-1].get("damage") or {}).get("seq"):
                found[-1]["taken"] += old - new
        if e["kind"] != "roll":
            continue
        words = shlex.split(e["command"])
        roller, verb = words[0].lstrip("@"), words[1:3]
        if verb == ["gurps", "attack"]:
            target = next(c for c in DICE if c != roller)
            found.append({"attacker": roller, "target": target, "attack": e,
                          "hp": hp[target], "taken": 0})  # fmt: skip
        elif found and verb == ["gurps", "defend"]:
            found[-1]["defense"] = e
        elif found and verb in (["gurps", "damage"], ["gurps", "blow"]):
            found[-1]["damage"] = e
    return found


def _again(x: dict[str, Any]) -> tuple[dict[str, Any], ReplaySource]:
    """``gurps attack``'s exchange on the exchange's own draws."""
    hit = x["attack"]["result"]
    line = (
        f"gurps attack {hit['effective']} --damage {shlex.quote(DICE[x['attacker']])}"
        f" --target-name {shlex.quote(NAMES[x['target']])} --dr {DR[x['target']]}"
        f" --hp {x['hp']}"
    )
    draws = list(x["attack"]["draws"])
    if "defense" in x:
        d = x["defense"]["result"]
        level = d["effective"] - int(hit.get("defense_modifier") or 0)
        line += f" --{d['defense']} {level} --defense {d['defense']}"
        draws += x["defense"]["draws"]
    else:  # a miss, or a critical hit (B556): the test checks which
        line += " --defense none"
    if "damage" in x:
        draws += x["damage"]["draws"]
    src = ReplaySource(draws)
    return dict(commands.run(line, src).data), src


def test_every_exchange_of_a_discord_fight_is_gurps_attacks(bot: Bot, rest: StandIn) -> None:
    channel = "1500000000000000861"
    table = linked(bot, channel)
    player_sheet(bot, rest, channel, ALICE, ALDO)
    orc = ORC.replace(b"hp = 12", b"hp = 200").replace(b"1d+1", b"2d+1")
    _load(bot, rest, channel, "orc", orc.replace(b"dodge = 8", b"dodge = 6"))
    for asked in (sub("add", sheet="@Aldo-Marsh"), sub("add", sheet="@Orc-Raider")):
        assert "Added" in said(bot.ask("fight", asked, user=GM, channel=channel))
    assert "starts" in said(bot.ask("fight", sub("start"), user=GM, channel=channel))
    # 200 HP each: `gurps attack --hp` takes a target with 1 HP or more, and ten rounds
    # of these blows do not take 200. Ten rounds, and defenses that hold 3 times in 8
    # (Dodge 6 and a retreat, 9): each side's damage lands about one attack in two, so
    # each is met but for about 1 in 1,000.
    _play(bot, rest, channel, table, {"Aldo-Marsh"}, knockdown=False, rounds=10)
    export = table.export("gm")
    exchanges = _exchanges(export)
    met = {"hit": 0, "miss": 0, "held": 0, "failed": 0, "pc hurt": 0, "npc hurt": 0}
    for x in exchanges:
        cli, src = _again(x)
        hit = x["attack"]["result"]
        assert cli["attack"]["outcome"] == hit["outcome"], x
        assert src.left == 0, ("draws the exchange did not use", x)
        met["hit" if hit["success"] else "miss"] += 1
        if "defense" in x:
            held = x["defense"]["result"]["success"]
            assert (
                cli["defense"]["success"] == held
                and cli["defense"]["dice"] == x["defense"]["result"]["dice"]
            ), x
            met["held" if held else "failed"] += 1
        else:  # a miss, or a critical hit (B556): no defense in either
            assert not hit["success"] or hit["outcome"] == "critical success", x
            assert cli["defense"] is None, (cli, x)
        assert x["hp"] - cli["hp_after"] == x["taken"], (cli["text"], x)
        if x["taken"]:
            met["pc hurt" if x["target"] == "Aldo-Marsh" else "npc hurt"] += 1
    print(met)
    assert len(exchanges) >= 8, met
    assert met["hit"] and met["held"] and met["failed"], met
    assert met["pc hurt"] and met["npc hurt"], met
    report = verify(export)
    assert report.ok, report.problems[:5]
