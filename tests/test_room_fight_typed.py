"""Issue 72 §3 (contract v1.5, "typed rolls in a fight carry its state"): a roll typed as
a combatant's sheet while its fight is under way takes the tracker's modifiers that apply
to it, each named in its text and in ``tracker``, and ``referee verify`` recomputes them;
the GM may ask for a bare roll, which says so. On both backends."""

from __future__ import annotations

from typing import Any

from referee.rooms.audit.fightcheck import check_fight
from referee.rooms.audit.verify import verify
from rooms_server import Table
from test_room_fight import _ok, _turn_to
from test_room_fight_trial import _visible_duel


def _roll(table: Table, who: str, body: dict[str, Any]) -> Any:
    with table.client(who) as c:
        return c.post(f"/api/rooms/{table.room}/rolls", json=body)


def _shocked(table: Table) -> str:
    """Dai hurt for 2 in the orc's turn (B419: shock -2 on her next), then her turn."""
    orc = _visible_duel(table)
    _turn_to(table, orc)
    _ok(table, "gm", {"kind": "damage", "combatant": "dai", "amount": 2})
    _turn_to(table, "dai")
    return orc


def test_a_typed_dx_check_carries_the_shock_and_verify_recomputes_it(table: Table) -> None:
    _shocked(table)
    got = _roll(table, "alice", {"command": "gurps check DX"})
    assert got.status_code == 201, got.text
    roll = got.json()
    assert roll["tracker"] == ["shock -2"]
    assert roll["text"].startswith("DX (shock -2) 15-2 = 13:"), roll["text"]
    assert roll["result"]["effective_skill"] == 13
    # HT takes no shock (B419): named as none, so verify checks that too.
    ht = _roll(table, "alice", {"command": "gurps check HT"}).json()
    assert ht["tracker"] == [] and ht["result"]["effective_skill"] == 12
    log = table.export("gm")
    assert check_fight(log)[2] == []
    assert verify(log).ok and verify(table.export("alice")).ok
    forged = [dict(e) for e in log]
    forged[roll["seq"]] = {**forged[roll["seq"]], "tracker": []}
    wrong = [w for _s, w in check_fight(forged)[2]]
    assert any("modifiers are not the fight's" in w for w in wrong), wrong


def test_a_typed_defense_carries_the_state(table: Table) -> None:
    """Stunned −4 and prone −3 on a typed parry (B420, B551), as a defense call's."""
    _shocked(table)
    _ok(table, "gm", {"kind": "set", "combatant": "dai", "add": ["stunned", "prone"]})
    roll = _roll(table, "alice", {"command": "gurps defend parry"}).json()
    assert roll["tracker"] == ["stunned -4", "prone -3"], roll
    assert roll["result"]["effective"] == 10 - 7
    assert check_fight(table.export("gm"))[2] == []


def test_the_gm_may_ask_for_a_bare_roll_and_a_player_may_not(table: Table) -> None:
    _shocked(table)
    bare = _roll(table, "gm", {"command": "@dai gurps check DX", "bare": True})
    assert bare.status_code == 201, bare.text
    assert bare.json()["bare"] is True and "tracker" not in bare.json()
    assert bare.json()["result"]["effective_skill"] == 15
    mine = _roll(table, "alice", {"command": "gurps check DX", "bare": True})
    assert mine.status_code == 403 and "bare" in mine.json()["error"]
    assert verify(table.export("gm")).ok


def test_out_of_her_turn_a_check_takes_no_shock(table: Table) -> None:
    orc = _shocked(table)
    _turn_to(table, orc)
    roll = _roll(table, "alice", {"command": "gurps check DX"}).json()
    assert roll["tracker"] == [] and roll["result"]["effective_skill"] == 15
