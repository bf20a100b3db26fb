"""Rapid Fire: the hits an attack scores from its margin and its weapon's Recoil, the
hits a defense stops, and the whole volley's exact odds.

Sources: *GURPS Basic Set*, 4th edition (``COMBAT.md`` states the combat pages in
short):

- B373, "Rapid Fire": the bonus to skill for the shots fired
  (:func:`.situation.rof_bonus`); an attack that succeeds scores one hit, and one more
  for each full multiple of the weapon's Recoil by which it succeeds, never more hits
  than shots.
- B375, "Dodging": against rapid fire, a successful Dodge dodges one hit, plus one
  more for each point by which it succeeds. Readings referee states: a parry or a block
  that holds stops one hit (B375 gives several to Dodge alone); a critical success on
  the Dodge counts by its margin like any other; All-Out Defense (Double)'s second
  defense (B366) stops hits as it would first.
- Each hit that lands is its own blow: its own location when the location is random
  (B398), its own damage dice, its own DR (B378-B379), summed into the injury; a
  critical hit's row (B556) changes the first hit only (referee's reading: the table
  speaks of one blow). Knockdown and crippling are each blow's (B420-B421).

Draws: the attack's 3d6 (and a critical table's), the defense's, then for each hit
that lands 3d6 for a random location and the damage dice.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

from .allout import feint_odds
from .blows import BLOWS, blow, on_head
from .criticals import CRITICAL_HEAD_BLOW, CRITICAL_HIT
from .damage import DamageSpec, _dice_adds
from .defense import DefenseOptions, defense_modifiers
from .defenses import DefenseStep, second_defense
from .locations import RANDOM_TABLE, read_location
from .melee import AIMED, AttackOptions, AttackRoll, effective_attack, misses_by_one, parry_modifier
from .odds_steps import ExchangeOdds, hp_odds, prepared, ways
from .success import Outcome, margin, outcome, require_rollable, three_d6
from .target import Target, choose_defense
from .wounds import Wound

__all__ = [
    "hit_text",
    "landed_hits",
    "scored_hits",
    "step_parts",
    "stopped_hits",
    "volley_odds",
]


def scored_hits(attack: AttackRoll) -> int:
    """The hits an attack scores (*GURPS Basic Set*, 4th edition, B373): none on a
    miss; one for an aimed miss by 1 (the torso, B399); else one, and one more per full
    Recoil of its margin, at most the shots fired.

    >>> from referee.rng import ReplaySource
    >>> from .melee import attack
    >>> opts = AttackOptions(ranged=True, rof=10, recoil=2)  # 12, +2 for RoF 10: 14
    >>> scored_hits(attack(12, options=opts, rng=ReplaySource([(6, 2), (6, 2), (6, 3)])))
    4
    """
    if not attack.hit:
        return 0
    if not attack.check.success:  # an aimed miss by 1: the torso
        return 1
    opts = attack.options
    return min(opts.rof, 1 + attack.check.margin // opts.recoil)


def stopped_hits(step: DefenseStep) -> int:
    """The hits a defense step stops (B375, 4th edition): a Dodge that holds, one plus its margin; a
    parry or block that holds, one; none when no defense holds."""
    held = step.held
    if held is None:
        return 0
    return 1 + held.check.margin if held.defense == "dodge" else 1


def landed_hits(attack: AttackRoll, step: DefenseStep) -> int:
    """The hits that land: those scored less those the defense stopped (B373, B375)."""
    return max(0, scored_hits(attack) - stopped_hits(step))


def step_parts(name: str, step: DefenseStep | None, attack: AttackRoll, landed: int) -> list[str]:
    """The exchange's text after the first defense: All-Out Defense (Double)'s second
    (B366), a heavy weapon's breakage roll (B376), and with Rapid Fire the hits scored
    and those that land (B373, B375)."""
    parts = []
    if step is not None and step.second is not None:
        word = "defends" if step.second.defended else "fails to defend"
        parts.append(f"then (All-Out Defense, Double, B366) {name} {word}: {step.second.text}")
    if step is not None and step.breakage is not None:
        parts.append(step.breakage.text)
    if attack.options.rof > 1 and attack.hit:
        o, scored = attack.options, scored_hits(attack)
        parts.append(f"{scored} hit{'s' if scored > 1 else ''} of {o.rof} (Recoil {o.recoil}, "
                     f"B373), {landed} land{'s' if landed == 1 else ''}")  # fmt: skip
    return parts


def hit_text(
    number: int,
    where: str,
    basic: int,
    dr: int,
    injury: int,
    before: int | None,
    name: str,
    wound: Wound | None = None,
) -> str:
    """One more hit of a volley (its blow's location, basic damage, DR and injury, and
    what its ``wound`` did: a crippled limb, B421; a blinded eye, B399), as the
    exchange's text adds it, and as it says the first hit's."""
    line = f"hit {number}: the {where}, {basic} basic vs DR {dr}"
    line += f", injury {injury}" if injury else ", no injury"
    if before is not None and injury:
        line += f" ({name} {before} → {before - injury} HP)"
    if wound is not None and injury and wound.crippled:
        line += f"; the {wound.crippled} is crippled (B421)"
    if wound is not None and injury and wound.blinded:
        line += "; the eye is blinded (B399)"
    return line


@dataclass(frozen=True, slots=True)
class _Hit:
    """One blow that lands, over its dice: each injury's ways in :attr:`whole`, and the
    ways it is a major wound, calls a knockdown roll, cripples."""

    ways: dict[int, int]
    whole: int
    major: int
    knock: int
    crippled: int
    placed: dict[str, int]
    """Each location's ways in :attr:`whole`."""

    def none(self, flag: int) -> Fraction:
        return Fraction(self.whole - flag, self.whole)


