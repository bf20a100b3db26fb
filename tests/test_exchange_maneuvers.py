"""Issue 66 §2 and §3: the modifiers in every exchange and the maneuvers a GM reaches for,
each against the rule's words and page, and each one's odds against the exchange itself
run on every outcome of its dice.

The rules, as the *GURPS Basic Set* (4th edition) states them:

- B550, "Size and Speed/Range Table": 0 at 2 yards, −1 at 3, −2 at 5, −3 at 7, −4 at
  10, −5 at 15, −6 at 20, −7 at 30, −8 at 50, −9 at 70, −10 at 100, and so on.
- B364, "Aim": add the weapon's Acc after a turn of Aim; +1 for a second turn, +2 for
  three or more.
- B551, "Posture": melee attacks −2 crouching, kneeling or sitting, −4 crawling or
  lying down; no effect on ranged attacks.
- B419, "Shock": −1 per HP of injury to DX-based skills on one's next turn.
- B365, "Move and Attack": melee −4, and effective skill at most 9; ranged −2 or the
  weapon's Bulk, whichever is worse.
- B366, "All-Out Defense": Double Defense, a second, different defense against the
  same attack after a failed first.
- B377, "Dodge and Drop": +3 to Dodge against ranged attacks; prone afterwards.
- B373, "Rapid Fire": the RoF bonus to skill; one more hit per full Recoil of margin,
  at most RoF hits. B375, "Dodging": a successful Dodge avoids one hit plus one per
  point of margin.
- B417, "Dual-Weapon Attack": two attacks, each at −4; the off hand −4 more.
- B380, "Injury to Unliving, Homogenous, and Diffuse Targets": the wounding modifiers
  and Diffuse's caps of 1 and 2 HP.
- B376, "Parrying Heavy Weapons": a parry of a weapon three or more times as heavy may
  break the parrying weapon (referee rolls 1d after a parry that holds).

The enumeration (:func:`_every`) stands in for every die the exchange draws: each 3d6
by its total (the resolver reads only totals, ``test_exchange_odds``), every other group
(the damage dice, a breakage 1d) die by die.
"""

from __future__ import annotations

import functools
import importlib
import itertools
from collections.abc import Callable, Iterator
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar
from unittest.mock import patch

import pytest

from referee import commands, seeded
from referee.errors import RuleError
from referee.sheets import read_sheet
from referee.systems.gurps import criticals, defenses, success
from referee.systems.gurps.damage import read_damage
from referee.systems.gurps.exchange import Exchange, Target, exchange, exchanges
from referee.systems.gurps.exchange_odds import double_odds, exchange_odds
from referee.systems.gurps.locations import read_location
from referee.systems.gurps.melee import (
    AttackOptions,
    DefenseOptions,
    Posture,
    RangedKind,
    effective_attack,
)
from referee.systems.gurps.odds_steps import ExchangeOdds
from referee.systems.gurps.situation import aim_bonus, range_penalty, rof_bonus
from referee.systems.gurps.slam import SlamBounds, slam, slam_dice, slam_odds
from referee.systems.gurps.tolerance import Tolerance, tolerant_injury
from test_exchange_odds import ONE_OF, WAYS, _check

exchange_module = importlib.import_module("referee.systems.gurps.exchange")
T = TypeVar("T")
GCS = Path(__file__).parent / "data" / "gcs"


class _Need(Exception):
    """The run asked for a group of dice past its script."""

    def __init__(self, count: int, sides: int) -> None:
        super().__init__(count, sides)
        self.count, self.sides = count, sides


