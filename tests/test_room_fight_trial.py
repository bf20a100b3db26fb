"""Issue 71 §1: what a GM's trial broke in the fight (secrecy and availability), each
written from its repro, on both backends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from referee.rooms.audit.verify import verify
from rooms_server import Server, Table
from test_room_combat import ORC_WITH_DR
from test_room_fight import _attack, _by_call, _event, _ok, _state, _turn_to
from test_room_fight_swn import _swn_table
from test_room_fight_swn_referee import THUG
from test_room_sheets import DAI_TOML, put


def _hidden_duel(table: Table) -> str:
    """Dai (Alice's) and the GM's hidden orc, started: the orc's opaque id."""
    assert put(table, "alice", "dai", DAI_TOML.read_bytes(), "application/toml").status_code == 201
    assert put(table, "gm", "orc", ORC_WITH_DR, "application/toml").status_code == 201
    _ok(table, "gm", {"kind": "add", "combatant": "dai", "sheet": "dai"})
    orc = _ok(table, "gm", {"kind": "add", "sheet": "orc", "hidden": True})[0]
    _ok(table, "gm", {"kind": "start"})
    return str(orc["combatant"])


def _defense_call(table: Table, orc: str) -> dict[str, Any] | None:
    """The hidden orc attacks Dai until a defense call opens on her: that call (as the
    GM sees it), or None when no attack in ten reached her defense."""
    for _ in range(10):
        _turn_to(table, orc)
        body = {"attacker": orc, "target": "dai", "weapon": "Broadsword"}
        got = _attack(table, "gm", body)
        assert got.status_code == 201, got.text
        calls = [c for c in table.fight("gm")["calls"] if c["kind"] == "defense"]
        if calls:
            return dict(calls[-1])
    return None


def test_a_hidden_attackers_defense_call_names_nothing_of_it(table: Table) -> None:
    """§1.1: the hidden orc's attack on Dai opens her defense call; the call that every
    player receives (log, export, fight) names the orc by its opaque id only and carries
    neither its damage dice nor a damage command; when her defense fails, the damage
    the server rolls from its own record of the attack still reaches her."""
    orc = _hidden_duel(table)
    for _ in range(12):
        call = _defense_call(table, orc)
        assert call is not None
        assert "then" not in call and isinstance(call["attack"], int)
        assert call["why"] == f"defend against {orc}'s attack (B374-B377)"
        for who in ("alice", "bob"):
            seen = json.dumps([table.log(who), table.export(who), _state(table, who)])
            for secret in ("Orc", "1d+2", "2d+1", "Broadsword", "gurps blow", '"orc"'):
                assert secret not in seen, (who, secret)
        before = _hp(table, "dai")
        worst = len(call["choices"]) - 1
        answer = _by_call(table, "alice", call["call"], choice=worst)
        assert answer.status_code == 201, answer.text
        if answer.json()["roll"]["result"]["success"]:
            continue  # she held: try again
        damage = answer.json()["damage"]
        assert damage["visibility"] == "gm" and damage.get("redacted") is True
        assert _hp(table, "dai") < before  # the orc's 2d+1 cut always gets through DR 0
        assert "Orc" not in json.dumps(table.log("alice"))
        assert verify(table.export("gm")).ok and verify(table.export("alice")).ok
        return
    raise AssertionError("Dai held every defense")


def _hp(table: Table, cid: str) -> int:
    fight = table.fight("gm")
    return int(next(c for c in fight["combatants"] if c["combatant"] == cid)["values"]["hp"])


def test_a_pc_added_mid_fight_beside_a_hidden_npc(table: Table) -> None:
    """§1.2: Bob's character joins a fight under way while a hidden orc is in the order:
    every player's fight still answers (no 500), and ``referee verify`` reads each
    player's export without a traceback."""
    orc = _hidden_duel(table)
    _turn_to(table, orc)
    assert put(table, "bob", "wren", WREN_TOML, "application/toml").status_code == 201
    _ok(table, "gm", {"kind": "add", "combatant": "wren", "sheet": "wren"})
    for call in table.fight("gm")["calls"]:
        if call["kind"] in ("initiative", "tiebreak"):
            _by_call(table, "gm", call["call"])
    for who in ("gm", "alice", "bob"):
        with table.client(who) as c:
            got = c.get(f"/api/rooms/{table.room}/fight")
        assert got.status_code == 200, (who, got.text)
        assert "wren" in [x["combatant"] for x in got.json()["combatants"]]
        report = verify(table.export(who))
        assert report.ok, (who, report)


WREN_TOML = b"""system = "gurps"
name = "Wren"
hp = 10
dodge = 9

[attributes]
ST = 10
DX = 12
IQ = 10
HT = 11

[skills]
Broadsword = 13
"""


def _visible_duel(table: Table, dai: bytes | None = None) -> str:
    sheet = DAI_TOML.read_bytes() if dai is None else dai
    assert put(table, "alice", "dai", sheet, "application/toml").status_code == 201
    assert put(table, "gm", "orc", ORC_WITH_DR, "application/toml").status_code == 201
    _ok(table, "gm", {"kind": "add", "combatant": "dai", "sheet": "dai"})
    orc = _ok(table, "gm", {"kind": "add", "sheet": "orc"})[0]
    _ok(table, "gm", {"kind": "start"})
    return str(orc["combatant"])


def _all_out_defense_call(table: Table, orc: str, defense: str) -> dict[str, Any]:
    """Dai takes All-Out Defense (``defense``) on her turns, and the orc attacks her on
    its, until a hit opens her defense call: that call, as the GM sees it."""
    for _ in range(10):
        _turn_to(table, "dai")
        move = {"kind": "maneuver", "combatant": "dai", "maneuver": "all-out defense",
                "defense": defense}  # fmt: skip
        _ok(table, "alice", move)
        _turn_to(table, orc)
        got = _attack(table, "gm", {"attacker": orc, "target": "dai", "weapon": "Broadsword"})
        assert got.status_code == 201, got.text
        calls = [c for c in table.fight("gm")["calls"] if c["kind"] == "defense"]
        if calls:  # else a miss, or a critical hit: no defense
            return dict(calls[-1])
    raise AssertionError("the orc never hit")


def test_all_out_defense_by_parry_or_block_does_not_swallow_the_next_hit(table: Table) -> None:
    """§1.3: after Dai's All-Out Defense (Parry), the orc's attack that hits opens her
    defense call with the parry at +2 (B366), and nothing is refused after a roll."""
    call = _all_out_defense_call(table, _visible_duel(table), "parry")
    labels = [c["label"] for c in call["choices"]]
    assert "Parry (Knife) 12 (all-out defense +2): 74.1% to hold" in labels, labels


SHIELDED = (
    DAI_TOML.read_bytes()
    + b"""
[[attacks]]
name = "Small Shield"
usage = "Shield Bash"
level = 15
damage = "1d-2 cr"
block = "11"
"""
)


def test_all_out_defense_by_block_does_not_swallow_the_next_hit(table: Table) -> None:
    """§1.3, by Block: Dai with a shield takes All-Out Defense (Block); the orc's hit
    opens her defense call with the block at +2 (B366), its command taken whole (the
    422 of an exchange command over 80 characters came after the attack was logged)."""
    call = _all_out_defense_call(table, _visible_duel(table, SHIELDED), "block")
    labels = [c["label"] for c in call["choices"]]
    assert "Block (Small Shield) 13 (all-out defense +2): 83.8% to hold" in labels, labels
    block = labels.index("Block (Small Shield) 13 (all-out defense +2): 83.8% to hold")
    answer = _by_call(table, "alice", call["call"], choice=block)
    assert answer.status_code == 201, answer.text
    assert "block" in answer.json()["roll"]["command"], answer.json()["roll"]


def test_an_unconscious_character_is_offered_no_defense(table: Table) -> None:
    """§1.4: B420, no active defense while unconscious: the orc's hit on an unconscious
    Dai opens no defense call, and its damage goes straight through."""
    orc = _visible_duel(table)
    _ok(table, "gm", {"kind": "set", "combatant": "dai", "add": ["unconscious"]})
    for _ in range(10):
        _turn_to(table, orc)
        before = _hp(table, "dai")
        got = _attack(table, "gm", {"attacker": orc, "target": "dai", "weapon": "Broadsword"})
        assert got.status_code == 201, got.text
        assert not [c for c in table.fight("gm")["calls"] if c["kind"] == "defense"]
        hit = got.json()["rolls"][0]
        if hit.get("redacted") or not _gm_roll(table, hit["seq"])["result"]["success"]:
            continue
        assert len(got.json()["rolls"]) == 2  # the attack, then its damage: no defense
        assert _hp(table, "dai") < before
        # Its text calls no knockdown (B420) and says what the tracker did.
        blow = got.json()["rolls"][1]
        assert "--unconscious" in blow["resolved"] and "knockdown" not in blow["text"]
        assert f"→ {_hp(table, 'dai')} HP" in blow["text"], blow["text"]
        return
    raise AssertionError("the orc never hit")


def _gm_roll(table: Table, seq: int) -> dict[str, Any]:
    return dict(table.log("gm")[seq])


def test_shock_taken_on_ones_own_turn_counts_from_the_next(table: Table) -> None:
    """§1.5: B419, "a shock penalty ... applies only on your next turn": Dai takes 1 HP
    during her own turn; her attack that turn carries no shock, her next turn's does
    (−1), and ``referee verify`` recomputes both."""
    orc = _visible_duel(table)
    _turn_to(table, "dai")
    _ok(table, "gm", {"kind": "damage", "combatant": "dai", "amount": 1})
    body = {"attacker": "dai", "target": orc, "weapon": "Knife (Swung)"}
    first = _attack(table, "alice", body)
    assert first.status_code == 201, first.text
    assert "shock" not in first.json()["rolls"][0]["text"]
    assert not first.json()["rolls"][0].get("tracker")
    # Any call the attack opened (a knockdown roll, after a major wound) is dismissed
    # before the turn moves on, and any the new turn opens after it.
    for _ in range(2):
        for c in table.fight("gm")["calls"]:
            _ok(table, "gm", {"kind": "dismiss", "call": c["call"]})
        if table.fight("gm")["current"] == "dai":
            _ok(table, "gm", {"kind": "next"})
    _turn_to(table, "dai")
    second = _attack(table, "alice", body)
    assert second.status_code == 201, second.text
    assert second.json()["rolls"][0]["tracker"] == ["shock -1"]
    assert "(shock -1) 17-1 = 16" in second.json()["rolls"][0]["text"]
    assert verify(table.export("gm")).ok


def test_a_roll_is_applied_once(table: Table) -> None:
    """§1.6: one untargeted damage roll applied to Dai may not be applied to the orc
    too (it was: 201, 201)."""
    orc = _visible_duel(table)
    rolled = table.roll("gm", "gurps damage 1d+1 cut").json()
    first = _event(table, "gm", {"kind": "damage", "combatant": "dai"}, int(rolled["seq"]))
    assert first.status_code == 201, first.text
    second = _event(table, "gm", {"kind": "damage", "combatant": orc}, int(rolled["seq"]))
    assert second.status_code == 409, second.text
    assert f"roll {rolled['seq']} was applied already" in second.json()["error"]


JUNO = (Path(__file__).parent.parent / "src/referee/examples/sheets/juno.toml").read_bytes()
VEX = (Path(__file__).parent.parent / "src/referee/examples/sheets/vex.toml").read_bytes()


def test_a_medic_stabilizes_a_fallen_ally(server: Server) -> None:
    """§1.6: Bob's Juno falls (SWN, mortally wounded); Alice's "Stabilize Juno" rolls as
    her own character, Vex, aimed at Juno (it was 403: "the sheet 'juno' is another
    member's"), and applies to Juno; Juno may not stabilize herself (003: the mortally
    wounded take no action)."""
    table = _swn_table(server)
    with server.client() as c:
        bob = c.post(f"/api/rooms/{table.room}/members",
                     json={"name": "Bob", "invite": table.invite}).json()  # fmt: skip
    table.tokens["bob"], table.ids["bob"] = bob["token"], bob["member"]
    assert put(table, "alice", "vex", VEX, "application/toml").status_code == 201
    assert put(table, "bob", "juno", JUNO, "application/toml").status_code == 201
    _ok(table, "gm", {"kind": "add", "sheet": "vex"})
    _ok(table, "gm", {"kind": "add", "sheet": "juno"})
    _ok(table, "gm", {"kind": "start"})
    for call in table.fight("gm")["calls"]:
        _ok(table, "gm", {"kind": "dismiss", "call": call["call"]})
    _ok(table, "gm", {"kind": "damage", "combatant": "juno", "amount": 99})
    assert "mortally wounded" in _card(table, "juno")["conditions"]
    herself = table.roll("bob", "@juno swn stabilize --vs @juno")
    assert herself.status_code == 422 and "cannot stabilize itself" in herself.text
    for _ in range(20):
        got = table.roll("alice", "swn stabilize --vs @juno")
        assert got.status_code == 201, got.text
        roll = got.json()
        assert roll["sheet"] == "vex" and "--vs @juno" in roll["command"]
        if not roll["result"]["success"]:
            continue
        event = {"kind": "result", "of": "stabilize"}
        applied = _event(table, "gm", event, int(roll["seq"]))
        assert applied.status_code == 201, applied.text
        assert "stabilized" in _card(table, "juno")["conditions"]
        assert verify(table.export("gm")).ok
        return
    raise AssertionError("Vex never stabilized Juno")


def _card(table: Table, cid: str) -> dict[str, Any]:
    return dict(next(c for c in table.fight("gm")["combatants"] if c["combatant"] == cid))


def test_an_npc_whose_morale_broke_makes_no_attack(server: Server) -> None:
    """§1.7: 003, Morale ("Greater = flee/withdraw/surrender"): the thug whose morale
    broke is refused an attack on its turn (409, naming why), and nothing is rolled."""
    table = _swn_table(server)
    assert put(table, "alice", "vex", VEX, "application/toml").status_code == 201
    assert put(table, "gm", "thug", THUG, "application/toml").status_code == 201
    _ok(table, "gm", {"kind": "add", "sheet": "vex"})
    _ok(table, "gm", {"kind": "add", "sheet": "thug"})
    _ok(table, "gm", {"kind": "start"})
    for call in table.fight("gm")["calls"]:
        _ok(table, "gm", {"kind": "dismiss", "call": call["call"]})
    _ok(table, "gm", {"kind": "set", "combatant": "thug", "add": ["broken"]})
    _turn_to(table, "thug")
    size = len(table.log("gm"))
    got = _attack(table, "gm", {"attacker": "thug", "target": "vex", "weapon": "Club"})
    assert got.status_code == 409 and "morale broke" in got.json()["error"], got.text
    assert len(table.log("gm")) == size


def test_the_turn_waits_for_an_open_defense_call(table: Table) -> None:
    """§1.9: Next with Dai's defense call open is refused, naming the call (it was
    taken, and she answered a turn later); once she answers, the turn passes."""
    orc = _visible_duel(table)
    call = _defense_call(table, orc)
    assert call is not None
    got = _event(table, "gm", {"kind": "next"})
    assert got.status_code == 422, got.text
    assert f"defense call {call['call']} is open" in got.json()["error"]
    assert _by_call(table, "alice", call["call"]).status_code == 201
    _ok(table, "gm", {"kind": "next"})


def test_a_players_damage_text_says_what_the_tracker_does(table: Table) -> None:
    """§1.8: Alice's public damage roll on the orc no longer claims an injury at DR 0
    ("injury 9 (×1.5)" while the tracker applied 7): it says the basic damage, which
    the fight takes through the orc's DR at the location; the orc's HP change is the
    tracker's, and ``referee verify`` re-runs the roll to the same text."""
    orc = _visible_duel(table)
    for _ in range(20):
        _turn_to(table, "dai")
        got = _attack(table, "alice", {"attacker": "dai", "target": orc, "weapon": "Knife (Swung)"})
        assert got.status_code == 201, got.text
        damage = [r for r in got.json()["rolls"] if "gurps damage" in r.get("command", "")]
        if not damage:
            continue
        (roll,) = damage
        assert roll["visibility"] == "public" and "--basic-only" in roll["command"]
        assert "injury" not in roll["text"] and "basic damage" in roll["text"], roll["text"]
        assert verify(table.export("alice")).ok and verify(table.export("gm")).ok
        return
    raise AssertionError("Dai never hit")


def test_an_attacks_label_names_its_weapon_once() -> None:
    """§1.10: the fight's attack label "Longbow (shock -4)" was joined to the sheet's
    "Longbow" ("Longbow: Longbow (shock -4)"); a label that starts with the trait's name
    and its parenthesis names it already. Another label still follows the name."""
    from referee.commands.sheeted import labelled

    assert labelled("Longbow", "Longbow (shock -4)") == "Longbow (shock -4)"
    assert labelled("Knife (Swung)", "Knife (Swung) (prone -4)") == "Knife (Swung) (prone -4)"
    assert labelled("Longbow", "at the orc") == "Longbow: at the orc"
    assert labelled("Longbow", "Longbowman's shot") == "Longbow: Longbowman's shot"
