"""Combat by the Basic Set (issue 52): each rule checked against its own words, quoted
from the page (or from ``COMBAT.md``, the rules notes' statement of it), and the
exchange and the fight engine held to the same answers.

Source: *GURPS Basic Set*, 4th edition, B365-B426 and B556; *Stars Without Number
Revised* (``003``), "Mortal Wounds" and "Recovery".
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest

from referee import commands, fight, seeded
from referee.errors import RuleError
from referee.rng import ReplaySource
from referee.systems import swn
from referee.systems.gurps.criticals import CRITICAL_HIT, CRITICAL_MISS
from referee.systems.gurps.damage import read_damage
from referee.systems.gurps.exchange import Target, exchange, injury_chance
from referee.systems.gurps.locations import LOCATIONS, cripples
from referee.systems.gurps.melee import AttackOptions, attack, effective_attack
from referee.systems.gurps.success import Outcome, outcome
from referee.systems.gurps.wounds import shock, wound_effects

THREE_D6 = list(itertools.product(range(1, 7), repeat=3))


def _replay(*faces: int) -> ReplaySource:
    return ReplaySource([(6, f) for f in faces])


def _fight(*adds: tuple[str, dict[str, Any]]) -> fight.Fight:
    f = fight.begin("gurps")
    for cid, values in adds:
        f = fight.step(f, {"kind": "add", "combatant": cid, "values": values}).fight
    return f


def _hit(f: fight.Fight, cid: str, amount: int, location: str | None = None) -> fight.Fight:
    ev: dict[str, Any] = {"kind": "damage", "combatant": cid, "amount": amount}
    if location is not None:
        ev["location"] = location
    return fight.step(f, ev).fight


def _knockdown_mod(x_calls: tuple[str, ...]) -> int | None:
    """The exchange's knockdown call, read back to its modifier (None: no call)."""
    for call in x_calls:
        if "against knockdown" in call:
            head = call.split(" against knockdown")[0]
            return int(head.rsplit(" at ", 1)[1]) if " at " in head else 0
    return None


def _fight_mod(f: fight.Fight) -> int | None:
    for call in f.calls:
        if call.kind == "knockdown":
            parts = call.command.split(" --label")[0].split()
            return int(parts[3]) if len(parts) > 3 else 0
    return None


# ------------------------------------------------- §1.1 knockdown modifiers (B420)


def test_knockdown_location_modifiers_only_on_a_major_wound_b420() -> None:
    """B420, as GGA fixed it (crnormand/gurps#994): "the −5 penalty only applies to a
    Major Wound"; a head or vitals hit that causes shock calls for a plain HT roll."""
    assert wound_effects(1, "face", 10).knockdown == 0
    assert wound_effects(1, "skull", 10).knockdown == 0
    assert wound_effects(1, "vitals", 10).knockdown == 0
    assert wound_effects(6, "face", 10).knockdown == -5
    assert wound_effects(6, "vitals", 10).knockdown == -5
    assert wound_effects(6, "skull", 10).knockdown == -10
    assert wound_effects(6, "eye", 10).knockdown == -10
    assert wound_effects(1, "torso", 10).knockdown is None  # no major wound, not the head
    # "High Pain Threshold ... +3 on all HT rolls to avoid knockdown and stunning" (B59)
    assert wound_effects(1, "face", 10, hpt=True).knockdown == 3
    assert wound_effects(6, "face", 10, hpt=True).knockdown == -2
    assert wound_effects(1, "face", 10, lpt=True).knockdown == -4  # B142


def test_the_issues_face_hit_calls_a_plain_ht_roll() -> None:
    """``gurps attack 20 --damage '1d cr' --location face --hp 10``: 1 injury, plain HT."""
    res = commands.run(
        "gurps attack 20 --damage '1d cr' --location face --target-name Orc --hp 10 --defense none",
        seeded(2),
    )
    assert res.data["damage"]["injury"] == 1
    (call,) = res.data["calls"]
    assert call.startswith("Orc rolls HT against knockdown") and " at " not in call.split("(")[0]


# ----------------------------------------------------- §1.2 shock at 20+ HP (B419)