def _every(run: Callable[[], T]) -> Iterator[tuple[Fraction, T]]:
    """Every way ``run`` can go, with its chance: each group of dice it draws (through
    :func:`referee.roller.draw_faces`, in every module that draws), a 3d6 by its total
    and any other die by die."""
    script: list[tuple[int, ...]] = []
    at = [0]

    def fake(rng: Any, count: int, sides: int) -> tuple[int, ...]:
        if at[0] >= len(script):
            raise _Need(count, sides)
        at[0] += 1
        return script[at[0] - 1]

    def walk(p: Fraction) -> Iterator[tuple[Fraction, T]]:
        at[0] = 0
        try:
            got = run()
        except _Need as need:
            if (need.count, need.sides) == (3, 6):
                groups = [(ONE_OF[t], Fraction(w, 216)) for t, w in WAYS.items()]
            else:
                faces = itertools.product(range(1, need.sides + 1), repeat=need.count)
                groups = [(f, Fraction(1, need.sides**need.count)) for f in faces]
            for faces_, q in groups:
                script.append(faces_)
                yield from walk(p * q)
                script.pop()
            return
        yield p, got

    modules = (success, criticals, exchange_module, defenses)
    with patch.multiple(modules[0], draw_faces=fake), patch.multiple(modules[1], draw_faces=fake), \
            patch.multiple(modules[2], draw_faces=fake), \
            patch.multiple(modules[3], draw_faces=fake):  # fmt: skip
        yield from walk(Fraction(1))


def _matches(o: ExchangeOdds, runs: list[tuple[Fraction, Exchange]], hp: int | None) -> None:
    """Every figure of ``o`` against the exchanges enumerated."""
    hit = crit = defended = breaks = Fraction(0)
    injury: dict[int, Fraction] = {}
    hits: dict[int, Fraction] = {}
    major = knock = crippled = Fraction(0)
    where: dict[str, Fraction] = {}
    assert sum(p for p, _ in runs) == 1
    for p, x in runs:
        hit += p * x.attack.hit
        crit += p * x.attack.critical_hit
        defended += p * (x.attack.hit and not x.attack.critical_hit and x.hurt is None)
        breaks += p * bool(x.step and x.step.breakage and x.step.breakage.broke)
        n = sum(h.injury for h in x.hurts)
        injury[n] = injury.get(n, Fraction(0)) + p
        hits[len(x.hurts)] = hits.get(len(x.hurts), Fraction(0)) + p
        hurt = [h for h in x.hurts if h.injury and h.wound is not None]
        major += p * any(h.wound.major for h in hurt if h.wound)
        knock += p * any(h.wound.knockdown is not None for h in hurt if h.wound)
        crippled += p * any(h.wound.crippled for h in hurt if h.wound)
        for h in x.hurts:
            where[h.location.key] = where.get(h.location.key, Fraction(0)) + p
    assert (o.hit, o.critical_hit, o.defended) == (hit, crit, defended)
    assert dict(o.injury) == {k: v for k, v in injury.items() if v}
    assert (o.major_wound, o.knockdown, o.crippled) == (major, knock, crippled)
    spread = sum(where.values(), Fraction(0))
    assert dict(o.locations) == {k: v / spread for k, v in where.items()}
    if o.hits:
        assert dict(o.hits) == {k: v for k, v in hits.items() if v}
    if o.breaks is not None:
        assert o.breaks == breaks
    if hp is not None:
        for k, q in o.thresholds:
            assert q == sum((v for n, v in injury.items() if hp - n <= -k * hp < hp), Fraction(0))


def _enumerated(
    skill: int,
    dmg: str,
    target: Target,
    options: AttackOptions,
    defense: str = "best",
    defense_options: DefenseOptions | None = None,
) -> None:
    """The odds of one exchange against every run of it."""
    spec = read_damage(dmg)
    o = exchange_odds(skill, spec, target, options, defense, defense_options)
    runs = list(_every(lambda: exchange(skill, spec, target, options=options, defense=defense,
                                        defense_options=defense_options)))  # fmt: skip
    _matches(o, runs, target.hp)


# ------------------------------------------------------- §2: range, Aim, posture, shock


