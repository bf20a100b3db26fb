"""The fight's entries on every path, for every role and visibility (issue 41,
"Secrecy", under contract v1.3's rule, issue 49): the ``combatant``, ``change`` and
``turn`` entries an event makes reach the GM, Alice (who owns Dai) and Bob through the
POST answer, the log, the export, the live socket and ``GET .../fight`` exactly as the
contract's rule says, and the page holds none of them. Each case is one source of an
event: the GM's hand on a public combatant, a hidden NPC, and damage taken from a roll
of each visibility by the GM and by a player."""

from __future__ import annotations

import pytest

from referee.fight.events import RULES
from referee.rooms.log import REDACTED_KEYS
from rooms_server import Table, live
from test_room_fight import _event, _ok, _setup, _state
from test_rooms import _page

CASES = {
    # name: (target, who rolls the damage and how it is seen, or None for the GM's hand)
    "by hand, public": ("dai", None),
    "by hand, hidden NPC": ("orc", None),
    "GM's public roll": ("dai", ("gm", "public")),
    "GM's secret roll": ("dai", ("gm", "gm")),
    "GM's blind roll": ("dai", ("gm", "blind")),
    "Alice's roll to the GM": ("dai", ("alice", "gm")),
    "Bob's public roll on the hidden NPC": ("orc", ("bob", "public")),
}


@pytest.mark.parametrize("case", list(CASES))
def test_every_path_shows_each_viewer_the_fight_as_the_contract_allows(
    table: Table, case: str
) -> None:
    target, source = CASES[case]
    orc = _setup(table)  # Dai (Alice's) public; the orc (the GM's) hidden
    target = orc if target == "orc" else target
    _ok(table, "gm", {"kind": "start"})
    before = {who: _state(table, who) for who in ("gm", "alice", "bob")}
    roll = None
    if source is not None:
        roller, visibility = source
        answer = table.roll(roller, "gurps damage 2d+3 cr", visibility)
        assert answer.status_code == 201, answer.text
        roll = int(answer.json()["seq"])
    event: dict[str, object] = {"kind": "damage", "combatant": target}
    if roll is None:
        event["amount"] = 5
    posted = _event(table, "gm", event, roll)
    assert posted.status_code == 201, posted.text
    made = posted.json()["entries"]
    # Contract v1.3: only a hidden combatant's entries are the GM's; a change taken
    # from a secret roll is public, sealed (without the roll's numbers).
    secret = target == orc
    sealed = not secret and source is not None and source[1] != "public"
    seqs = [e["seq"] for e in made]
    assert all(not e.get("redacted") for e in made)  # the GM's answer is whole
    gm_copy = {e["seq"]: e for e in table.log("gm") if e["seq"] in seqs}
    for e in gm_copy.values():
        expected = "public" if e["kind"] == "turn" or not secret else "gm"
        assert e["visibility"] == expected, (case, e)
        assert bool(e.get("sealed")) == sealed, (case, e)
        if sealed:
            assert e["event"] == {"kind": "damage", "combatant": "dai", "rules": RULES}, (case, e)
    for who in ("gm", "alice", "bob"):
        paths = {
            "log": [e for e in table.log(who) if e["seq"] in seqs],
            "export": [e for e in table.export(who) if e["seq"] in seqs],
            "socket": live(table, who, after=min(seqs) - 1, count=len(seqs)),
        }
        for path, got in paths.items():
            assert [e["seq"] for e in got] == seqs, (case, who, path)
            for e in got:
                whole = gm_copy[e["seq"]]
                if who == "gm" or whole["visibility"] == "public":
                    assert e == whole, (case, who, path)
                else:  # redacted: the common fields only, the GM's values for them
                    assert e["redacted"] is True, (case, who, path)
                    assert set(e) == {*REDACTED_KEYS, "redacted"} - {"roller"}, (case, path)
                    assert all(e[k] == whole[k] for k in e if k != "redacted")
        # GET .../fight: what the log hides from a player, the state hides too.
        state = _state(table, who)
        dai = next(c for c in state["combatants"] if c["combatant"] == "dai")
        was = next(c for c in before[who]["combatants"] if c["combatant"] == "dai")
        ids = [c["combatant"] for c in state["combatants"]]
        if who == "gm":
            assert ids == ["dai", orc]
        else:
            assert ids == ["dai"], (case, who)  # the hidden orc is never in a player's view
            if secret:
                assert dai == was, (case, who)  # nothing the log hides shows here
                assert orc not in str(state["calls"])
        if target == "dai":
            moved = dai["values"]["hp"] != was["values"]["hp"]
            assert moved == (who == "gm" or not secret), (case, who)
    # The page holds no entry: its script reads them from the socket.
    for who in ("alice", "bob"):
        assert '"combatant"' not in _page(table, who)


def test_a_players_view_stays_checkable_after_what_it_may_not_see(table: Table) -> None:
    """A secret damage roll on Dai, then a public change to Dai: Alice sees both changes
    (contract v1.3) but not the roll; her state and her export agree with her log (the
    sealed change taken as logged), her ``verify`` passes, counting what it took as
    logged, and the GM's checks every event."""
    from referee.rooms.audit.verify import verify

    _setup(table)
    _ok(table, "gm", {"kind": "start"})
    secret = int(table.roll("gm", "gurps damage 1d+2", "gm").json()["seq"])
    _ok(table, "gm", {"kind": "damage", "combatant": "dai"}, secret)
    _ok(table, "gm", {"kind": "damage", "combatant": "dai", "amount": 1})
    gm_hp = next(c for c in _state(table, "gm")["combatants"] if c["combatant"] == "dai")
    alice = next(c for c in _state(table, "alice")["combatants"] if c["combatant"] == "dai")
    # Her view: the public change, taken as logged, shows Dai's HP after it: the
    # log's public entry says so (old → new), so her state follows her log.
    shown = [e for e in table.log("alice") if e["kind"] == "change" and not e.get("redacted")]
    assert alice["values"]["hp"] == shown[-1]["values"]["hp"][1] == gm_hp["values"]["hp"]
    for who in ("gm", "alice", "bob"):
        report = verify(table.export(who))
        assert report.ok, (who, report.text())
    assert verify(table.export("alice")).fight_adopted > verify(table.export("gm")).fight_adopted
    assert verify(table.export("gm")).fight_adopted == 0
    assert alice == gm_hp  # she sees her character's wounds, secret roll or not
