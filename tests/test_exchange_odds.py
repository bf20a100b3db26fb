"""Issue 52 §3: each step's exact odds of a GURPS exchange (:mod:`referee.systems.gurps.
exchange_odds`) against enumeration: every outcome of every group of dice the exchange
draws (the attack's 3d6, B556's 3d6 on a critical hit, the defense's 3d6, B398's 3d6
for a random location, the damage dice), each run through :func:`exchange` itself.

A 3d6 group is enumerated by its total, weighted by its number of ways, and so are the
damage dice: the resolver reads only a 3d6 roll's total, and only the damage dice's
total, which the first two tests check die by die."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from referee.errors import RuleError
from referee.rng import ReplaySource
from referee.systems.gurps.damage import DamageSpec, read_damage
from referee.systems.gurps.exchange import Exchange, Target, exchange
from referee.systems.gurps.exchange_odds import THRESHOLDS, exchange_odds
from referee.systems.gurps.locations import RANDOM_TABLE, location_odds
from referee.systems.gurps.melee import AttackOptions, DefenseOptions, effective_attack
from referee.systems.gurps.odds_steps import Tails, hp_odds

WAYS = Counter(sum(d) for d in itertools.product(range(1, 7), repeat=3))
"""Each 3d6 total and its number of ways in 216."""
ONE_OF = {t: next(d for d in itertools.product(range(1, 7), repeat=3) if sum(d) == t) for t in WAYS}
"""One triple for each total."""


def _by_total(count: int) -> list[tuple[tuple[int, ...], int]]:
    """``count`` d6 by their total: one tuple of faces for each total, and its number of
    ways in ``6 ** count``."""
    first: dict[int, tuple[int, ...]] = {}
    ways: Counter[int] = Counter()
    for d in itertools.product(range(1, 7), repeat=count):
        first.setdefault(sum(d), d)
        ways[sum(d)] += 1
    return [(first[t], w) for t, w in ways.items()]


def _runs(
    skill: int,
    damage: DamageSpec,
    target: Target,
    options: AttackOptions,
    defense: str,
    start: list[int] | None = None,
    defense_options: DefenseOptions | None = None,
) -> Iterator[tuple[Fraction, Exchange]]:
    """Every way the exchange can go, with its chance: the draws in the order the
    exchange makes them (after ``start``, taken as given), each 3d6 by its total and
    the damage dice by theirs."""
    count = int(damage.expression.split("d")[0])
    damages = _by_total(count)

    def run(script: list[int]) -> Exchange | int:
        """The exchange on these draws, or how many it asked for past them."""
        try:
            return exchange(skill, damage, target, options=options, defense=defense,
                            defense_options=defense_options,
                            rng=ReplaySource([(6, v) for v in script]))  # fmt: skip
        except Exception as exc:  # a draw past the script: walk on
            if "was not recorded" in str(exc):
                return len(script)
            raise

    def walk(script: list[int], p: Fraction) -> Iterator[tuple[Fraction, Exchange]]:
        got = run(script)
        if isinstance(got, Exchange):
            yield p, got
            return
        # The next group: 3d6 (the attack, a critical table's row, a defense, a
        # location) until the blow lands, then the damage dice. It is the damage when
        # `count` dice of 1 end the exchange with a blow: no 3d6 group can (a defense
        # of 3 holds, and a location or a critical row is followed by the damage).
        probe = run([*script, *([1] * count)])
        if isinstance(probe, Exchange) and probe.hurt is not None:
            for dice, ways in damages:
                yield from walk([*script, *dice], p * Fraction(ways, 6**count))
            return
        for total, ways in WAYS.items():
            yield from walk([*script, *ONE_OF[total]], p * Fraction(ways, 216))

    yield from walk(list(start or ()), Fraction(1))


def test_the_resolver_reads_only_each_3d6_total() -> None:
    """Each 3d6 group (the attack, the defense, the random location), rolled as any
    triple of a total, gives the exchange what :data:`ONE_OF`'s triple gives."""
    target = Target("Orc", parry=9, dr=1, hp=12)
    spec, options = read_damage("1d+1 cut"), AttackOptions(random_location=True, criticals=False)
    base = [*ONE_OF[9], *ONE_OF[14], *ONE_OF[10], 5]  # hits, parry fails, the torso
    for group in range(3):
        for total in range(3, 19):
            seen = set()
            for d in itertools.product(range(1, 7), repeat=3):
                if sum(d) == total:
                    script = [*base[: 3 * group], *d, *base[3 * group + 3 :]]
                    rng = ReplaySource([(6, v) for v in [*script, 5, 5, 5, 5]])
                    x = exchange(14, spec, target, options=options, defense="parry", rng=rng)
                    h = x.hurt
                    seen.add((x.outcome, x.attack.critical_hit, x.defense and x.defense.defended,
                              h and (h.location.key, h.injury, h.wound)))  # fmt: skip
            assert len(seen) == 1, (group, total, seen)