def test_the_range_penalty_reads_b550s_table() -> None:
    """B550: 0 at 2 yards, −1 at 3 ... −10 at 100; between two rows, the farther."""
    rows = {2: 0, 3: -1, 5: -2, 7: -3, 10: -4, 15: -5, 20: -6, 30: -7, 50: -8, 70: -9,
            100: -10, 150: -11, 200: -12, 300: -13, 500: -14, 700: -15, 1000: -16}  # fmt: skip
    assert {y: range_penalty(y) for y in rows} == rows
    assert [range_penalty(y) for y in (0, 1, 4, 6, 8, 11, 101)] == [0, 0, -2, -3, -4, -5, -11]
    with pytest.raises(RuleError, match="--range -1"):
        range_penalty(-1)


def test_aim_adds_acc_then_one_then_two_b364() -> None:
    """B364: Acc after one turn of Aim, +1 for a second, +2 for three or more."""
    assert [aim_bonus(t, 3) for t in range(5)] == [0, 3, 4, 5, 5]
    opts = AttackOptions(ranged=True, aim=3, acc=2, range_yards=10)
    assert effective_attack(12, opts) == 12 + 4 - 4


def test_posture_is_a_melee_attacks_b551() -> None:
    """B551's Attack column is for melee attacks; a ranged attack takes none."""
    want = {Posture.STANDING: 0, Posture.CROUCHING: -2, Posture.KNEELING: -2,
            Posture.SITTING: -2, Posture.CRAWLING: -4, Posture.PRONE: -4}  # fmt: skip
    for posture, mod in want.items():
        assert effective_attack(12, AttackOptions(posture=posture)) == 12 + mod
        assert effective_attack(12, AttackOptions(posture=posture, ranged=True)) == 12


def test_every_modifier_is_named_in_the_text_the_json_and_the_odds() -> None:
    """--mod, --range, --aim, --posture and --shock in an exchange: the text and the JSON
    name each, and the odds are the exchange's at the skill they leave."""
    line = ("gurps attack 14 --ranged --range 10 --aim 2 --acc 3 --shock 2 --mod -1 "
            "--damage '1d+1 pi' --target-name Orc --dodge 9 --hp 11")  # fmt: skip
    got = commands.run(line, seeded(3))
    assert "range 10 yd -4; aim 2 turns, Acc 3 +4; shock -2" in got.text
    named = got.data["attack"]["named_modifiers"]
    assert named == [["modifier", -1], ["range 10 yd", -4], ["aim 2 turns, Acc 3", 4],
                     ["shock", -2]]  # fmt: skip
    odds = commands.run(line.replace("gurps attack", "gurps odds attack"))
    assert odds.data["effective_skill"] == 14 - 1 - 4 + 4 - 2 == got.data["attack"]["effective"]
    melee = commands.run("gurps attack 14 --posture prone --damage 1d --target-name X --dodge 8",
                         seeded(1))  # fmt: skip
    assert "prone -4" in melee.text and melee.data["attack"]["effective"] == 10
    target = Target("Orc", dodge=9, dr=1, hp=11)
    _check(14, "1d+1 pi", target, AttackOptions(ranged=True, range_yards=10, aim=2, acc=3,
                                                shock=2, modifiers=(-1,)), "dodge")  # fmt: skip
    _check(13, "1d cut", target, AttackOptions(posture=Posture.KNEELING), "dodge")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("gurps attack 14 --aim 2 --damage 1d --target-name X --dodge 8", "--aim is for a ranged"),
        ("gurps attack 14 --ranged --aim 2 --damage 1d --target-name X --dodge 8", "needs the wea"),
        ("gurps attack 14 --range 5 --damage 1d --target-name X --dodge 8", "--range is for a r"),
        ("gurps attack 14 --move-and-attack --all-out --damage 1d --target-name X --dodge 8",
         "two maneuvers"),
        ("gurps attack 14 --ranged --aim 1 --acc 2 --move-and-attack --damage 1d", "Aim is a man"),
        ("gurps attack 14 --rof 3 --damage 1d --target-name X --dodge 8", "--rof is Rapid Fire"),
        ("gurps attack 14 --dual-weapon --double --damage 1d", "two attacks already"),
        ("gurps attack 14 --unliving --homogenous --damage 1d --target-name X", "exclude each"),
        ("gurps attack 14 --aod-double --damage 1d", "is the target's defense"),
        ("gurps attack 14 --dodge-and-drop --damage 1d --target-name X --dodge 8", "ranged attack"),
        ("gurps attack 14 --aod-double --damage 1d --target-name X --dodge 8", "only its Dodge"),
        ("gurps attack 14 --shock 9 --damage 1d", "--shock"),
    ],
)  # fmt: skip
def test_bad_situations_are_refused_naming_the_option(line: str, message: str) -> None:
    with pytest.raises((RuleError, Exception), match=message):
        commands.run(line, seeded(1))


