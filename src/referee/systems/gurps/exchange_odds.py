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
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TypeVar

from ...odds import odds
from .allout import feint_odds
from .blows import blow, on_head
from .criticals import EyeRow
from .damage import DamageSpec, _dice_adds
from .defenses import allowed_against, defense_odds, settle
from .locations import location_odds, read_location
from .melee import (
    AIMED,
    AttackOptions,
    DefenseOptions,
    effective_attack,
    misses_by_one,
    parry_modifier,
)
from .odds_steps import THRESHOLDS, ExchangeOdds
from .odds_steps import add as _add
from .odds_steps import hp_odds as _hp_odds
from .odds_steps import prepared as _prepared
from .odds_steps import table_odds as _table_odds
from .odds_steps import ways as _ways
from .rapid import volley_odds
from .success import require_rollable, skill_odds
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
        torso = sum((p for t, p in odds("3d6").distribution.items()
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
    count, adds = _dice_adds(damage.expression)
    dice, whole = _ways(count), 6**count  # each total's ways in 6**count: whole numbers
    injury: dict[int, Fraction] = {}
    major = knock = crippled = Fraction(0)
    done: dict[tuple[str, str], tuple[dict[int, int], list[int]]] = {}
    # One limb does as the other unless the target's DR tells them apart.
    sided = any(k.startswith(("left ", "right ")) for k, _ in target.dr_at)
    for (key, effect), p in lands.items():
        loc = read_location(key)
        side = (key if sided else key.removeprefix("left ").removeprefix("right "), effect)
        ways, flags = done.setdefault(side, ({}, [0, 0, 0]))
        for total, w in dice.items() if not ways else ():
            b = blow(total + adds, damage, target, loc, effect, options.tight_beam,
                     options.large_area)  # fmt: skip
            ways[b.injury] = ways.get(b.injury, 0) + w
            if b.injury:
                flags[0] += w if b.wound.major else 0
                flags[1] += w if b.wound.knockdown is not None else 0
                flags[2] += w if b.wound.crippled else 0
        scale = p / whole
        for n, w in ways.items():
            _add(injury, n, scale * w)
        major, knock, crippled = (
            major + scale * flags[0],
            knock + scale * flags[1],
            crippled + scale * flags[2],
        )
    return injury, major, knock, crippled


@functools.lru_cache(maxsize=512)
def _odds(
    skill: int,
    damage: DamageSpec,
    target: Target,
    options: AttackOptions,
    defense: str,
    defense_options: DefenseOptions,
    attacker: str,
) -> ExchangeOdds:
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
    reeling, zero, crossed = _hp_odds(target, injury)
    breaks = sp.parried * Fraction(defense_options.break_on, 6) if defense_options.heavy \
        else None  # fmt: skip
    return ExchangeOdds(
        attacker, target.name, sp.eff, sp.hit, sp.critical, sp.defense, sp.level, sp.defended,
        tuple(sorted(placed.items(), key=lambda kv: -kv[1])), 1 - injury.get(0, Fraction(0)),
        tuple(sorted(injury.items())), major, knock, crippled, reeling, zero, crossed,
        sp.second, sp.second_level, breaks,
    )  # fmt: skip


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
    follow the full HP), so it is worked out once for each pair of them."""
    target, defense, defense_options = settle(allowed_against(options, damage.damage_type),
                                              target, defense,
                                              defense_options or DefenseOptions())  # fmt: skip
    prepared, fenced = _prepared(damage, target, options, defense_options)
    sp = _split(skill, prepared, target, options, defense, fenced)
    parried = sp.defense == "parry"  # as first.defense: the defense a hit draws
    again = replace(defense_options, parried=defense_options.parried + 1)
    now = target.current_hp if target.current_hp is not None else target.hp
    seconds: dict[tuple[bool, bool], Fraction] = {}

    def second(n: int, drew: bool) -> Fraction:
        """P(the second injures) after a first of injury ``n`` that drew a parry or not."""
        after = target if not n else replace(target, current_hp=None if now is None else now - n)
        key = (after.reeling, drew)
        if key not in seconds:
            seconds[key] = exchange_odds(skill, damage, after, then or options, defense,
                                         again if drew else defense_options).injures  # fmt: skip
        return seconds[key]

    after_roll = _injuries(sp.rolled, prepared, target, options)[0]
    after_crit = _injuries(sp.free, prepared, target, options)[0]
    missed = 1 - sp.hit  # no defense drawn
    either = 1 - missed * (1 - second(0, False)) - sp.defended * (1 - second(0, parried))
    both = Fraction(0)
    for group, drew in ((after_roll, parried), (after_crit, False)):
        for n, p in group.items():
            if n:
                both += p * second(n, drew)
            else:
                either -= p * (1 - second(0, drew))
    return either, both


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
