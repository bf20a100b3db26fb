"""Each step's exact odds of a GURPS exchange, before any die (issue 52 §3): the hit
and the critical hit, the defense, the hit location, penetration, the injury's
distribution, and what the injury brings (a major wound, a knockdown roll, a crippled
limb, reeling, 0 HP, each −N×HP).

Sources: *GURPS Basic Set*, 4th edition, as :mod:`.exchange` resolves one roll:
B369-B381 (the attack and its defense; none after a critical hit, B381); B398-B400
(B398's random table; an aimed attack that misses by 1 hits the torso, B399); B378-B379
(DR and wounding); B556 (the Critical Hit Table, each row with its 3d6 chance);
B419-B421 (shock, major wounds, knockdown, crippling, reeling and the HP thresholds).

Every figure is a :class:`~fractions.Fraction` summed over the dice: the attack's 3d6,
the critical table's, the defense's, the location's and the damage dice. The blow
itself (:func:`.blows.blow`) is the function :func:`.exchange.exchange` uses to roll
one, so the odds and the roll cannot disagree.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TypeVar

from .allout import feint_odds
from .blows import blow, on_head
from .criticals import EyeRow
from .damage import DamageSpec, _dice_adds
from .defenses import allowed_against, defense_odds, settle
from .knocked import Fallen, knockdown_odds, standing
from .locations import LargeArea, location_odds, read_location
from .melee import (
    AIMED,
    AttackOptions,
    DefenseOptions,
    effective_attack,
    misses_by_one,
    parry_modifier,
)
from .odds_steps import THRESHOLDS, ExchangeOdds, Tails
from .odds_steps import add as _add
from .odds_steps import hp_odds as _hp_odds
from .odds_steps import prepared as _prepared
from .odds_steps import table_odds as _table_odds
from .odds_steps import ways as _ways
from .rapid import volley_odds
from .success import require_rollable, skill_odds, three_d6
from .target import Target

__all__ = ["THRESHOLDS", "ExchangeOdds", "double_odds", "exchange_odds", "injury_chance"]

K = TypeVar("K")


def exchange_odds(
    skill: int,
    damage: DamageSpec,
    target: Target,
    options: AttackOptions | None = None,
    defense: str = "best",
    defense_options: DefenseOptions | None = None,
    *,
    attacker: str = "Attack",
) -> ExchangeOdds:
    """The odds of each step of :func:`.exchange.exchange` with these arguments, exact.

    Raises:
        RuleError: a defense the target lacks, a Deceptive Attack below 10 (B369), a
            location the damage may not target (B399).
    """
    options = options or AttackOptions()
    target, defense, defense_options = settle(allowed_against(options, damage.damage_type),
                                              target, defense,
                                              defense_options or DefenseOptions())  # fmt: skip
    if options.rof > 1:  # Rapid Fire: several hits (B373, B375)
        return volley_odds(skill, damage, target, options, defense, defense_options, attacker)
    return _odds(skill, damage, target, options, defense, defense_options, attacker)


@dataclass(frozen=True, slots=True)
class _Split:
    """One exchange's landings before the damage dice, kept apart by whether a defense
    was rolled (a hit that was not critical) or not (a critical hit, B381)."""

    eff: int
    hit: Fraction
    critical: Fraction
    defense: str | None
    level: int | None
    defended: Fraction
    second: str | None
    """All-Out Defense (Double)'s second defense (B366)."""
    second_level: int | None
    parried: Fraction
    """P(a hit that is not critical is parried: the parry that holds), for a heavy
    weapon's breakage (B376)."""
    rolled: dict[tuple[str, str], Fraction]
    """(location, effect): P(a blow lands so after a defense roll failed, or with none)."""
    free: dict[tuple[str, str], Fraction]
    """(location, effect): P(a critical hit lands so: no defense, B381)."""