def test_a_sheets_acc_and_bulk_are_read_and_written_out() -> None:
    """A GCS weapon's ``accuracy`` and a TOML attack's ``acc``/``bulk``: ``--aim`` takes
    the sheet's Acc, and the resolved command carries it (B364, B365)."""
    ninja = read_sheet((GCS / "Master Ninja.gcs").read_bytes())
    shuriken = next(a for a in ninja.attacks if a.full_name == "Star Shuriken (Thrown)")
    assert (shuriken.acc, shuriken.bulk) == (1, None)
    line = "gurps attack 'Star Shuriken (Thrown)' --thrown-small --aim 1 --target-name X --dodge 8"
    got = commands.run(line, seeded(1), resources=commands.with_sheet(ninja))
    assert "aim 1 turn, Acc 1 +1" in got.text
    assert "--acc 1" in commands.resolve(line, ninja)
    toml = read_sheet(b'system = "gurps"\nname = "Ann"\n[[attacks]]\nname = "Bow"\nlevel = 13\n'
                      b'damage = "1d+2 imp"\nacc = 2\nbulk = -7\n')  # fmt: skip
    assert (toml.attacks[0].acc, toml.attacks[0].bulk) == (2, -7)


# ------------------------------------------------------------ §3: Move and Attack (B365)


def test_move_and_attack_is_minus_4_at_most_9_or_ranged_minus_2_or_bulk_b365() -> None:
    mna = AttackOptions(move_and_attack=True)
    assert [effective_attack(s, mna) for s in (10, 12, 13, 16, 20)] == [6, 8, 9, 9, 9]
    assert effective_attack(12, replace(mna, ranged=True)) == 10
    assert effective_attack(12, replace(mna, ranged=True, bulk=-1)) == 10
    assert effective_attack(12, replace(mna, ranged=True, bulk=-5)) == 7
    got = commands.run("gurps attack 16 --move-and-attack --damage 1d --target-name X --dodge 8",
                       seeded(1))  # fmt: skip
    assert got.data["attack"]["effective"] == 9 and "move and attack: at most 9" in got.text
    assert ["move and attack: at most 9", -3] in got.data["attack"]["named_modifiers"]
    _check(16, "1d cr", Target("X", dodge=8, hp=10), mna, "dodge")


# ------------------------------------------------------ All-Out Defense (Double) (B366)


def test_all_out_defense_double_rolls_a_second_defense_after_a_failed_first_b366() -> None:
    target = Target("Orc", dodge=9, parry=10, hp=10)
    aod = DefenseOptions(aod_double=True)
    _enumerated(13, "1d cr", target, AttackOptions(criticals=False), "best", aod)
    rng = iter([(6, f) for f in (2, 2, 2, 6, 6, 6, 2, 2, 2, 3)])
    from referee.rng import ReplaySource

    x = exchange(13, read_damage("1d cr"), target, defense_options=aod,
                 rng=ReplaySource(list(rng)))  # fmt: skip
    assert x.defense is not None and not x.defense.defended and x.defense.defense == "parry"
    assert x.step is not None and x.step.second is not None and x.step.second.defense == "dodge"
    assert x.hurt is None and "then (All-Out Defense, Double, B366)" in x.text
    line = "gurps odds attack 13 --aod-double --damage 1d --target-name Orc --dodge 9 --parry 10"
    got = commands.run(line)
    assert "Parry 10, then Dodge 9 (B366) defends" in got.text
    assert got.data["odds"]["second_defense"] == "dodge"


