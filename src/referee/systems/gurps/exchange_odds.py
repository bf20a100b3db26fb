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

from ...fmt import percent
from ...odds import odds
from .allout import feint_odds, long_damage
from .blows import BLOWS, blow, on_head
from .criticals import CRITICAL_HEAD_BLOW, CRITICAL_HIT, EyeRow
from .damage import DamageSpec, _dice_adds
from .locations import location_odds, read_location, require_targetable
from .melee import (
    AIMED,
    AttackOptions,
    DefenseOptions,
    defense_modifiers,
    effective_attack,
    misses_by_one,
    parry_modifier,
    strong_damage,
)
from .success import skill_odds
from .target import Target, choose_defense

__all__ = ["ExchangeOdds", "double_odds", "exchange_odds"]

K = TypeVar("K")

THRESHOLDS = (1, 2, 3, 4, 5, 10)
"""The multiples of HP below 0 that the rules name (B419): an HT roll to survive at
−1×HP to −4×HP, dead at −5×HP, the body destroyed at −10×HP."""


@dataclass(frozen=True, slots=True)
class ExchangeOdds:
    """An exchange's odds, step by step, before any die is rolled."""

    attacker: str
    target: str
    effective_skill: int
    hit: Fraction
    """P(the attack hits): a success, or an aimed attack's miss by 1 (B399: the torso)."""
    critical_hit: Fraction
    defense: str | None
    """The defense the target rolls (``best`` chosen), None when it has none to roll."""
    defense_level: int | None
    """That defense's effective level, with every modifier."""
    defended: Fraction
    """P(a hit that is not critical is defended): over the whole exchange."""
    locations: tuple[tuple[str, Fraction], ...]
    """Where a blow that lands falls, and the chance of each (B398's table when the
    location is random; else the one location, and the torso after a miss by 1)."""
    injures: Fraction
    """P(any injury): the blow lands and something penetrates DR."""
    injury: tuple[tuple[int, Fraction], ...]
    """P(each injury), 0 included (a miss, a defense, DR that stops it)."""
    major_wound: Fraction
    knockdown: Fraction
    """P(a knockdown roll is called: a major wound, or a head or vitals hit, B420)."""
    crippled: Fraction
    reeling: Fraction | None
    """P(the target is left under 1/3 of its HP when it was not: B419); None when its
    HP are not known."""
    zero_hp: Fraction | None
    """P(the target is left at 0 HP or less when it was above)."""
    thresholds: tuple[tuple[int, Fraction], ...]
    """P(crossing each −N×HP: 1-4 an HT roll to survive, 5 dead, 10 destroyed)."""

    system = "gurps"
    kind = "exchange odds"

    @property
    def mean_injury(self) -> Fraction:
        """The injury's mean over the whole exchange."""
        return sum((n * p for n, p in self.injury), Fraction(0))

    @property
    def text(self) -> str:
        """The odds, one step a line."""
        lines = [
            f"{self.attacker} on {self.target} (skill {self.effective_skill}):",
            f"  hits {percent(self.hit)} (critical {percent(self.critical_hit)})",
        ]
        if self.defense is not None:
            lines.append(
                f"  {self.defense.title()} {self.defense_level} defends {percent(self.defended)}"
            )
        if len(self.locations) > 1:
            lands = ", ".join(f"{k} {percent(p)}" for k, p in self.locations)
            lines.append(f"  lands on the {lands}")
        lines.append(
            f"  injures {percent(self.injures)}, mean injury {float(self.mean_injury):.2f}; "
            f"major wound {percent(self.major_wound)}, knockdown roll "
            f"{percent(self.knockdown)}, crippled {percent(self.crippled)}"
        )
        common = [(n, p) for n, p in self.injury if p >= Fraction(1, 1000)]
        shown = ", ".join(f"{n}: {percent(p)}" for n, p in common)
        rare = len(self.injury) - len(common)
        lines.append(f"  injury {shown}" + (f" (and {rare} under 0.1% each)" if rare else ""))
        if self.reeling is not None and self.zero_hp is not None:
            hp = [f"reeling {percent(self.reeling)}", f"0 HP or less {percent(self.zero_hp)}"]
            hp += [f"{_threshold(k)} {percent(p)}" for k, p in self.thresholds if p]
            lines.append("  " + ", ".join(hp))
        return "\n".join(lines)


def _threshold(k: int) -> str:
    if k == 5:
        return "dead (-5×HP)"
    if k == 10:
        return "destroyed (-10×HP)"
    return f"HT to live at -{k}×HP"


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
    return _odds(skill, damage, target, options or AttackOptions(), defense,
                 defense_options or DefenseOptions(), attacker)  # fmt: skip


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
    o = skill_odds(eff)
    crit, normal = o.critical_success, o.success - o.critical_success
    aimed = None if options.location is None else read_location(options.location).key
    torso = Fraction(0)  # an aimed attack that misses by 1 hits the torso (B399, TorsoMiss)
    if aimed in AIMED:
        torso = sum((p for t, p in odds("3d6").distribution.items()
                     if misses_by_one(t, eff, options.torso_miss)), Fraction(0))  # fmt: skip
    against = -options.deceptive + (2 if options.telegraphic else 0)
    parry = parry_modifier(options)  # a thrown weapon's −1 or −2; a missile: no parry (B376)
    chosen = choose_defense(target, defense, defense_options, against, parry)
    level, fails = None, Fraction(1)
    feints = ((0, Fraction(1)),) if options.feint is None else feint_odds(skill, options.feint)
    if chosen is not None:  # a feint takes its penalty off the defense (B365)
        mods = defense_modifiers(chosen[0], defense_options, against, parry or 0)
        level = chosen[1] + sum(m for _, m in mods)
        fails = sum((p * (1 - skill_odds(level - m).success) for m, p in feints), Fraction(0))
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
    return _Split(eff, o.success + torso, crit, None if chosen is None else chosen[0], level,
                  defended, rolled, free)  # fmt: skip


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


