"""An SWN fight in a room through the API (issue 41, "Done when"): initiative by each
combatant's own 1d8 + Dex roll, answered by the member who owns it; an attack's
damage (with Shock) applied from its roll; a mortal wound at 0 HP; the morale check
the first casualty calls for; a ``swn stabilize`` roll applied as the stabilization's
result; and the export verified, its fight replayed, for the GM and for the player."""

from __future__ import annotations

from typing import Any

from referee.rooms.audit.verify import verify
from rooms_server import Server, Table
from test_room_fight import _by_call, _event, _ok, _state


def _swn_table(server: Server) -> Table:
    with server.client() as c:
        made = c.post("/api/rooms", json={"name": "Spike drive", "system": "swn"}).json()
        alice = c.post(
            f"/api/rooms/{made['room']}/members", json={"name": "Alice", "invite": made["invite"]}
        ).json()
    tokens = {"gm": made["token"], "alice": alice["token"]}
    return Table(
        server, made["room"], made["invite"], tokens, {"gm": "gm", "alice": alice["member"]}
    )


def _roll(table: Table, who: str, command: str) -> dict[str, Any]:
    answer = table.roll(who, command)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def test_an_swn_fight_in_the_room(server: Server) -> None:
    table = _swn_table(server)
    vex = {"hp_max": 8, "dex_mod": 1, "strain_max": 12}
    add = {"kind": "add", "combatant": "vex", "values": vex, "pc": True, "side": "pcs"}
    _ok(table, "gm", {**add, "owner": table.ids["alice"], "name": "Vex"})
    for cid, morale in (("o1", 8), ("o2", 7)):
        orc = {"hp_max": 5, "morale": morale}
        _ok(table, "gm", {"kind": "add", "combatant": cid, "values": orc, "side": "orcs"})
    _ok(table, "gm", {"kind": "start"})
    calls = _state(table, "gm")["calls"]
    assert sorted(c["command"] for c in calls) == [
        "roll 1d8 --label Initiative",
        "roll 1d8 --label Initiative",
        "roll 1d8+1 --label Initiative",
    ]
    for call in calls:  # each combatant's own roll: Vex's is Alice's to make
        who = "alice" if call["combatant"] == "vex" else "gm"
        got = _by_call(table, who, call["call"])  # the call's own roll (contract v1.4)
        assert got.status_code == 201, got.text
        assert got.json()["roll"]["visibility"] == ("public" if who == "alice" else "gm")
    state = _state(table, "alice")
    assert sorted(state["order"]) == ["o1", "o2", "vex"] and state["round"] == 1
    # An attack that cannot do less than 10 (Shock 10 on a miss) drops o1 to 0 HP:
    # mortally wounded, and the orcs' first casualty calls o2's morale check.
    hit = _roll(table, "alice", "swn attack --ac 0 --damage 1d6+10 --shock 10/20")
    _ok(table, "gm", {"kind": "damage", "combatant": "o1"}, int(hit["seq"]))
    o1 = next(c for c in _state(table, "gm")["combatants"] if c["combatant"] == "o1")
    assert o1["values"]["hp"] == 0 and "mortally wounded" in o1["conditions"]
    (morale,) = [c for c in _state(table, "gm")["calls"] if c["kind"] == "morale"]
    assert morale["combatant"] == "o2" and morale["command"].startswith("swn morale 7")
    checked = _by_call(table, "gm", morale["call"]).json()["roll"]
    assert checked["visibility"] == "gm"  # an NPC's morale: the GM's secret (v1.4)
    o2 = next(c for c in _state(table, "gm")["combatants"] if c["combatant"] == "o2")
    assert ("broken" in o2["conditions"]) == (not checked["result"]["success"])
    # A stabilize roll, applied as the result it is: a failure changes nothing, and
    # the fight says so (nothing is logged).
    event = {"kind": "result", "combatant": "o1", "of": "stabilize"}
    # Issue 65 §7: its rounds are the tracker's (003, "Mortal Wounds": 10 + the rounds
    # down), not what was typed: a roll at an easier or harder count is refused.
    for typed in ("--rounds 3", "--rounds 1"):
        off = _roll(table, "alice", f"swn stabilize {typed}")
        refused = _event(table, "gm", event, int(off["seq"]))
        assert refused.status_code == 422
        assert "roll 'swn stabilize --rounds 0'" in refused.json()["error"], refused.text
    heal = _roll(table, "alice", "swn stabilize")
    got = _event(table, "gm", event, int(heal["seq"]))
    o1 = next(c for c in _state(table, "gm")["combatants"] if c["combatant"] == "o1")
    if heal["result"]["success"]:
        assert got.status_code == 201 and "stabilized" in o1["conditions"], got.text
    else:
        assert got.status_code == 422 and "changes nothing" in got.json()["error"]
        assert "mortally wounded" in o1["conditions"]
    for who in ("gm", "alice"):
        report = verify(table.export(who))
        assert report.ok, report.text()
        # The GM's checks every event; Alice's takes as logged what hangs on the orcs'
        # morale scores, which are the GM's (rules 3: two adds' GM-only copies), and on
        # their initiative and morale rolls, the GM's secret rolls (contract v1.4).
        assert report.fight_checked >= (8 if who == "gm" else 3)
        assert (report.fight_adopted == 0) == (who == "gm")


def test_an_attacks_damage_goes_to_its_own_target(server: Server) -> None:
    """Issue 49 §5: the Boss's ``swn attack --vs @juno`` is applied to Juno, whatever
    the GM's pick: the event may leave its combatant out, and one naming another
    combatant (the Boss himself) is refused."""
    from test_room_sheets import put

    table = _swn_table(server)
    juno = b'system = "swn"\nname = "Juno"\nlevel = 1\n[combat]\nhp = 9\nac = 13\n'
    boss = b'system = "swn"\nname = "Gang Boss"\nlevel = 2\n[combat]\nhp = 8\nac = 12\n'
    assert put(table, "alice", "juno", juno, "application/toml").status_code == 201
    assert put(table, "gm", "boss", boss, "application/toml").status_code == 201
    _ok(table, "gm", {"kind": "add", "sheet": "juno"})
    _ok(table, "gm", {"kind": "add", "sheet": "boss"})
    hit = _roll(table, "gm", "@boss swn attack --ac 0 --damage 1d4+4 --shock 4/20 --vs @juno")
    wrong = _event(table, "gm", {"kind": "damage", "combatant": "boss"}, int(hit["seq"]))
    assert wrong.status_code == 422 and "aimed at Juno" in wrong.json()["error"]
    (change,) = _ok(table, "gm", {"kind": "damage"}, int(hit["seq"]))
    assert change["combatant"] == "juno" and change["values"]["hp"][0] == 9
    assert change["values"]["hp"][1] == 9 - hit["result"]["damage"]
    sides = {c["combatant"]: c["side"] for c in _state(table, "gm")["combatants"]}
    assert sides == {"juno": "PCs", "boss": "NPCs"}  # the default sides
    assert verify(table.export("gm")).ok