@pytest.mark.parametrize(("dmg", "half"), [("3d-1 cut", False), ("2d pi", True), ("2d+1 cr", True)])
def test_the_resolver_reads_only_the_damage_dices_total(dmg: str, half: bool) -> None:
    """The damage dice, rolled as any faces of a total, give the exchange what
    :func:`_by_total`'s faces give: the blow, whole or halved (B378), reads their sum."""
    target = Target("Orc", dodge=9, dr=1, hp=12)
    spec = replace(read_damage(dmg), half=half)
    options = AttackOptions(random_location=True, criticals=False)
    base = [*ONE_OF[9], *ONE_OF[14], *ONE_OF[10]]  # hits, the dodge fails, the torso
    count = int(dmg.split("d")[0])
    injuries = set()
    for faces, ways in _by_total(count):
        seen = set()
        for d in itertools.product(range(1, 7), repeat=count):
            if sum(d) == sum(faces):
                rng = ReplaySource([(6, v) for v in [*base, *d]])
                x = exchange(14, spec, target, options=options, defense="dodge", rng=rng)
                h = x.hurt
                assert h is not None
                seen.add((x.outcome, h.location.key, h.injury, h.wound))
        assert len(seen) == 1 and ways == sum(
            1 for d in itertools.product(range(1, 7), repeat=count) if sum(d) == sum(faces)
        ), (faces, seen)
        injuries |= {k[2] for k in seen}
    assert len(injuries) > 3  # the totals differ: the test could tell them apart


def _check(skill: int, dmg: str, target: Target, options: AttackOptions, defense: str) -> None:
    spec = read_damage(dmg)
    o = exchange_odds(skill, spec, target, options, defense)
    hit = crit = defended = Fraction(0)
    injury: dict[int, Fraction] = {}
    major = knock = crippled = Fraction(0)
    where: dict[str, Fraction] = {}
    total = Fraction(0)
    for p, x in _runs(skill, spec, target, options, defense):
        total += p
        hit += p if x.attack.hit else 0
        crit += p if x.attack.critical_hit else 0
        defended += p if x.defense is not None and x.defense.defended else 0
        n = x.hurt.injury if x.hurt else 0
        injury[n] = injury.get(n, Fraction(0)) + p
        if x.hurt is not None:
            where[x.hurt.location.key] = where.get(x.hurt.location.key, Fraction(0)) + p
            if n and x.hurt.wound is not None:
                major += p if x.hurt.wound.major else 0
                knock += p if x.hurt.wound.knockdown is not None else 0
                crippled += p if x.hurt.wound.crippled else 0
    assert total == 1
    assert (o.hit, o.critical_hit, o.defended) == (hit, crit, defended)
    assert dict(o.injury) == {k: v for k, v in injury.items() if v}
    assert (o.major_wound, o.knockdown, o.crippled) == (major, knock, crippled)
    landed = sum(where.values(), Fraction(0))
    assert dict(o.locations) == {k: v / landed for k, v in where.items()}
    assert o.injures == 1 - injury.get(0, Fraction(0))
    if target.hp is not None:
        now = target.current_hp if target.current_hp is not None else target.hp
        for k, p in o.thresholds:
            assert p == sum((q for n, q in injury.items() if now - n <= -k * target.hp < now),
                            Fraction(0))  # fmt: skip


def test_a_fixed_exchange_matches_enumeration() -> None:
    """Skill 14 with a broadsword's 2d cut at the torso, against parry 10, DR 2, 12 HP."""
    _check(14, "2d cut", Target("Orc", parry=10, dr=2, hp=12), AttackOptions(), "parry")


@pytest.mark.slow  # make check leaves it to make test
def test_an_aimed_and_a_random_location_match_enumeration() -> None:
    """The skull, missed by 1 into the torso (B399); and B398's random table."""
    target = Target("Orc", dodge=8, dr=1, hp=10, current_hp=4)
    _check(13, "1d+1 cr", target, AttackOptions(location="skull"), "dodge")
    _check(12, "1d imp", target, AttackOptions(random_location=True), "best")


@pytest.mark.slow  # make check leaves it to make test
@settings(max_examples=6, deadline=None)
@given(
    skill=st.integers(6, 18),
    dmg=st.sampled_from(["1d cr", "1d-1 cut", "1d+2 imp", "2d-1 pi", "1d tox"]),
    dr=st.integers(0, 4),
    hp=st.integers(4, 16),
    now=st.integers(-20, 16),
    parry=st.integers(5, 12),
    where=st.sampled_from([None, "vitals", "arm", "neck", "random"]),
    deceptive=st.integers(0, 1),
    criticals=st.booleans(),
    hpt=st.booleans(),
)
def test_the_exchanges_odds_equal_enumeration_for_random_options(
    skill: int, dmg: str, dr: int, hp: int, now: int, parry: int, where: str | None,
    deceptive: int, criticals: bool, hpt: bool,
) -> None:  # fmt: skip
    if where == "vitals" and "imp" not in dmg and "pi" not in dmg:
        where = "groin"  # only piercing and impaling reach the vitals (B399)
    options = AttackOptions(
        deceptive=deceptive,
        location=None if where in (None, "random") else where,
        random_location=where == "random",
        criticals=criticals,
    )
    try:
        effective_attack(skill, options)
    except RuleError:  # no Deceptive Attack below 10 (B369): refused, and tested apart
        options = replace(options, deceptive=0)
    # An aimed blow's penalty can take the roll below 3, which no attack may make (000,
    # "Base Skill vs Effective Skill"): refused, and tested apart.
    assume(effective_attack(skill, options) >= 3)
    target = Target("Foe", parry=parry, dr=dr, hp=hp, current_hp=min(now, hp), hpt=hpt)
    _check(skill, dmg, target, options, "parry")