# --------------------------------------------------------------- Dodge and Drop (B377)


def test_dodge_and_drop_is_plus_3_against_a_ranged_attack_then_prone_b377() -> None:
    target = Target("Orc", dodge=8, parry=11, hp=10)
    drop = DefenseOptions(drop=True)
    _check(12, "1d pi", target, AttackOptions(ranged=True, criticals=False), "best")
    o = exchange_odds(12, read_damage("1d pi"), target, AttackOptions(ranged=True), "best", drop)
    assert (o.defense, o.defense_level) == ("dodge", 11)
    _enumerated(12, "1d pi", target, AttackOptions(ranged=True, criticals=False), "best", drop)
    line = ("gurps attack 12 --ranged --dodge-and-drop --damage '1d pi' --target-name Orc "
            "--dodge 8 --hp 10")  # fmt: skip
    got = commands.run(line, seeded(4))
    assert "Dodge 8+3 = 11" in got.text and "Orc is prone after Dodge and Drop (B377)" in got.text
    d = commands.run("gurps defend dodge 8 --dodge-and-drop", seeded(1))
    assert "8+3 = 11" in d.text and "prone" in d.text
    with pytest.raises(RuleError, match="not both"):
        DefenseOptions(drop=True, retreat=True)


# ---------------------------------------------------------- Rapid Fire (B373, B375)


def test_the_rapid_fire_bonus_reads_b373s_table() -> None:
    table = {1: 0, 2: 0, 4: 0, 5: 1, 8: 1, 9: 2, 12: 2, 13: 3, 16: 3, 17: 4, 24: 4, 25: 5,
             49: 5, 50: 6, 99: 6, 100: 7, 199: 7, 200: 8, 399: 8, 400: 9}  # fmt: skip
    assert {n: rof_bonus(n) for n in table} == table


@pytest.mark.parametrize(
    ("skill", "rof", "recoil", "defense", "criticals"),
    [(11, 3, 2, "dodge", False), (12, 3, 1, "block", False), (9, 2, 1, "dodge", True)],
)
def test_a_volleys_odds_equal_enumeration_b373_b375(
    skill: int, rof: int, recoil: int, defense: str, criticals: bool
) -> None:
    """One more hit per full Recoil of margin, at most RoF; a Dodge stops one plus its
    margin, a block one; each hit its own damage dice, summed. A volley to block is of
    arrows (B375: "You cannot block bullets or beam weapons")."""
    target = Target("Orc", dodge=8, block=9, dr=1, hp=8)
    kind = RangedKind.ARROW if defense == "block" else RangedKind.MISSILE
    opts = AttackOptions(ranged=True, rof=rof, recoil=recoil, criticals=criticals,
                         location="vitals", ranged_kind=kind)  # fmt: skip
    _enumerated(skill, "1d pi", target, opts, defense)


def test_a_volley_at_random_locations_equals_enumeration() -> None:
    """Each hit rolls its own location (B398) and its own damage."""
    target = Target("Orc", dodge=6, dr_at=(("skull", 3),), hp=6)
    opts = AttackOptions(ranged=True, rof=2, random_location=True, criticals=False)
    _enumerated(5, "1d-1 pi", target, opts, "none")


