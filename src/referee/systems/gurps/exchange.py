"""The GURPS exchange as one roll: attack, the target's defense, the hit location,
damage through DR, injury, and what the GM must call for next.

Sources: *GURPS Basic Set*, 4th edition (the rules texts referee works from have no
combat chapter; see docs/reference/sources.md and the rules notes' ``COMBAT.md``):
B369-B381, "Melee Attack Options" and "Active Defense" (a critical hit allows no
defense, B381; a missile cannot be parried and a thrown weapon is parried at −1 or
−2, B376); B365, All-Out Attack (:mod:`.allout`: a feint's penalty, Double's second
parry at −4); B398-B400, "Hit Location" (an aimed attack that misses by 1 hits the
torso, :class:`.melee.TorsoMiss`); B378-B379, damage, DR and wounding; B556,
"Critical Hit Table" and "Critical Head Blow Table" (:class:`.criticals.EyeRow`);
B419-B421, "Shock", "Major Wounds", "Knockdown and Stunning" and "Crippling
Injuries" (through :func:`.wounds.wound_effects`, as the fight engine does);
B419, "General Injury: Lost Hit Points" (at 0 HP or less an HT roll each turn to
stay conscious; at each −1×HP, −2×HP ... an HT roll to live; dead at −5×HP).

The draws, in order: the attack's 3d6; 3d6 on a critical table if one applies;
the defense's 3d6 (none after a critical hit, a miss, or ``defense="none"``);
3d6 for a random location; the damage dice. Each step is the module function a
GM would call by hand (:func:`.melee.attack`, :func:`.melee.defend`, the damage
dice), so the exchange draws exactly what the steps would, in their order.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING

from ...faces import draw_faces
from ...fmt import percent
from ...results import Chances
from ...rng import RandomSource
from .allout import feint_penalty, long_damage
from .blows import blow, on_head, penetrates
from .criticals import CriticalRoll, head_blow
from .damage import DamageSpec, _dice_adds
from .defenses import DefenseStep, allowed_against, defense_step, settle, step_calls
from .exchange_odds import ExchangeOdds, exchange_odds, injury_chance
from .hurts import Hurt, hurt_line, next_calls
from .knocked import Knockdown, roll_knockdown, standing
from .locations import (
    RANDOM_TABLE,
    read_location,
    require_targetable,
)
from .melee import (
    AttackOptions,
    AttackRoll,
    DefenseOptions,
    DefenseRoll,
    attack,
    parry_modifier,
    strong_damage,
)
from .rapid import hit_text, landed_hits, step_parts
from .target import Target, choose_defense

if TYPE_CHECKING:  # the Quick Contest, loaded by a feint alone (issue 74 §1)
    from .contest import ContestResult

__all__ = [
    "Exchange",
    "Hurt",
    "Target",
    "choose_defense",
    "exchange",
    "exchanges",
    "hurt_line",
    "injury_chance",
    "aimed_options",
    "critical_effect",
    "next_calls",
    "strike",
]


@dataclass(frozen=True, slots=True)
class Exchange:
    """One attack and everything that followed it, with each step's odds."""

    attacker: str
    target: Target
    attack: AttackRoll
    damage: DamageSpec
    defense: DefenseRoll | None
    hurt: Hurt | None
    chance_to_injure: Fraction
    """Before any die: P(the exchange injures the target)."""
    calls: tuple[str, ...] = field(default=())
    """What the GM must call for next (knockdown, consciousness, death checks)."""
    odds: ExchangeOdds | None = None
    """Before any die: each step's odds (:func:`.exchange_odds.exchange_odds`)."""
    feint: ContestResult | None = None
    """All-Out Attack (Feint): the feint's Quick Contest, before the attack (B365)."""
    step: DefenseStep | None = None
    """The defense step whole (:mod:`.defenses`): All-Out Defense (Double)'s second
    defense (B366), a heavy weapon's breakage (B376)."""
    more: tuple[Hurt, ...] = ()
    """Rapid Fire: the hits that landed after the first, each its own blow (B373)."""
    knocked: Knockdown | None = None
    """The second of two attacks: the knockdown roll the first called, made before it
    (B420; :mod:`.knocked`)."""

    @property
    def feinted(self) -> int:
        """What the feint took off the foe's defense (:func:`.allout.feint_penalty`,
        B365): its margin of success when the foe failed, of victory when both
        succeeded; 0 without a feint, or when it failed."""
        return 0 if self.feint is None else feint_penalty(self.feint)

    system = "gurps"
    kind = "exchange"

    @property
    def hurts(self) -> tuple[Hurt, ...]:
        """Every blow that landed: :attr:`hurt`, then :attr:`more`."""
        return () if self.hurt is None else (self.hurt, *self.more)

    @property
    def success(self) -> bool:
        """Whether the exchange injured the target."""
        return any(h.injury for h in self.hurts)

    @property
    def outcome(self) -> str:
        """``injures``, ``no injury`` (DR stopped it), ``defended`` or ``misses``."""
        if self.hurt is not None:
            return "injures" if self.success else "no injury"
        return "defended" if self.attack.hit else "misses"

    @property
    def chances(self) -> Chances:
        return Chances.of(injures=self.chance_to_injure)

    @property
    def hp_after(self) -> int | None:
        now = self.target.current_hp if self.target.current_hp is not None else self.target.hp
        if now is None:
            return None
        return now - sum(h.injury for h in self.hurts)

    @property
    def text(self) -> str:
        parts = [self.attack.text]
        if self.feint is not None:
            off = f" ({self.target.name}'s defense -{self.feinted}, B365)"
            parts.insert(0, f"feint: {self.feint.text}" + (off if self.feinted else ""))
        if self.defense is not None:
            word = "defends" if self.defense.defended else "fails to defend"
            parts.append(f"{self.target.name} {word}: {self.defense.text}")
        parts += step_parts(self.target.name, self.step, self.attack, len(self.hurts))
        h = self.hurt
        if h is not None:
            crit = self.attack.critical
            note = None
            if crit is not None and crit.entry.effect == "eye" and h.effect != "eye":
                note = ", aimed at the eye: rows 6-7 read as row 4 (B556; EyeRow.AS_4)"
            line = hurt_line(h, self.damage.expression, self.damage.damage_type, note,
                             half=self.damage.half)  # fmt: skip
            start = self.hp_after
            start = None if start is None else start + sum(x.injury for x in self.hurts)
            if start is not None and h.injury:
                line += f" ({self.target.name} {start} → {start - h.injury} HP)"
            parts.append(line)
            for n, more in enumerate(self.more, 2):  # Rapid Fire's further hits (B373)
                start = None if start is None else start - self.hurts[n - 2].injury
                parts.append(hit_text(n, more.location.key, more.basic, more.dr, more.injury,
                                      start, self.target.name, more.wound))  # fmt: skip
        out = "; ".join(parts) + f" — {percent(self.chance_to_injure)} to injure"
        if self.calls:
            out += ". Next: " + "; ".join(self.calls)
        return out


