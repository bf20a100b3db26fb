"""Issue 41 in a room: the fight's entries (contract v1.2 ``combatant``, ``change`` and
``turn``), damage applied from a roll, calls answered by their owner's roll, hidden
NPCs redacted for players on every path, and the export's fight replayed by verify."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx

from referee.rooms.audit.verify import verify
from rooms_server import Table, live
from test_room_combat import ORC_WITH_DR
from test_room_sheets import DAI_TOML, put


def _event(
    table: Table, who: str, event: dict[str, Any], roll: int | None = None
) -> httpx.Response:
    with table.client(who) as c:
        for _ in range(40):  # wait out the member's rate (429), as a page does
            answer = c.post(f"/api/rooms/{table.room}/fight", json={"event": event, "roll": roll})
            if answer.status_code != 429:
                break
            time.sleep(0.1)
        return answer


def _ok(
    table: Table, who: str, event: dict[str, Any], roll: int | None = None
) -> list[dict[str, Any]]:
    answer = _event(table, who, event, roll)
    assert answer.status_code == 201, answer.text
    return list(answer.json()["entries"])


def _by_call(table: Table, who: str, call: str, **extra: Any) -> httpx.Response:
    """Answer ``call`` with its own roll, which the server makes (contract v1.4)."""
    with table.client(who) as c:
        body = {"event": {"kind": "answer", "call": call, **extra}, "roll": "call"}
        return c.post(f"/api/rooms/{table.room}/fight", json=body)


def _turn_to(table: Table, cid: str) -> None:
    """The GM moves the turns on until it is ``cid``'s (contract v1.4: an attack is
    made on its attacker's turn)."""
    for _ in range(12):
        now = table.fight("gm")
        c = next(c for c in now["combatants"] if c["combatant"] == cid)
        if now["current"] == cid and not c["values"].get("acted"):
            return
        for call in now["calls"]:  # the turn waits for an open defense (rules 6)
            if call["kind"] == "defense":
                _ok(table, "gm", {"kind": "dismiss", "call": call["call"]})
        _ok(table, "gm", {"kind": "next"})
    raise AssertionError(f"{cid}'s turn never came")


def _state(table: Table, who: str) -> dict[str, Any]:
    with table.client(who) as c:
        got = c.get(f"/api/rooms/{table.room}/fight")
    assert got.status_code == 200, got.text
    return dict(got.json())


def _roll(table: Table, who: str, command: str, vis: str = "public") -> dict[str, Any]:
    answer = table.roll(who, command, vis)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def _setup(table: Table) -> str:
    """Dai (Alice's sheet) and the GM's orc, hidden, in the fight: the orc's id, which
    the server made (contract v1.3: opaque, never the sheet's name)."""
    assert put(table, "alice", "dai", DAI_TOML.read_bytes(), "application/toml").status_code == 201
    assert put(table, "gm", "orc", ORC_WITH_DR, "application/toml").status_code == 201
    _ok(table, "gm", {"kind": "add", "combatant": "dai", "sheet": "dai"})
    (added,) = _ok(table, "gm", {"kind": "add", "sheet": "orc", "hidden": True})
    orc = str(added["combatant"])
    assert re.fullmatch(r"npc-[0-9a-f]{4}", orc), orc
    return orc