@pytest.mark.parametrize("hp", [5, 10, 19, 20, 25, 30, 47])
def test_shock_per_full_hp_over_10_with_20_or_more_hp_b419(hp: int) -> None:
    """B419: "−1 per HP of injury ... at most −4; if you have 20 or more HP, −1 per
    full HP/10 of injury"."""
    for injury in range(0, 3 * hp):
        unit = Fraction(1) if hp < 20 else Fraction(hp, 10)
        full = 0
        while (full + 1) * unit <= injury:  # count the full multiples by hand
            full += 1
        assert shock(injury, hp) == min(4, full)


def test_the_ogre_takes_shock_minus_one_for_three_and_no_knockdown_for_one_to_the_skull() -> None:
    f = _fight(("ogre", {"st": 20, "ht": 12}))
    f = _hit(f, "ogre", 3)
    assert f.combatants["ogre"].values["shock"] == 1
    f = _fight(("ogre", {"st": 20, "ht": 12}))
    f = _hit(f, "ogre", 1, "skull")
    assert f.calls == () and f.combatants["ogre"].values["shock"] == 0
    for hp, calls in ((20, 0), (10, 1)):  # 1 toxic HP to the skull (×1, no DR 2: B399)
        x = exchange(
            20,
            read_damage("1d-5 tox"),
            Target("Ogre", hp=hp),
            options=AttackOptions(location="skull"),
            defense="none",
            rng=_replay(1, 1, 5, 6),  # attack 7 vs 13, no critical; damage 6 - 5 = 1
        )
        assert x.hurt is not None and x.hurt.injury == 1 and len(x.calls) == calls


# -------------------------------------------------------- §1.3 crippling (B420-B421)


@pytest.mark.parametrize("where", ["arm", "right leg", "hand", "foot"])
def test_crippling_is_a_major_wound_and_is_reported_b421(where: str) -> None:
    """B421: "Any single injury over HP/2 to an arm or leg, or over HP/3 to a hand or
    foot, cripples it ... Damage beyond that threshold is lost"; B420: crippling is a
    major wound."""
    for hp in range(1, 25):
        cap = cripples(where, hp)
        assert cap is not None
        for injury in range(1, 2 * hp + 2):
            w = wound_effects(injury, where, hp)
            divisor = 2 if where in ("arm", "right leg") else 3
            over = injury * divisor > hp
            assert w.injury == min(injury, cap)
            assert (w.crippled == where) == over
            assert w.major == (over or 2 * w.injury > hp)
            assert (w.knockdown is not None) == w.major


def test_the_issues_hand_hit_calls_knockdown_and_says_crippled() -> None:
    line = (
        "gurps attack 16 --damage '3d cut' --location hand --hp 10 --target-name Orc --defense none"
    )
    res = commands.run(line, seeded(2))
    dmg = res.data["damage"]
    assert dmg["injury"] == 4 and dmg["crippled"] == "hand" and dmg["major_wound"]
    assert "the hand is crippled" in res.text
    assert any("for a major wound" in c for c in res.data["calls"])
    f = _hit(_fight(("orc", {"st": 10, "ht": 11})), "orc", 12, "Hand")
    orc = f.combatants["orc"]
    assert orc.values["hp"] == 6 and "crippled hand" in orc.conditions
    assert _fight_mod(f) == 0


# --------------------------------------------- §1.4 a miss by 1 hits the torso (B399)


@pytest.mark.parametrize("where", ["eye", "skull", "face", "neck", "groin", "vitals"])
def test_an_aimed_miss_by_one_hits_the_torso_b399(where: str) -> None:
    """B399: "if you miss by 1, you hit the torso instead"."""
    skill = 18
    eff = skill + LOCATIONS[where].penalty
    dice = next(d for d in THREE_D6 if sum(d) == eff + 1)
    a = attack(skill, options=AttackOptions(location=where), rng=_replay(*dice))
    assert a.hit and a.torso_instead and "hits the torso instead" in a.text
    x = exchange(
        skill,
        read_damage("1d imp"),  # impaling may target any of them (B399)
        Target("Orc", hp=10),
        options=AttackOptions(location=where),
        defense="none",
        rng=_replay(*dice, 3),
    )
    assert x.hurt is not None and x.hurt.location.key == "torso"
    by2 = next(d for d in THREE_D6 if sum(d) == eff + 2)
    quiet = AttackOptions(location=where, criticals=False)
    assert not attack(skill, options=quiet, rng=_replay(*by2)).hit
    arm = attack(14, options=AttackOptions(location="arm"), rng=_replay(4, 5, 4))
    assert not arm.hit  # 13 vs 12 at the arm: B399 names no limb


