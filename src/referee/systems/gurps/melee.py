"""GURPS attack rolls, with the options that change them; the active defenses are in
:mod:`.defense` (re-exported here).

Sources: *GURPS Basic Set*, 4th edition (the rules texts referee works from have no
combat chapter; see docs/reference/sources.md): B369, "Deceptive Attack"; B365,
"All-Out Attack" (Determined); B370, "Rapid Strike"; B398-B399, "Hit Location" (the
penalty to aim; a miss by 1 hits the torso); B376, "Parrying" (what a ranged attack
leaves a parry); B556-B557, the critical tables; *GURPS Martial Arts*, MA113,
"Telegraphic Attack", and p. 97, All-Out Attack (Long).

>>> from referee import seeded
>>> a = attack(14, label="Broadsword", options=AttackOptions(deceptive=1), rng=seeded(2))
>>> a.text
'Broadsword 14-2 = 12: rolled 10 (4, 5, 1), success by 2 — 74.1% to succeed (deceptive: defense -1)'
>>> d = defend("parry", 10, DefenseOptions(retreat=True), against=a.defense_modifier, rng=seeded(3))
>>> d.check.skill_text, d.check.outcome.value
('10+1-1', 'failure')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ...errors import RuleError
from ...rng import RandomSource
from .allout import strong_damage
from .criticals import HEAD, CriticalRoll, EyeRow, critical_hit, critical_miss, head_blow
from .defense import (
    DEFENSES,
    DefenseOptions,
    DefenseRoll,
    RangedKind,
    _Checked,
    defend,
    defense_modifiers,
    halved_dodge,
)
from .locations import LargeArea, read_location
from .situation import (
    MOVE_AND_ATTACK_CAP,
    Posture,
    check_situation,
    situation_modifiers,
    situation_tail,
)
from .success import Outcome, SuccessRoll, check, margin, outcome

__all__ = [
    "AIMED",
    "DEFENSES",
    "AttackOptions",
    "AttackRoll",
    "DefenseOptions",
    "DefenseRoll",
    "EyeRow",
    "Posture",
    "RangedKind",
    "TorsoMiss",
    "attack",
    "attack_modifiers",
    "defend",
    "effective_attack",
    "halved_dodge",
    "misses_by_one",
    "parry_modifier",
    "strong_damage",
    "defense_modifiers",
]

AIMED = frozenset({"eye", "skull", "face", "neck", "groin", "vitals"})
"""The locations where an aimed attack that misses by exactly 1 hits the torso
instead (B398-B399)."""


class TorsoMiss(StrEnum):
    """Which misses of an aimed attack are "a miss by 1" that hits the torso (B399).

    B399: an attack aimed at the eye, skull, face, neck, groin or vitals that misses
    by 1 hits the torso instead. A roll of 17 always fails (``000``, "Success Rolls"),
    so at effective skill 17 or more it misses though it is at or under the skill;
    referee shows that miss as a failure by 1 (its margin is clamped,
    :func:`.success.margin`). The texts do not say whether it is "a miss by 1".
    A critical miss never is.
    """

    MARGIN = "margin"
    """The default: a miss whose margin, as referee shows it, is 1: the roll one over
    the skill, or a 17 at effective skill 17 or more, which the text calls "failure
    by 1". What the roll says and where the blow lands agree."""
    ROLL = "roll"
    """Only a roll of exactly one over the effective skill (referee's earlier reading):
    a 17 at effective skill 17 or more misses outright."""


def misses_by_one(roll_total: int, effective: int, reading: TorsoMiss = TorsoMiss.MARGIN) -> bool:
    """Whether a roll is an aimed attack's miss by 1, which hits the torso (B399), by
    ``reading`` (:class:`TorsoMiss`); never a success nor a critical miss.

    >>> misses_by_one(13, 12), misses_by_one(17, 18), misses_by_one(17, 18, TorsoMiss.ROLL)
    (True, True, False)
    >>> misses_by_one(18, 17), misses_by_one(17, 15)  # critical misses
    (False, False)
    """
    if outcome(roll_total, effective) is not Outcome.FAILURE:
        return False
    if reading is TorsoMiss.ROLL:
        return roll_total == effective + 1
    return margin(roll_total, effective) == -1