def test_a_volley_in_the_cli_names_its_hits_and_gives_their_odds() -> None:
    line = ("gurps attack 12 --ranged --rof 10 --recoil 2 --damage '2d+2 pi' --target-name Orc "
            "--dodge 9 --dr 2 --hp 12")  # fmt: skip
    seen = [commands.run(line, seeded(k)) for k in range(8)]
    landed = [x for x in seen if x.data["hits"]["landed"] > 1]
    assert landed and all("(Recoil 2, B373)" in x.text for x in seen if x.data["attack"]["success"])
    x = landed[0]
    assert len(x.data["more"]) == x.data["hits"]["landed"] - 1 and "hit 2: the torso" in x.text
    assert x.data["hp_after"] == 12 - x.data["damage"]["injury"] - sum(
        m["injury"] for m in x.data["more"]
    )
    odds = commands.run(line.replace("gurps attack", "gurps odds attack"))
    assert odds.data["effective_skill"] == 14 and "hits that land (B373, B375)" in odds.text
    assert sum(Fraction(p) for _, p in odds.data["odds"]["hits"]) == 1


# ------------------------------------------------------ Dual-Weapon Attack (B417)


def test_a_dual_weapon_attack_is_two_at_minus_4_the_off_hand_minus_8_b417() -> None:
    target = Target("Orc", parry=10, hp=6)
    spec = read_damage("1d cr")
    dual = AttackOptions(dual_weapon=True, off_hand=True, criticals=False)
    from referee.rng import ReplaySource

    script = (2, 2, 2, 1, 1, 2, 2, 1, 2, 6, 6, 6, 3)  # hit, parried; hit, not parried
    both = exchanges(14, spec, target, options=dual, defense="parry",
                     rng=ReplaySource([(6, f) for f in script]))  # fmt: skip
    assert [x.attack.check.effective_skill for x in both] == [10, 6]
    assert both[1].defense is not None and both[1].defense.check.effective_skill == 6  # B376
    first = exchange_odds(14, spec, target, replace(dual, off_hand=False), "parry")
    either, two = double_odds(first, 14, spec, target, replace(dual, off_hand=False), "parry",
                              then=dual)  # fmt: skip
    neither = both_ = Fraction(0)
    cache: dict[tuple[int | None, bool], Fraction] = {}
    for p, x in _every(lambda: exchange(14, spec, target, options=replace(dual, off_hand=False),
                                        defense="parry")):  # fmt: skip
        drew = x.defense is not None
        key = (x.hp_after, drew)
        if key not in cache:
            after = replace(target, current_hp=x.hp_after)
            again = DefenseOptions(parried=int(drew))
            cache[key] = sum((q for q, y in _every(functools.partial(
                exchange, 14, spec, after, options=dual, defense="parry",
                defense_options=again)) if y.success), Fraction(0))  # fmt: skip
        if x.success:
            both_ += p * cache[key]
        else:
            neither += p * (1 - cache[key])
    assert (either, two) == (1 - neither, both_)
    got = commands.run("gurps odds attack 14 --dual-weapon --off-hand --damage 1d "
                       "--target-name Orc --parry 10 --hp 6")  # fmt: skip
    assert "two attacks (Dual-Weapon Attack, B417): either injures" in got.text


# -------------------------------------------------------- Injury Tolerance (B380)


def test_injury_tolerance_changes_the_wounding_b380() -> None:
    """B380's tables for Unliving and Homogenous; Diffuse at most 1 (impaling and
    piercing) or 2 (anything else), a large-area attack's injury whole."""
    torso = read_location("torso")
    unliving = {"imp": 12, "pi++": 12, "pi+": 6, "pi": 4, "pi-": 2, "cut": 18, "cr": 12}
    homogenous = {"imp": 6, "pi++": 6, "pi+": 4, "pi": 2, "pi-": 1, "cut": 18, "cr": 12}
    diffuse = {"imp": 1, "pi++": 1, "pi+": 1, "pi": 1, "pi-": 1, "cut": 2, "cr": 2}
    for tolerance, want in ((Tolerance.UNLIVING, unliving), (Tolerance.HOMOGENOUS, homogenous),
                            (Tolerance.DIFFUSE, diffuse)):  # fmt: skip
        got = {k: tolerant_injury(12, k, torso, 100, tolerance) for k in want}
        assert got == want, tolerance
    assert tolerant_injury(12, "cut", torso, 100, Tolerance.DIFFUSE, large_area=True) == 18


