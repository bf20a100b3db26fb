"""Contract v1.4, "the fight referees" (issue 65), in a room on both backends: a call is
answered only by its own roll (§1, for the player and the GM, and ``referee verify``
against a forged binding); turns are the fight's (§3); the GM's NPCs roll in secret by
default (§4); the fight's state goes into the rolls it takes (§2); and a player
chooses and rolls her own character's defense (§5)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from referee.rooms.audit.fightcheck import check_fight
from referee.rooms.audit.verify import verify
from referee.systems.gurps.success import skill_odds
from rooms_server import Table
from test_room_combat import ORC_WITH_DR
from test_room_fight import _attack, _by_call, _event, _ok, _state, _turn_to
from test_room_sheets import DAI_TOML, put


def _duel(table: Table, *, hidden: bool = False) -> str:
    """Dai (Alice's) and the GM's orc (visible unless ``hidden``), started: the orc's id."""
    assert put(table, "alice", "dai", DAI_TOML.read_bytes(), "application/toml").status_code == 201
    assert put(table, "gm", "orc", ORC_WITH_DR, "application/toml").status_code == 201
    _ok(table, "gm", {"kind": "add", "combatant": "dai", "sheet": "dai"})
    orc = _ok(table, "gm", {"kind": "add", "sheet": "orc", "hidden": hidden})[0]
    _ok(table, "gm", {"kind": "start"})
    return str(orc["combatant"])


def _knockdown(table: Table, cid: str) -> dict[str, Any]:
    """A knockdown call on ``cid``: 1 HP at the skull is enough to cause shock there (B420)."""
    _ok(table, "gm", {"kind": "damage", "combatant": cid, "amount": 1, "location": "skull"})
    calls = [c for c in table.fight("gm")["calls"] if c["combatant"] == cid]
    return dict(calls[-1]) if calls else {}  # none for one already down (B420)


def test_a_player_cannot_choose_which_of_her_rolls_answers_her_call(table: Table) -> None:
    """§1's three attacks, as Alice would make them: her own rolls of the call's command
    (fail, fail, success: she offers the success), a roll made before the call opened,
    and a roll that already answered another call. Each is refused by name, the call
    stays open, and only the roll the server makes for it answers it."""
    _duel(table)
    before = table.roll("alice", "gurps check 12 --label 'HT (knockdown)'", "gm").json()
    call = _knockdown(table, "dai")
    assert call["kind"] == "knockdown"
    mine = [table.roll("alice", call["command"], "gm").json() for _ in range(3)]
    for roll in mine:
        got = _event(table, "alice", {"kind": "answer", "call": call["call"]}, int(roll["seq"]))
        assert got.status_code == 422 and "was not made for call" in got.json()["error"]
    early = _event(table, "alice", {"kind": "answer", "call": call["call"]}, int(before["seq"]))
    assert early.status_code == 422 and "was not made for call" in early.json()["error"]
    answered = _by_call(table, "alice", call["call"])
    assert answered.status_code == 201, answered.text
    first = answered.json()["roll"]
    assert first["call"] == call["call"] and first["visibility"] == "public"
    assert first["sheet"] == "dai" and first["roller"] == table.ids["alice"]
    second = _knockdown(table, "dai")
    if second.get("kind") != "knockdown":
        return  # she fell: no second call to answer (the refusals above stand)
    reused = _event(table, "alice", {"kind": "answer", "call": second["call"]}, int(first["seq"]))
    assert reused.status_code == 422
    assert f"was made for call {call['call']}" in reused.json()["error"]
    # A forged answer with extra numbers is refused before any die is drawn.
    size = len(table.log("gm"))
    forged = _by_call(table, "alice", second["call"], success=True)
    assert forged.status_code == 422 and "leave out 'success'" in forged.json()["error"]
    assert len(table.log("gm")) == size
    assert verify(table.export("gm")).ok and verify(table.export("alice")).ok


def test_the_gm_cannot_answer_an_npcs_call_with_a_roll_of_her_choice(table: Table) -> None:
    """§1 for the GM: her own secret roll, one made before the call, and one that
    answered another call are refused for her NPC's call as for a player's."""
    orc = _duel(table)
    before = table.roll("gm", "gurps check 11 --label 'HT (knockdown)'", "gm").json()
    call = _knockdown(table, orc)
    own = table.roll("gm", f"@orc {call['command']}", "gm").json()
    for roll in (own, before):
        got = _event(table, "gm", {"kind": "answer", "call": call["call"]}, int(roll["seq"]))
        assert got.status_code == 422 and "was not made for call" in got.json()["error"]
    first = _by_call(table, "gm", call["call"]).json()["roll"]
    # §4: a visible NPC's call rolls as the GM's secret roll unless she says otherwise.
    assert first["visibility"] == "gm" and first["call"] == call["call"]
    assert table.export("bob")[first["seq"]].get("redacted") is True
    second = _knockdown(table, orc)
    if second.get("kind") == "knockdown":
        reused = _event(table, "gm", {"kind": "answer", "call": second["call"]}, first["seq"])
        assert reused.status_code == 422 and "was made for call" in reused.json()["error"]
        with table.client("gm") as c:  # the GM may choose to roll it in public
            body = {"event": {"kind": "answer", "call": second["call"]}, "roll": "call",
                    "visibility": "public"}  # fmt: skip
            shown = c.post(f"/api/rooms/{table.room}/fight", json=body).json()["roll"]
        assert shown["visibility"] == "public"
    assert verify(table.export("gm")).ok


def test_verify_fails_an_answer_bound_to_another_roll(table: Table) -> None:
    """§1: ``referee verify`` fails an export in which an answer's roll is not its
    call's own, was made before the call opened, or answers two calls."""
    _duel(table)
    plain = table.roll("alice", "3d6").json()  # before the call opens
    call = _knockdown(table, "dai")
    mine = _by_call(table, "alice", call["call"]).json()["roll"]
    log = table.export("gm")
    assert check_fight(log)[2] == []
    (at,) = [i for i, e in enumerate(log) if (e.get("event") or {}).get("kind") == "answer"]

    def problems(entries: list[dict[str, Any]]) -> list[str]:
        return [what for _seq, what in check_fight(entries)[2]]

    answer = log[at]
    other = [*log[:at], {**answer, "why": plain["seq"]}, *log[at + 1 :]]
    assert f"roll {plain['seq']} is not call {call['call']}'s own roll" in " ".join(problems(other))
    early = [dict(e) for e in log]
    early[plain["seq"]] = {**early[plain["seq"]], "call": call["call"]}
    early[at] = {**answer, "why": plain["seq"]}
    assert any("was made before call" in p for p in problems(early)), problems(early)
    twice = [*log, {**answer, "seq": len(log)}]
    assert any("answered call" in p and "already" in p for p in problems(twice)), problems(twice)
    assert mine["seq"] > plain["seq"]


def test_an_attack_out_of_turn_is_refused_and_changes_nothing(table: Table) -> None:
    """§3: during the orc's turn, Alice's attack gets 409 naming whose turn it is, and
    nothing is logged or rolled; on her turn it goes; a second attack in that turn is
    refused (one maneuver a turn, B363)."""
    orc = _duel(table)
    _turn_to(table, orc)
    size = len(table.log("gm"))
    body = {"attacker": "dai", "target": orc, "weapon": "Knife (Swung)"}
    got = _attack(table, "alice", body)
    assert got.status_code == 409 and "Orc's turn" in got.json()["error"]
    assert len(table.log("gm")) == size
    maneuver = _event(table, "alice", {"kind": "maneuver", "combatant": "dai", "maneuver": "aim"})
    assert maneuver.status_code == 422 and "Orc's turn" in maneuver.json()["error"]
    _turn_to(table, "dai")
    assert _attack(table, "alice", body).status_code == 201
    again = _attack(table, "alice", body)
    assert again.status_code == 409 and "no attack left" in again.json()["error"]


def test_shock_and_posture_go_into_the_attack_and_the_defense(table: Table) -> None:
    """§2, B419 ("Shock": −1 per HP of injury to DX and IQ and their skills, on the next
    turn, at most −4) and B551 (prone: −4 to a melee attack, −3 to defend): Dai, hurt
    for 3 and prone, attacks at Knife 17 −3 shock −4 prone, each named in the roll;
    stunned, she may not attack at all (B420)."""
    orc = _duel(table)
    _turn_to(table, orc)  # hurt in the orc's turn: the shock is for her next (B419)
    _ok(table, "gm", {"kind": "damage", "combatant": "dai", "amount": 3})
    for c in [c for c in table.fight("gm")["calls"] if c["combatant"] == "dai"]:
        _ok(table, "gm", {"kind": "dismiss", "call": c["call"]})
    _ok(table, "gm", {"kind": "set", "combatant": "dai", "add": ["prone"], "drop": ["stunned"]})
    _turn_to(table, "dai")
    assert table.fight("gm")["current"] == "dai"  # her turn, shock from before it
    got = _attack(table, "alice", {"attacker": "dai", "target": orc, "weapon": "Knife (Swung)"})
    assert got.status_code == 201, got.text
    attack = got.json()["rolls"][0]
    assert "--mod -3 --mod -4" in attack["command"]
    assert "shock -3, prone -4" in attack["text"] and attack["result"]["effective"] == 17 - 7
    # The roll names each modifier the tracker added, and verify recomputes them from
    # the fight as the log stood before the roll (contract v1.4).
    assert attack["tracker"] == ["shock -3", "prone -4"]
    log = table.export("gm")
    assert check_fight(log)[2] == []
    forged = [dict(e) for e in log]
    forged[attack["seq"]] = {**forged[attack["seq"]], "tracker": ["prone -4"]}
    wrong = [w for _s, w in check_fight(forged)[2]]
    assert any("modifiers are not the fight's" in w for w in wrong), wrong
    _ok(table, "alice", {"kind": "next"})
    _turn_to(table, "dai")  # her next turn: the shock is over (B419)
    _ok(table, "gm", {"kind": "set", "combatant": "dai", "add": ["stunned"]})
    stunned = _attack(table, "alice", {"attacker": "dai", "target": orc, "weapon": "Knife (Swung)"})
    assert stunned.status_code == 409 and "stunned" in stunned.json()["error"]


def test_the_player_rolls_her_own_defense(table: Table) -> None:
    """§5: the GM's visible orc attacks Dai (the GM's secret roll); on a hit Alice gets a
    defense call with each defense her sheet allows, its level and exact odds; she picks
    one and rolls it herself, public, as her sheet; if it fails, the orc's damage
    follows (the GM's secret roll), applied to Dai through her DR; when it holds, none.
    Her defense takes at most 2 clicks: the choice and Roll are one request."""
    orc = _duel(table)
    seen = {"held": 0, "failed": 0, "calls": 0}
    for _ in range(30):
        _turn_to(table, orc)
        got = _attack(table, "gm", {"attacker": orc, "target": "dai", "weapon": "Broadsword"})
        assert got.status_code == 201, got.text
        attack = got.json()["rolls"][0]
        assert attack["visibility"] == "gm"  # §4: the GM's NPC attacks in secret
        calls = [c for e in got.json()["entries"] for c in e.get("calls", [])
                 if c["kind"] == "defense"]  # fmt: skip
        if not calls:  # a miss, or a critical hit (no defense, B556)
            continue
        (call,) = calls
        assert call["kind"] == "defense" and call["combatant"] == "dai"
        seen["calls"] += 1
        theirs = next(c for c in table.fight("alice")["calls"] if c["call"] == call["call"])
        labels = [c["label"] for c in theirs["choices"]]
        assert any(label.startswith("Dodge ") for label in labels), labels
        assert any(label.startswith("Parry (Knife) ") for label in labels), labels
        assert not any("Swung" in label for label in labels)  # one Parry for one knife
        assert any("retreat" in label for label in labels)
        for choice in theirs["choices"]:  # each its exact chance on 3d6 at its level
            assert Fraction(choice["odds"]) == skill_odds(choice["level"]).success
        levels = [c["level"] for c in theirs["choices"]]
        assert levels == sorted(levels, reverse=True)  # the best first
        pick = next(i for i, c in enumerate(theirs["choices"]) if c["command"].startswith(
            "gurps defend parry"))  # fmt: skip
        # Bob may not roll it; the GM's player-side roll is refused as not the call's.
        assert _by_call(table, "bob", call["call"], choice=pick).status_code == 403
        done = _by_call(table, "alice", call["call"], choice=pick)
        assert done.status_code == 201, done.text
        roll = done.json()["roll"]
        assert roll["visibility"] == "public" and roll["sheet"] == "dai"
        assert (
            roll["command"].startswith("@dai gurps defend parry") and roll["call"] == call["call"]
        )
        if roll["result"]["success"]:
            seen["held"] += 1
            assert "damage" not in done.json()
        else:
            seen["failed"] += 1
            damage = done.json()["damage"]
            assert damage["visibility"] == "gm" and damage["redacted"] is True  # to Alice
            whole = table.log("gm")[damage["seq"]]
            # the GM's NPC's damage: the exchange's own damage step against Dai's sheet
            assert whole["sheet"] == "orc" and whole["command"].startswith("@orc gurps blow")
            assert "--vs @dai" in whole["command"] and whole["result"]["kind"] == "blow"
        dai = next(c for c in _state(table, "gm")["combatants"] if c["combatant"] == "dai")
        if seen["held"] and seen["failed"] or dai["down"]:
            break
    assert seen["calls"], seen
    for who in ("gm", "alice", "bob"):
        report = verify(table.export(who))
        assert report.ok, report.text()


def test_all_out_attack_leaves_no_defense(table: Table) -> None:
    """B365: after All-Out Attack, no active defense until one's next turn: the orc's
    hit on Dai opens no defense call; her next turn ends it."""
    orc = _duel(table)
    _turn_to(table, "dai")
    body = {"attacker": "dai", "target": orc, "weapon": "Knife (Swung)",
            "maneuver": "all-out attack"}  # fmt: skip
    got = _attack(table, "alice", body)
    assert got.status_code == 201, got.text
    assert "--all-out" in got.json()["rolls"][0]["command"]
    dai = next(c for c in table.fight("gm")["combatants"] if c["combatant"] == "dai")
    assert "all-out attack" in dai["conditions"]
    _turn_to(table, orc)
    hit = _attack(table, "gm", {"attacker": orc, "target": "dai", "weapon": "Broadsword"})
    assert hit.status_code == 201, hit.text
    calls = [c for e in hit.json()["entries"] for c in e.get("calls", [])]
    assert not [c for c in calls if c["kind"] == "defense"]
    rolls = hit.json()["rolls"]
    if rolls[0]["result"]["success"]:  # a hit goes straight to damage: no defense roll
        assert [r["command"].split()[2] for r in rolls[1:]] == ["blow"]


ARCHER = b"""system = "gurps"
name = "Wren"
dodge = 9
hp = 11

[attributes]
DX = 13
HT = 11

[[attacks]]
name = "Short Bow"
level = 14
damage = "1d+2 imp"
acc = 1
"""


def test_aim_adds_the_weapons_acc_and_a_missile_cannot_be_parried(table: Table) -> None:
    """B364: Aim, then a ranged attack next turn takes the weapon's Acc (+1 after a 2nd
    turn); B376: a missile cannot be parried, so the target's choices hold no Parry;
    B551: a ranged attack takes no posture penalty."""
    assert put(table, "alice", "dai", DAI_TOML.read_bytes(), "application/toml").status_code == 201
    assert put(table, "bob", "wren", ARCHER, "application/toml").status_code == 201
    _ok(table, "gm", {"kind": "add", "combatant": "dai", "sheet": "dai"})
    _ok(table, "gm", {"kind": "add", "combatant": "wren", "sheet": "wren"})
    _ok(table, "gm", {"kind": "start"})
    for turns in (1, 2):
        for _ in range(turns):
            _turn_to(table, "wren")
            _ok(table, "bob", {"kind": "maneuver", "combatant": "wren", "maneuver": "aim"})
        _turn_to(table, "wren")
        _ok(table, "gm", {"kind": "set", "combatant": "wren", "add": ["prone"]})
        got = _attack(table, "bob", {"attacker": "wren", "target": "dai", "weapon": "Short Bow"})
        assert got.status_code == 201, got.text
        attack = got.json()["rolls"][0]
        assert f"--ranged --aim {turns}" in attack["command"] and "prone" not in attack["text"]
        assert attack["result"]["effective"] == 14 + 1 + (turns - 1)  # Acc 1, +1 a 2nd turn
        for e in got.json()["entries"]:
            for call in e.get("calls", []):
                if call["kind"] == "defense":  # Dai's own choice: Dodge, never Parry (B376)
                    labels = [c["label"] for c in call["choices"]]
                    assert labels and not any("Parry" in label for label in labels), labels
                    # Nor a retreat against a missile (B377; issue 73 §1.2).
                    assert not any("retreat" in label for label in labels), labels
        _ok(table, "gm", {"kind": "set", "combatant": "wren", "drop": ["prone"]})
    assert verify(table.export("gm")).ok


def test_a_bad_location_is_refused_before_the_maneuver_is_spent(table: Table) -> None:
    """An attack at a location its damage may not reach (B399: a cut at the vitals) or
    that does not exist is refused before anything is logged: the attacker keeps her
    turn's attack."""
    orc = _duel(table)
    _turn_to(table, "dai")
    size = len(table.log("gm"))
    for where in ("vitals", "elbow"):
        body = {"attacker": "dai", "target": orc, "weapon": "Knife (Swung)", "location": where}
        got = _attack(table, "alice", body)
        assert got.status_code == 422, got.text
    assert len(table.log("gm")) == size
    body = {"attacker": "dai", "target": orc, "weapon": "Knife (Swung)", "location": "skull"}
    assert _attack(table, "alice", body).status_code == 201


def test_an_npcs_defense_command_names_nothing_of_its_sheet() -> None:
    """Rules 3 (a visible NPC's sheet stays the GM's): the defense the GM rolls by hand is
    logged without the weapon it parries with and without the label naming it."""
    from referee.rooms.service.fighting.blows import unnamed

    chosen = "gurps defend parry 'Broadsword (Swung)' --retreat --mod -4 --label 'Parry (x)'"
    assert unnamed(chosen) == "gurps defend parry --retreat --mod -4"
    assert unnamed("gurps defend dodge --retreat") == "gurps defend dodge --retreat"


def test_a_defense_calls_choices_carry_the_state_and_verify_checks_them(table: Table) -> None:
    """B551: prone, −3 to every active defense. Dai, prone, is offered her defenses each
    at −3 (`--mod -3`), and `referee verify` recomputes that from the fight: an export
    whose choices leave it out is not the fight's."""
    orc = _duel(table)
    _ok(table, "gm", {"kind": "set", "combatant": "dai", "add": ["prone"]})
    offered = None
    for _ in range(20):
        _turn_to(table, orc)
        got = _attack(table, "gm", {"attacker": orc, "target": "dai", "weapon": "Broadsword"})
        assert got.status_code == 201, got.text
        calls = [c for e in got.json()["entries"] for c in e.get("calls", [])
                 if c["kind"] == "defense"]  # fmt: skip
        if calls:
            offered = calls[0]
            break
    assert offered is not None, "the orc never hit Dai in 20 attacks"
    assert all("--mod -3" in c["command"] and "prone -3" in c["label"] for c in offered["choices"])
    log = table.export("gm")
    assert check_fight(log)[2] == []
    forged = []
    for e in log:
        event = e.get("event")
        if isinstance(event, dict) and event.get("kind") == "exchange" and event.get("choices"):
            plain = [
                {**c, "command": c["command"].replace(" --mod -3", "")} for c in event["choices"]
            ]
            e = {**e, "event": {**event, "choices": plain, "command": plain[0]["command"]}}
        forged.append(e)
    wrong = [w for _s, w in check_fight(forged)[2]]
    assert any("defense offered" in w and "not the fight's" in w for w in wrong), wrong


def test_the_gm_may_roll_every_pcs_defense_by_the_rooms_setting(table: Table) -> None:
    """Contract v1.4: "The GM may set a room ... to have the GM roll its defenses; the
    rule and the setting are logged": with the setting on, the orc's hit on Dai opens no
    call, and her best defense is rolled by the server, public, as her sheet. A player
    may not change the setting."""
    orc = _duel(table)
    assert _event(table, "alice", {"kind": "defenses", "gm": True}).status_code == 403
    (entry,) = _ok(table, "gm", {"kind": "defenses", "gm": True})
    assert entry["combatant"] == "dai" and entry["values"]["gm_defends"] == [0, 1]
    for _ in range(20):
        _turn_to(table, orc)
        got = _attack(table, "gm", {"attacker": orc, "target": "dai", "weapon": "Broadsword"})
        assert got.status_code == 201, got.text
        assert not [c for e in got.json()["entries"] for c in e.get("calls", [])
                    if c["kind"] == "defense"]  # fmt: skip
        rolls = got.json()["rolls"]
        defended = [r for r in rolls[1:] if "gurps defend" in r.get("command", "")]
        if defended:
            assert defended[0]["visibility"] == "public" and defended[0]["sheet"] == "dai"
            break
    else:
        raise AssertionError("the orc never hit Dai in 20 attacks")
    assert verify(table.export("alice")).ok
