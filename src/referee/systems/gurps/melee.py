"""GURPS attack rolls and active defenses, with the options that change them.

Sources: *GURPS Basic Set*, 4th edition (the rules texts referee works from have no
combat chapter; see docs/reference/sources.md): B369, "Deceptive Attack"; B365,
"All-Out Attack" (Determined); B370, "Rapid Strike"; B398, "Hit Location" (the
penalty to aim); B374-B377, "Active Defense" (Dodge, Parry, Block, retreating);
B366, "All-Out Defense" (Increased Defense); B376, parrying more than once; B374,
a shield's Defense Bonus; *GURPS Martial Arts*, MA113, "Telegraphic Attack". A
defense roll is made at any effective skill, even 2 or less (``000``, "Base Skill
vs Effective Skill": "unless you are attempting a defense roll").

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

from ...errors import RuleError
from ...results import Chances
from ...rng import RandomSource
from .criticals import HEAD, CriticalRoll, critical_hit, critical_miss, head_blow
from .damage import _dice_adds, with_adds
from .locations import read_location
from .success import Outcome, SuccessRoll, check

__all__ = [
    "AIMED",
    "DEFENSES",
    "AttackOptions",
    "AttackRoll",
    "DefenseOptions",
    "DefenseRoll",
    "attack",
    "attack_modifiers",
    "defend",
    "effective_attack",
    "halved_dodge",
    "strong_damage",
    "defense_modifiers",
]

DEFENSES = ("dodge", "parry", "block")
"""The active defenses (B374)."""

AIMED = frozenset({"eye", "skull", "face", "neck", "groin", "vitals"})
"""The locations where an aimed attack that misses by exactly 1 hits the torso
instead (B398-B399)."""


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
    """Rapid Strike: −6 to each attack (B370)."""
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
    """A ranged attack: All-Out Attack (Determined) is +1, not +4 (B365)."""
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
    """All-Out Attack (Long), melee only: a yard more reach, −2 damage or −1 a die when
    that is more (B365; :func:`.allout.long_damage`)."""
    large_area: bool = False
    """Large-area injury (B400: an explosion, fire, a breath): the DR is the average of
    the torso's and the least-protected location's (rounded down, referee's reading),
    and the blow is to the body as a whole, so no location may be chosen."""
    head_blow_table: bool = True
    """A critical hit to the skull, face or eye reads the Critical Head Blow Table
    (B556); off: the Critical Hit Table for every location (referee's earlier reading)."""

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
            raise RuleError(f"All-Out Attack ({chosen[0]}) is for a melee attack only (B365)")
        if self.feint is not None and not -10 <= self.feint <= 40:
            raise RuleError(f"a feint's resisting level {self.feint} is out of range (-10 to 40)")


def strong_damage(expression: str) -> str:
    """Damage dice+adds under All-Out Attack (Strong): +2, or +1 per die when that is more.

    Source: B365, "All-Out Attack": "Strong: Make a single attack ... at +2 to damage or
    +1 damage per die, whichever is better" (melee only; 4th edition).

    >>> strong_damage("1d-2"), strong_damage("2d+1"), strong_damage("3d"), strong_damage("4d-1")
    ('1d', '2d+3', '3d+3', '4d+3')
    """

    count, _ = _dice_adds(expression)
    return with_adds(expression, max(2, count))


def effective_attack(skill: int, options: AttackOptions, modifiers: tuple[int, ...] = ()) -> int:
    """The attack's effective skill: ``skill`` with ``modifiers`` and the options'.

    Source: B369, "Deceptive Attack": "you may not reduce your final effective skill
    below 10" with it (4th edition).

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
    if options.deceptive and eff < 10:
        most = max(0, (eff + 2 * options.deceptive - 10) // 2)
        raise RuleError(
            "Deceptive Attack may not bring effective skill below 10 (B369): skill "
            f"{skill} with deceptive {options.deceptive} ({-2 * options.deceptive:+d}) is "
            f"{eff}; the most it allows is deceptive {most}"
        )
    return eff


def attack_modifiers(options: AttackOptions) -> list[tuple[str, int]]:
    """The attack's modifiers from its options, named, in a fixed order."""
    mods: list[tuple[str, int]] = []
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
    return mods


class _Checked:
    """What an attack and a defense answer from their success roll (``check``)."""

    __slots__ = ()
    check: SuccessRoll

    @property
    def success(self) -> bool:
        return self.check.success

    @property
    def outcome(self) -> str:
        """``critical success``, ``success``, ``failure`` or ``critical failure``."""
        return self.check.outcome.value

    @property
    def chances(self) -> Chances:
        return self.check.chances


@dataclass(frozen=True, slots=True)
class AttackRoll(_Checked):
    """An attack roll: the success roll, what it does to the foe's defense, and the
    critical table it called for (if any)."""

    check: SuccessRoll
    options: AttackOptions
    critical: CriticalRoll | None
    """B556's Critical Hit Table on a critical success, its Critical Miss Table on a
    critical failure (with :attr:`AttackOptions.criticals`)."""

    system = "gurps"
    kind = "attack"

    @property
    def hit(self) -> bool:
        """The attack succeeded, or hit the torso instead (:attr:`torso_instead`): it hits
        unless the foe defends."""
        return self.check.success or self.torso_instead

    @property
    def torso_instead(self) -> bool:
        """Aimed at the eye, skull, face, neck, groin or vitals, it missed by exactly 1
        (not a critical miss): it hits the torso instead (B398-B399, 4th edition)."""
        return (
            self.options.location is not None
            and read_location(self.options.location).key in AIMED
            and self.check.outcome is Outcome.FAILURE
            and self.check.roll == self.check.effective_skill + 1
        )

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

    Source: the module's (B365, B369, B370, B398, B556, MA113); the success roll is
    :func:`.success.check`. An aimed attack that misses by 1 hits the torso
    (:attr:`AttackRoll.torso_instead`).

    Raises:
        RuleError: a Deceptive Attack below effective skill 10 (:func:`effective_attack`).
    """
    effective_attack(skill, options, modifiers)  # refuses a Deceptive Attack below 10
    mods = (*modifiers, *(m for _, m in attack_modifiers(options)))
    rolled = check(skill, modifiers=mods, label=label, rng=rng)
    table = None
    if options.criticals and rolled.outcome is Outcome.CRITICAL_SUCCESS:
        table = critical_hit(rng)
        if options.head_blow_table and options.location is not None:
            if read_location(options.location).key in HEAD:  # aimed at the head (B556)
                table = head_blow(table)
    elif options.criticals and rolled.outcome is Outcome.CRITICAL_FAILURE:
        table = critical_miss(rng)
    return AttackRoll(rolled, options, table)


@dataclass(frozen=True, slots=True)
class DefenseOptions:
    """What the defender chose."""

    retreat: bool = False
    """Retreat: +3 to Dodge; +1 to Parry or Block, but +3 to a parry with Boxing,
    Judo, Karate or a fencing weapon (B377)."""
    all_out: bool = False
    """All-Out Defense (Increased Defense): +2 to one defense (B366)."""
    shield: int = 0
    """A ready shield's Defense Bonus, added to every defense (B374)."""
    parried: int = 0
    """Parries already made with this weapon this turn: −4 each (B376), −2 with a
    fencing weapon."""
    fencing: bool = False
    """The parry is with Boxing, Judo, Karate or a fencing weapon (B377, B404)."""
    block_retreat: int = 1
    """A retreat's bonus to Block: +1 by the Basic Set (B377); 3 for a table that
    reads it as Dodge's (the reading the combat issue states)."""

    def __post_init__(self) -> None:
        if not 0 <= self.shield <= 10:
            raise RuleError(f"a shield's DB of {self.shield} is out of range (0 to 10)")
        if not 0 <= self.parried <= 20:
            raise RuleError(f"{self.parried} earlier parries is out of range (0 to 20)")
        if self.block_retreat not in (1, 3):
            raise RuleError("a retreat gives Block +1 (B377) or +3, nothing else")


def defense_modifiers(
    kind: str, options: DefenseOptions, against: int = 0
) -> list[tuple[str, int]]:
    """A defense's modifiers, named: retreat, All-Out Defense, shield, repeated parries,
    and what the attack does to it (``against``: deceptive, telegraphic)."""
    if kind not in DEFENSES:
        raise RuleError(f"unknown defense {kind!r}; use dodge, parry or block")
    mods: list[tuple[str, int]] = []
    if options.retreat:
        bonus = {"dodge": 3, "block": options.block_retreat}.get(kind, 3 if options.fencing else 1)
        mods.append(("retreat", bonus))
    if options.all_out:
        mods.append(("all-out defense", 2))
    if options.shield:
        mods.append(("shield", options.shield))
    if kind == "parry" and options.parried:
        mods.append(("parried before", -(2 if options.fencing else 4) * options.parried))
    if against:
        mods.append(("the attack", against))
    return mods


def halved_dodge(dodge: int, *, reeling: bool = False, very_tired: bool = False) -> int:
    """Dodge when hurt or tired: halved, rounding up, when reeling (under 1/3 HP, B419)
    and again when very tired (under 1/3 FP, B426). This reading lets the two stack,
    as each rule halves Dodge on its own: both together leave a quarter, rounded up.

    >>> halved_dodge(10, reeling=True), halved_dodge(9, very_tired=True)
    (5, 5)
    >>> halved_dodge(9, reeling=True, very_tired=True), halved_dodge(9)
    (3, 9)
    """
    for halves in (reeling, very_tired):
        if halves:
            dodge = -(-dodge // 2)
    return dodge


@dataclass(frozen=True, slots=True)
class DefenseRoll(_Checked):
    """An active defense roll."""

    defense: str
    """``dodge``, ``parry`` or ``block``."""
    check: SuccessRoll

    system = "gurps"
    kind = "defense"

    @property
    def defended(self) -> bool:
        return self.check.success

    @property
    def text(self) -> str:
        return self.check.text


def defend(
    kind: str,
    level: int,
    options: DefenseOptions = DefenseOptions(),
    *,
    against: int = 0,
    label: str | None = None,
    rng: RandomSource | None = None,
) -> DefenseRoll:
    """Roll an active defense (Dodge, Parry or Block at ``level``, as the sheet
    computed it) with its modifiers; rolled even at effective 2 or less (B344's
    exception for defense rolls; ``000``). Draws 3d6.

    Source: the module's (B366, B374-B377, B404)."""
    mods = tuple(m for _, m in defense_modifiers(kind, options, against))
    name = label or kind.title()
    return DefenseRoll(kind, check(level, modifiers=mods, label=name, defense=True, rng=rng))
