"""Issue 73 §2: what an exchange still dropped, each rule against its words and page,
and its odds against the exchange itself run on every outcome of its dice
(:func:`test_exchange_odds._runs`).

- B370, "Rapid Strike": two attacks, each at −6; the second parry with the same weapon
  at −4 (B376, "Parrying"), as All-Out Attack (Double) has it.
- B420, "Knockdown and Stunning": a major wound calls an HT roll; on a failure the
  victim is stunned (−4 to active defenses, B420) and knocked down (prone: −3 to
  defend, B551); by 5 or more, or critically, unconscious. The second attack of a
  Double, a Dual-Weapon Attack or a Rapid Strike meets the foe so.
- B378, "Half Damage (1/2D)": a ranged attack at its 1/2D range or beyond does half
  damage: basic damage halved after the roll, before DR (where 1/2D begins is
  :class:`.situation.HalfDamageFrom`).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from itertools import product

import pytest

from referee import commands, seeded
from referee.errors import RuleError
from referee.rng import ReplaySource
from referee.systems.gurps.damage import read_damage
from referee.systems.gurps.exchange import Target, exchanges
from referee.systems.gurps.exchange_odds import double_odds, exchange_odds
from referee.systems.gurps.knocked import Fallen, fallen, standing
from referee.systems.gurps.melee import AttackOptions, DefenseOptions
from referee.systems.gurps.situation import HalfDamageFrom, at_half_damage
from test_exchange_odds import _runs


def _replay(*faces: int) -> ReplaySource:
    return ReplaySource([(6, f) for f in faces])


# ------------------------------------------------------- 1. Rapid Strike (B370)


def test_a_rapid_strike_is_two_attacks_at_minus_6_each_b370() -> None:
    """B370, "Rapid Strike": "you may make two attacks ... each at -6"; the second parry
    with the same weapon is at −4 (B376). ``--rapid`` rolled one attack at −6."""
    foe = Target("Orc", parry=12, hp=12)
    both = exchanges(14, read_damage("1d cr"), foe, options=AttackOptions(rapid=True),
                     defense="parry", rng=_replay(2, 2, 3, 2, 2, 2, 2, 2, 3, 2, 2, 2))  # fmt: skip
    assert len(both) == 2
    assert [x.attack.check.effective_skill for x in both] == [8, 8]
    assert both[0].defense is not None and both[0].defense.check.effective_skill == 12
    assert both[1].defense is not None and both[1].defense.check.effective_skill == 8
    line = "gurps attack 14 --rapid --damage '2d cut' --target-name Orc --parry 12 --hp 12"
    got = commands.run(line, seeded(2))
    first, second = got.text.split("\n")
    assert first.startswith("first: Attack on Orc 14-6 = 8")
    assert second.startswith("second: Attack on Orc 14-6 = 8")
    assert got.data["second"]["attack"]["effective"] == 8
    odds = commands.run(line.replace("gurps attack", "gurps odds attack"))
    assert "two attacks (Rapid Strike, B370): either injures" in odds.text
    assert set(odds.data["double"]) == {"either", "both"}
    lone = commands.run("gurps attack 14 --rapid", seeded(1))
    assert lone.text.count("14-6 = 8") == 2 and "second" in lone.data


def test_a_rapid_strikes_odds_equal_enumeration_b370() -> None:
    """Either and both, against the first exchange run on every outcome of its dice and
    the second on every outcome of its own, each at −6 (B370), at the HP the first left
    and at −4 to parry when the first drew a parry (B376)."""
    spec, foe = read_damage("1d cr"), Target("Orc", parry=9, hp=5)
    opts = AttackOptions(rapid=True, criticals=False)
    first = exchange_odds(15, spec, foe, opts, "parry")
    assert first.effective_skill == 9
    either, both = double_odds(first, 15, spec, foe, opts, "parry")
    seconds: dict[tuple[int | None, bool], Fraction] = {}
    neither = two = Fraction(0)
    for p, x in _runs(15, spec, foe, opts, "parry"):
        drew = x.defense is not None and x.defense.defense == "parry"
        key = (x.hp_after, drew)
        if key not in seconds:
            after = replace(foe, current_hp=x.hp_after)
            seconds[key] = sum((q for q, y in _runs(15, spec, after, opts, "parry",
                                defense_options=DefenseOptions(parried=int(drew)))
                                if y.success), Fraction(0))  # fmt: skip
        if x.success:
            two += p * seconds[key]
        else:
            neither += p * (1 - seconds[key])
    assert (either, both) == (1 - neither, two)
    got = commands.run("gurps odds attack 15 --rapid --no-criticals --damage '1d cr' "
                       "--target-name Orc --parry 9 --hp 5 --defense parry")  # fmt: skip
    assert [Fraction(got.data["double"][k]) for k in ("either", "both")] == [either, both]


def test_a_rapid_strike_refuses_double_and_rapid_fire_b370() -> None:
    """B370's Rapid Strike is two attacks of one Attack maneuver; with All-Out Attack
    (Double) or Rapid Fire's volley (B373) the command would roll something else."""
    for line in ("gurps attack 14 --rapid --double", "gurps attack 12 --rapid --ranged --rof 5"):
        with pytest.raises(RuleError, match="Rapid Strike, two attacks at -6 each"):
            commands.run(line, seeded(1))