def test_the_issues_skull_roll_of_14_against_13_hits_the_torso() -> None:
    a = attack(20, options=AttackOptions(location="skull"), rng=_replay(4, 5, 5))
    assert a.check.effective_skill == 13 and a.check.roll == 14 and a.torso_instead


def test_a_critical_miss_by_one_is_still_a_miss() -> None:
    # effective 17 at the skull (skill 24): an 18 misses by 1 but is a critical failure
    assert outcome(18, 17) is Outcome.CRITICAL_FAILURE
    quiet = AttackOptions(location="skull", criticals=False)
    a = attack(24, options=quiet, rng=_replay(6, 6, 6))
    assert a.check.effective_skill == 17 and not a.hit


@pytest.mark.parametrize(("skill", "where"), [(16, "skull"), (14, "vitals"), (12, "groin")])
def test_the_chance_to_injure_counts_the_torso_hits(skill: int, where: str) -> None:
    """injury_chance equals enumeration over every attack roll and damage roll."""
    target = Target("Orc", hp=10, dr=3)
    spec = read_damage("1d pi")
    options = AttackOptions(location=where, criticals=False)
    total = Fraction(0)
    for a in THREE_D6:
        for d in range(1, 7):
            x = exchange(skill, spec, target, options=options, defense="none", rng=_replay(*a, d))
            total += Fraction(bool(x.hurt and x.hurt.injury), 216 * 6)
    assert injury_chance(skill, spec, target, options, "none") == total


# ----------------------------------------------------- §1.5 toxic to the skull (B399)


def test_toxic_damage_to_the_skull_meets_no_extra_dr_b399() -> None:
    """B399: "None of these effects apply to toxic damage" (the skull's DR 2, ×4, −10)."""
    x = exchange(
        20,
        read_damage("1d tox"),
        Target("Orc", hp=10),
        options=AttackOptions(location="skull"),
        defense="none",
        rng=_replay(1, 2, 3, 4),
    )
    assert x.hurt is not None and x.hurt.dr == 0 and x.hurt.injury == 4
    assert "vs DR 0" in x.text
    assert wound_effects(6, "skull", 10, damage_type="tox").knockdown == 0
    assert wound_effects(6, "skull", 10, damage_type="cr").knockdown == -10


# ----------------------------------------------------- §1.6 Deceptive Attack (B369)


def test_deceptive_attack_may_not_bring_skill_below_10_b369() -> None:
    """B369: "you may not reduce your final effective skill below 10"."""
    for skill in range(3, 25):
        for level in range(0, 8):
            options = AttackOptions(deceptive=level)
            if level and skill - 2 * level < 10:
                with pytest.raises(RuleError, match="below 10"):
                    effective_attack(skill, options)
            else:
                assert effective_attack(skill, options) == skill - 2 * level
    with pytest.raises(RuleError, match=r"below 10 \(B369\)"):
        commands.run("gurps attack 11 --deceptive 4", seeded(1))


# ------------------------------------------------------ §1.7 SWN healing ends it (003)