@functools.lru_cache(maxsize=512)
def _split(
    skill: int,
    damage: DamageSpec,
    target: Target,
    options: AttackOptions,
    defense: str,
    defense_options: DefenseOptions,
) -> _Split:
    eff = effective_attack(skill, options)
    require_rollable(eff)  # the roll refuses below 3 (000; B344): so do its odds
    o = skill_odds(eff)
    crit, normal = o.critical_success, o.success - o.critical_success
    aimed = None if options.location is None else read_location(options.location).key
    torso = Fraction(0)  # an aimed attack that misses by 1 hits the torso (B399, TorsoMiss)
    if aimed in AIMED:
        torso = sum((p for t, p in three_d6().items()
                     if misses_by_one(t, eff, options.torso_miss)), Fraction(0))  # fmt: skip
    against = -options.deceptive + (2 if options.telegraphic else 0)
    parry = parry_modifier(options)  # a thrown weapon's −1 or −2; a missile: no parry (B376)
    feints = ((0, Fraction(1)),) if options.feint is None else feint_odds(skill, options.feint)
    d = defense_odds(target, defense, defense_options, against, parry, feints)  # B365, B366
    fails = d.fails
    if options.random_location:
        where = list(location_odds().items())
    else:
        where = [(aimed or "torso", Fraction(1))]
    rolled: dict[tuple[str, str], Fraction] = {}
    free: dict[tuple[str, str], Fraction] = {}
    for key, p in where:
        _add(rolled, (key, "normal"), p * normal * fails)
        head = options.head_blow_table and on_head(key, damage.damage_type)
        as_4 = head and key == "eye" and options.eye_row is EyeRow.AS_4  # B556 rows 6-7
        table = _table_odds(head, as_4) if options.criticals else {"normal": Fraction(1)}
        for effect, q in table.items():
            _add(free, (key, effect), p * crit * q)
    if torso:
        _add(rolled, ("torso", "normal"), torso * fails)
    defended = (normal + torso) * (1 - fails)
    return _Split(eff, o.success + torso, crit, d.defense, d.level, defended, d.second,
                  d.second_level, (normal + torso) * d.parried, rolled, free)  # fmt: skip