def _prepared(
    damage: DamageSpec, target: Target, options: AttackOptions, defense_options: DefenseOptions
) -> tuple[DamageSpec, DefenseOptions]:
    """The damage and the defense options as the options change them: a fencing
    Parry (B376); Strong's +2 or +1 a die (B365); Long's cost to a swing (MA97)."""
    if target.fencing and not defense_options.fencing:
        defense_options = replace(defense_options, fencing=True)
    if options.location is not None:
        require_targetable(options.location, damage.damage_type, options.tight_beam)
    if options.strong:
        damage = replace(damage, expression=strong_damage(damage.expression))
    elif options.long:
        damage = replace(damage, expression=long_damage(damage.expression, options.thrust))
    return damage, defense_options


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
    return ExchangeOdds(
        attacker, target.name, sp.eff, sp.hit, sp.critical, sp.defense, sp.level, sp.defended,
        tuple(sorted(placed.items(), key=lambda kv: -kv[1])), 1 - injury.get(0, Fraction(0)),
        tuple(sorted(injury.items())), major, knock, crippled, reeling, zero, crossed,
    )  # fmt: skip


def double_odds(
    first: ExchangeOdds,
    skill: int,
    damage: DamageSpec,
    target: Target,
    options: AttackOptions,
    defense: str = "best",
    defense_options: DefenseOptions | None = None,
) -> tuple[Fraction, Fraction]:
    """All-Out Attack (Double, B365; :mod:`.allout`): P(either attack injures), P(both
    do), as :func:`.exchange.exchanges` rolls them. ``first`` is one attack's odds
    (:func:`exchange_odds` with these arguments).

    The second attack meets the foe as the first left it: a first that injures may
    leave it reeling (its Dodge halved, B419), and a first that drew a parry (a hit
    that was not critical, against a Parry) leaves the second's parry at −4 more, −2
    with a fencing weapon (B376, "Parrying": each parry after the first with the same
    weapon). Only those two change the second's chance to injure (the crippling caps
    follow the full HP), so it is worked out once for each pair of them."""
    defense_options = defense_options or DefenseOptions()
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
            seconds[key] = exchange_odds(skill, damage, after, options, defense,
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


def _hp_odds(
    target: Target, injury: dict[int, Fraction]
) -> tuple[Fraction | None, Fraction | None, tuple[tuple[int, Fraction], ...]]:
    hp = target.hp
    if hp is None:
        return None, None, ()
    now = target.current_hp if target.current_hp is not None else hp
    reeling = sum((p for n, p in injury.items() if n and 3 * (now - n) < hp <= 3 * now),
                  Fraction(0))  # fmt: skip
    zero = sum((p for n, p in injury.items() if n and now - n <= 0 < now), Fraction(0))
    crossed = tuple(
        (k, sum((p for n, p in injury.items() if n and now - n <= -k * hp < now), Fraction(0)))
        for k in THRESHOLDS
    )
    return reeling, zero, crossed


@functools.cache
def _ways(count: int) -> dict[int, int]:
    """Each total of ``count`` d6 and its number of ways (of 6**count)."""
    ways = {0: 1}
    for _ in range(count):
        nxt: dict[int, int] = {}
        for total, w in ways.items():
            for face in range(1, 7):
                nxt[total + face] = nxt.get(total + face, 0) + w
        ways = nxt
    return ways


def _add(into: dict[K, Fraction], key: K, p: Fraction) -> None:
    if p:
        into[key] = into.get(key, Fraction(0)) + p


@functools.cache
def _table_odds(head: bool = False, as_4: bool = False) -> dict[str, Fraction]:
    """P(each effect) of a critical hit: B556's rows over 3d6 (the Critical Head Blow
    Table's with ``head``; its rows 6-7 read as row 4 with ``as_4``, an attack aimed
    at the eye under :attr:`.criticals.EyeRow.AS_4`)."""

    rows = CRITICAL_HEAD_BLOW if head else CRITICAL_HIT
    reading = EyeRow.AS_4 if as_4 else EyeRow.AS_AIMED
    out: dict[str, Fraction] = {}
    for roll_total, p in odds("3d6").distribution.items():
        effect = reading.effect(rows[roll_total].effect, "eye")
        effect = effect if effect in BLOWS else "normal"  # the rest do a normal blow
        out[effect] = out.get(effect, Fraction(0)) + p
    return out