def test_the_location_odds_are_b398s_table() -> None:
    """`random_location`'s locations are the 3d6 table's rows, each with its ways."""
    o = exchange_odds(30, read_damage("1d cr"), Target(hp=10), AttackOptions(random_location=True),
                      "none")  # fmt: skip
    rows: Counter[str] = Counter()
    for total, ways in WAYS.items():
        rows[RANDOM_TABLE[total]] += ways
    assert dict(o.locations) == {k: Fraction(v, 216) for k, v in rows.items()} == location_odds()


def test_the_thresholds_are_named_by_b419() -> None:
    assert THRESHOLDS == (1, 2, 3, 4, 5, 10)
    o = exchange_odds(18, read_damage("6d cut"), Target(hp=5, current_hp=1), AttackOptions(),
                      "none", DefenseOptions())  # fmt: skip
    by = dict(o.thresholds)
    assert by[1] >= by[2] >= by[5] >= by[10] > 0 and o.zero_hp == o.injures


@settings(max_examples=25, deadline=None)
@given(
    bonus=st.integers(-3, 6),
    ac=st.integers(10, 18),
    damage=st.sampled_from(["1d4", "1d6", "1d8", "2d4"]),
    shock=st.sampled_from([None, "1/13", "2/15", "3/18"]),
    hp=st.integers(0, 9),
    total_defense=st.booleans(),
)
def test_an_swn_attacks_odds_equal_enumeration(
    bonus: int, ac: int, damage: str, shock: str | None, hp: int, total_defense: bool
) -> None:
    """SWN (issue 52 §3): hit, Shock on a miss, damage, down and killed, against every
    d20 and every damage die run through :func:`swn.attack` itself (``003``)."""
    from referee.systems import swn

    weapon = swn.Weapon.make(damage, shock)
    kw: dict[str, Any] = dict(ac=ac, weapon=weapon, attack_bonus=bonus,
                              total_defense=total_defense)  # fmt: skip
    o = swn.attack_odds(**kw)
    count, sides = (int(x) for x in damage.split("d"))
    hit = shocked = down = killed = Fraction(0)
    dist: dict[int, Fraction] = {}
    for d20 in range(1, 21):
        for dice in itertools.product(range(1, sides + 1), repeat=count):
            p = Fraction(1, 20 * sides**count)
            r = swn.attack(**kw, rng=ReplaySource([(20, d20), *((sides, v) for v in dice)]))
            hit += p if r.hit else 0
            shocked += p if not r.hit and r.damage else 0
            dist[r.damage] = dist.get(r.damage, Fraction(0)) + p
            down += p if hp > 0 and r.damage >= hp else 0
            killed += p if hp == 0 and r.damage > 0 else 0
    assert (o.hit, o.shock, o.down(hp), o.killed(hp)) == (hit, shocked, down, killed)
    assert dict(o.distribution) == {k: v for k, v in dist.items() if v}


@settings(max_examples=200, deadline=None)
@given(
    injury=st.dictionaries(st.integers(0, 60), st.integers(1, 50), min_size=1, max_size=12),
    hp=st.integers(1, 20),
    now=st.integers(-60, 20),
)
def test_the_hp_thresholds_read_from_the_tails_equal_the_direct_sums(
    injury: dict[int, int], hp: int, now: int
) -> None:
    """B419's thresholds, each one look-up in the injury's tails (:class:`Tails`), equal
    the sum over every injury of the condition as the rule says it."""
    whole = sum(injury.values())
    dist = {n: Fraction(w, whole) for n, w in injury.items()}
    now = min(now, hp)
    reeling, zero, crossed = hp_odds(Target(hp=hp, current_hp=now), dist)

    def p(cond: Any) -> Fraction:
        return sum((q for n, q in dist.items() if n and cond(n)), Fraction(0))

    assert reeling == p(lambda n: 3 * (now - n) < hp <= 3 * now)
    assert zero == p(lambda n: now - n <= 0 < now)
    assert crossed == tuple((k, p(lambda n, k=k: now - n <= -k * hp < now)) for k in THRESHOLDS)
    assert hp_odds(Target(hp=hp, current_hp=now), Tails.of(dist)) == (reeling, zero, crossed)
    assert hp_odds(Target(), dist) == (None, None, ())