# ------------------------------------------------------ 3. Half damage at 1/2D (B378)


def test_past_its_half_damage_range_an_attack_does_half_damage_b378() -> None:
    """B378: past the weapon's 1/2D, basic damage is halved after the roll and before
    DR. ``--range`` read the range penalty only: 3d pi rolled 10 at 20 yards from a
    weapon of 1/2D 15 did basic 10, not 5."""
    line = ("gurps attack 16 --ranged --range 20 --half-damage-range 15 --damage '3d pi' "
            "--target-name Orc --dodge 8 --dr 2 --hp 12")  # fmt: skip
    got = commands.run(line, seeded(12))
    assert got.data["damage"]["basic"] == 5 and got.data["damage"]["penetrating"] == 3
    assert "basic 5 (halved at 1/2D, B378), 3 penetrates" in got.text
    assert got.data["half_damage"] is True
    near = commands.run(line.replace("--range 20", "--range 15"), seeded(12))
    assert "half_damage" not in near.data and "halved" not in near.text
    at = commands.run(line.replace("--range 20", "--range 15") + " --half-damage-from at",
                      seeded(12))  # fmt: skip
    assert at.data["half_damage"] is True
    assert (at_half_damage(15, 15), at_half_damage(15, 15, HalfDamageFrom.AT)) == (False, True)
    odds = commands.run(line.replace("gurps attack", "gurps odds attack"))
    assert "at 1/2D range: basic damage halved (B378)" in odds.text
    for bad in ("gurps attack 16 --ranged --half-damage-range 15 --damage '3d pi' "
                "--target-name Orc --dodge 8",
                "gurps attack 16 --ranged --range 20 --half-damage-from at --damage '3d pi' "
                "--target-name Orc --dodge 8"):  # fmt: skip
        with pytest.raises(RuleError, match="it needs"):
            commands.run(bad, seeded(1))


@pytest.mark.parametrize(("dmg", "dr"), [("2d pi", 1), ("1d+1 cr", 0), ("1d-1 cut", 0)])
def test_half_damages_odds_equal_enumeration_b378(dmg: str, dr: int) -> None:
    """The odds of a halved blow (B378: at least 1 for any type but crushing, 0 for it,
    B378's least damage) against the exchange run on every outcome of its dice, with a
    random location and B556's critical rows, which halve as the roll does."""
    spec = replace(read_damage(dmg), half=True)
    foe = Target("Orc", dodge=9, dr=dr, hp=6)
    opts = AttackOptions(ranged=True, random_location=True)
    o = exchange_odds(13, spec, foe, opts, "dodge")
    injury: dict[int, Fraction] = {}
    for p, x in _runs(13, spec, foe, opts, "dodge"):
        n = x.hurt.injury if x.hurt else 0
        injury[n] = injury.get(n, Fraction(0)) + p
    assert dict(o.injury) == {k: v for k, v in injury.items() if v}
    whole = exchange_odds(13, read_damage(dmg), foe, opts, "dodge")
    assert o.injures <= whole.injures and o.injury != whole.injury