def exchange(
    skill: int,
    damage: DamageSpec,
    target: Target,
    *,
    attacker: str = "Attack",
    options: AttackOptions | None = None,
    defense: str = "best",
    defense_options: DefenseOptions | None = None,
    rng: RandomSource | None = None,
) -> Exchange:
    """Resolve one attack against ``target``: see the module for the rules and the
    order of the draws.

    Raises:
        RuleError: a defense the target lacks, bad options or damage, a location the
            damage may not target (B399), a Deceptive Attack below 10 (B369).
    """
    options = options or AttackOptions()
    facing, defense, defense_options = settle(allowed_against(options, damage.damage_type),
                                              target, defense,
                                              defense_options or DefenseOptions())  # fmt: skip
    if options.location is not None:
        require_targetable(options.location, damage.damage_type, options.tight_beam)
    steps = exchange_odds(skill, damage, target, options, defense, defense_options,
                          attacker=attacker)  # fmt: skip
    chance = steps.injures
    if options.strong:
        damage = replace(damage, expression=strong_damage(damage.expression))
    elif options.long:
        damage = replace(damage, expression=long_damage(damage.expression, options.thrust))
    feint = None  # All-Out Attack (Feint): the feint's Quick Contest first (B365)
    if options.feint is not None:
        from .contest import quick_contest

        feint = quick_contest(skill, options.feint, resistance=True, rng=rng,
                              names=(f"{attacker}'s feint", target.name))  # fmt: skip
    feinted = 0 if feint is None else feint_penalty(feint)
    parry = parry_modifier(options)  # a thrown weapon's −1 or −2; a missile: no parry (B376)
    options = aimed_options(options, damage)
    on = f"{attacker} on {target.name}"
    rolled_attack = attack(skill, label=on, options=options, rng=rng)
    hit, crit = rolled_attack.hit, rolled_attack.critical_hit
    step = DefenseStep(None)  # B366's second defense, B376's breakage: .defenses
    if hit and not crit:
        step = defense_step(facing, defense, defense_options,
                            rolled_attack.defense_modifier - feinted, parry, rng)  # fmt: skip
    defense_roll, landing = step.first, landed_hits(rolled_attack, step)  # B373, B375
    if not landing:
        return Exchange(attacker, target, rolled_attack, damage, defense_roll, None, chance,
                        step_calls(target.name, step, defense_options), steps, feint,
                        step)  # fmt: skip
    effect = critical_effect(rolled_attack.critical if crit else None, options)
    if rolled_attack.torso_instead:
        options = replace(options, location=None, random_location=False)
    critical = rolled_attack.critical if crit else None
    hurt = strike(damage, target, options, effect, rng, critical)
    more = tuple(strike(damage, target, options, "normal", rng) for _ in range(landing - 1))
    calls, now = list(step_calls(target.name, step, defense_options)), target
    for n, h in enumerate((hurt, *more), 1):  # each at the HP the blows before left (B419)
        nth = n if more else None  # B420: one knockdown roll for each major wound
        calls += [c for c in next_calls(now, h, damage, nth) if c not in calls]
        base = now.current_hp if now.current_hp is not None else now.hp
        now = now if base is None else replace(now, current_hp=base - h.injury)
    return Exchange(attacker, target, rolled_attack, damage, defense_roll, hurt, chance,
                    tuple(calls), steps, feint, step, more)  # fmt: skip