@pytest.mark.parametrize("tolerance", list(Tolerance))
@pytest.mark.parametrize("location", ["skull", "vitals", "arm"])
def test_injury_tolerance_odds_equal_enumeration(tolerance: Tolerance, location: str) -> None:
    target = Target("Golem", dodge=7, dr=1, hp=9, tolerance=tolerance)
    _check(16, "1d+1 imp", target, AttackOptions(location=location), "dodge")


def test_injury_tolerance_from_the_sheet_and_the_options() -> None:
    toml = read_sheet(b'system = "gurps"\nname = "Zed"\nhp = 12\n'
                      b'advantages = ["Injury Tolerance (Unliving)"]\n')  # fmt: skip
    sheets = commands.with_sheet(toml, others={"zed": toml})
    line = "gurps attack 14 --damage '2d pi' --vs zed --defense none"
    got = commands.run(line, seeded(2), resources=sheets)
    assert got.data["injury_tolerance"] == "unliving" and "Injury Tolerance (Unliving)" in got.text
    typed = commands.run("gurps attack 14 --damage '2d pi' --target-name Zed --hp 12 "
                         "--defense none --unliving", seeded(2))  # fmt: skip
    assert typed.data["damage"]["injury"] == got.data["damage"]["injury"]
    with pytest.raises(RuleError, match="exclude each other"):
        commands.run(line + " --diffuse", seeded(2), resources=sheets)


# ------------------------------------------------- Parrying heavy weapons (B376)


def test_a_heavy_weapons_parry_may_break_the_parrying_weapon_b376() -> None:
    target = Target("Orc", dodge=8, parry=11, hp=10)
    heavy = DefenseOptions(heavy=True)
    _enumerated(13, "1d cr", target, AttackOptions(criticals=False), "parry", heavy)
    _enumerated(13, "1d cr", target, AttackOptions(criticals=False), "best",
                DefenseOptions(heavy=True, break_on=4, aod_double=True))  # fmt: skip
    o = exchange_odds(13, read_damage("1d cr"), target, AttackOptions(), "parry", heavy)
    p = exchange_odds(13, read_damage("1d cr"), target, AttackOptions(), "parry")
    assert o.breaks == p.defended * Fraction(2, 6) and p.breaks is None
    line = "gurps attack 13 --heavy --damage 1d --target-name Orc --parry 11 --hp 10"
    runs = [commands.run(line, seeded(k)) for k in range(12)]
    rolled = [r for r in runs if r.data["breakage"] is not None]
    assert rolled and all("parrying a heavy weapon: rolled" in r.text for r in rolled)
    assert all(r.data["breakage"]["broke"] == (r.data["breakage"]["roll"] <= 2) for r in rolled)
    d = commands.run("gurps defend parry 11 --heavy --break-on 6", seeded(1))
    assert d.data["breakage"] is None or d.data["breakage"]["broke"]


# ------------------------------------------------------------------------ Slam (B371)


def test_slam_dice_are_hp_times_velocity_over_100_b371() -> None:
    """B371: (HP × velocity) / 100 dice, rounded; under one die 1d-3, 1d-2, 1d-1. Rows of
    the Albuquerque GURPS group's "Table of Collisions and Slams" (abqgurps.fandom.com,
    "Slam table"), which reads each bound under one die as "less than"."""
    table = {(10, 2): "1d-3", (10, 3): "1d-2", (10, 5): "1d-1", (10, 10): "1d", (10, 15): "2d",
             (5, 5): "1d-2", (4, 6): "1d-3", (9, 5): "1d-2", (9, 6): "1d-1", (12, 12): "1d",
             (12, 13): "2d", (13, 20): "3d", (8, 19): "2d"}  # fmt: skip
    assert {k: slam_dice(*k) for k in table} == table
    assert slam_dice(5, 5, SlamBounds.AT_MOST) == "1d-3"
    assert slam_dice(10, 5, SlamBounds.AT_MOST) == "1d-2"


