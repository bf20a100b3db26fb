"""GURPS active defenses: Dodge, Parry and Block with the options that change them,
and what a ranged attack leaves a parry.

Sources: *GURPS Basic Set*, 4th edition (the rules texts referee works from have no
combat chapter; see docs/reference/sources.md): B374-B377, "Active Defense" (Dodge,
Parry, Block, retreating); B366, "All-Out Defense" (Increased Defense); B376,
"Parrying" (parrying more than once: −4 a parry after the first with the same
weapon, −2 with a fencing weapon; thrown weapons at −1, small ones at −2; missiles
not at all); B375, "Blocking" (no block against bullets or beams); B377,
"Retreating" (against a melee attack) and "Dodge and Drop" (+3 to Dodge against a
ranged attack, then prone); B374, a shield's Defense Bonus; B419 and B426 (reeling and very tired
halve Dodge). A defense roll is made at any effective skill, even 2 or less
(``000``, "Base Skill vs Effective Skill": "unless you are attempting a defense
roll").

>>> [m for _, m in defense_modifiers("parry", DefenseOptions(retreat=True), -1, -1)]
[1, -1, -1]
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ...errors import RuleError
from ...results import Chances
from ...rng import RandomSource
from .situation import Posture
from .success import SuccessRoll, check

__all__ = [
    "DEFENSES",
    "Allowed",
    "DefenseOptions",
    "Flank",
    "DefenseRoll",
    "RangedKind",
    "defend",
    "defense_modifiers",
    "defenses_against",
    "halved_dodge",
    "missile_kind",
    "situation_defense",
]

DEFENSES = ("dodge", "parry", "block")
"""The active defenses (B374)."""


class RangedKind(StrEnum):
    """What a ranged attack is, for the defenses against it (:func:`defenses_against`).

    Source: *GURPS Basic Set*, 4th edition, B376, "Parrying": thrown weapons may be
    parried at −1, or −2 for small ones (a knife, a shuriken: 1 lb or less); missile
    weapons (arrows, bolts, bullets, beams) may not be parried at all. B375,
    "Blocking": "You cannot block bullets or beam weapons"; a thrown weapon or a
    slower missile (an arrow, a bolt, a sling stone) may be blocked. B377,
    "Retreating": a retreat is against a melee attack, so against none of these.
    """

    MISSILE = "missile"
    """The default for a ranged attack: a missile, told by its damage
    (:func:`missile_kind`): a bullet or beam when piercing (``pi-`` to ``pi++``, a
    firearm's) or tight-beam burning, else an arrow. Never parried."""
    ARROW = "arrow"
    """An arrow, a bolt, a sling stone, a dart from a blowpipe: not parried, blocked."""
    BULLET = "bullet"
    """A bullet or a beam: neither parried nor blocked (B375, B376)."""
    THROWN = "thrown"
    """A thrown weapon (an axe, a spear): parried at −1, blocked."""
    SMALL_THROWN = "small thrown"
    """A small thrown weapon (a knife, a shuriken, 1 lb or less): parried at −2, blocked."""

    @property
    def parry(self) -> int | None:
        """The modifier to a parry against it; None: it cannot be parried (B376).

        >>> RangedKind.MISSILE.parry, RangedKind.THROWN.parry, RangedKind.SMALL_THROWN.parry
        (None, -1, -2)
        """
        return {RangedKind.THROWN: -1, RangedKind.SMALL_THROWN: -2}.get(self)


def missile_kind(damage_type: str, tight_beam: bool = False) -> RangedKind:
    """A missile's kind told by its damage, as :attr:`RangedKind.MISSILE` is read:
    piercing damage (``pi-``, ``pi``, ``pi+``, ``pi++``: a firearm's bullet) or a
    tight-beam burning attack (a laser) is a bullet or beam, which B375 forbids to
    block; anything else (an arrow's or bolt's ``imp``, a sling's ``cr``) an arrow,
    which may be blocked. referee's reading, for a missile whose kind is not given
    (``--missile arrow|bullet`` says it).

    >>> missile_kind("pi"), missile_kind("imp"), missile_kind("burn", tight_beam=True)
    (<RangedKind.BULLET: 'bullet'>, <RangedKind.ARROW: 'arrow'>, <RangedKind.BULLET: 'bullet'>)
    """
    bullet = damage_type.startswith("pi") or (tight_beam and damage_type == "burn")
    return RangedKind.BULLET if bullet else RangedKind.ARROW


@dataclass(frozen=True, slots=True)
class Allowed:
    """The active defenses, and the retreat, that an attack leaves its target
    (:func:`defenses_against`). Dodge is always allowed."""

    melee: bool
    """A melee attack: a retreat is allowed (B377); Dodge and Drop is not (B377)."""
    parry: int | None
    """The modifier to a parry against it (−1, −2 for thrown weapons); None: no parry
    (a missile, B376)."""
    block: bool
    """A block is allowed: not against a bullet or beam (B375)."""

    @property
    def retreat(self) -> bool:
        """A retreat adds to a defense: against a melee attack only (B377)."""
        return self.melee

    @property
    def defenses(self) -> tuple[str, ...]:
        """The active defenses allowed, in :data:`DEFENSES`' order."""
        return tuple(d for d in DEFENSES if self.allows(d))

    def allows(self, defense: str) -> bool:
        """Whether ``defense`` (dodge, parry or block) may be made against the attack."""
        return {"dodge": True, "parry": self.parry is not None, "block": self.block}[defense]


def defenses_against(
    kind: RangedKind | None = None, damage_type: str = "cr", tight_beam: bool = False
) -> Allowed:
    """Which active defenses, and whether a retreat, an attack allows: ``kind`` None
    for a melee attack, else the ranged attack's kind (:class:`RangedKind`;
    :attr:`RangedKind.MISSILE` told by ``damage_type`` and ``tight_beam``,
    :func:`missile_kind`). The one place that says it: the exchange, its odds, the
    CLI and the simulator ask it; a room's fight should too.

    Source: *GURPS Basic Set*, 4th edition: B376, "Parrying" (a thrown weapon at −1,
    a small one at −2, a missile not at all); B375, "Blocking" ("You cannot block
    bullets or beam weapons"; thrown weapons and arrows may be blocked); B377,
    "Retreating" (a retreat is against a melee attack).

    >>> defenses_against()
    Allowed(melee=True, parry=0, block=True)
    >>> defenses_against(RangedKind.MISSILE, "pi").defenses
    ('dodge',)
    >>> defenses_against(RangedKind.MISSILE, "imp").defenses, defenses_against(RangedKind.THROWN)
    (('dodge', 'block'), Allowed(melee=False, parry=-1, block=True))
    """
    if kind is None:
        return Allowed(True, 0, True)
    if kind is RangedKind.MISSILE:
        kind = missile_kind(damage_type, tight_beam)
    return Allowed(False, kind.parry, kind is not RangedKind.BULLET)


class Flank(StrEnum):
    """Where an attack comes from, for the defense against it.

    Source: *GURPS Basic Set*, 4th edition, B390-B391 (facing; the arcs of B389): an
    attack from a side hex is defended at −2; from behind, with no active defense at
    all. The GM judges the hex; referee takes it as given.
    """

    FRONT = "front"
    SIDE = "side"
    """From a side hex: every active defense at −2."""
    BACK = "back"
    """From behind: no active defense."""


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
    aod_double: bool = False
    """All-Out Defense (Double): when the first defense fails, a second, different one
    (B366; :mod:`.defenses`)."""
    drop: bool = False
    """Dodge and Drop, against a ranged attack: Dodge +3, and the defender ends prone
    (B377)."""
    heavy: bool = False
    """The attacking weapon is three or more times the parrying weapon's weight: a parry
    that holds rolls 1d, and the parrying weapon breaks at :attr:`break_on` or less
    (B376, "Parrying Heavy Weapons"; :mod:`.defenses`)."""
    break_on: int = 2
    """With :attr:`heavy`: the 1d roll at or under which the parrying weapon breaks."""
    modifier: int = 0
    """The GM's own modifier to the defense (``--defense-mod``), named ``modifier``."""
    posture: Posture = Posture.STANDING
    """The defender's posture: B551's Defense column (kneeling and sitting −2,
    crawling and prone −3); kneeling or sitting, no retreat (B551, as the fight)."""
    stunned: bool = False
    """The defender is stunned: −4 to every active defense (B420)."""
    flank: Flank = Flank.FRONT
    """Where the attack comes from: the side −2; behind, no active defense (B390-B391;
    :class:`Flank`)."""

    def __post_init__(self) -> None:
        if not 0 <= self.shield <= 10:
            raise RuleError(f"a shield's DB of {self.shield} is out of range (0 to 10)")
        if not 0 <= self.parried <= 20:
            raise RuleError(f"{self.parried} earlier parries is out of range (0 to 20)")
        if self.block_retreat not in (1, 3):
            raise RuleError("a retreat gives Block +1 (B377) or +3, nothing else")
        if not 1 <= self.break_on <= 6:
            raise RuleError(f"--break-on {self.break_on}: a 1d roll is 1 to 6")
        if self.drop and self.retreat:
            raise RuleError("--dodge-and-drop or --retreat, not both: Dodge and Drop is a "
                            "drop in place (B377, referee's reading)")  # fmt: skip
        if not -20 <= self.modifier <= 20:
            raise RuleError(f"--defense-mod {self.modifier}: a defense modifier is -20 to 20")
        if self.retreat and self.posture in (Posture.KNEELING, Posture.SITTING):
            raise RuleError(f"a {self.posture} defender cannot retreat (B551)")
        if self.aod_double and self.all_out:
            raise RuleError("All-Out Defense is Increased Defense (--aod) or Double "
                            "(--aod-double), not both (B366)")  # fmt: skip


def defense_modifiers(
    kind: str, options: DefenseOptions, against: int = 0, parry: int = 0
) -> list[tuple[str, int]]:
    """A defense's modifiers, named: retreat, All-Out Defense, shield, repeated parries,
    what the attack does to it (``against``: deceptive, telegraphic) and, to a parry
    only, what a thrown weapon does (``parry``: −1, −2 for a small one; B376)."""
    if kind not in DEFENSES:
        raise RuleError(f"unknown defense {kind!r}; use dodge, parry or block")
    mods: list[tuple[str, int]] = []
    if options.retreat:
        bonus = {"dodge": 3, "block": options.block_retreat}.get(kind, 3 if options.fencing else 1)
        mods.append(("retreat", bonus))
    if options.all_out:
        mods.append(("all-out defense", 2))
    if kind == "dodge" and options.drop:
        mods.append(("dodge and drop", 3))
    if options.shield:
        mods.append(("shield", options.shield))
    if kind == "parry" and options.parried:
        mods.append(("parried before", -(2 if options.fencing else 4) * options.parried))
    if against:
        mods.append(("the attack", against))
    if kind == "parry" and parry:
        mods.append(("thrown", parry))
    return mods + situation_defense(options)


def situation_defense(options: DefenseOptions) -> list[tuple[str, int]]:
    """The defender's situation, named, as every defense takes it: stunned −4 (B420),
    posture (B551's Defense column), an attack from the side −2 (B390), the GM's own
    ``modifier``; none when there is none, so a plain defense is unchanged.

    >>> situation_defense(DefenseOptions(stunned=True, posture=Posture.PRONE,
    ...                                  flank=Flank.SIDE, modifier=1))
    [('stunned', -4), ('prone', -3), ('from the side', -2), ('modifier', 1)]
    """
    posture = {Posture.KNEELING: -2, Posture.SITTING: -2, Posture.CRAWLING: -3,
               Posture.PRONE: -3}.get(options.posture, 0)  # fmt: skip
    named = [("stunned", -4 if options.stunned else 0), (str(options.posture), posture),
             ("from the side", -2 if options.flank is Flank.SIDE else 0),
             ("modifier", options.modifier)]  # fmt: skip
    return [(n, m) for n, m in named if m]


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
    parry: int = 0,
    label: str | None = None,
    rng: RandomSource | None = None,
) -> DefenseRoll:
    """Roll an active defense (Dodge, Parry or Block at ``level``, as the sheet
    computed it) with its modifiers (``parry``: a thrown weapon's to a parry, B376);
    rolled even at effective 2 or less (B344's exception for defense rolls; ``000``).
    Draws 3d6.

    Source: the module's (B366, B374-B377, B404)."""
    mods = tuple(m for _, m in defense_modifiers(kind, options, against, parry))
    name = label or kind.title()
    return DefenseRoll(kind, check(level, modifiers=mods, label=name, defense=True, rng=rng))
