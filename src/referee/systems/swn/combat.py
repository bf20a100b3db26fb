"""Stars Without Number (revised) combat: initiative, attacks, damage and Shock, with
exact odds (actions per turn are in :mod:`.turns`).

Source: *Stars Without Number Revised*, "Combat" ("Initiative and Rounds",
"Instant Actions", "Attack Resolution", "Shock Damage") and the rules notes on Stars
Without Number (docs/reference/sources.md). Pure functions apart from the
injected random source; results are frozen.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from ...errors import RuleError
from ...fmt import rolled
from ...odds import odds as dice_odds
from ...parser import parse
from ...rng import RandomSource, resolve
from ...roller import draw_faces, roll
from .checks import ByCheck, Check, Kind

__all__ = [
    "Attack",
    "InitiativeEntry",
    "ShockFloor",
    "Weapon",
    "attack",
    "attack_modifier",
    "damage_distribution",
    "hit_odds",
    "initiative",
]

UNTRAINED_COMBAT = -2
"""An untrained combat skill counts as −2 (rules README, "Attack")."""
SNAP_PENALTY = -4
"""A snap attack is at −4 (rules README, "Attack")."""
TOTAL_DEFENSE_AC = 2
"""Total defense gives +2 AC (rules README, "Attack")."""
_SHOCK = re.compile(r"^\s*(\d+)\s*/\s*(?:AC\s*)?(\d+)\s*$", re.IGNORECASE)


TIEBREAK = 1 << 30
"""Ties in initiative between two NPCs (or two PCs) go by a draw from 1..TIEBREAK."""


class ShockFloor(StrEnum):
    """When a hit is raised to the Shock amount (an option: the texts differ in strength)."""

    ALWAYS = "always"
    """The default: "a hit never does less than the Shock amount" (rules README; ``003``,
    "Weapons never do less than Shock damage")."""
    WITHIN_LIMIT = "within-limit"
    """Only against a target whose AC is within the Shock limit."""


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon: its damage dice, and its Shock as ``amount`` / AC ``limit``, if any."""

    damage: str = "1d6"
    """The damage dice, in referee's notation: ``1d8``, ``2d6``."""
    shock: int | None = None
    """Shock damage dealt on a miss (before the attribute modifier and bonuses)."""
    shock_ac: int | None = None
    """Shock harms targets with this AC or less."""
    lethal: bool = True
    """A lethal weapon mortally wounds at 0 HP; a non-lethal one knocks out."""

    def __post_init__(self) -> None:
        parse(self.damage)  # DiceSyntaxError now, not mid-fight
        if (self.shock is None) != (self.shock_ac is None):
            raise RuleError("a weapon's Shock needs both an amount and an AC limit, e.g. 2/15")

    @classmethod
    def make(cls, damage: str, shock: str | None = None, *, lethal: bool = True) -> Weapon:
        """A weapon from CLI-style text: ``Weapon.make("1d8", "2/15")`` (Shock 2 vs AC 15 or less).

        Raises:
            RuleError: unreadable Shock.
        """
        if shock is None or shock.strip().casefold() in ("", "none", "-"):
            return cls(damage, lethal=lethal)
        m = _SHOCK.match(shock)
        if m is None:
            raise RuleError(f"cannot read shock {shock!r}: write AMOUNT/AC, e.g. 2/15")
        return cls(damage, int(m.group(1)), int(m.group(2)), lethal)


def attack_modifier(
    base: int = 0, skill: int | None = 0, attribute: int = 0, *, snap: bool = False
) -> int:
    """The total added to 1d20: attack bonus + combat skill (−2 untrained) + attribute, −4 if snap.

    Source: ``003``, "Attack Resolution" and "Instant Actions"; rules README, "Attack".

    >>> attack_modifier(1, 1, 1), attack_modifier(0, None, 0, snap=True)
    (3, -6)
    """
    skill_mod = UNTRAINED_COMBAT if skill is None else skill
    return base + skill_mod + attribute + (SNAP_PENALTY if snap else 0)