def test_healing_ends_a_mortal_wound_and_the_death_clock() -> None:
    """``003``: mortally wounded at 0 HP; healed above 0 the character has recovered
    (referee's default, DeathWindow.FIRST_HP)."""
    f = fight.begin("swn")
    f = fight.step(f, {"kind": "add", "combatant": "pc", "values": {"hp_max": 8}, "pc": True}).fight
    f = fight.step(f, {"kind": "damage", "combatant": "pc", "amount": 8}).fight
    assert "mortally wounded" in f.combatants["pc"].conditions
    f = fight.step(f, {"kind": "heal", "combatant": "pc", "amount": 4}).fight
    pc = f.combatants["pc"]
    assert pc.values["hp"] == 4 and pc.conditions == frozenset()
    f = fight.step(f, {"kind": "start", "order": ["pc"]}).fight
    for _ in range(8):  # well past the 6 rounds
        f = fight.step(f, {"kind": "next"}).fight
    assert "dead" not in f.combatants["pc"].conditions


def test_a_healed_stabilized_character_takes_ordinary_damage() -> None:
    h = swn.heal(swn.Health(0, 8, swn.Condition.STABILIZED), 3)
    assert h.condition is swn.Condition.UP and h.hp == 3
    assert swn.take_damage(h, 1).condition is swn.Condition.UP
    f = fight.begin("swn")
    f = fight.step(f, {"kind": "add", "combatant": "pc", "values": {"hp_max": 8}, "pc": True}).fight
    f = fight.step(f, {"kind": "damage", "combatant": "pc", "amount": 8}).fight
    f = fight.step(
        f, {"kind": "result", "combatant": "pc", "of": "stabilize", "success": True}
    ).fight
    f = fight.step(f, {"kind": "heal", "combatant": "pc", "amount": 3}).fight
    f = fight.step(f, {"kind": "damage", "combatant": "pc", "amount": 1}).fight
    pc = f.combatants["pc"]
    assert pc.values["hp"] == 2 and "dead" not in pc.conditions
    assert swn.heal(swn.Health(0, 8, swn.Condition.DEAD), 5).condition is swn.Condition.DEAD


# ------------------------------------------------ §1.8 the fight reads its locations


LOCATION_NAMES = [
    ("Skull", "skull"),
    ("head", "skull"),
    ("Right Leg", "right leg"),
    (" FACE ", "face"),
]


@pytest.mark.parametrize(("given", "key"), LOCATION_NAMES)
def test_the_fights_damage_reads_locations_as_the_commands_do(given: str, key: str) -> None:
    f = _hit(_fight(("orc", {"st": 10, "ht": 11})), "orc", 6, given)
    direct = wound_effects(6, key, 10)
    assert _fight_mod(f) == direct.knockdown


def test_the_fight_refuses_an_unknown_location() -> None:
    with pytest.raises(RuleError, match="unknown hit location 'tail'"):
        _hit(_fight(("orc", {"st": 10})), "orc", 3, "tail")


# ------------------------------------------- the fight and the exchange agree (B420)


@pytest.mark.parametrize("where", sorted(LOCATIONS))
@pytest.mark.parametrize("pain", [{}, {"hpt": 1}, {"lpt": 1}])
def test_the_fight_and_the_exchange_call_the_same_knockdown(
    where: str, pain: dict[str, int]
) -> None:
    for hp in (6, 10, 20, 31):
        for basic in range(1, 13):
            target = Target("Orc", hp=hp, hpt=bool(pain.get("hpt")), lpt=bool(pain.get("lpt")))
            extra = 2 if where == "skull" else 0
            kind = "pi" if where in ("eye", "vitals") else "cr"  # B399: pi may aim there
            x = exchange(
                30,
                read_damage(f"1d+{basic - 1 + extra} {kind}"),
                target,
                options=AttackOptions(location=where, criticals=False),
                defense="none",
                rng=_replay(3, 4, 4, 1),  # 11 hits; the die rolls 1
            )
            assert x.hurt is not None
            f = _hit(_fight(("orc", {"st": hp, "ht": 11, **pain})), "orc", x.hurt.injury, where)
            assert _fight_mod(f) == _knockdown_mod(x.calls), (where, hp, basic)
            crippled = x.hurt.wound.crippled if x.hurt.wound else None
            assert (f"crippled {where}" in f.combatants["orc"].conditions) == bool(crippled)


# ------------------------------------------------------------------ §1.9 the texts


