"""GURPS commands by trait name: what ``gurps check Stealth -2`` or ``gurps damage Punch``
means once the character's sheet is read.

* A skill written with its level (``Broadsword-14``, ``14-2``) is read as before,
  and no sheet is opened.
* A name (``Stealth``, ``Fast-Draw (Knife) -2``, ``DX``, ``Per -2``, ``Dodge``, a
  technique or a spell) is looked up on the sheet (:func:`referee.sheets.find_trait`):
  its level is the one the sheet records, and a space separates it from modifiers.
* Damage is dice+adds (``2d+1``), dice+adds with a type and an armor divisor
  (``4d(3) burn``), the sheet's swing or thrust (``sw+2 cut``, ``thr``: only these
  abbreviations; ``Swing`` or ``Thrust`` spelled out name an attack's usage), or an
  attack's name (``Punch``, ``Natural Attacks (Bite)``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import typer

from ..errors import RuleError, SheetError
from ..systems import gurps as g
from .sheeted import sheet_for, trait_json

if TYPE_CHECKING:
    from ..sheets import Attack, Sheet, Trait

# The sheets' model and GURPS's damage rules are imported where a name is read from a
# sheet or a damage is typed, not by every command that may take them: ``referee gurps
# check 12`` reads neither (issue 74).

__all__ = ["Damage", "Skill", "best_defense", "defense_level", "resolve_damage", "resolve_skill"]

_NUMBER = re.compile(r"^\s*(-?\d+)")
_DEFENSE = re.compile(r"^(parry|block)\b\s*(.*)$", re.I)

_EXPLICIT = re.compile(r"^\s*(.*?[A-Za-z)\]])-(\d.*)$")
"""``Broadsword-14``: a name and its level, with no space before the dash."""
_NAME_MODS = re.compile(r"^\s*(?P<name>.*?)(?P<mods>(?:\s+[+-]\s*\d+(?:\s*[+-]\s*\d+)*)?)\s*$")
_SWING = re.compile(r"^\s*(?P<base>sw|thr)\s*(?P<adds>[+-]\s*\d+)?(?:\s+(?P<type>\S+))?\s*$", re.I)


@dataclass(frozen=True, slots=True)
class Skill:
    """A success roll's target once read: the explicit skill text, and the trait it
    came from (None when the level was typed)."""

    text: str
    """What :func:`referee.systems.gurps.read_skill` reads: ``15-2``, ``Broadsword-14``."""
    trait: Trait | None = None
    """The sheet's trait, when a name was looked up."""
    sheet: Sheet | None = None
    """The sheet it came from."""

    @property
    def label(self) -> str | None:
        """The trait's full name, the label of a roll made by name."""
        return None if self.trait is None else self.trait.full_name

    @property
    def defense(self) -> bool:
        """Dodge is a defense roll (allowed below 3, ``000``)."""
        if self.trait is None:
            return False
        from ..sheets import Kind

        return self.trait.kind is Kind.DEFENSE

    def json(self) -> dict[str, Any] | None:
        """The ``trait`` of the result's JSON, or None."""
        if self.trait is None or self.sheet is None:
            return None
        return trait_json(self.trait, self.sheet)

    def words(self) -> list[str]:
        """The target as typed with no sheet: the level, then the modifiers
        (``["15", "-2"]``; ``["15"]``)."""
        level = str(self.trait.level) if self.trait is not None else self.text
        mods = self.text[len(level) :] if self.text.startswith(level) else ""
        return [self.text] if not mods else [level, mods]


def _typed(text: str) -> bool:
    """Whether a skill is written with its level: a number first, or ``Name-14``."""
    if not text[:1].isalpha():
        return True
    explicit = _EXPLICIT.match(text)
    if explicit is None or re.search(r"\s-", text[: explicit.end(1) + 1]):
        return False
    try:
        g.read_skill(text)
    except RuleError:
        return False
    return True


def resolve_skill(ctx: typer.Context, text: str, path: str | None, command: str) -> Skill:
    """Read a success roll's target: typed (``14-2``, ``Broadsword-14``) or a name on the
    sheet (``Stealth -2``), whose level replaces the name.

    Source: ``000``, "Base Skill vs Effective Skill" ("your base skill is your actual
    level in a skill, as recorded on your character sheet").

    Raises:
        CommandError: a name with no sheet to read it from.
        SheetError: the sheet has no such trait, or several (each listed).
    """
    text = " ".join(text.split())
    if _typed(text):
        return Skill(text)
    found = _NAME_MODS.match(text)
    assert found is not None  # the pattern matches any text
    name, mods = found.group("name"), found.group("mods").replace(" ", "")
    sheet = sheet_for(ctx, path, "gurps", command, name)
    from ..sheets import Kind, find_trait

    rolled = (Kind.ATTRIBUTE, Kind.SKILL, Kind.TECHNIQUE, Kind.SPELL, Kind.DEFENSE)
    try:
        trait = find_trait(sheet, name, rolled)
    except SheetError as exc:
        if " has no " not in str(exc):
            raise  # several traits match: the player names one
        weapon = _from_weapons(sheet, name)
        if weapon is None:
            raise
        trait = weapon
    return Skill(f"{trait.level}{mods}", trait, sheet)