@dataclass(frozen=True, slots=True)
class AttackOptions:
    """What the attacker chose (each cited where it applies)."""

    deceptive: int = 0
    """Deceptive Attack: −2 to hit per −1 to the foe's defense (B369)."""
    all_out: bool = False
    """All-Out Attack (Determined): +4 to hit in melee, +1 with a :attr:`ranged` attack
    (B365)."""
    telegraphic: bool = False
    """Telegraphic Attack: +4 to hit, the foe's defense +2 (MA113)."""
    rapid: bool = False
    """Rapid Strike: two attacks, −6 to each (B370; :func:`.exchange.exchanges`)."""
    location: str | None = None
    """An aimed hit location, at its penalty (B398); None: the torso, or a random
    location when :attr:`random_location`."""
    random_location: bool = False
    """Roll the location on 3d6 after a hit (B398's table), at no penalty."""
    criticals: bool = True
    """Roll B556's critical tables when a critical hit or miss calls for them."""
    tight_beam: bool = False
    """A tight-beam burning attack (a laser): it may target the vitals and eye, and is
    ×2 to the vitals (B399)."""
    ranged: bool = False
    """A ranged attack: All-Out Attack (Determined) is +1, not +4 (B365); a parry
    against it follows :attr:`ranged_kind` (B376)."""
    ranged_kind: RangedKind = RangedKind.MISSILE
    """With :attr:`ranged`: a missile (the default), which cannot be parried; a thrown
    weapon, parried at −1; a small thrown one, at −2 (B376, :class:`.defense.RangedKind`)."""
    strong: bool = False
    """All-Out Attack (Strong), melee only: +2 damage, or +1 per die if that is more
    (B365; :func:`strong_damage`)."""
    double: bool = False
    """All-Out Attack (Double), melee only: two attacks on the same foe (B365;
    :func:`.exchange.exchanges` rolls both)."""
    feint: int | None = None
    """All-Out Attack (Feint), melee only: a feint against this resisting level (the
    foe's best melee skill, Cloak, Shield or DX), then the attack (B365;
    :mod:`.allout`)."""
    long: bool = False
    """All-Out Attack (Long), melee only: a yard more reach; a swing at −2 damage or −1
    a die when that is worse, a thrust at no cost (*GURPS Martial Arts*, p. 97; the
    Basic Set's B365 has no Long; :func:`.allout.long_damage`)."""
    thrust: bool = False
    """A thrust, not a swing (off): All-Out Attack (Long) costs it no damage (MA97)."""
    unarmed: bool = False
    """An unarmed attack (a punch, kick, bite, slam, head butt...): a critical miss reads
    B557's Unarmed Critical Miss Table, not B556's Critical Miss Table."""
    torso_miss: TorsoMiss = TorsoMiss.MARGIN
    """Which misses of an aimed attack hit the torso instead (B399; :class:`TorsoMiss`)."""
    eye_row: EyeRow = EyeRow.AS_AIMED
    """What the Critical Head Blow Table's rows 6-7 do to an attack aimed at the eye
    (B556; :class:`.criticals.EyeRow`)."""
    large_area: bool | LargeArea = False
    """Large-area injury (B400: an explosion, fire, a breath): the DR is the average of
    the torso's and the least-protected location's (a half rounded up, or as the
    :class:`.locations.LargeArea` given), and no location may be chosen."""
    head_blow_table: bool = True
    """A critical hit to the skull, face or eye reads the Critical Head Blow Table
    (B556); off: the Critical Hit Table for every location (referee's earlier reading)."""
    modifiers: tuple[int, ...] = ()
    """The GM's own modifiers to hit (darkness, cover, Evaluate...), each named
    ``modifier``."""
    range_yards: int | None = None
    """A ranged attack's distance to the target: B550's range penalty
    (:func:`.situation.range_penalty`)."""
    aim: int = 0
    """Turns of Aim before a ranged attack: the weapon's :attr:`acc`, +1 for a second
    turn, +2 for three or more (B364)."""
    acc: int | None = None
    """The weapon's Accuracy, for :attr:`aim` (a sheet's weapon gives it)."""
    posture: Posture = Posture.STANDING
    """The attacker's posture: B551's modifier to a melee attack (:class:`.situation.Posture`)."""
    shock: int = 0
    """The attacker's own shock this turn, as a positive number: −1 a point (B419)."""
    move_and_attack: bool = False
    """Move and Attack (B365): melee −4 and at most 9; ranged −2 or :attr:`bulk`."""
    bulk: int | None = None
    """The weapon's Bulk (−4), for a ranged Move and Attack (B365)."""
    rof: int = 1
    """Rapid Fire: the shots fired in this attack (B373; :mod:`.rapid`)."""
    recoil: int = 1
    """The weapon's Recoil: one more hit for each full Recoil of margin (B373)."""
    dual_weapon: bool = False
    """Dual-Weapon Attack: two attacks at −4 each (B417; :func:`.exchange.exchanges`)."""
    off_hand: bool = False
    """The attack is with the off hand: −4 more (B417; none with Ambidexterity, B52).
    With :attr:`dual_weapon`, the second attack only."""

    def __post_init__(self) -> None:
        if not 0 <= self.deceptive <= 10:
            raise RuleError(f"deceptive attack {self.deceptive} is out of range (0 to 10)")
        if self.location is not None and self.random_location:
            raise RuleError("aim at a location or roll a random one, not both")
        if self.location is not None:
            read_location(self.location)
        if self.large_area and (self.location is not None or self.random_location):
            raise RuleError("large-area injury strikes the whole body: no hit location (B400)")
        chosen = [n for n, on in (("Determined", self.all_out), ("Strong", self.strong),
                  ("Double", self.double), ("Feint", self.feint is not None),
                  ("Long", self.long)) if on]  # fmt: skip
        if len(chosen) > 1:
            raise RuleError(
                f"All-Out Attack is {' or '.join(chosen)}, "
                f"not {'both' if len(chosen) == 2 else 'all of them'} (B365)"
            )
        if chosen and chosen[0] != "Determined" and self.ranged:
            src = "Martial Arts p. 97" if chosen[0] == "Long" else "B365"  # Long is MA97's
            raise RuleError(f"All-Out Attack ({chosen[0]}) is for a melee attack only ({src})")
        if self.ranged_kind is not RangedKind.MISSILE and not self.ranged:
            raise RuleError(f"a ranged kind ({self.ranged_kind}) is a ranged attack's (B376)")
        if self.feint is not None and not -10 <= self.feint <= 40:
            raise RuleError(f"a feint's resisting level {self.feint} is out of range (-10 to 40)")
        check_situation(self)