def test_a_gurps_fight_from_the_sheets(table: Table) -> None:
    orc = _setup(table)
    gm, alice = _state(table, "gm"), _state(table, "alice")
    assert [c["combatant"] for c in gm["combatants"]] == ["dai", orc]
    assert [c["combatant"] for c in alice["combatants"]] == ["dai"]  # the orc is hidden
    dai = gm["combatants"][0]
    assert dai["owner"] == table.ids["alice"] and dai["name"] == "Dai Blackthorn"
    assert dai["values"]["ht"] == 12 and dai["values"]["hp"] == dai["values"]["hp_max"]
    started = _ok(table, "gm", {"kind": "start"})
    assert started[0]["kind"] == "turn" and started[0]["order"] == ["dai", orc]
    # The GM rolls damage and applies it to Dai with one click: its injury, from the log.
    hit = _roll(table, "gm", "gurps damage 3d+4 --type cr")
    applied = _ok(table, "gm", {"kind": "damage", "combatant": "dai"}, roll=int(hit["seq"]))
    (change,) = [e for e in applied if e["kind"] == "change"]
    # Contract v1.3: the roll's basic damage through Dai's own DR (none: 3d+4 cr at
    # the torso, x1), not the roll's injury at its own --dr.
    injury = hit["result"]["basic_damage"] - dai["values"].get("dr", 0)
    assert change["why"] == hit["seq"] and change["event"]["basic"] == injury
    assert change["event"]["type"] == "cr" and "amount" not in change["event"]
    assert change["values"]["hp"] == [dai["values"]["hp_max"], dai["values"]["hp_max"] - injury]
    (call,) = [c for c in change["calls"] if c["kind"] == "knockdown"]  # 3d+4 > half of 8 HP
    # Bob may not answer Alice's call, nor may she answer with another roll.
    bob = _roll(table, "bob", call["command"])
    assert (
        _event(table, "bob", {"kind": "answer", "call": call["call"]}, int(bob["seq"])).status_code
        == 403
    )
    other = _roll(table, "alice", "gurps check 12")
    wrong = _event(table, "alice", {"kind": "answer", "call": call["call"]}, int(other["seq"]))
    assert wrong.status_code == 422 and "was not made for call" in wrong.json()["error"]
    got = _by_call(table, "alice", call["call"])
    assert got.status_code == 201, got.text
    mine, answered = got.json()["roll"], got.json()["entries"]
    assert mine["call"] == call["call"] and mine["visibility"] == "public"
    assert answered[0]["closed"] == [call["call"]]
    # B420: a failure stuns; by 5 or more (or a critical failure), unconscious instead.
    down = {"stunned", "unconscious"} & set(_state(table, "alice")["combatants"][0]["conditions"])
    assert bool(down) == (not mine["result"]["success"])
    # Alice ends her own turn; then it is the orc's, which she may not end.
    assert _ok(table, "alice", {"kind": "next"})[0]["current"] == orc
    assert _event(table, "alice", {"kind": "next"}).status_code == 403
    # The GM hurts the hidden orc: players see that a change happened, not what.
    _ok(table, "gm", {"kind": "damage", "combatant": orc, "amount": 5, "location": "vitals"})
    for who in ("alice", "bob"):
        log = table.log(who)
        fight = [e for e in log if e["kind"] in ("combatant", "change")]
        hidden = [e for e in fight if e.get("redacted")]
        assert len(hidden) == 3  # the orc's combatant entry, its initiative, its hurt
        assert all(set(e) == {"room", "seq", "kind", "time", "by", "visibility", "digest",
                              "chain", "redacted"} for e in hidden)  # fmt: skip
        assert all(orc not in str(e) for e in fight if not e.get("redacted"))
        assert table.export(who) == log
    gm_log = table.log("gm")
    assert not any(e.get("redacted") for e in gm_log)
    frames = live(table, "bob", after=-1, count=len(gm_log))
    assert [f.get("redacted", False) for f in frames] == [
        e.get("redacted", False) for e in table.log("bob")
    ]
    # The GM reveals the orc: a public combatant entry with its values now.
    shown = _ok(table, "gm", {"kind": "reveal", "combatant": orc})
    assert shown[0]["kind"] == "combatant" and shown[0]["values"]["hp"] == 12 - 5
    assert [c["combatant"] for c in _state(table, "bob")["combatants"]] == ["dai", orc]
    for who in ("gm", "alice"):
        report = verify(table.export(who))
        assert report.ok, report.text()
        assert report.fight_checked > 0
    # A change the log does not follow from is caught.
    forged = table.export("gm")
    for e in forged:
        if e["kind"] == "change" and e["combatant"] == "dai" and "hp" in e["values"]:
            e["values"]["hp"][1] -= 1
            break
    assert not verify(forged).ok


def test_bad_fight_events_get_clear_errors(table: Table) -> None:
    _setup(table)
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"kind": "dance"}, 422, "no event 'dance'"),
        ({"kind": "damage", "combatant": "nobody", "amount": 1}, 422, "no combatant 'nobody'"),
        ({"kind": "next"}, 422, "not started"),
        ({"kind": "add", "combatant": "x", "sheet": "nope", "values": {}}, 422, "no sheet 'nope'"),
    ]
    for event, status, message in cases:
        got = _event(table, "gm", event)
        assert got.status_code == status and message in got.json()["error"], got.text
    assert (
        _event(table, "alice", {"kind": "damage", "combatant": "dai", "amount": 1}).status_code
        == 403
    )
    text = _roll(table, "gm", "gurps check 12")
    got = _event(table, "gm", {"kind": "damage", "combatant": "dai"}, int(text["seq"]))
    assert got.status_code == 422 and "deals no damage" in got.json()["error"]
    secret = _roll(table, "gm", "gurps damage 1d", "gm")
    applied = _ok(table, "gm", {"kind": "damage", "combatant": "dai"}, int(secret["seq"]))
    # Contract v1.3: the change to a visible combatant is public, its roll stays secret:
    # the entry carries the event without the numbers it took from that roll.
    assert all(e["visibility"] == "public" and e["sealed"] is True for e in applied), applied
    assert all("amount" not in e["event"] for e in applied)
    alice = {e["seq"]: e for e in table.log("alice")}
    assert alice[applied[0]["seq"]] == applied[0]  # the change, whole
    assert alice[int(secret["seq"])]["redacted"] is True  # its roll, still secret