def hits(d: int, bonus: int, ac: int, naturals: bool = False) -> bool:
    """Whether a d20 of ``d`` hits: ``d + bonus ≥ AC``; with ``naturals``, a natural 20
    always hits and a natural 1 always misses (an option, off by default: the texts
    give that rule for saves only, ``003``, "Saving Throw Mechanics")."""
    if naturals and d in (1, 20):
        return d == 20
    return d + bonus >= ac


@functools.lru_cache(maxsize=4096)
def hit_odds(bonus: int, ac: int, naturals: bool = False) -> Fraction:
    """P(1d20 + bonus ≥ AC), by default with no automatic hit or miss (see :func:`hits`).

    Source: ``003``, "Attack Resolution" ("Equal or beat target's AC = hit").

    >>> hit_odds(3, 13), hit_odds(30, 13, naturals=True)
    (Fraction(11, 20), Fraction(19, 20))
    """
    return Fraction(sum(1 for d in range(1, 21) if hits(d, bonus, ac, naturals)), 20)


def _shock_applies(weapon: Weapon, ac: int) -> bool:
    return weapon.shock is not None and weapon.shock_ac is not None and ac <= weapon.shock_ac


def _miss_damage(weapon: Weapon, extra: int, ac: int) -> int:
    """Shock + extra (at least 0) if the target's AC is within the limit, else 0."""
    if weapon.shock is None or weapon.shock_ac is None or ac > weapon.shock_ac:
        return 0
    return max(0, weapon.shock + extra)


def _hit_damage(rolled: int, weapon: Weapon, extra: int, ac: int, floor: ShockFloor) -> int:
    dmg = max(0, rolled + extra)
    if weapon.shock is not None and (floor is ShockFloor.ALWAYS or _shock_applies(weapon, ac)):
        dmg = max(dmg, max(0, weapon.shock + extra))
    return dmg


@functools.lru_cache(maxsize=4096)
def damage_distribution(
    weapon: Weapon,
    bonus: int,
    ac: int,
    extra: int = 0,
    floor: ShockFloor = ShockFloor.ALWAYS,
    naturals: bool = False,
    shock_on_miss: bool = True,
) -> tuple[tuple[int, Fraction], ...]:
    """The exact distribution of the damage one attack deals, Shock included.

    ``bonus`` is the attack roll's total modifier, ``ac`` the target's effective
    AC, ``extra`` the attribute modifier plus damage bonuses added to damage
    and Shock. A hit deals the dice + ``extra`` (at least 0), raised to the
    Shock amount per ``floor``; a miss deals Shock + ``extra`` if the target's
    AC is within the Shock limit (and ``shock_on_miss``: a target on total
    defense is immune), else nothing.

    Source: ``003``, "Attack Resolution" and "Shock Damage"; rules README, "Shock".

    >>> dict(damage_distribution(Weapon("1d4", 1, 15), 0, 11))[1]
    Fraction(5, 8)
    """
    p_hit = hit_odds(bonus, ac, naturals)
    out: dict[int, Fraction] = {}
    for total, p in dice_odds(weapon.damage).distribution.items():
        dmg = _hit_damage(total, weapon, extra, ac, floor)
        out[dmg] = out.get(dmg, Fraction(0)) + p_hit * p
    miss = _miss_damage(weapon, extra, ac) if shock_on_miss else 0
    out[miss] = out.get(miss, Fraction(0)) + (1 - p_hit)
    return tuple(sorted((k, v) for k, v in out.items() if v))