def exchanges(
    skill: int,
    damage: DamageSpec,
    target: Target,
    *,
    attacker: str = "Attack",
    options: AttackOptions | None = None,
    defense: str = "best",
    defense_options: DefenseOptions | None = None,
    rng: RandomSource | None = None,
    knockdown_ht: int | None = None,
) -> tuple[Exchange, ...]:
    """The exchanges of one attack maneuver: one, or with All-Out Attack (Double), a
    Dual-Weapon Attack or a Rapid Strike two on the same foe, the second against the foe
    as the first left it: its HP now (B365; :mod:`.allout`), and a parry the first drew
    counts against the second (B376: −4 for each parry after the first with the same
    weapon, −2 fencing; the target's Parry is one weapon's). A Dual-Weapon Attack's two
    are each at −4, and the off hand's, the second, −4 more (B417); a Rapid Strike's two
    are each at −6 (B370, "Rapid Strike", 4th edition; referee's reading rolls both in
    one command, as Double's). With ``knockdown_ht`` (the target's HT), a first blow
    that calls the HT roll against knockdown (B420) has it rolled before the second,
    which then meets a foe stunned and prone, or unconscious (:mod:`.knocked`). Draws:
    the first exchange's, then the knockdown roll's, then the second's.

    Raises:
        RuleError: as :func:`exchange`; a second parry past 20 (before any die).
    """
    defense_options = defense_options or DefenseOptions()
    again, leading = None, options
    if options is not None and (options.double or options.dual_weapon or options.rapid):
        again = replace(defense_options, parried=defense_options.parried + 1)
        leading = replace(options, off_hand=False)  # a Dual-Weapon Attack's off hand: 2nd
    first = exchange(skill, damage, target, attacker=attacker, options=leading,
                     defense=defense, defense_options=defense_options, rng=rng)  # fmt: skip
    if again is None:
        return (first,)
    after = replace(target, current_hp=first.hp_after)
    parried = first.defense is not None and first.defense.defense == "parry"
    meets, against = defense, again if parried else defense_options
    knocked = None  # B420: the first's knockdown roll, before the second
    h = first.hurt
    if knockdown_ht is not None and h is not None and h.injury and h.wound is not None \
            and h.wound.knockdown is not None:  # fmt: skip
        knocked = roll_knockdown(knockdown_ht, h.wound.knockdown, target.name, rng)
        meets, against = standing(knocked.state, meets, against)
    second = exchange(skill, damage, after, attacker=attacker, options=options, defense=meets,
                      defense_options=against, rng=rng)  # fmt: skip
    return first, replace(second, knocked=knocked)


