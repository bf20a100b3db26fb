"""The server's own replay of a fight (a cold cache, another worker, or a read that
raced a write) puts back the numbers that sealed events took from the GM's secret
rolls (contract v1.3), as ``referee verify`` does. Found in the Discord 3 v 4 fight
(issue 72 §4): three orcs from one sheet tied for initiative; their tie rolls were the
GM's secret ones, so the public entries of their answers held no total, and a replay
that took those entries as logged dropped each orc's roll from its initiative key.
The order then differed from the log's, and ``referee verify`` said "this turn entry
does not follow from its event"."""

from __future__ import annotations

from referee.fight import begin
from referee.rooms.audit.verify import verify
from referee.rooms.db.fightreplay import replayed as _replayed
from referee.rooms.log import FIGHT_KINDS
from rooms_server import Table
from test_room_combat import ORC_WITH_DR
from test_room_fight import _by_call, _ok
from test_room_sheets import put


def test_a_replay_puts_back_what_sealed_events_took_from_their_rolls(table: Table) -> None:
    assert put(table, "gm", "orc", ORC_WITH_DR, "application/toml").status_code == 201
    for k in range(3):
        _ok(table, "gm", {"kind": "add", "sheet": "orc", "combatant": f"orc-{k}"})
    _ok(table, "gm", {"kind": "start"})
    calls = table.fight("gm")["calls"]
    assert sorted(c["kind"] for c in calls) == ["tiebreak"] * 3  # one sheet: a tie (B363)
    totals = {}
    for call in calls:
        got = _by_call(table, "gm", call["call"])  # the GM's NPC: her secret roll
        assert got.status_code == 201, got.text
        assert got.json()["roll"]["visibility"] == "gm"
        totals[call["combatant"]] = got.json()["roll"]["result"]["total"]
    log = table.export("gm")
    sealed = [e for e in log if e.get("sealed") and (e.get("event") or {}).get("kind") == "answer"]
    assert sealed and all("total" not in e["event"] for e in sealed)  # the public entries
    fights = [e for e in log if e.get("kind") in FIGHT_KINDS]
    rolls = {e["seq"]: e for e in log if e.get("kind") == "roll"}
    fight = _replayed(begin("gurps"), fights, rolls)
    assert {c: fight.initiative[c][2] for c in totals} == totals
    assert list(fight.order) == table.fight("gm")["order"]
    # Taken as logged, the entries hold no total: the fault this test was written for.
    blind = _replayed(begin("gurps"), fights, {})
    assert all(len(blind.initiative[c]) == 2 for c in totals)
    assert verify(log).ok