def test_the_critical_tables_read_as_b556() -> None:
    """B556 hit row 8: crippling "wears off in (16 − HT) seconds, minimum two seconds";
    miss row 5: a second "hit yourself" is used, "half or full damage, as the case may
    be"."""
    assert "(16 - HT) seconds, at least 2" in CRITICAL_HIT[8].text
    assert "1d seconds" not in CRITICAL_HIT[8].text
    assert "as the case may be" in CRITICAL_MISS[5].text


def test_lost_hit_points_cite_b419() -> None:
    target = Target("Orc", hp=12, current_hp=2)
    x = exchange(14, read_damage("2d+1 cut"), target, defense="none", rng=_replay(3, 3, 3, 6, 6))
    assert any("B419" in c and "stay conscious" in c for c in x.calls)
    assert all("B327" not in c for c in x.calls)


# ---------------------------------------------------- the judgement calls (options)


def test_stun_recovery_is_plain_ht_by_default_and_both_thresholds_as_an_option() -> None:
    """B59 and B142 name the HT rolls "to avoid knockdown and stunning"; B420's roll to
    recover is plain HT by default, and StunRecovery.BOTH applies both thresholds."""
    from referee.fight import gurps as rules
    from referee.fight.model import Combatant
    from referee.systems.gurps.wounds import StunRecovery

    for pain, both in (({}, ""), ({"hpt": 1}, " +3"), ({"lpt": 1}, " -4")):
        values = rules.defaults({"ht": 11, **pain})
        c = Combatant(id="a", name="a", values=values, conditions=frozenset({"stunned"}))
        _, plain = rules.end_turn(c)
        _, either = rules.end_turn(c, StunRecovery.BOTH)
        assert plain[0][1] == "gurps check 11 --label 'HT (recover from stun)'"
        assert either[0][1] == f"gurps check 11{both} --label 'HT (recover from stun)'"


@pytest.mark.parametrize("margin", [-1, -2, -3, -6])
@pytest.mark.parametrize("critical", [False, True])
def test_a_critical_failure_by_one_or_two_to_survive_kills_by_default(
    margin: int, critical: bool
) -> None:
    """B419: "If you fail by 1 or 2, you are dying ... On any other failure, you die"."""
    from referee.fight import gurps as rules
    from referee.fight.model import Combatant
    from referee.systems.gurps.wounds import SurviveCritical

    c = Combatant(id="a", name="a", values=rules.defaults({"ht": 15}))
    dead = rules.answer(c, "survive", False, margin, critical)
    dying = rules.answer(c, "survive", False, margin, critical, SurviveCritical.DYING)
    assert ("dead" in dead.conditions) == (margin < -2 or critical)
    assert ("dead" in dying.conditions) == (margin < -2)
    assert ("mortally wounded" in dying.conditions) == (margin >= -2)


# ------------------------------------------------ total destruction at −10×HP (B419)


@pytest.mark.parametrize("hp", [1, 7, 10, 12])
def test_at_minus_ten_times_hp_the_body_is_destroyed(hp: int) -> None:
    """B419: dead at −5×HP; at −10×HP "total bodily destruction"."""
    for start in (hp, 0, -5 * hp):
        for injury in range(1, 12 * hp + 2):
            after = start - injury
            f = _fight(("orc", {"st": hp, "ht": 11}))
            f = fight.step(f, {"kind": "set", "combatant": "orc", "values": {"hp": start}}).fight
            if start <= -5 * hp:
                f = fight.step(f, {"kind": "set", "combatant": "orc", "add": ["dead"]}).fight
            f = _hit(f, "orc", injury)
            orc = f.combatants["orc"]
            assert orc.values["hp"] == after
            assert ("destroyed" in orc.conditions) == (after <= -10 * hp)
            assert ("dead" in orc.conditions) == (after <= -5 * hp)
            if start > 0:
                x = exchange(
                    20,
                    read_damage(f"1d+{injury - 1} cr"),
                    Target("Orc", hp=hp, current_hp=start),
                    options=AttackOptions(criticals=False),
                    defense="none",
                    rng=_replay(3, 4, 4, 1),
                )
                destroyed = any("destroyed (-10×HP, B419)" in c for c in x.calls)
                assert destroyed == (after <= -10 * hp)