def _hit(
    where: tuple[tuple[str, str, int], ...], damage: DamageSpec, target: Target, opts: AttackOptions
) -> _Hit:
    """A blow landing at each (location, critical effect) with integer ``weight``s (one
    limb does as the other unless the target's DR tells them apart)."""
    count, adds = _dice_adds(damage.expression)
    dice = ways(count)
    out: dict[int, int] = {}
    major = knock = crippled = 0
    placed: dict[str, int] = {}
    weight_total = sum(w for *_, w in where)
    sided = any(k.startswith(("left ", "right ")) for k, _ in target.dr_at)
    grouped: dict[tuple[str, str], int] = {}
    for key, effect, weight in where:
        placed[key] = placed.get(key, 0) + weight * 6**count
        side = key if sided else key.removeprefix("left ").removeprefix("right ")
        grouped[(side, effect)] = grouped.get((side, effect), 0) + weight
    for (key, effect), weight in grouped.items():
        loc = read_location(key)
        for total, w in dice.items():
            b = blow(total + adds, damage, target, loc, effect, opts.tight_beam, opts.large_area)
            n = weight * w
            out[b.injury] = out.get(b.injury, 0) + n
            if b.injury:
                major += n * b.wound.major
                knock += n * (b.wound.knockdown is not None)
                crippled += n * bool(b.wound.crippled)
    return _Hit(out, weight_total * 6**count, major, knock, crippled, placed)


def _convolve(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, 0) + p * q
    return out


def _stops(kind: str, level: int) -> dict[int, Fraction]:
    """P(each number of hits one defense stops) at effective ``level`` (B375)."""
    out: dict[int, Fraction] = {}
    for t, p in three_d6().items():
        n = 0
        if outcome(t, level).success:
            n = 1 + margin(t, level) if kind == "dodge" else 1
        out[n] = out.get(n, Fraction(0)) + p
    return out