@dataclass(frozen=True, slots=True)
class Attack(ByCheck):
    """A resolved attack: the hit roll (a :class:`Check`), the damage and whether Shock dealt it."""

    check: Check
    """1d20 + modifiers against the target's AC (total defense included)."""
    weapon: Weapon
    """The weapon used."""
    damage_dice: tuple[int, ...]
    """The damage dice rolled on a hit (empty on a miss)."""
    damage: int
    """The damage dealt: on a hit dice + extra, at least Shock; on a miss, Shock or 0."""
    shock: bool
    """True when the Shock rule set the damage (a miss within the AC limit, or a hit raised)."""
    extra: int
    """The attribute modifier plus damage bonuses added to damage and Shock."""
    distribution: tuple[tuple[int, Fraction], ...]
    """The exact distribution of this attack's damage, before it was rolled."""

    kind = "attack"

    @property
    def hit(self) -> bool:
        """Whether the attack hit."""
        return self.check.success

    @property
    def text(self) -> str:
        """The hit roll, then the damage and how it was dealt."""
        head = self.check.text
        if self.hit:
            dice = self.damage_dice
            how = f"{self.weapon.damage} {rolled(sum(dice), dice)}"
            how += f" {self.extra:+d}" if self.extra else ""
            tail = f"{self.damage} damage ({how}{', raised to Shock' if self.shock else ''})"
        elif self.shock:
            tail = f"{self.damage} Shock damage on the miss"
        else:
            tail = "no damage"
        return f"{head}; {tail}"


@dataclass(frozen=True, slots=True)
class AttackOdds:
    """An attack's target and exact odds, known before it is rolled."""

    target: int
    """The AC to meet (+2 on total defense)."""
    hit: Fraction
    """P(hit)."""
    distribution: tuple[tuple[int, Fraction], ...]
    """P(damage = value), Shock on a miss included."""
    shock: Fraction = Fraction(0)
    """P(a miss that still does Shock damage)."""

    def down(self, hp: int) -> Fraction:
        """P(a target at ``hp`` HP is brought to 0: mortally wounded by a lethal attack,
        ``003``, "Mortal Wounds"); 0 for one already at 0."""
        return sum((p for dmg, p in self.distribution if hp > 0 and dmg >= hp), Fraction(0))

    def killed(self, hp: int) -> Fraction:
        """P(a target already at 0 HP, mortally wounded or stabilized, is killed: any
        damage before it recovers, ``003``, "Recovery": "Further damage before recovery
        = instant death"); 0 for one above 0 HP, whom a blow leaves dying at worst."""
        return sum((p for dmg, p in self.distribution if hp <= 0 and dmg > 0), Fraction(0))


def attack_odds(
    *,
    ac: int,
    weapon: Weapon,
    attack_bonus: int = 0,
    skill: int | None = 0,
    attribute: int = 0,
    damage_bonus: int = 0,
    snap: bool = False,
    total_defense: bool = False,
    shock_floor: ShockFloor | str = ShockFloor.ALWAYS,
    naturals: bool = False,
    shock_through_defense: bool = False,
    modifier: int = 0,
) -> AttackOdds:
    """The exact odds of :func:`attack` with the same arguments, without rolling.

    Source: as :func:`attack`.
    """
    eff_ac = ac + (TOTAL_DEFENSE_AC if total_defense else 0)
    bonus = attack_modifier(attack_bonus, skill, attribute, snap=snap) + modifier
    shock = shock_through_defense or not total_defense
    dist = damage_distribution(
        weapon, bonus, eff_ac, attribute + damage_bonus, ShockFloor(shock_floor), naturals, shock
    )
    p_hit = hit_odds(bonus, eff_ac, naturals)
    shock_p = (1 - p_hit) if shock and _miss_damage(weapon, attribute + damage_bonus, eff_ac) else 0
    return AttackOdds(eff_ac, p_hit, dist, Fraction(shock_p))


