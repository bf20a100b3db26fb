"""The simulator's turns that are not attacks (issue 73 §3): Ready and reload from the
sheet's Shots (B366, B269-B270), prone after a knockdown and two turns to stand
(B420, B364, B551), Move to close on a foe out of reach and Aim for a ranged fighter
out of reach (B364) with the range penalty (B550). Each is timed exactly against a
foe who falls to one blow, in the oracle and the vectorised simulator alike; each is
checked against the oracle within the 99% intervals; each changes the fight."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from referee import RuleError, seeded
from referee.sheets import read_sheet
from referee.systems.gurps.shots import Shots, read_shots
from referee.systems.gurps.sim_encounter import Encounter, encounter_from_data
from referee.systems.gurps.sim_oracle import run_once
from referee.systems.gurps.simulate import Start, simulate
from referee.systems.swn.simulate import wilson
from test_gurps_sim import _agree

SURE = {"hp": 10, "ht": 12, "skill": 40, "damage": "12d cr", "basic_speed": 6, "aim": "torso"}
"""A fighter who hits the torso whenever 3d6 is not 18, and fells what it hits."""
TARGET = {"name": "Target", "side": "them", "hp": 1, "ht": 10, "skill": -10, "damage": "1d cr",
          "basic_speed": 5, "ranged": True}  # fmt: skip
"""A foe who cannot attack (skill -10, 000) nor defend, falls to one blow, and stays
where it is (a ranged fighter takes no Move)."""


def _enc(me: dict[str, Any], target: dict[str, Any] | None = None) -> Encounter:
    mine = {"name": "Me", "side": "us", **SURE, **me}
    return encounter_from_data({"combatants": [mine, {**TARGET, **(target or {})}]})


def _rounds(enc: Encounter, start: Start | None = None) -> tuple[int, int]:
    """The round the fight usually ends in: the simulator's median of 2,000 fights,
    and the oracle's most common of 60 (a critical miss, 1 in 216, delays one)."""
    sim = simulate(enc, 2_000, seed=5, start=start)
    rng = seeded(5)
    oracle = Counter(run_once(enc, rng).rounds for _ in range(60)).most_common(1)[0][0]
    return sim.quantile(0.5), oracle


def test_reload_times_are_exact() -> None:
    """B366 and B269: after its last shot a weapon takes its reload's turns of Ready.
    Two targets, each felled by one hit: the archer shoots in round 1, then readies, then
    shoots the second target; the fight ends in the round of the second shot."""
    two = {"combatants": [{"name": "Me", "side": "us", **SURE, "ranged": True, "acc": 2},
                          {**TARGET, "name": "A"}, {**TARGET, "name": "B"}]}  # fmt: skip
    for shots, rounds in (("1(2)", 4), ("1(3)", 5), ("2(2)", 2), ("T(1)", 3), ("1(1i)", 3)):
        data = {**two, "combatants": [{**two["combatants"][0], "shots": shots},
                                      *two["combatants"][1:]]}  # fmt: skip
        enc = encounter_from_data(data)
        assert _rounds(enc) == (rounds, rounds), shots
    unlimited = encounter_from_data(two)  # no Shots given: it never reloads
    assert _rounds(unlimited) == (2, 2)
    empty = encounter_from_data({**two, "combatants": [{**two["combatants"][0], "shots": "1"},
                                                       *two["combatants"][1:]]})  # fmt: skip
    assert simulate(empty, 500, seed=1).draws == 500  # one shot, and no reload in a fight


def test_standing_up_takes_two_turns_from_prone_b364() -> None:
    """B364, "Change Posture": prone to kneeling, then kneeling to standing; only then
    the attack (the simulator stands up before it fights)."""
    enc = _enc({})
    for posture, rounds in (("standing", 1), ("kneeling", 2), ("prone", 3), ("crawling", 3)):
        start = Start(hp=(10, 1), state=("up", "up"), stunned=(False, False), shock=(0, 0),
                      posture=(posture, "standing"))  # fmt: skip
        assert simulate(enc, 2_000, seed=3, start=start).quantile(0.5) == rounds, posture
    with pytest.raises(RuleError, match="postures"):
        Start(hp=(10, 1), state=("up", "up"), stunned=(False, False), shock=(0, 0),
              posture=("flying", "standing")).check(enc)  # fmt: skip


def test_a_melee_fighter_moves_to_reach_a_far_foe_b364() -> None:
    """12 yards at Move 5: 7, then 2, then a step in and the attack in round 3 (B364,
    B365: an Attack may step first); Move 20 closes it at once; reeling, Move is halved
    (B419: 5 of 10), and a ranged fighter shoots from where it stands."""
    assert _rounds(_enc({"distance": 12, "move": 5})) == (3, 3)
    assert _rounds(_enc({"distance": 12, "move": 20})) == (2, 2)
    assert _rounds(_enc({"distance": 2, "move": 1})) == (1, 1)  # a step: no Move
    assert _rounds(_enc({"distance": 12, "move": 5, "ranged": True, "aim_turns": 0})) == (1, 1)
    enc = _enc({"distance": 12, "move": 10})
    for hp, rounds in ((10, 2), (3, 3)):  # 3 of 10 HP: reeling (B419)
        start = Start(hp=(hp, 1), state=("up", "up"), stunned=(False, False), shock=(0, 0))
        assert simulate(enc, 2_000, seed=3, start=start).quantile(0.5) == rounds, hp
    assert _rounds(_enc({"distance": 12, "move": 0})) == (50, 50)  # Move 0 (B17): a draw