def effective_attack(skill: int, options: AttackOptions, modifiers: tuple[int, ...] = ()) -> int:
    """The attack's effective skill: ``skill`` with ``modifiers`` and the options'.

    Source: B369, "Deceptive Attack": "you may not reduce your final effective skill
    below 10" with it; B365, "Move and Attack": a melee attack at most 9
    (:func:`capped`); 4th edition.

    >>> effective_attack(16, AttackOptions(deceptive=3))
    10
    >>> effective_attack(11, AttackOptions(deceptive=4))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: Deceptive Attack may not bring effective skill below 10 (B369): ...

    Raises:
        RuleError: a Deceptive Attack that brings effective skill below 10.
    """
    eff = skill + sum(modifiers) + sum(m for _, m in attack_modifiers(options))
    eff += sum(m for _, m in capped(eff, options))
    if options.deceptive and eff < 10:
        most = max(0, (eff + 2 * options.deceptive - 10) // 2)
        raise RuleError(
            "Deceptive Attack may not bring effective skill below 10 (B369): skill "
            f"{skill} with deceptive {options.deceptive} ({-2 * options.deceptive:+d}) is "
            f"{eff}; the most it allows is deceptive {most}"
        )
    return eff


def capped(effective: int, options: AttackOptions) -> list[tuple[str, int]]:
    """Move and Attack's cap (B365, 4th edition): a melee attack is at most effective
    skill 9; the modifier that brings ``effective`` down to it, named, or none.

    >>> capped(14, AttackOptions(move_and_attack=True)), capped(8, AttackOptions())
    ([('move and attack: at most 9', -5)], [])
    """
    over = effective - MOVE_AND_ATTACK_CAP
    if not options.move_and_attack or options.ranged or over <= 0:
        return []
    return [("move and attack: at most 9", -over)]


def attack_modifiers(options: AttackOptions) -> list[tuple[str, int]]:
    """The attack's modifiers from its options, named, in a fixed order: the GM's own
    first, then the options' (B369, B365, MA113, B370), then the situation's
    (:func:`.situation.situation_modifiers`). Move and Attack's cap of 9 depends on the
    skill: :func:`capped`."""
    mods: list[tuple[str, int]] = [("modifier", m) for m in options.modifiers]
    if options.location is not None:
        loc = read_location(options.location)
        if loc.penalty:
            mods.append((loc.key, loc.penalty))
    if options.deceptive:
        mods.append(("deceptive", -2 * options.deceptive))
    if options.all_out:
        mods.append(("all-out", 1 if options.ranged else 4))
    if options.telegraphic:
        mods.append(("telegraphic", 4))
    if options.rapid:
        mods.append(("rapid strike", -6))
    return mods + situation_modifiers(options)


def parry_modifier(options: AttackOptions) -> int | None:
    """What the attack does to a parry against it: 0 in melee; a ranged attack's
    :attr:`AttackOptions.ranged_kind` (B376: a thrown weapon −1, a small one −2; None,
    a missile, which cannot be parried).

    >>> parry_modifier(AttackOptions()), parry_modifier(AttackOptions(ranged=True))
    (0, None)
    >>> parry_modifier(AttackOptions(ranged=True, ranged_kind=RangedKind.SMALL_THROWN))
    -2
    """
    return options.ranged_kind.parry if options.ranged else 0


@dataclass(frozen=True, slots=True)
class AttackRoll(_Checked):
    """An attack roll: the success roll, what it does to the foe's defense, and the
    critical table it called for (if any)."""

    check: SuccessRoll
    options: AttackOptions
    critical: CriticalRoll | None
    """B556's Critical Hit Table on a critical success (its Critical Head Blow Table
    when aimed at the head), its Critical Miss Table on a critical failure, or B557's
    Unarmed Critical Miss Table when :attr:`AttackOptions.unarmed` (with
    :attr:`AttackOptions.criticals`)."""

    system = "gurps"
    kind = "attack"

    @property
    def hit(self) -> bool:
        """The attack succeeded, or hit the torso instead (:attr:`torso_instead`): it hits
        unless the foe defends."""
        return self.check.success or self.torso_instead

    @property
    def torso_instead(self) -> bool:
        """Aimed at the eye, skull, face, neck, groin or vitals, it missed by 1 (not a
        critical miss; which misses, :attr:`AttackOptions.torso_miss`): it hits the
        torso instead (B398-B399, 4th edition; :func:`misses_by_one`)."""
        return (
            self.options.location is not None
            and read_location(self.options.location).key in AIMED
            and misses_by_one(self.check.roll, self.check.effective_skill,
                              self.options.torso_miss)
        )  # fmt: skip

    @property
    def critical_hit(self) -> bool:
        """A critical success: the foe gets no active defense (B381)."""
        return self.check.outcome is Outcome.CRITICAL_SUCCESS

    @property
    def defense_modifier(self) -> int:
        """What this attack does to the foe's active defense: −1 per deceptive level,
        +2 if telegraphic."""
        return -self.options.deceptive + (2 if self.options.telegraphic else 0)

    @property
    def text(self) -> str:
        tail = []
        if self.options.deceptive:
            tail.append(f"deceptive: defense -{self.options.deceptive}")
        if self.options.telegraphic:
            tail.append("telegraphic: defense +2")
        tail += situation_tail(self.options, self.check.effective_skill)
        line = self.check.text + (f" ({'; '.join(tail)})" if tail else "")
        if self.critical_hit:
            line += ": a critical hit, no defense"
        if self.torso_instead:
            where = read_location(self.options.location or "torso").key
            line += f": misses the {where} by 1, so hits the torso instead (B399)"
        if self.critical is not None:
            line += f"; {self.critical.text}"
        return line


def attack(
    skill: int,
    *,
    label: str | None = None,
    options: AttackOptions = AttackOptions(),
    modifiers: tuple[int, ...] = (),
    rng: RandomSource | None = None,
) -> AttackRoll:
    """Roll an attack at ``skill`` (the weapon's level on the sheet) with the options'
    modifiers, then the critical table it calls for. Draws: the attack's 3d6, then
    3d6 on a critical table if one applies.

    Source: the module's (B365, B369, B370, B398, B556, B557, MA113); the success roll is
    :func:`.success.check`. An aimed attack that misses by 1 hits the torso
    (:attr:`AttackRoll.torso_instead`).

    Raises:
        RuleError: a Deceptive Attack below effective skill 10 (:func:`effective_attack`).
    """
    effective_attack(skill, options, modifiers)  # refuses a Deceptive Attack below 10
    mods = (*modifiers, *(m for _, m in attack_modifiers(options)))
    mods += tuple(m for _, m in capped(skill + sum(mods), options))  # B365's 9
    rolled = check(skill, modifiers=mods, label=label, rng=rng)
    table = None
    if options.criticals and rolled.outcome is Outcome.CRITICAL_SUCCESS:
        table = critical_hit(rng)
        if options.head_blow_table and options.location is not None:
            if read_location(options.location).key in HEAD:  # aimed at the head (B556)
                table = head_blow(table)
    elif options.criticals and rolled.outcome is Outcome.CRITICAL_FAILURE:
        table = critical_miss(rng, unarmed=options.unarmed)  # B557's table when unarmed
    return AttackRoll(rolled, options, table)
