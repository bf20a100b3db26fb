"""Issue 65 in an SWN room: side initiative offered as one roll a side, the GM's NPC's
roll secret by default (§4), a player's attack with her target picked from the fight and
its AC read by the server (§7), out of turn refused (§3), and a stabilize roll that
names its target, whose rounds come from the tracker and which applies to that target
only (§7, ``003``, "Mortal Wounds": the difficulty is 10 + the rounds since the fall,
without tools)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from referee.rooms.audit.verify import verify
from rooms_server import Server, Table
from test_room_fight import _by_call, _event, _ok, _turn_to
from test_room_fight_swn import _swn_table
from test_room_sheets import put

VEX = (Path(__file__).parent.parent / "src/referee/examples/sheets/vex.toml").read_bytes()
THUG = b"""system = "swn"
name = "Street Thug"
level = 1
[attributes]
dex = 10
[combat]
attack_bonus = 1
ac = 12
hp = 6
[[weapons]]
name = "Club"
damage = "1d6"
skill = "stab"
attribute = "str"
"""


def _attack(table: Table, who: str, body: dict[str, Any]) -> httpx.Response:
    with table.client(who) as c:
        return c.post(f"/api/rooms/{table.room}/fight/attack", json=body)


def _vex(table: Table) -> dict[str, Any]:
    return next(c for c in table.fight("gm")["combatants"] if c["combatant"] == "vex")


def test_an_swn_fight_that_referees(server: Server) -> None:
    table = _swn_table(server)
    assert put(table, "alice", "vex", VEX, "application/toml").status_code == 201
    assert put(table, "gm", "thug", THUG, "application/toml").status_code == 201
    _ok(table, "gm", {"kind": "add", "sheet": "vex"})
    _ok(table, "gm", {"kind": "add", "sheet": "thug"})
    _ok(table, "gm", {"kind": "start", "group": True})  # one roll a side
    for call in table.fight("gm")["calls"]:
        who = "alice" if call["combatant"] == "vex" else "gm"
        got = _by_call(table, who, call["call"])
        assert got.status_code == 201, got.text
        roll = got.json()["roll"]
        # §4: the thug's side roll (1d8 + its Dex modifier) is the GM's secret.
        assert roll["visibility"] == ("public" if who == "alice" else "gm")
    fight = table.fight("gm")
    assert fight["round"] == 1
    other = "thug" if fight["current"] == "vex" else "vex"
    body = {"attacker": other, "target": fight["current"], "weapon": "Club"}
    if other == "vex":
        body = {"attacker": "vex", "target": "thug", "weapon": "Knife"}
    out = _attack(table, "alice" if other == "vex" else "gm", body)
    assert out.status_code == 409 and "turn" in out.json()["error"]  # §3
    # The thug takes Total Defense on its turn (003: +2 AC, no Shock, to its next turn).
    _turn_to(table, "thug")
    _ok(table, "gm", {"kind": "maneuver", "combatant": "thug", "maneuver": "total defense"})
    _turn_to(table, "vex")
    got = _attack(table, "alice", {"attacker": "vex", "target": "thug", "weapon": "Knife"})
    assert got.status_code == 201, got.text
    (attack,) = got.json()["rolls"]
    # §7: the thug's AC (12, from its sheet) and HP (6, from the tracker), not typed.
    assert attack["visibility"] == "public" and "--ac 12" in attack["resolved"]
    assert "--total-defense" in attack["command"]
    assert "--target-hp 6" in attack["resolved"] and attack["sheet"] == "vex"
    again = _attack(table, "alice", {"attacker": "vex", "target": "thug", "weapon": "Knife"})
    assert again.status_code == 409 and "Main Action" in again.json()["error"]  # one a turn
    hurt = attack["result"].get("damage") or 0
    thug = next(c for c in table.fight("gm")["combatants"] if c["combatant"] == "thug")
    assert thug["values"]["hp"] == max(0, 6 - hurt)

    # Vex falls; two rounds pass; a stabilize roll typed at --rounds 0 is made at the
    # tracker's count, and applies to Vex only.
    _ok(table, "gm", {"kind": "damage", "combatant": "vex", "amount": 40})
    assert "mortally wounded" in _vex(table)["conditions"]
    for _ in range(4):
        _ok(table, "gm", {"kind": "next"})
    down = _vex(table)["values"]["rounds_down"]
    assert down >= 1
    rolled = table.roll("gm", "swn stabilize --vs @vex --rounds 0 --skill 2").json()
    assert rolled["resolved"].endswith(f"--rounds {down}"), rolled["resolved"]
    assert rolled["result"]["target"] == 10 + down  # 003: 10 + the rounds down, no tools
    event = {"kind": "result", "combatant": "thug", "of": "stabilize"}
    wrong = _event(table, "gm", event, int(rolled["seq"]))
    assert wrong.status_code == 422 and "aimed at Vex Ortega" in wrong.json()["error"]
    applied = _event(table, "gm", {"kind": "result", "of": "stabilize"}, int(rolled["seq"]))
    if rolled["result"]["success"]:
        assert applied.status_code == 201, applied.text
        assert "stabilized" in _vex(table)["conditions"]
    else:
        assert applied.status_code == 422 and "changes nothing" in applied.json()["error"]
    for who in ("gm", "alice"):
        report = verify(table.export(who))
        assert report.ok, report.text()