def test_a_ranged_fighter_aims_while_no_foe_is_in_reach_b364() -> None:
    """Aim turns before the shot, while the target is still closing (20 yards, Move 5);
    a foe within a yard stops the aiming (distance 0: every one in reach)."""
    far = {"distance": 20, "ranged": True, "acc": 3}
    assert _rounds(_enc({**far, "aim_turns": 1})) == (2, 2)
    assert _rounds(_enc({**far, "aim_turns": 3})) == (4, 4)
    closing = {"ranged": False, "move": 19}  # a melee foe that comes within a yard at once
    assert _rounds(_enc({**far, "aim_turns": 3}, closing)) == (2, 2)
    assert _rounds(_enc({"ranged": True, "acc": 3, "aim_turns": 3})) == (1, 1)
    # An Acc of 0 gains nothing from one turn (B364), so it shoots; two turns give +1.
    assert _rounds(_enc({**far, "acc": 0, "aim_turns": 1})) == (1, 1)
    assert _rounds(_enc({**far, "acc": 0, "aim_turns": 2})) == (3, 3)


def _archer(**changes: Any) -> Encounter:
    archer = {"name": "Wren", "side": "archer", "hp": 10, "ht": 12, "basic_speed": 6.25,
              "skill": 15, "damage": "1d+2 imp", "ranged": True, "acc": 3, "dodge": 9,
              "dr": 1, "shots": "1(2)", "distance": 20}  # fmt: skip
    orc = {"name": "Orc", "side": "orc", "hp": 12, "ht": 11, "basic_speed": 5.5, "skill": 12,
           "damage": "1d+2 cut", "dodge": 8, "parry": 9, "dr": 2}  # fmt: skip
    archer.update({k: v for k, v in changes.items() if v is not None})
    for k in [k for k, v in changes.items() if v is None]:
        del archer[k]
    return encounter_from_data({"combatants": [archer, orc]})


VARIANTS = {
    "reload": _archer(distance=None),
    "aim and range": _archer(shots=None),
    "aim three turns": _archer(shots=None, aim_turns=3),
    "all of them": _archer(),
}


@pytest.mark.parametrize("name", VARIANTS)
def test_each_new_rule_agrees_with_the_oracle(name: str) -> None:
    _agree(VARIANTS[name], 500, 11)


def test_each_new_rule_changes_the_fight() -> None:
    """Each rule moves the archer's chance to win by more than the intervals."""

    def win(enc: Encounter) -> tuple[float, float]:
        sim = simulate(enc, 20_000, seed=2)
        return wilson(sim.wins[0], sim.runs, 2.576)

    base = win(_archer(shots=None, distance=None))
    reload_ = win(_archer(distance=None))
    far = win(_archer(shots=None))
    assert reload_[1] < base[0]  # two turns of Ready after each arrow: she loses more
    assert far[0] > base[1]  # the orc's turns of closing in: she wins more
    # her Aim's +3 against its turn: her first arrow hits more often (B364)
    aimed, unaimed = (simulate(_archer(aim_turns=k), 20_000, seed=2).first[(0, 1)] for k in (1, 0))
    assert wilson(aimed[1], aimed[0], 2.576)[0] > wilson(unaimed[1], unaimed[0], 2.576)[1]


def test_shots_are_read_from_the_weapon_table_b269() -> None:
    assert read_shots("1(2)") == Shots(1, 2)
    assert read_shots("30+1(3)") == Shots(31, 3)
    assert read_shots("T(1)") == Shots(1, 1, thrown=True)
    assert read_shots("5(3i)") == Shots(5, 3, one_at_a_time=True)
    assert read_shots("8") == Shots(8, 0)
    for bad in ("lots", "0(2)", "00(2)", "T+5(2)", "1(2", "(2)", "1(999)"):
        with pytest.raises(RuleError, match="B269"):
            read_shots(bad)


def test_a_sheet_gives_its_shots() -> None:
    sheet = read_sheet(b'system = "gurps"\nname = "A"\n[[attacks]]\nname = "Bow"\nlevel = 14\n'
                       b'damage = "1d+2 imp"\nacc = 2\nshots = "1(2)"\n')  # fmt: skip
    assert sheet.attacks[0].shots == "1(2)"
    for key, value in (("shots", "1(2)"), ("acc", 3)):  # a melee weapon has neither
        with pytest.raises(RuleError, match="not ranged"):
            encounter_from_data({"combatants": [{**SURE, "name": "A", "side": "a", key: value},
                                                TARGET]})  # fmt: skip


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [("shots", "plenty", "B269"), ("shots", 3, "text"), ("aim_turns", 4, "0 to 3"),
     ("distance", -1, "0 to 1000"), ("distance", 5000, "0 to 1000"), ("move", -1, "0 to 100"),
     ("will", 0, "1 to 40")],
)  # fmt: skip
def test_bad_fields_name_the_field(field: str, value: Any, message: str) -> None:
    me = {"name": "Me", "side": "us", **SURE, "ranged": True, field: value}
    with pytest.raises(RuleError, match=message) as err:
        encounter_from_data({"combatants": [me, TARGET]})
    assert repr(field) in str(err.value)
