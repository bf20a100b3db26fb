"""What a character sheet holds, as referee reads it: frozen values, one shape for
every system and every file format (:mod:`.gcs`, :mod:`.native`, :mod:`.foundry`).

A sheet is what the rules start from: "your base skill is your actual level in a
skill, as recorded on your character sheet" (``000``, "Base Skill vs Effective
Skill"). referee keeps the levels the sheet records and computes nothing a rule
already computes (an SWN save comes from level and attributes through
:mod:`referee.systems.swn`, not from the sheet).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

__all__ = ["Attack", "Kind", "Sheet", "Trait"]


class Kind(StrEnum):
    """What kind of trait a name resolves to."""

    ATTRIBUTE = "attribute"
    """GURPS ST, DX, Per, Fright Check...; SWN Str, Dex...; rolled against directly."""
    SKILL = "skill"
    TECHNIQUE = "technique"
    SPELL = "spell"
    DEFENSE = "defense"
    """GURPS Dodge (a weapon's Parry and Block are on its :class:`Attack`)."""
    TRAIT = "trait"
    """A Fudge trait: attributes and skills on one ladder."""


@dataclass(frozen=True, slots=True)
class Trait:
    """One thing a roll can name: its name, specialization, level and kind."""

    name: str
    """``Fast-Draw``, ``DX``, ``Ranged Combat``."""
    specialization: str | None
    """``Knife`` for Fast-Draw (Knife); None when the trait has none."""
    level: int
    """The level the sheet records: a GURPS skill's or attribute's level, an SWN
    attribute's score (3-18) or skill level (0-4), a Fudge trait's ladder value."""
    kind: Kind
    """What it is."""
    tech_level: str | None = None
    """GURPS: the skill's tech level (``7`` for Navigation/TL7), when it has one."""
    attribute: str | None = None
    """SWN: the skill's usual attribute (``dex``), where the sheet names one: a
    Foundry swnr skill's ``defaultStat``, a TOML skill written as a table."""

    @property
    def full_name(self) -> str:
        """``Fast-Draw (Knife)``, or the name alone."""
        return f"{self.name} ({self.specialization})" if self.specialization else self.name

    @property
    def shown_name(self) -> str:
        """The full name with any tech level, as GCS shows it: ``Navigation/TL7 (Sea)``."""
        if not self.tech_level:
            return self.full_name
        name = f"{self.name}/TL{self.tech_level}"
        return f"{name} ({self.specialization})" if self.specialization else name


@dataclass(frozen=True, slots=True)
class Attack:
    """A weapon or natural attack on the sheet (GURPS: one usage of an item's weapon)."""

    name: str
    """The item's name: ``Natural Attacks``, ``Broadsword``, ``Laser Rifle``."""
    usage: str | None
    """GURPS: ``Punch``, ``Swung``, ``Thrust``; None when the item gives one only."""
    damage: str
    """As the sheet writes it: ``1d-4 cr``, ``2d+1 cut``, ``4d(3) burn`` (GURPS, the
    level GCS computed); ``1d10`` (SWN)."""
    level: int | None = None
    """GURPS: the skill level with this weapon, as the sheet computed it."""
    parry: str | None = None
    """GURPS: the Parry the sheet computed (``10``, ``9F``, ``No``), if any."""
    block: str | None = None
    """GURPS: the Block the sheet computed, if any."""
    skill: str | None = None
    """SWN: the combat skill the weapon uses (``shoot``)."""
    attributes: tuple[str, ...] = ()
    """SWN: the attributes it may use; the better modifier counts (``("str", "dex")``)."""
    shock: str | None = None
    """SWN: Shock as ``AMOUNT/AC`` (``2/15``), if the weapon has it."""
    attack_bonus: int = 0
    """SWN: the weapon's own attack bonus, added to the character's (a +1 weapon)."""
    acc: int | None = None
    """GURPS: a ranged weapon's Accuracy, added after an Aim (B364; a GCS weapon's
    ``accuracy``, its first number: a scope's ``+2`` is left to the GM)."""
    bulk: int | None = None
    """GURPS: a ranged weapon's Bulk (−4), for Move and Attack (B365)."""
    shots: str | None = None
    """GURPS: a ranged weapon's Shots as its table writes it (``1(2)``, ``T(1)``,
    ``30+1(3)``, ``5(3i)``; B269-B270): the shots before a reload, and the one-second
    Ready maneuvers a reload takes (the simulator's reload)."""

    @property
    def full_name(self) -> str:
        """``Natural Attacks (Punch)``: the item, and its usage when it has one."""
        return f"{self.name} ({self.usage})" if self.usage else self.name


@dataclass(frozen=True, slots=True)
class Sheet:
    """A character as referee read it. Fields that only one system has are None in
    the others."""

    system: str
    """``gurps``, ``swn`` or ``fudge``: which rules the sheet is for."""
    name: str
    """The character's name."""
    source: str
    """What it was read from: ``GCS version 5``, ``TOML``, ``Foundry swnr actor``."""
    traits: tuple[Trait, ...] = ()
    """Everything a roll can name, in the sheet's order."""
    attacks: tuple[Attack, ...] = ()
    """Weapons and natural attacks."""
    swing: str | None = None
    """GURPS: basic swing damage (``1d-2``), as the sheet computed it."""
    thrust: str | None = None
    """GURPS: basic thrust damage (``1d-3``)."""
    level: int | None = None
    """SWN: character level."""
    attack_bonus: int | None = None
    """SWN: base attack bonus."""
    ac: int | None = None
    """SWN: Armor Class."""
    hp: int | None = None
    """Hit points at full health: SWN's, or GURPS's HP (a GCS file's HP pool, a TOML
    sheet's ``hp``)."""
    dr: tuple[tuple[str, int], ...] = ()
    """GURPS: the armor's DR by hit location (``("torso", 2)``; a GCS file's body
    locations less the body's own DR, such as the skull's 2; a TOML sheet's ``dr``);
    empty when not given."""
    fp: int | None = None
    """GURPS: fatigue points at full strength (a GCS file's FP pool, a TOML sheet's
    ``fp``); None when not given (the rules then take HT, B16)."""
    basic_speed: Fraction | None = None
    """GURPS: Basic Speed as the sheet computed it (``27/4`` for 6.75, B17); None when
    not given (the rules then take (DX + HT) / 4)."""
    hpt: bool = False
    """GURPS: the character has High Pain Threshold (B59): no shock, +3 to HT against
    knockdown and stunning."""
    lpt: bool = False
    """GURPS: the character has Low Pain Threshold (B142): shock doubled, at most −8,
    and −4 to HT against knockdown and stunning."""
    injury_tolerance: tuple[str, ...] = ()
    """GURPS: the forms of Injury Tolerance the character has, of ``diffuse``,
    ``homogenous`` and ``unliving`` (B60; their wounding, B380), recorded only: no rule
    here applies them."""
    ladder: str | None = None
    """Fudge: the built-in ladder the traits are written on (``psi-punk``)."""
    notes: tuple[str, ...] = field(default=())
    """What the reader left out and why (an attack whose damage is not dice+adds)."""

    def dr_at(self, location: str) -> int | None:
        """GURPS: the DR the sheet gives over ``location`` (a random table's ``right leg``
        reads the sheet's ``leg``), else over the torso, else None."""
        table = dict(self.dr)
        key = location.removeprefix("right ").removeprefix("left ")
        return table.get(location, table.get(key, table.get("torso")))

    def of_kind(self, *kinds: Kind) -> tuple[Trait, ...]:
        """The traits of the given kinds (every trait when none is given)."""
        return tuple(t for t in self.traits if not kinds or t.kind in kinds)