# ---------------------------------- 2. The second attack after a knockdown (B420, B551)


def test_the_second_attack_meets_a_foe_the_first_knocked_down_b420_b551() -> None:
    """B420: on a failed knockdown roll the victim is "stunned and knocked down"; a
    stunned fighter defends at −4 (B420), a prone one at −3 (B551). Both attacks were
    rolled in one command, so the second was parried at 10−4 (the repeated parry) with
    no −4 stunned and no −3 prone."""
    line = ("gurps attack 16 --double --damage '2d+2 cut' --target-name Orc --parry 10 --hp 10 "
            "--target-ht 10")  # fmt: skip
    got = commands.run(line, seeded(4))
    first, then, second = got.text.split("\n")
    assert then.startswith("then: Orc's HT (knockdown) 10: rolled 11")
    assert then.endswith("is stunned and prone (B420)")
    assert "Orc's Parry (stunned -4, prone -3) 10-4-4-3 = -1" in second
    assert got.data["second"]["knockdown"]["state"] == "down"
    out = exchanges(16, read_damage("2d+2 cut"), Target("Orc", parry=10, hp=10),
                    options=AttackOptions(rapid=True), knockdown_ht=10,
                    rng=_replay(1, 1, 1, 6, 6, 6, 6, 6, 6, 6, 6, 6, 2, 2, 2, 2, 2))  # fmt: skip
    assert out[1].knocked is not None and out[1].knocked.state is Fallen.OUT  # 18 (B420)
    assert out[1].defense is None  # an unconscious foe has no active defense
    plain = commands.run(line.replace(" --target-ht 10", ""), seeded(4))
    assert "knockdown" not in plain.data["second"] and "then:" not in plain.text
    with pytest.raises(RuleError, match="--target-ht is the target's HT"):
        commands.run("gurps attack 16 --damage '2d cut' --target-name Orc --parry 10 "
                     "--target-ht 10", seeded(1))  # fmt: skip


def test_the_second_attacks_odds_after_a_knockdown_equal_enumeration_b420() -> None:
    """P(both injure) against the first exchange run on every outcome of its dice, the
    knockdown roll on every 3d6 when the first calls it, and the second exchange on
    every outcome of its own, meeting the foe as :func:`.knocked.standing` leaves it."""
    spec, foe = read_damage("1d+1 cr"), Target("Orc", parry=10, hp=4)
    opts, ht = AttackOptions(double=True, criticals=False), 9
    first = exchange_odds(13, spec, foe, opts, "parry")
    either, both = double_odds(first, 13, spec, foe, opts, "parry", knockdown_ht=ht)
    plain = double_odds(first, 13, spec, foe, opts, "parry")
    seconds: dict[tuple[int | None, bool, Fallen], Fraction] = {}
    two = Fraction(0)
    for p, x in _runs(13, spec, foe, opts, "parry"):
        if not x.success:
            continue
        drew = x.defense is not None and x.defense.defense == "parry"
        assert x.hurt is not None and x.hurt.wound is not None
        kd = x.hurt.wound.knockdown
        rolls = (
            [(Fraction(1), Fallen.UP)]
            if kd is None
            else [
                (Fraction(1, 216), fallen(sum(d), ht + kd)) for d in product(range(1, 7), repeat=3)
            ]
        )
        for q, state in rolls:
            key = (x.hp_after, drew, state)
            if key not in seconds:
                after = replace(foe, current_hp=x.hp_after)
                meets, against = standing(state, "parry", DefenseOptions(parried=int(drew)))
                runs = _runs(13, spec, after, opts, meets, defense_options=against)
                seconds[key] = sum((r for r, y in runs if y.success), Fraction(0))
            two += p * q * seconds[key]
    assert both == two and either == plain[0]
    assert both > plain[1]  # a foe knocked down defends worse
    got = commands.run("gurps odds attack 13 --double --no-criticals --damage '1d+1 cr' "
                       "--target-name Orc --parry 10 --hp 4 --defense parry "
                       "--target-ht 9")  # fmt: skip
    assert Fraction(got.data["double"]["both"]) == both
