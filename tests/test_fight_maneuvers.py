"""The fight's maneuvers and the state it puts into its rolls (contract v1.4, fight rules
5; :mod:`referee.fight.maneuvers`, :mod:`referee.fight.defenses`), pure: each rule
quoted with its page, as COMBAT.md and the Basic Set state it."""

from __future__ import annotations

from typing import Any

import pytest

from referee import fight
from referee.errors import RuleError
from referee.fight.defenses import defense_choices
from referee.fight.maneuvers import (
    attack_modifiers,
    defense_modifiers,
    defenses_allowed,
    tracker_modifiers,
)
from referee.sheets.native import read_toml
from referee.systems.gurps.success import skill_odds

ALDO = """system = "gurps"
name = "Sir Aldo"
dodge = 9
hp = 14
[attributes]
DX = 12
HT = 12
[[attacks]]
name = "Broadsword"
usage = "Swung"
level = 15
damage = "2d+1 cut"
parry = "11"
"""


def _duel(system: str = "gurps") -> fight.Fight:
    f = fight.begin(system)
    values = {"dx": 12, "ht": 12} if system == "gurps" else {"hp_max": 10, "dex_mod": 1}
    for cid in ("aldo", "orc"):
        f = fight.step(f, {"kind": "add", "combatant": cid, "values": values}).fight
    order = {"kind": "start", "order": ["aldo", "orc"]}
    return fight.step(f, order).fight


def _move(f: fight.Fight, cid: str, name: str, **extra: Any) -> fight.Fight:
    return fight.step(f, {"kind": "maneuver", "combatant": cid, "maneuver": name, **extra}).fight


def test_a_maneuver_is_taken_on_its_own_turn_once() -> None:
    """B363: each combatant chooses one maneuver on its own turn."""
    f = _duel()
    assert f.current == "aldo"
    with pytest.raises(RuleError, match="it is aldo's turn: orc takes a maneuver on its own"):
        _move(f, "orc", "attack")
    f = _move(f, "aldo", "all-out defense", defense="parry")
    with pytest.raises(RuleError, match="took all-out defense this turn: one maneuver a turn"):
        _move(f, "aldo", "attack", attack=True)
    with pytest.raises(RuleError, match="no maneuver 'charge'"):
        _move(f, "aldo", "charge")


def test_all_out_attack_double_gives_two_attacks_and_determined_one() -> None:
    """B365: All-Out Attack (Double) makes two attacks; Determined one at +4."""
    f = _move(_duel(), "aldo", "all-out attack", attack=True, double=True)
    f = _move(f, "aldo", "all-out attack", attack=True)
    with pytest.raises(RuleError, match="allows no more attacks"):
        _move(f, "aldo", "all-out attack", attack=True)
    g = _move(_duel(), "aldo", "all-out attack", attack=True)
    with pytest.raises(RuleError, match="allows no more attacks"):
        _move(g, "aldo", "all-out attack", attack=True)
    assert ("all-out attack", 4) in attack_modifiers(g.combatants["aldo"], "all-out attack")


def test_all_out_attack_leaves_no_defense_until_the_next_turn() -> None:
    """B365: "You may not defend at all" after All-Out Attack, until your next turn."""
    f = _move(_duel(), "aldo", "all-out attack", attack=True)
    assert defenses_allowed(f.combatants["aldo"]) == ()
    f = fight.step(f, {"kind": "next"}).fight  # the orc's turn: still none
    assert defenses_allowed(f.combatants["aldo"]) == ()
    f = fight.step(f, {"kind": "next"}).fight  # Aldo's next turn begins: it ends
    assert defenses_allowed(f.combatants["aldo"]) == ("dodge", "parry", "block")
    assert "all-out attack" not in f.combatants["aldo"].conditions


def test_move_and_attack_allows_no_parry_and_caps_the_skill_at_9() -> None:
    """B365-B366: Move and Attack, melee at −4 and at most 9; Dodge or Block only."""
    f = _move(_duel(), "aldo", "move and attack", attack=True)
    aldo = f.combatants["aldo"]
    assert defenses_allowed(aldo) == ("dodge", "block")
    assert tracker_modifiers(aldo, 15) == [
        ("move and attack", -4),
        ("move and attack: at most 9", -2),
    ]
    assert tracker_modifiers(aldo, 12) == [("move and attack", -4)]


def test_stunned_takes_only_do_nothing_and_defends_at_minus_4() -> None:
    """B420: a stunned combatant may take no action but Do Nothing, and defends at −4."""
    f = _duel()
    f = fight.step(f, {"kind": "set", "combatant": "aldo", "add": ["stunned"]}).fight
    with pytest.raises(RuleError, match="stunned: no action but Do Nothing"):
        _move(f, "aldo", "attack", attack=True)
    assert ("stunned", -4) in defense_modifiers(f.combatants["aldo"], "dodge")
    _move(f, "aldo", "do nothing")