def attack(
    *,
    ac: int,
    weapon: Weapon,
    attack_bonus: int = 0,
    skill: int | None = 0,
    attribute: int = 0,
    damage_bonus: int = 0,
    snap: bool = False,
    total_defense: bool = False,
    shock_floor: ShockFloor | str = ShockFloor.ALWAYS,
    naturals: bool = False,
    shock_through_defense: bool = False,
    modifier: int = 0,
    assumed: Sequence[str] = (),
    label: str | None = None,
    rng: RandomSource | None = None,
) -> Attack:
    """Resolve one attack: 1d20 + attack bonus + combat skill + attribute against AC, then damage.

    Source: ``003``, "Attack Resolution", "Shock Damage" and "Instant Actions";
    rules README, "Attack" and "Shock" (untrained −2; snap attack −4; total
    defense +2 AC; Shock X/AC Y on a miss against AC ≤ Y, plus the attribute
    modifier and damage bonuses; a hit never does less than Shock, see
    :class:`ShockFloor`).

    Total defense also makes the target immune to Shock, which *Stars Without
    Number* (revised), "Instant Actions: Total Defense", says and the seed
    leaves out: a miss deals no Shock (``shock_through_defense=True`` deals it
    anyway); a hit is not affected. ``naturals`` makes a natural 20 hit and a
    natural 1 miss (off by default: the texts say so of saves only).
    ``modifier`` is a situational modifier to the hit roll, the GM's call (cover,
    range): ``003``, "Attack Resolution", names none, and the ±2 of "Skill Checks:
    Modifiers" is for skill checks, so no ±2 cap applies; 0, and not shown, by default.
    ``assumed`` names what the caller took for granted (``AC 10 (not given)``).
    """
    floor = ShockFloor(shock_floor)
    shock = shock_through_defense or not total_defense
    eff_ac = ac + (TOTAL_DEFENSE_AC if total_defense else 0)
    bonus = attack_modifier(attack_bonus, skill, attribute, snap=snap) + modifier
    extra = attribute + damage_bonus
    src = resolve(rng)
    (d,) = draw_faces(src, 1, 20)
    mods = [
        ("attack bonus", attack_bonus),
        ("skill", UNTRAINED_COMBAT if skill is None else skill),
        ("attribute", attribute),
    ]
    if snap:
        mods.append(("snap attack", SNAP_PENALTY))
    if modifier:
        mods.append(("modifier", modifier))
    hit = hits(d, bonus, eff_ac, naturals)
    notes = []
    if naturals and d in (1, 20):
        notes.append(f"natural {d}")
    if total_defense:
        notes.append("total defense +2 AC" + ("" if shock else ", immune to Shock"))
    check = Check(
        Kind.ATTACK,
        (d,),
        tuple(mods),
        eff_ac,
        hit,
        hit_odds(bonus, eff_ac, naturals),
        note="; ".join(notes),
        label=label or "Attack",
        assumed=tuple(assumed),
    )
    dist = damage_distribution(weapon, bonus, eff_ac, extra, floor, naturals, shock)
    if hit:
        damage_roll = roll(weapon.damage, rng=src)
        rolled = damage_roll.total
        dice = tuple(x.value for x in damage_roll.dice)
        dmg = _hit_damage(rolled, weapon, extra, eff_ac, floor)
        return Attack(check, weapon, dice, dmg, dmg > max(0, rolled + extra), extra, dist)
    miss = _miss_damage(weapon, extra, eff_ac) if shock else 0
    return Attack(check, weapon, (), miss, shock and _shock_applies(weapon, eff_ac), extra, dist)


# --- initiative ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InitiativeEntry:
    """One combatant's initiative: 1d8 + Dex modifier, and the tie-break drawn for it."""

    name: str
    """Who rolled."""
    pc: bool
    """PCs win ties against NPCs."""
    roll: int
    """The d8."""
    modifier: int
    """The Dexterity modifier."""
    tiebreak: int
    """A draw from the same random source, breaking other ties reproducibly."""

    @property
    def total(self) -> int:
        """The d8 plus the Dexterity modifier."""
        return self.roll + self.modifier


def initiative(
    combatants: Sequence[tuple[str, int, bool]], *, rng: RandomSource | None = None
) -> tuple[InitiativeEntry, ...]:
    """Roll initiative once for a combat, and return the acting order, highest first.

    Source: ``003``, "Initiative and Rounds" (1d8 + Dex modifier; highest to
    lowest; PCs win ties); rules README (not rerolled each round). Two NPCs
    (or two PCs) that tie are ordered by a draw from the same source, so a
    seed reproduces the order.

    Args:
        combatants: ``(name, dex modifier, is a PC)`` for each combatant.
    """
    src = resolve(rng)
    entries = [
        InitiativeEntry(name, pc, draw_faces(src, 1, 8)[0], mod, draw_faces(src, 1, TIEBREAK)[0])
        for name, mod, pc in combatants
    ]
    return tuple(sorted(entries, key=lambda e: (-e.total, not e.pc, e.tiebreak)))
