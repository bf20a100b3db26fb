"""Issue 65 §6, "one exchange for every front end": a room's exchange is made of separate
rolls (the attack, the defense, the damage step: :mod:`referee.rooms.service.fighting.attacks`),
and ``gurps attack``'s exchange is one roll. On the same dice they must agree: whether
the blow lands, where, what the critical table does to it, and the injury. Both ways of
the room's damage step are checked: the GM's ``gurps blow --vs`` (an NPC's attack) and
a player's public ``gurps damage`` taken through the target's DR by the fight
(:func:`referee.fight.exchange.struck`). The dice are chosen, not drawn, so every branch
is met: an aimed miss by 1 (B399), each row of the Critical Hit Table and of the
Critical Head Blow Table (B556), a defense that holds and one that fails."""

from __future__ import annotations

from typing import Any

import pytest

from referee import commands
from referee.fight import Combatant, begin, numbers, step
from referee.fight.events import RULES
from referee.rng import ReplaySource
from referee.rooms.service.fighting.blows import damage_step

ORC = "--target-name Orc --dr 2 --hp 12 --parry 10 --defense parry"


def _faces(total: int) -> list[int]:
    a = min(6, total - 2)
    b = min(6, total - a - 1)
    return [a, b, total - a - b]


def _draws(*faces: int) -> list[tuple[int, int]]:
    return [(6, f) for f in faces]


def _cli(draws: list[tuple[int, int]], location: str | None, dice: str) -> dict[str, Any]:
    where = f" --location {location}" if location else ""
    line = f"gurps attack 14 --damage '{dice}' {ORC}{where}"
    result = commands.run(line, ReplaySource(draws))
    return dict(result.data)


def _orc() -> Combatant:
    return Combatant("orc", "Orc", {"hp": 12, "hp_max": 12, "dr": 2, "ht": 11}, sheet="orc")


def _room(
    draws: list[tuple[int, int]], location: str | None, by_gm: bool, dice: str
) -> dict[str, Any]:
    """The room's steps on the same draws, as the route makes them."""
    src = ReplaySource(draws)
    where = f" --location {location}" if location else ""
    hit = dict(commands.run(f"gurps attack 14{where}", src).data)
    out: dict[str, Any] = {"hit": hit, "defended": None, "injury": 0, "location": None}
    if not (hit["success"] or hit["torso_instead"]):
        return out
    if hit["outcome"] != "critical success":  # B556: none against a critical hit
        against = f" --against {hit['defense_modifier']}" if hit["defense_modifier"] else ""
        parry = commands.run(f"gurps defend parry 10{against}", src).data
        out["defended"] = parry["success"]
        if parry["success"]:
            return out
    landed = None if hit["torso_instead"] else location
    command, extra = damage_step(dice, _orc(), landed, hit, by_gm)
    if by_gm:  # the GM's: the exchange's damage step against the orc's sheet
        line = command.replace("--vs @orc", "--target-name Orc --dr 2 --hp 12")
        blow = commands.run(line, src).data
        taken = numbers("damage", blow, RULES)  # what the fight's damage event takes
        out["injury"], out["location"] = taken["amount"], taken["location"]
        out["effect"] = blow["damage"]["effect"]
        return out
    roll = commands.run(command, src).data  # a player's: her damage roll, public
    fight = step(begin("gurps"), {"kind": "add", "combatant": "orc", "values": dict(_orc().values)})
    event = {"kind": "damage", "combatant": "orc", "basic": roll["basic_damage"],
             "type": roll["damage_type"], "expression": roll["expression"], **extra}  # fmt: skip
    after = step(fight.fight, event).fight.combatants["orc"]
    out["injury"] = 12 - after.value("hp")
    out["location"] = "eye" if extra.get("effect") == "eye" else (landed or "torso")
    return out


def _agree(
    draws: list[tuple[int, int]], location: str | None, dice: str = "2d+1 cut"
) -> tuple[dict[str, Any], ...]:
    cli = _cli(draws, location, dice)
    results = []
    for by_gm in (True, False):
        room = _room(draws, location, by_gm, dice)
        assert room["hit"]["roll"] == cli["attack"]["roll"]
        defense = cli["defense"]
        assert room["defended"] == (None if defense is None else defense["success"])
        damage = cli["damage"]
        if damage is None:
            assert room["injury"] == 0
        else:
            assert room["injury"] == damage["injury"], (by_gm, draws, cli["text"])
            landed = "eye" if damage["effect"] == "eye" else damage["location"]  # B556 6-7
            assert room["location"] == landed
        results.append(room)
    return cli, *results


def test_an_aimed_miss_by_1_hits_the_torso_in_both() -> None:
    """B399: an aimed attack (the skull, 14−7 = 7) that misses by 1 (a roll of 8) hits
    the torso instead; the orc's parry fails (15), and 2d+1 cut lands there."""
    cli, gm, player = _agree(_draws(2, 3, 3, 5, 5, 5, 4, 6), "skull")
    assert cli["attack"]["torso_instead"] and cli["damage"]["location"] == "torso"
    assert gm["injury"] == player["injury"] == (4 + 6 + 1 - 2) * 3 // 2  # cut ×1.5 (B379)


def test_a_defense_that_holds_and_one_that_fails() -> None:
    """B374-B376: Parry 10 holds on 10 and fails on 11; the damage follows a failure."""
    held = _agree(_draws(3, 3, 3, 4, 3, 3), None)[0]
    assert held["defense"]["success"] and held["damage"] is None
    failed = _agree(_draws(3, 3, 3, 4, 4, 3, 6, 6), None)[0]
    assert not failed["defense"]["success"] and failed["damage"]["injury"] == (13 - 2) * 3 // 2


@pytest.mark.parametrize("row", range(3, 19))
@pytest.mark.parametrize("location", [None, "skull", "vitals"])
def test_every_critical_row_does_the_same_damage(row: int, location: str | None) -> None:
    """B556: a critical hit (a roll of 4 at skill 14, or of 3 aimed at the vitals at 11)
    allows no defense, and its row on the Critical Hit Table (or, aimed at the head, on
    the Critical Head Blow Table) changes the blow: maximum, double, triple, half DR,
    no DR, a major wound, an eye hit. The room's damage step does what the exchange
    does, row by row, with the GM's blow and the player's damage alike."""
    dice = "2d+1 imp" if location == "vitals" else "2d+1 cut"  # the vitals: impaling
    attack = _faces(3) if location else _faces(4)  # a critical hit at any skill here
    cli, gm, _player = _agree(_draws(*attack, *_faces(row), 2, 5), location, dice)
    assert cli["attack"]["outcome"] == "critical success" and cli["defense"] is None
    table = cli["attack"]["critical_table"]
    assert table["total"] == row
    assert table["table"] == ("critical head blow" if location == "skull" else "critical hit")
    assert gm.get("effect") == cli["damage"]["effect"]