def test_posture_and_shock_change_attack_and_defense() -> None:
    """B551: prone −4 to a melee attack, −3 to defend; kneeling −2 and −2. B419: shock
    takes DX-based skills, not active defenses."""
    f = _duel()
    assert f.current == "aldo"
    hurt = fight.step(f, {"kind": "damage", "combatant": "aldo", "amount": 3}).fight
    # Issue 71 §1.5: shock taken in one's own turn waits for the next (B419).
    assert attack_modifiers(hurt.combatants["aldo"]) == []
    f = fight.step(f, {"kind": "next"}).fight
    f = fight.step(f, {"kind": "damage", "combatant": "aldo", "amount": 3}).fight
    f = fight.step(f, {"kind": "set", "combatant": "aldo", "add": ["prone"]}).fight
    f = fight.step(f, {"kind": "next"}).fight
    assert f.current == "aldo"
    aldo = f.combatants["aldo"]
    assert attack_modifiers(aldo) == [("shock", -3), ("prone", -4)]
    assert attack_modifiers(aldo, ranged=True) == [("shock", -3)]  # posture: melee only
    assert defense_modifiers(aldo, "parry") == [("prone", -3)]
    f = _move(f, "aldo", "change posture", posture="kneeling")
    kneel = f.combatants["aldo"]
    assert "prone" not in kneel.conditions and defense_modifiers(kneel, "dodge") == [
        ("kneeling", -2)
    ]


def test_the_defense_choices_carry_the_state_and_retreat_once_a_turn() -> None:
    """B374-B377: Dodge, Parry by weapon, each with a retreat (+3 Dodge, +1 Parry) once
    a turn; each choice's odds its level's exact chance on 3d6; All-Out Defense +2."""
    sheet = read_toml(ALDO.encode())
    f = _move(_duel(), "aldo", "all-out defense", defense="dodge")
    aldo = f.combatants["aldo"]
    choices = defense_choices(sheet, aldo)
    levels = {c["label"].split(":")[0]: c["level"] for c in choices}
    assert levels["Dodge and retreat 14 (all-out defense +2)"] == 14  # 9 + 3 + 2
    assert (
        levels["Parry (Broadsword) 11"] == 11 and levels["Parry (Broadsword) and retreat 12"] == 12
    )
    assert all(str(skill_odds(c["level"]).success) == c["odds"] for c in choices)
    assert choices[0]["level"] == max(c["level"] for c in choices)
    # A defense made with a retreat: no retreat again until Aldo's next turn (B377).
    f = fight.step(f, {"kind": "next"}).fight
    event = {"kind": "defend", "combatant": "aldo", "defense": "dodge", "success": True,
             "retreat": True}  # fmt: skip
    f = fight.step(f, event).fight
    assert not any("retreat" in c["label"] for c in defense_choices(sheet, f.combatants["aldo"]))
    f = fight.step(f, {"kind": "next"}).fight
    assert any("retreat" in c["label"] for c in defense_choices(sheet, f.combatants["aldo"]))


def test_an_swn_attack_is_one_main_action_a_turn() -> None:
    """003, "Combat": an attack is the round's Main Action; the fight takes no other
    maneuver in SWN."""
    f = _move(_duel("swn"), "aldo", "attack", attack=True)
    with pytest.raises(RuleError, match="allows no more attacks"):
        _move(f, "aldo", "attack", attack=True)
    with pytest.raises(RuleError, match="in SWN the fight takes an attack or Total Defense"):
        _move(_duel("swn"), "aldo", "aim")
    f = _move(_duel("swn"), "aldo", "total defense")
    assert "total defense" in f.combatants["aldo"].conditions  # to its next turn (003)


def test_a_log_before_rules_5_takes_no_maneuver() -> None:
    """Fight rules 5 brought maneuvers: an event of rules 4 naming one is refused."""
    with pytest.raises(RuleError, match="from rules 5"):
        fight.step(_duel(), {"kind": "maneuver", "combatant": "aldo", "maneuver": "aim"}, rules=4)


def test_the_room_setting_gives_the_gm_every_pcs_defenses() -> None:
    """Contract v1.4: "The GM may set a room or a combatant to have the GM roll its
    defenses": a ``defenses`` event sets each PC's ``gm_defends``, and one added later
    takes it too; the players' own again when the GM sets it back."""
    f = fight.begin("gurps")
    f = fight.step(f, {"kind": "add", "combatant": "aldo", "values": {}, "pc": True}).fight
    f = fight.step(f, {"kind": "add", "combatant": "orc", "values": {}}).fight
    f = fight.step(f, {"kind": "defenses", "gm": True}).fight
    assert f.combatants["aldo"].value("gm_defends") == 1 and not f.combatants["orc"].value(
        "gm_defends"
    )
    f = fight.step(f, {"kind": "add", "combatant": "bryn", "values": {}, "pc": True}).fight
    assert f.combatants["bryn"].value("gm_defends") == 1
    f = fight.step(f, {"kind": "defenses", "gm": False}).fight
    assert not any(c.value("gm_defends") for c in f.combatants.values())
    with pytest.raises(RuleError, match="GURPS's setting"):
        fight.step(_duel("swn"), {"kind": "defenses", "gm": True})