def _injuries(
    lands: dict[tuple[str, str], Fraction],
    damage: DamageSpec,
    target: Target,
    options: AttackOptions,
) -> tuple[dict[int, Fraction], Fraction, Fraction, Fraction]:
    """P(each injury), a major wound, a knockdown roll and a crippled limb, over the
    damage dice, from the blows that land (``lands``; the rest count nowhere)."""
    # Whole numbers throughout: each landing's chance over one common denominator, and
    # each damage total's ways in 6**dice; one division at the end.
    den = math.lcm(*(p.denominator for p in lands.values()))
    whole = den * 6 ** _dice_adds(damage.expression)[0]
    counts: dict[int, int] = {}
    marks = [0, 0, 0]  # a major wound, a knockdown roll, a crippled limb
    # One limb does as the other unless the target's DR tells them apart.
    sided = any(k.startswith(("left ", "right ")) for k, _ in target.dr_at)
    full = replace(target, current_hp=None)  # a blow reads the full HP only (B420, B421)
    done: dict[tuple[str, str], tuple[tuple[tuple[int, int], ...], tuple[int, int, int]]] = {}
    for (key, effect), p in lands.items():
        side = (key if sided else key.removeprefix("left ").removeprefix("right "), effect)
        if side not in done:
            done[side] = _blow_ways(key, effect, damage, full, options.tight_beam,
                                    options.large_area)  # fmt: skip
        ways, flags = done[side]
        c = p.numerator * (den // p.denominator)
        for n, w in ways:
            counts[n] = counts.get(n, 0) + c * w
        for i in range(3):
            marks[i] += c * flags[i]
    injury = {n: Fraction(w, whole) for n, w in counts.items()}
    return injury, Fraction(marks[0], whole), Fraction(marks[1], whole), Fraction(marks[2], whole)


@functools.lru_cache(maxsize=1024)
def _blow_ways(
    key: str,
    effect: str,
    damage: DamageSpec,
    target: Target,
    tight_beam: bool,
    large_area: bool | LargeArea,
) -> tuple[tuple[tuple[int, int], ...], tuple[int, int, int]]:
    """A blow at ``key`` over the damage dice: each injury's ways, and the ways it is a
    major wound, calls a knockdown roll, cripples (B378-B379, B398-B400, B419-B421),
    from :func:`_blow_joint`. Cached, so that the second attack of a pair, at other HP
    now, reads the same blows."""
    ways: dict[int, int] = {}
    flags = [0, 0, 0]
    for (injury, kd, major, crippled), w in _blow_joint(key, effect, damage, target,
                                                        tight_beam, large_area):  # fmt: skip
        ways[injury] = ways.get(injury, 0) + w
        flags[0] += w if major else 0
        flags[1] += w if kd is not None else 0
        flags[2] += w if crippled else 0
    return tuple(ways.items()), (flags[0], flags[1], flags[2])


# 4,096: a fight asks them of each foe at each HP it comes to, and each attacker's
# options (the oracle's 800 fights of one knight against five orcs: 2,745 of them;
# at 512, a tenth to a fifth of its CPU went to working them out again); about 1.8 KB each (the
# steps' odds are :func:`_steady`'s, shared), at most about 7.5 MB held.
@functools.lru_cache(maxsize=4096)
def _odds(
    skill: int,
    damage: DamageSpec,
    target: Target,
    options: AttackOptions,
    defense: str,
    defense_options: DefenseOptions,
    attacker: str,
) -> ExchangeOdds:
    """The odds at the target's HP now: :func:`_steady`'s, which do not read them, and
    the HP thresholds the injury crosses from there (B419)."""
    steady, tails = _steady(skill, damage, _as_steps_read(target), options, defense,
                            defense_options, attacker)  # fmt: skip
    reeling, zero, crossed = _hp_odds(target, tails)
    return replace(steady, reeling=reeling, zero_hp=zero, thresholds=crossed)


def _as_steps_read(target: Target) -> Target:
    """The target as every step but the HP thresholds reads it: its HP now tell only
    whether it is reeling (its Dodge halved, B419); a blow reads the full HP (B420,
    B421). So a fight's foe, hurt again and again, has its exchange worked out once
    while reeling and once while not (:func:`_steady`), and only the thresholds anew."""
    if target.current_hp is None:
        return target
    if not target.reeling:
        return replace(target, current_hp=None)
    assert target.hp is not None  # reeling reads both
    return replace(target, current_hp=(target.hp + 2) // 3 - 1)  # the highest still reeling


# 2,048: an exchange's odds are asked again for each foe, reeling or not, and each
# attacker's options; at most about 16 MB held.
@functools.lru_cache(maxsize=2048)
def _steady(
    skill: int,
    damage: DamageSpec,
    target: Target,
    options: AttackOptions,
    defense: str,
    defense_options: DefenseOptions,
    attacker: str,
) -> tuple[ExchangeOdds, Tails]:
    """Every step's odds but the HP thresholds' (left unknown), for a target as
    :func:`_as_steps_read` gives it, and its injury's tails, which the thresholds read."""
    damage, defense_options = _prepared(damage, target, options, defense_options)
    sp = _split(skill, damage, target, options, defense, defense_options)
    lands = dict(sp.rolled)
    for k, p in sp.free.items():
        _add(lands, k, p)
    landed = sum(lands.values(), Fraction(0))
    placed: dict[str, Fraction] = {}
    for (key, _), p in lands.items():
        _add(placed, key, p / landed if landed else Fraction(0))
    injury, major, knock, crippled = _injuries(lands, damage, target, options)
    _add(injury, 0, 1 - landed)
    breaks = sp.parried * Fraction(defense_options.break_on, 6) if defense_options.heavy \
        else None  # fmt: skip
    return ExchangeOdds(
        attacker, target.name, sp.eff, sp.hit, sp.critical, sp.defense, sp.level, sp.defended,
        tuple(sorted(placed.items(), key=lambda kv: -kv[1])), 1 - injury.get(0, Fraction(0)),
        tuple(sorted(injury.items())), major, knock, crippled, None, None, (),
        sp.second, sp.second_level, breaks,
    ), Tails.of(injury)  # fmt: skip


def double_odds(
    first: ExchangeOdds,
    skill: int,
    damage: DamageSpec,
    target: Target,
    options: AttackOptions,
    defense: str = "best",
    defense_options: DefenseOptions | None = None,
    *,
    then: AttackOptions | None = None,
    knockdown_ht: int | None = None,
) -> tuple[Fraction, Fraction]:
    """All-Out Attack (Double, B365; :mod:`.allout`) or a Dual-Weapon Attack (B417):
    P(either attack injures), P(both do), as :func:`.exchange.exchanges` rolls them.
    ``first`` is one attack's odds (:func:`exchange_odds` with these arguments); the
    second attack's options are ``then`` when they differ (the off hand's, B417).

    The second attack meets the foe as the first left it: a first that injures may
    leave it reeling (its Dodge halved, B419), and a first that drew a parry (a hit
    that was not critical, against a Parry) leaves the second's parry at −4 more, −2
    with a fencing weapon (B376, "Parrying": each parry after the first with the same
    weapon). Only those two change the second's chance to injure (the crippling caps
    follow the full HP), so it is worked out once for each pair of them. With
    ``knockdown_ht``, a first blow that calls the knockdown roll (B420) leaves the foe
    standing, stunned and prone, or unconscious by that roll's odds (:mod:`.knocked`),
    and the second meets it so; only P(both) changes, as the roll follows an injury."""
    target, defense, defense_options = settle(allowed_against(options, damage.damage_type),
                                              target, defense,
                                              defense_options or DefenseOptions())  # fmt: skip
    prepared, fenced = _prepared(damage, target, options, defense_options)
    sp = _split(skill, prepared, target, options, defense, fenced)
    parried = sp.defense == "parry"  # as first.defense: the defense a hit draws
    again = replace(defense_options, parried=defense_options.parried + 1)
    now = target.current_hp if target.current_hp is not None else target.hp
    seconds: dict[tuple[bool, bool, Fallen], Fraction] = {}

    def second(n: int, drew: bool, state: Fallen = Fallen.UP) -> Fraction:
        """P(the second injures) after a first of injury ``n`` that drew a parry or not
        and left the foe ``state`` (B420)."""
        after = target if not n else replace(target, current_hp=None if now is None else now - n)
        key = (after.reeling, drew, state)
        if key not in seconds:
            meets, against = standing(state, defense, again if drew else defense_options)
            seconds[key] = exchange_odds(skill, damage, after, then or options, meets,
                                         against).injures  # fmt: skip
        return seconds[key]

    after_roll = _joint(sp.rolled, prepared, target, options)
    after_crit = _joint(sp.free, prepared, target, options)
    missed = 1 - sp.hit  # no defense drawn
    either = 1 - missed * (1 - second(0, False)) - sp.defended * (1 - second(0, parried))
    both = Fraction(0)
    for group, drew in ((after_roll, parried), (after_crit, False)):
        for (n, kd), p in group.items():
            if not n:
                either -= p * (1 - second(0, drew))
                continue
            falls: tuple[tuple[Fallen, Fraction], ...] = ((Fallen.UP, Fraction(1)),)
            if knockdown_ht is not None and kd is not None:
                falls = knockdown_odds(knockdown_ht + kd)
            for state, q in falls:
                both += p * q * second(n, drew, state)
    return either, both


def _joint(
    lands: dict[tuple[str, str], Fraction],
    damage: DamageSpec,
    target: Target,
    options: AttackOptions,
) -> dict[tuple[int, int | None], Fraction]:
    """P(each injury and the knockdown roll's modifier it calls, None for none; B420)
    over the damage dice, from the blows that land (``lands``)."""
    full = replace(target, current_hp=None)  # a blow reads the full HP only (B420, B421)
    out: dict[tuple[int, int | None], Fraction] = {}
    whole = 6 ** _dice_adds(damage.expression)[0]
    for (key, effect), p in lands.items():
        for (n, kd, _, _), w in _blow_joint(key, effect, damage, full, options.tight_beam,
                                            options.large_area):  # fmt: skip
            _add(out, (n, kd), p * Fraction(w, whole))
    return out


@functools.lru_cache(maxsize=1024)
def _blow_joint(
    key: str,
    effect: str,
    damage: DamageSpec,
    target: Target,
    tight_beam: bool,
    large_area: bool | LargeArea,
) -> tuple[tuple[tuple[int, int | None, bool, bool], int], ...]:
    """A blow at ``key`` over the damage dice: the ways of each (injury, the knockdown
    roll's modifier or None, a major wound, a crippled limb), each but the injury
    counted only when it injures (B378-B379, B398-B400, B419-B421)."""
    count, adds = _dice_adds(damage.expression)
    loc = read_location(key)
    ways: dict[tuple[int, int | None, bool, bool], int] = {}
    for total, w in _ways(count).items():
        b = blow(total + adds, damage, target, loc, effect, tight_beam, large_area)
        hurt = b.injury > 0
        k = (b.injury, b.wound.knockdown if hurt else None, hurt and b.wound.major,
             hurt and bool(b.wound.crippled))  # fmt: skip
        ways[k] = ways.get(k, 0) + w
    return tuple(ways.items())


def injury_chance(
    skill: int,
    damage: DamageSpec,
    target: Target,
    options: AttackOptions | None = None,
    defense: str = "best",
    defense_options: DefenseOptions | None = None,
) -> Fraction:
    """P(the exchange injures the target), exactly: :attr:`.exchange_odds.ExchangeOdds.injures`
    (the attack's odds, the defense's, none after a critical hit; the location's, B398's
    table when random, the torso after an aimed miss by 1, B399; the damage dice; each
    row of B556's Critical Hit Table).

    Raises:
        RuleError: a defense the target lacks, a Deceptive Attack below 10 (B369).
    """
    return exchange_odds(skill, damage, target, options, defense, defense_options).injures