def test_a_slams_odds_equal_enumeration_b371() -> None:
    """Both are hurt, each by its own HP's dice through its own DR; whoever deals twice
    the basic damage it takes knocks the other down."""
    slammer, target = Target("Bo", dr=1, hp=14), Target("Orc", dodge=8, parry=9, hp=10)
    o = slam_odds(11, 7, slammer, target)
    runs = list(_every(lambda: slam(11, 7, slammer, target)))
    _matches(o.steps, [(p, s.exchange) for p, s in runs], target.hp)
    assert o.hurt_back == sum((p for p, s in runs if s.back and s.back.injury), Fraction(0))
    assert o.target_falls == sum((p for p, s in runs if s.fallen == "target"), Fraction(0))
    assert o.slammer_falls == sum((p for p, s in runs if s.fallen == "slammer"), Fraction(0))
    got = commands.run("gurps slam 11 --velocity 7 --attacker Bo --attacker-hp 14 "
                       "--attacker-dr 1 --target-name Orc --hp 10 --dodge 8 --parry 9",
                       seeded(1))  # fmt: skip
    assert got.data["kind"] == "slam" and got.data["slam_dice"] == {
        "slammer": "1d-1",
        "target": "1d-1",
    }
    odds = commands.run(
        "gurps odds slam 11 --velocity 7 --attacker Bo --attacker-hp 14 --attacker-dr 1 "
        "--target-name Orc --hp 10 --dodge 8 --parry 9"
    )
    assert Fraction(odds.data["slam"]["target_falls"]) == o.target_falls
    assert "slam (B371): Bo hurt back" in odds.text


def test_a_lone_attack_takes_the_situation_too() -> None:
    """With no target, the roll and its odds take the same named modifiers (B550, B364,
    B551, B419, B365, B373, B417)."""
    line = "gurps attack 14 --ranged --range 15 --aim 1 --acc 2 --rof 9 --shock 1"
    got = commands.run(line, seeded(1))
    assert "range 15 yd -5; aim 1 turn, Acc 2 +2; shock -1; rapid fire 9 +2" in got.text
    assert got.data["effective"] == 14 - 5 + 2 - 1 + 2
    odds = commands.run(line.replace("gurps attack", "gurps odds attack"))
    assert odds.data["effective_skill"] == 12
    dual = commands.run("gurps attack 14 --dual-weapon --off-hand", seeded(1))
    assert dual.data["effective"] == 10 and dual.data["second"]["effective"] == 6


def test_a_volley_against_all_out_defense_double_equals_enumeration() -> None:
    """B366 with B375: the second defense stops hits as it would first (arrows: B375
    lets no block stop a bullet)."""
    target = Target("Orc", dodge=7, block=8, hp=8)
    opts = AttackOptions(ranged=True, rof=2, criticals=False, location="vitals",
                         ranged_kind=RangedKind.ARROW)  # fmt: skip
    _enumerated(10, "1d-1 pi", target, opts, "dodge", DefenseOptions(aod_double=True))


def test_a_sheet_with_two_injury_tolerances_is_refused_in_an_exchange_b60() -> None:
    both = b'["Injury Tolerance (Unliving)", "Injury Tolerance (Diffuse)"]'
    two = read_sheet(b'system = "gurps"\nname = "Odd"\nhp = 9\nadvantages = ' + both + b"\n")
    sheets = commands.with_sheet(two, others={"odd": two})
    with pytest.raises(RuleError, match="exclude each other"):
        commands.run("gurps attack 14 --damage 1d --vs odd", seeded(1), resources=sheets)