def _from_weapons(sheet: Sheet, name: str) -> Trait | None:
    """A name that is no trait but a weapon (``Sai (Swing)``: its level as the sheet
    saved it), or a defense with one (``Parry Broadsword``; ``Parry`` or ``Block``
    alone: the sheet's best), read from the sheet's weapons; None if neither."""
    from ..sheets import Kind, Trait, find_attack

    defense = _DEFENSE.match(name.strip())
    if defense is not None:
        which, rest = defense.group(1).lower(), defense.group(2).strip()
        if rest:
            weapon = find_attack(sheet, rest)
            level = defense_level(getattr(weapon, which))
            if level is None:
                raise RuleError(f"{weapon.full_name} cannot {which} on {sheet.name}'s sheet")
        else:
            best = best_defense(sheet.attacks, which)
            if best is None:
                raise RuleError(f"{sheet.name}'s sheet has no weapon that can {which}")
            level, weapon = best
        return Trait(which.title(), weapon.full_name, level, Kind.DEFENSE)
    try:
        weapon = find_attack(sheet, name)
    except SheetError:
        return None
    if weapon.level is None:
        return None
    return Trait(weapon.name, weapon.usage, weapon.level, Kind.SKILL)


def defense_level(text: str | None) -> int | None:
    """A Parry or Block as GCS saves it: ``10``, ``9F`` (fencing), ``8U``; None for
    ``No``, ``-`` or nothing."""
    if not text:
        return None
    found = _NUMBER.match(text)
    return int(found.group(1)) if found else None


def best_defense(attacks: tuple[Attack, ...], which: str) -> tuple[int, Attack] | None:
    """The highest Parry (or Block) among a sheet's weapons, with its weapon."""
    found = [(level, a) for a in attacks if (level := defense_level(getattr(a, which))) is not None]
    return max(found, key=lambda item: item[0]) if found else None


@dataclass(frozen=True, slots=True)
class Damage:
    """A damage roll's dice once read."""

    expression: str
    """Dice+adds: ``1d-4``."""
    damage_type: str
    """``cr``."""
    divisor: Fraction | None = None
    """An armor divisor, from ``4d(3)`` or the attack's damage."""
    attack: Attack | None = None
    """The sheet's attack, when one was named."""
    sheet: Sheet | None = None
    """The sheet it came from."""
    source: str | None = None
    """Where the dice came from, for the text: ``Punch``, ``swing 1d-2+2``."""
    notes: tuple[str, ...] = ()
    """What the text adds: markers left to the GM, an option over the sheet."""

    def words(self) -> list[str]:
        """The damage as typed with no sheet: dice+adds with the armor divisor, the type
        and the markers (``["2d+1(2)", "cut", "ex"]``)."""
        div = self.divisor
        shown = "" if div is None else f"({div.numerator if div.denominator == 1 else float(div)})"
        from ..systems.gurps.damage import MARKERS

        markers = [n for n in self.notes if n.lower() in MARKERS]
        return [f"{self.expression}{shown}", self.damage_type, *markers]

    def json(self) -> dict[str, Any] | None:
        """The ``attack`` of the result's JSON, or None."""
        if self.sheet is None:
            return None
        a = self.attack
        return {
            "name": None if a is None else a.name,
            "usage": None if a is None else a.usage,
            "damage": self.source if a is None else a.damage,
            "sheet": self.sheet.name,
        }


def resolve_damage(
    ctx: typer.Context, text: str, damage_type: str | None, path: str | None, command: str
) -> Damage:
    """Read a damage roll: dice+adds (with ``--type``, default ``cr``), dice+adds and a
    type as a sheet writes them (``4d(3) burn``), the sheet's swing or thrust plus adds
    (``sw+2 cut``), or an attack's name. ``--type`` given with a sheet's attack
    overrides its type, and the text says so.

    Raises:
        RuleError: a type given twice, or an attack whose damage is not dice+adds.
        CommandError, SheetError: as :func:`resolve_skill`.
    """
    from ..sheets import find_attack
    from ..systems.gurps.damage import damage_type_name, read_damage, with_adds

    text = " ".join(text.split())
    if re.fullmatch(r"\d+d\s*([+-]\s*\d+)?", text):
        return Damage(text.replace(" ", ""), damage_type or "cr")
    if text[:1].isdigit():
        spec = read_damage(text)
        if damage_type is not None and damage_type_name(damage_type) != spec.damage_type:
            raise RuleError(f"{text!r} names its type; --type {damage_type} says another")
        return Damage(spec.expression, spec.damage_type, spec.divisor, notes=spec.notes)
    swing = _SWING.match(text)
    sheet = sheet_for(ctx, path, "gurps", command, text)
    if swing is not None:
        thrust = swing.group("base").lower().startswith("thr")
        base = sheet.thrust if thrust else sheet.swing
        what = "thrust" if thrust else "swing"
        if base is None:
            raise RuleError(f"{sheet.name}'s sheet gives no {what} damage")
        adds = int((swing.group("adds") or "0").replace(" ", ""))
        given = swing.group("type")
        if given is not None and damage_type is not None:
            raise RuleError(f"give the damage type once: {given!r} or --type {damage_type}")
        shown = f"{what} {base}{adds:+d}" if adds else f"{what} {base}"
        return Damage(with_adds(base, adds), given or damage_type or "cr", sheet=sheet,
                      source=shown)  # fmt: skip
    attack = find_attack(sheet, text)
    spec = read_damage(attack.damage)
    notes = spec.notes
    kind = spec.damage_type
    if damage_type is not None and damage_type_name(damage_type) != kind:
        kind = damage_type_name(damage_type)
        notes = (*notes, f"--type {kind} over the sheet's {spec.damage_type}")
    return Damage(spec.expression, kind, spec.divisor, attack, sheet, attack.full_name, notes)