def aimed_options(options: AttackOptions, damage: DamageSpec) -> AttackOptions:
    """The attack's options as its aim leaves them: toxic damage aimed at the skull reads
    no Critical Head Blow Table (B399: none of the skull's effects apply to toxic)."""
    aimed = None if options.location is None else read_location(options.location).key
    if aimed == "skull" and not on_head(aimed, damage.damage_type):
        return replace(options, head_blow_table=False)
    return options


def critical_effect(critical: CriticalRoll | None, options: AttackOptions) -> str:
    """What a critical hit's row does to the blow (B556), ``normal`` for none: the row of
    the table the attack read (the Critical Head Blow Table when aimed at the head,
    :func:`.melee.attack`), with rows 6-7 at the eye as :class:`.criticals.EyeRow` says."""
    if critical is None:
        return "normal"
    aimed = None if options.location is None else read_location(options.location).key
    return options.eye_row.effect(critical.entry.effect, aimed)


def strike(
    damage: DamageSpec,
    target: Target,
    options: AttackOptions,
    effect: str,
    rng: RandomSource | None,
    critical: CriticalRoll | None = None,
) -> Hurt:
    """The exchange's damage step (B398-B400, B378-B379, B556): the location (B398's
    3d6 when random), the Critical Head Blow Table for a critical hit landing on the
    head (the same 3d6), the damage dice, and the blow through DR with the critical
    table's ``effect``. Draws: 3d6 for a random location, then the damage dice. The
    exchange and ``gurps blow`` (a room's exchange made of separate rolls) both take
    their damage from it, so they agree on the same dice."""
    where_roll = None
    if options.random_location:
        a, b, c = draw_faces(rng, 3, 6)
        where_roll = (a, b, c)
        location = read_location(RANDOM_TABLE[a + b + c])
    else:
        location = read_location(options.location or "torso")
    head = None  # a critical hit that landed on the head: the Critical Head Blow Table
    if critical is not None and critical.table == "critical hit" and options.head_blow_table:
        if on_head(location.key, damage.damage_type):
            head = head_blow(critical)  # the same 3d6 (B556)
            effect = head.entry.effect
    count, adds = _dice_adds(damage.expression)
    dice = draw_faces(rng, count, 6)
    hit = blow(sum(dice) + adds, damage, target, location, effect, options.tight_beam,
               options.large_area)  # fmt: skip
    chance = penetrates(damage, target, location, effect, options.large_area)
    return Hurt(location, where_roll, dice, hit.basic, hit.dr, hit.penetrating, hit.injury,
                effect, chance, hit.wound, head)  # fmt: skip