def test_a_bare_damage_roll_meets_the_targets_dr(table: Table) -> None:
    """Issue 49 §5: a bare damage roll applied to a combatant goes through that
    combatant's DR from its sheet (the orc's 2), at the event's location (the skull
    adds its own 2, B399), with the location's wounding modifier; DR that stops it all
    changes nothing."""
    assert put(table, "gm", "orc", ORC_WITH_DR, "application/toml").status_code == 201
    orc, full = _ok(table, "gm", {"kind": "add", "sheet": "orc"})  # public, and the GM's
    assert orc["combatant"] == "orc" and "dr" not in orc["values"] and orc["event"] is None
    assert full["visibility"] == "gm" and full["values"]["dr"] == 2
    hit = _roll(table, "gm", "gurps damage 2d+4 --type cut")
    basic = hit["result"]["basic_damage"]
    (change,) = _ok(table, "gm", {"kind": "damage", "combatant": "orc"}, int(hit["seq"]))
    assert change["values"]["hp"] == [12, 12 - (basic - 2) * 3 // 2]  # cut x1.5, B379
    skull = _roll(table, "gm", "gurps damage 1d+4 --type cr")
    got = _ok(
        table, "gm", {"kind": "damage", "combatant": "orc", "location": "skull"}, int(skull["seq"])
    )
    hp = change["values"]["hp"][1]
    through = max(0, skull["result"]["basic_damage"] - 4)
    assert got[0]["values"]["hp"] == [hp, hp - 4 * through]  # crushing x4 to the skull
    weak = _roll(table, "gm", "roll 1d1")  # not a damage roll of GURPS's: its total
    assert (
        _event(table, "gm", {"kind": "damage", "combatant": "orc"}, int(weak["seq"])).status_code
        == 201
    )
    knife = _roll(table, "gm", "gurps damage 1d-5 --type cut")  # basic 1 vs DR 2
    stopped = _event(table, "gm", {"kind": "damage", "combatant": "orc"}, int(knife["seq"]))
    assert stopped.status_code == 422 and "changes nothing" in stopped.json()["error"]
    assert verify(table.export("gm")).ok


def _attack(table: Table, who: str, body: dict[str, Any]) -> httpx.Response:
    with table.client(who) as c:
        return c.post(f"/api/rooms/{table.room}/fight/attack", json=body)


def test_a_players_attack_on_a_visible_npc_in_one_request(table: Table) -> None:
    """Issue 49 §5: Alice attacks the (visible) orc with Dai's knife in one request:
    her attack roll public, the orc's defense the GM's secret roll (the table sees
    only that it defended and whether it held), and on a hit her damage roll, applied
    through the orc's DR. Her every path shows no number of the orc's sheet."""
    assert put(table, "alice", "dai", DAI_TOML.read_bytes(), "application/toml").status_code == 201
    assert put(table, "gm", "orc", ORC_WITH_DR, "application/toml").status_code == 201
    _ok(table, "gm", {"kind": "add", "combatant": "dai", "sheet": "dai"})
    _ok(table, "gm", {"kind": "add", "sheet": "orc"})  # visible
    _ok(table, "gm", {"kind": "start"})
    body = {"attacker": "dai", "target": "orc", "weapon": "Knife (Swung)"}
    assert _attack(table, "bob", body).status_code == 403  # not Bob's character
    hidden = _ok(table, "gm", {"kind": "add", "sheet": "orc", "hidden": True})
    npc = hidden[0]["combatant"]
    missing = _attack(table, "alice", {**body, "target": npc})
    assert missing.status_code == 422 and npc in missing.json()["error"]  # as for any id
    outcomes = set()
    for _ in range(12):  # enough exchanges to see a miss, a defense and a hit
        _turn_to(table, "dai")
        got = _attack(table, "alice", body)
        assert got.status_code == 201, got.text
        rolls, entries = got.json()["rolls"], got.json()["entries"]
        attack = rolls[0]
        assert attack["roller"] == table.ids["alice"] and attack["sheet"] == "dai"
        assert attack["visibility"] == "public"
        if not attack["result"]["success"]:
            assert len(rolls) == 1 and [e["event"]["kind"] for e in entries] == ["maneuver"]
            outcomes.add("miss")
            continue
        critical = attack["result"]["outcome"] == "critical success"  # no defense (B556)
        defends = [e for e in entries if e["event"] and e["event"]["kind"] == "defend"]
        if critical:
            assert not defends and len(rolls) == 2
            held = False
        else:
            defense = rolls[1]  # the GM's secret roll: redacted for Alice
            assert defense["redacted"] is True and defense["roller"] == "gm"
            (defended,) = defends
            assert defended["visibility"] == "public" and defended["sealed"] is True
            held = defended["event"]["success"]
            assert len(rolls) == (2 if held else 3)
            gm_copy = {e["seq"]: e for e in table.log("gm")}
            assert gm_copy[defense["seq"]]["command"].startswith("@orc gurps defend")
        outcomes.add("held" if held else "hit")
        if not held:
            damage = rolls[-1]
            assert damage["command"].startswith("@dai gurps damage")
            through = max(0, damage["result"]["basic_damage"] - 2)  # the orc's DR 2
            hurt = [e for e in entries if e["event"] and e["event"]["kind"] == "damage"]
            if critical:  # its row may change the blow (B556): tests/test_one_exchange.py
                row = attack["result"]["critical_table"]["effect"]
                assert all(e["event"].get("effect", row) == row for e in hurt), (row, hurt)
            elif through:
                hp = hurt[0]["values"]["hp"]
                assert hp[0] - hp[1] == max(1, through * 3 // 2)  # cut x1.5 (B379)
            else:
                assert not hurt
        orc = next(c for c in table.fight("gm")["combatants"] if c["combatant"] == "orc")
        if orc["values"]["hp"] <= 0:
            break
    assert "held" in outcomes or "hit" in outcomes, outcomes
    for e in table.export("alice"):  # no number of the orc's reaches her
        if e.get("redacted"):
            assert "command" not in e and "result" not in e
    assert verify(table.export("gm")).ok and verify(table.export("alice")).ok


def test_the_gm_may_roll_the_npcs_defense_by_hand(table: Table) -> None:
    """Issue 49 §5, "unless the GM chooses to roll it": with the orc's defenses the
    GM's (``gm_defends``), Alice's hit opens a defense call on the orc, public and with
    no number of its sheet; only the GM answers it, with one click, as the orc's sheet
    and secret; a failure brings Alice's damage roll, applied through the orc's DR."""
    assert put(table, "alice", "dai", DAI_TOML.read_bytes(), "application/toml").status_code == 201
    assert put(table, "gm", "orc", ORC_WITH_DR, "application/toml").status_code == 201
    _ok(table, "gm", {"kind": "add", "combatant": "dai", "sheet": "dai"})
    _ok(table, "gm", {"kind": "add", "sheet": "orc"})
    _ok(table, "gm", {"kind": "set", "combatant": "orc", "values": {"gm_defends": 1}})
    _ok(table, "gm", {"kind": "start"})
    body = {"attacker": "dai", "target": "orc", "weapon": "Knife (Swung)"}
    seen = {"held": 0, "failed": 0}
    for _ in range(40):
        _turn_to(table, "dai")
        got = _attack(table, "alice", body).json()
        calls = [c for e in got["entries"] for c in e.get("calls", []) if c["kind"] == "defense"]
        if not calls:  # a miss, or a critical hit (no defense, B556; its blow may call
            continue  # for the orc's knockdown roll instead)
        (call,) = calls
        assert call["combatant"] == "orc"
        assert "command" not in call  # the orc's defense, its target: the GM's (rules 3)
        (theirs,) = [c for c in table.fight("alice")["calls"] if c["call"] == call["call"]]
        assert "command" not in theirs
        (call,) = [c for c in table.fight("gm")["calls"] if c["call"] == call["call"]]
        assert call["command"].startswith("gurps defend ") and "Broadsword" not in call["command"]
        assert call["attacker"] == "dai" and call["then"].startswith("gurps damage")
        assert len(got["rolls"]) == 1  # her attack only: the defense is the GM's to roll
        mine = _event(table, "alice", {"kind": "answer", "call": call["call"]}, None)
        assert mine.status_code == 403
        with table.client("gm") as c:
            answer = {"event": {"kind": "answer", "call": call["call"]}, "roll": "call"}
            done = c.post(f"/api/rooms/{table.room}/fight", json=answer).json()
        roll = done["roll"]
        assert roll["visibility"] == "gm" and roll["sheet"] == "orc" and roll["roller"] == "gm"
        assert roll["command"] == f"@orc {call['command']}"
        if roll["result"]["success"]:
            seen["held"] += 1
            assert "damage" not in done
        else:
            seen["failed"] += 1
            damage = done["damage"]
            assert damage["roller"] == table.ids["alice"] and damage["sheet"] == "dai"
            assert damage["visibility"] == "public"
        if seen["held"] and seen["failed"]:
            break
    assert seen["held"] and seen["failed"], seen
    assert verify(table.export("gm")).ok and verify(table.export("alice")).ok
    for e in table.export("alice"):  # the orc's weapon, never named: calls and events
        assert "Broadsword" not in str(e.get("calls", "")) + str(e.get("event", ""))