def volley_odds(
    skill: int,
    damage: DamageSpec,
    target: Target,
    options: AttackOptions,
    defense: str,
    defense_options: DefenseOptions,
    attacker: str = "Attack",
) -> ExchangeOdds:
    """The exact odds of a Rapid Fire exchange (the module's rules), as
    :func:`.exchange_odds.exchange_odds` gives them for one blow: the injury is every
    landing hit's summed; a major wound, a knockdown roll and a crippled limb count when
    any hit brings one; :attr:`.odds_steps.ExchangeOdds.hits` gives P(each number of
    hits that land).

    Raises:
        RuleError: as :func:`.exchange_odds.exchange_odds`.
    """
    return _volley(skill, damage, target, options, defense, defense_options, attacker)


@functools.lru_cache(maxsize=256)
def _volley(
    skill: int,
    damage: DamageSpec,
    target: Target,
    options: AttackOptions,
    defense: str,
    defense_options: DefenseOptions,
    attacker: str,
) -> ExchangeOdds:
    damage, defense_options = prepared(damage, target, options, defense_options)
    eff = effective_attack(skill, options)
    require_rollable(eff)  # as the roll (000; B344)
    aimed = None if options.location is None else read_location(options.location).key
    against = -options.deceptive + (2 if options.telegraphic else 0)
    parry = parry_modifier(options)
    chosen = choose_defense(target, defense, defense_options, against, parry)
    first = second = None  # each defense's kind and effective level
    if chosen is not None:
        mods = defense_modifiers(chosen[0], defense_options, against, parry or 0)
        first = (chosen[0], chosen[1] + sum(m for _, m in mods))
        if defense_options.aod_double:
            again = second_defense(target, chosen[0], defense_options, against, parry)
            mods = defense_modifiers(again[0], defense_options, against, parry or 0)
            second = (again[0], again[1] + sum(m for _, m in mods))
    feints = ((0, Fraction(1)),) if options.feint is None else feint_odds(skill, options.feint)
    stops: dict[int, Fraction] = {}  # P(the defense step stops n hits), over the feint
    parried = Fraction(0)
    for m, q in feints:
        one = {0: Fraction(1)} if first is None else _stops(first[0], first[1] - m)
        two = {0: Fraction(1)} if second is None else _stops(second[0], second[1] - m)
        for n, p in one.items():
            for k, r in two.items() if n == 0 else ((n, Fraction(1)),):
                stops[k] = stops.get(k, Fraction(0)) + q * p * r
        if first is not None and first[0] == "parry":
            parried += q * (1 - one.get(0, Fraction(0)))
        if second is not None and second[0] == "parry":
            parried += q * one.get(0, Fraction(0)) * (1 - two.get(0, Fraction(0)))
    # Each scenario: (hits that land, a critical first hit, the torso for a miss by 1).
    landed: dict[tuple[int, bool, bool], Fraction] = {}
    hit = crit = drew = Fraction(0)
    for t, p in three_d6().items():
        o = outcome(t, eff)
        if o is Outcome.CRITICAL_SUCCESS:
            n = min(options.rof, 1 + margin(t, eff) // options.recoil)
            hit, crit = hit + p, crit + p
            landed[(n, True, False)] = landed.get((n, True, False), Fraction(0)) + p
            continue
        torso = aimed in AIMED and misses_by_one(t, eff, options.torso_miss)
        if not (o.success or torso):
            continue
        n = 1 if torso else min(options.rof, 1 + margin(t, eff) // options.recoil)
        hit, drew = hit + p, drew + p
        for s, q in stops.items():
            key = (max(0, n - s), False, torso)
            landed[key] = landed.get(key, Fraction(0)) + p * q
    return _sum_up(attacker, target, damage, options, eff, hit, crit, first, second, drew,
                   parried, defense_options, landed)  # fmt: skip


def _sum_up(
    attacker: str,
    target: Target,
    damage: DamageSpec,
    options: AttackOptions,
    eff: int,
    hit: Fraction,
    crit: Fraction,
    first: tuple[str, int] | None,
    second: tuple[str, int] | None,
    drew: Fraction,
    parried: Fraction,
    defense_options: DefenseOptions,
    landed: dict[tuple[int, bool, bool], Fraction],
) -> ExchangeOdds:
    """The volley's odds from P(each landing scenario): the blows' injuries summed."""
    aimed = None if options.location is None else read_location(options.location).key
    if options.random_location:
        where = [(RANDOM_TABLE[t], w) for t, w in _ways3().items()]
    else:
        where = [(aimed or "torso", 1)]
    normal = _hit(tuple((k, "normal", w) for k, w in where), damage, target, options)
    torso = _hit((("torso", "normal", 1),), damage, target, options)
    critical = normal
    if options.criticals:
        rows = []
        for key, w in where:
            head = options.head_blow_table and on_head(key, damage.damage_type)
            table = CRITICAL_HEAD_BLOW if head else CRITICAL_HIT
            for t, v in _ways3().items():
                effect = options.eye_row.effect(table[t].effect, aimed)
                rows.append((key, effect if effect in BLOWS else "normal", w * v))
        critical = _hit(tuple(rows), damage, target, options)
    powers = [{0: 1}]  # the normal blow's ways, summed over k blows
    injury: dict[int, Fraction] = {}
    major = knock = crippled = Fraction(0)
    placed: dict[str, Fraction] = {}
    hits: dict[int, Fraction] = {}
    for (n, is_crit, is_torso), p in landed.items():
        hits[n] = hits.get(n, Fraction(0)) + p
        if n == 0:
            injury[0] = injury.get(0, Fraction(0)) + p
            continue
        one = torso if is_torso else critical if is_crit else normal
        while len(powers) < n:
            powers.append(_convolve(powers[-1], normal.ways))
        total = _convolve(one.ways, powers[n - 1])
        whole = one.whole * normal.whole ** (n - 1)
        for k, w in total.items():
            injury[k] = injury.get(k, Fraction(0)) + p * Fraction(w, whole)
        rest = n - 1
        major += p * (1 - one.none(one.major) * normal.none(normal.major) ** rest)
        knock += p * (1 - one.none(one.knock) * normal.none(normal.knock) ** rest)
        crippled += p * (1 - one.none(one.crippled) * normal.none(normal.crippled) ** rest)
        for key in set(one.placed) | set(normal.placed):
            count = Fraction(one.placed.get(key, 0), one.whole)
            count += rest * Fraction(normal.placed.get(key, 0), normal.whole)
            placed[key] = placed.get(key, Fraction(0)) + p * count
    injury[0] = injury.get(0, Fraction(0)) + 1 - sum(landed.values(), Fraction(0))
    hits[0] = hits.get(0, Fraction(0)) + 1 - sum(landed.values(), Fraction(0))
    spread = sum(placed.values(), Fraction(0))
    reeling, zero, crossed = hp_odds(target, injury)
    defended = drew - sum((p for (n, c, _), p in landed.items() if n and not c), Fraction(0))
    breaks = parried * drew * Fraction(defense_options.break_on, 6) if defense_options.heavy \
        else None  # fmt: skip
    injury = {k: v for k, v in injury.items() if v}
    return ExchangeOdds(
        attacker, target.name, eff, hit, crit, None if first is None else first[0],
        None if first is None else first[1], defended,
        tuple(sorted(((k, v / spread) for k, v in placed.items()), key=lambda kv: -kv[1])),
        1 - injury.get(0, Fraction(0)), tuple(sorted(injury.items())), major, knock, crippled,
        reeling, zero, crossed, None if second is None else second[0],
        None if second is None else second[1], breaks,
        tuple(sorted((k, v) for k, v in hits.items() if v)),
    )  # fmt: skip


@functools.cache
def _ways3() -> dict[int, int]:
    """Each 3d6 total's ways in 216."""
    return {t: int(p * 216) for t, p in three_d6().items()}
