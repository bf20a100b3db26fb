"""Stars Without Number commands from a character sheet: what ``swn save physical``,
``swn check Dex/Shoot``, ``swn attack "Laser Rifle"``, ``swn stabilize`` and ``swn
initiative --sheet a.toml --sheet b.toml`` read from the characters' sheets
(``--sheet FILE``, else ``$REFEREE_SHEET`` or the caller's sheet).

* A save reads the level and the save's two attributes; stabilizing, Heal and the
  better of Int and Dex; an attack with no weapon named, the attack bonus. None
  needs a sheet: with none, they read the options as before.
* A check names ``[Attribute/]Skill`` (``Shoot`` alone: its usual attribute, or
  the pairs to choose from); an attack names a weapon. These need a sheet.
* A skill not on the sheet is untrained (−1 in a check, −2 in an attack) when it is
  one of the rules' skills (:data:`referee.systems.swn.SKILLS`); any other unknown
  name is refused. Options override the sheet, and the text says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import typer

from ..errors import RuleError, SheetError
from ..systems import swn
from .result import Reply
from .sheeted import maybe_sheet, override, sheet_for, trait_json
from .swn_options import (
    ENCOUNTER_HELP,
    PARTY_HELP,
    Given,
    SheetsOpt,
    attr_params,
    gather_attrs,
    resolved_options,
    skill_words,
)

if TYPE_CHECKING:
    from ..sheets import Attack, Sheet, Trait

# The sheets' model is imported where a name is read from a sheet: ``referee swn save
# physical --level 3`` reads none (issue 74).

__all__ = ["ENCOUNTER_HELP", "PARTY_HELP", "Attacker", "Given", "Read", "SheetsOpt",
           "attr_params", "for_attack", "for_check", "for_save",
           "for_stabilize", "gather_attrs"]  # fmt: skip

_FULL = {"strength": "str", "dexterity": "dex", "constitution": "con",
         "intelligence": "int", "wisdom": "wis", "charisma": "cha"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Read:
    """What a command read from a sheet, for its text and JSON (nothing with no sheet)."""

    sheet: Sheet | None = None
    """The sheet read, if any."""
    label: str | None = None
    """The names the text starts with: ``Dex/Shoot check``, ``Laser Rifle``, ``Int/Heal``."""
    used: tuple[str, ...] = ()
    """The values read: ``level 3``, ``Dex 16 (+1)``, ``Shoot 1``."""
    notes: tuple[str, ...] = ()
    """Options over the sheet: ``--level 5 over the sheet's 3``."""
    json: Mapping[str, Any] = field(default_factory=dict)
    """What the result's JSON gains: ``trait``, ``attribute``, ``weapon``..."""

    def reply(self, reply: Reply) -> Reply:
        """``reply`` with what was read from the sheet and the options over it at the end
        of its first line, and ``sheet``, ``overrides`` and :attr:`json` in its JSON."""
        if self.sheet is None:
            return reply
        tail = f"; from {self.sheet.name}'s sheet: {', '.join(self.used)}" if self.used else ""
        tail += "".join(f"; {n}" for n in self.notes)
        first, newline, rest = reply.text.partition("\n")
        text = first + tail + newline + rest
        data = {**reply.data, **self.json, "sheet": self.sheet.name,
                "overrides": list(self.notes), "text": text}  # fmt: skip
        return Reply(data, text)


class Attacker(NamedTuple):
    """An attack's values once the sheet and the options are read."""

    attack_bonus: int
    skill: int | None
    """The combat skill's level; None when untrained (−2)."""
    assumed: str | None
    """What the skill took for granted (``skill 0 (not given...)``, ``Stab untrained...``)."""
    damage: str
    shock: str | None
    attrs: dict[str, int]
    """The attribute that counts, name to modifier (at most one)."""


def _mod(t: Trait) -> int:
    return swn.attribute_modifier(t.level, t.name)


def _shown(t: Trait) -> str:
    """``Dex 16 (+1)``."""
    return f"{t.name} {t.level} ({_mod(t):+d})"


def _attribute(sheet: Sheet, key: str) -> Trait | None:
    """The sheet's attribute ``key`` (``dex``), if it records one."""
    from ..sheets import Kind

    return next((t for t in sheet.of_kind(Kind.ATTRIBUTE) if t.name.casefold() == key), None)


def _attribute_key(text: str) -> str:
    """``dex`` for ``Dex`` or ``Dexterity``.

    Raises:
        RuleError: not an attribute's name.
    """
    key = text.strip().casefold()
    key = _FULL.get(key, key)
    if key not in swn.ATTRIBUTES:
        raise RuleError(
            f"{text!r} is not an attribute (Str, Dex, Con, Int, Wis or Cha): write a check "
            "as Attribute/Skill (Dex/Shoot), or the skill alone (Shoot)"
        )
    return key


def _json(trait: Trait | None, sheet: Sheet) -> dict[str, Any] | None:
    return None if trait is None else trait_json(trait, sheet)


def _skill(sheet: Sheet, name: str) -> tuple[Trait | None, str, str | None]:
    """The sheet's skill ``name``: its trait (None when untrained), the name the text
    gives it (the rules' spelling: ``Shoot``), and, when untrained, what the text says.

    Raises:
        SheetError: a name that is neither on the sheet nor one of the rules' skills
            (naming the character), or that matches several of the sheet's skills.
    """
    from ..sheets import Kind, find_trait
    from ..sheets.match import normal

    try:
        trait = find_trait(sheet, name, (Kind.SKILL,))
    except SheetError:
        known, q = swn.skill_name(name), normal(name)
        skills = sheet.of_kind(Kind.SKILL)
        if known is None or any(normal(t.full_name).startswith(q) for t in skills):
            raise
        return None, known, f"{known} untrained: not on {sheet.name}'s sheet"
    return trait, swn.skill_name(trait.full_name) or trait.full_name, None


@dataclass(slots=True)
class _Reading:
    """A sheet being read for one roll: the values used, the options over them (the
    notes) and what the JSON gains."""

    sheet: Sheet
    used: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    found: dict[str, Any] = field(default_factory=dict)

    def done(self, label: str | None = None) -> Read:
        """The :class:`Read` of it all."""
        return Read(self.sheet, label, tuple(self.used), tuple(self.notes), self.found)

    def note(self, *notes: str | None) -> None:
        """Add the notes that are not None."""
        self.notes.extend(n for n in notes if n)

    def skill(
        self, name: str, skill: int | None, untrained: bool
    ) -> tuple[int | None, str | None, str]:
        """The level of the skill ``name`` (None: untrained), what it assumed, and the name
        the text gives it: ``--skill`` or ``--untrained`` over the sheet's (noted), else
        the sheet's. Raises as :func:`_skill`."""
        trait, shown, untrained_note = _skill(self.sheet, name)
        self.found["trait"] = _json(trait, self.sheet)
        on_sheet = None if trait is None else trait.level
        if skill is not None or untrained:
            level, _ = swn.assume_skill(skill, untrained)
            if untrained and on_sheet is not None:
                self.note(f"--untrained over the sheet's {shown} {on_sheet}")
            if skill is not None and on_sheet is None:
                self.note(f"--skill {skill} over the sheet's {shown} (untrained)")
            self.note(None if skill is None else override("--skill", skill, on_sheet))
            return level, None, shown
        self.used.extend([] if trait is None else [f"{shown} {on_sheet}"])
        return on_sheet, untrained_note, shown

    def attributes(
        self, keys: Sequence[str], attrs: Given
    ) -> tuple[dict[str, int], dict[str, Trait]]:
        """The modifiers of the attributes ``keys`` from the sheet, each overridden by
        its option (noted); options for other attributes are kept, for the rule to
        refuse as it does without a sheet. Also the sheet's traits used, by key."""
        merged: dict[str, int] = dict(attrs)
        traits: dict[str, Trait] = {}
        for key in keys:
            t = _attribute(self.sheet, key)
            if t is not None and key in attrs:
                flag, value = attrs.flags.get(key, (f"--{key}-mod", attrs[key]))
                if not flag.endswith("-mod"):
                    self.note(override(flag, value, t.level))
                elif value != _mod(t):
                    self.note(f"{flag} {value:+d} over the sheet's {_shown(t)}")
            elif t is not None:
                merged[key], traits[key] = _mod(t), t
                self.used.append(_shown(t))
        return merged, traits


def _usual(sheet: Sheet, name: str) -> str:
    """The usual attribute of the skill ``name`` on the sheet (``Dex``); where it names
    none, a RuleError lists each Attribute/Skill pair with its total, to choose from
    (*Stars Without Number Revised*, "Skill Checks": the most relevant attribute)."""
    from ..sheets import Kind

    trait, shown, _ = _skill(sheet, name)
    if trait is not None and trait.attribute:
        return trait.attribute.title()
    level = -1 if trait is None else trait.level
    pairs = [f"{t.name}/{shown} ({level + _mod(t):+d})" for t in sheet.of_kind(Kind.ATTRIBUTE)]
    raise RuleError(
        f"{shown} has no usual attribute on {sheet.name}'s sheet: name one, as "
        f"swn check Attribute/{shown}: " + ", ".join(pairs)
    )


def for_save(
    ctx: typer.Context, path: str | None, kind: swn.SaveKind, level: int | None, attrs: Given
) -> tuple[int, dict[str, int], Read]:
    """A save's level and attribute modifiers: the options, over the sheet's if one is
    given (the level, and the save's two attributes).

    Raises:
        SheetError: an unreadable sheet, or one for another system.
    """
    sheet = maybe_sheet(ctx, path, "swn", "swn save")
    if sheet is None:
        return (1 if level is None else level), dict(attrs), Read()
    r = _Reading(sheet)
    if level is None:
        level = sheet.level or 1
        r.used.append(f"level {level}")
    r.note(override("--level", level, sheet.level))
    merged, traits = r.attributes(kind.attributes, attrs)
    r.found = {"level": level, "attributes": [trait_json(t, sheet) for t in traits.values()]}
    resolved_options(ctx, None, {k: merged[k] for k in traits}, {"level": str(level)})
    return level, merged, r.done()


def for_check(
    ctx: typer.Context, path: str | None, name: str | None, skill: int | None,
    untrained: bool, attrs: Given,
) -> tuple[int | None, str | None, dict[str, int], Read]:  # fmt: skip
    """A check's skill level (None: untrained), what it assumed, and the attribute
    modifier: from the options, or the ``[Attribute/]Skill`` named, read from the sheet
    (the options over it).

    Raises:
        CommandError: a name and no sheet.
        RuleError: not ``Attribute/Skill``; an attribute option besides the one named.
        SheetError: an unknown skill (not one of the rules' either) or attribute.
    """
    from ..sheets import Kind, find_trait

    if name is None:
        return (*swn.assume_skill(skill, untrained), dict(attrs), Read())
    sheet = sheet_for(ctx, path, "swn", "swn check", name)
    r, merged, head = _Reading(sheet), dict(attrs), ""
    first, slash, rest = name.partition("/")
    if not slash and not attrs:  # the skill's usual attribute, never an unsaid +0
        first, slash, rest = _usual(sheet, name), "/", name
    if slash:  # the attribute first, as in Dex/Shoot
        key = _attribute_key(first)
        other = [a for a in attrs if a != key]
        if other:
            raise RuleError(
                f"{name!r} names {key.title()}; --{other[0]} names another attribute "
                f"(give --{key} to override the sheet's {key.title()})"
            )
        attribute = find_trait(sheet, key.title(), (Kind.ATTRIBUTE,))
        merged, _ = r.attributes((key,), attrs)
        r.found["attribute"] = trait_json(attribute, sheet)
        head = f"{attribute.name}/"
    level, assumed, shown = r.skill(rest if slash else name, skill, untrained)
    label = f"{head}{shown} check"
    mods = {k: merged[k] for k in merged if k not in attrs}
    resolved_options(ctx, label, mods, {"name": None, **skill_words(level)})
    return level, assumed, merged, r.done(label)


def for_attack(
    ctx: typer.Context, path: str | None, name: str | None, *, attack_bonus: int | None,
    skill: int | None, untrained: bool, damage: str | None, shock: str | None, attrs: Given,
) -> tuple[Attacker, Read]:  # fmt: skip
    """An attack's values: the options, over the sheet's attack bonus (if a sheet is
    given) and the named weapon's skill, attributes, damage and Shock.

    Raises:
        CommandError: a weapon named and no sheet.
        SheetError: no such weapon; its skill neither on the sheet nor the rules'.
    """
    from ..sheets import find_attack

    if name is None:
        sheet = maybe_sheet(ctx, path, "swn", "swn attack")
    else:
        sheet = sheet_for(ctx, path, "swn", "swn attack", name)
    level, assumed = swn.assume_skill(skill, untrained, "; --untrained for none: -2")
    plain = Attacker(attack_bonus or 0, level, assumed, damage or "1d6", shock, dict(attrs))
    if sheet is None:
        return plain, Read()
    r = _Reading(sheet)
    bonus = sheet.attack_bonus if attack_bonus is None else attack_bonus
    if attack_bonus is None and bonus is not None:
        r.used.append(f"attack bonus {bonus:+d}")
    r.note(
        None
        if attack_bonus is None
        else override("--attack-bonus", attack_bonus, sheet.attack_bonus)
    )
    if name is None:
        resolved_options(ctx, None, {}, {"attack_bonus": str(bonus or 0)})
        return plain._replace(attack_bonus=bonus or 0), r.done()
    weapon = find_attack(sheet, name)
    if weapon.skill is not None:
        level, assumed, _ = r.skill(weapon.skill, skill, untrained)
    chosen, attribute = _weapon_attribute(r, weapon, attrs)
    dmg = _text_option(r, "--damage", damage, weapon.damage, "damage")
    shock_text = _text_option(r, "--shock", shock, weapon.shock, "Shock")
    r.found.update(weapon=_weapon_json(weapon, sheet), attribute=_json(attribute, sheet))
    r.found.setdefault("trait", None)
    if weapon.attack_bonus and attack_bonus is None:
        r.used.append(f"{weapon.name}'s own attack bonus {weapon.attack_bonus:+d}")
        bonus = (bonus or 0) + weapon.attack_bonus
    out = Attacker(bonus or 0, level, assumed, dmg or "1d6", shock_text, chosen)
    words = {"name": None, "attack_bonus": str(out.attack_bonus), "damage": out.damage,
             "shock": out.shock, **skill_words(level)}  # fmt: skip
    resolved_options(ctx, weapon.full_name, chosen, words, clear=bool(weapon.attributes))
    return out, r.done(weapon.full_name)


def _text_option(
    r: _Reading, flag: str, given: str | None, on_sheet: str | None, what: str
) -> str | None:
    """A weapon's damage or Shock: the option over the sheet's (noted), else the sheet's."""
    from ..sheets.match import normal

    if given is None:
        r.used.extend([] if on_sheet is None else [f"{what} {on_sheet}"])
        return on_sheet
    if on_sheet is None:
        r.note(f"{flag} {given}: the sheet gives none")
    elif normal(given) != normal(on_sheet):
        r.note(f"{flag} {given} over the sheet's {on_sheet}")
    return given


def _weapon_attribute(
    r: _Reading, weapon: Attack, attrs: Given
) -> tuple[dict[str, int], Trait | None]:
    """The attribute an attack with ``weapon`` uses, as name to modifier: the better of
    the weapon's attributes on the sheet, each overridden by its option; an option for
    an attribute the weapon does not name replaces the weapon's (noted). Also the
    sheet's trait, when it is the one used."""
    if not weapon.attributes:
        return dict(attrs), None
    if attrs and not set(attrs) <= set(weapon.attributes):
        given = ", ".join(f"{f} {v}" for f, v in attrs.flags.values())
        r.note(f"{given} over the {weapon.name}'s {'/'.join(a.title() for a in weapon.attributes)}")
        return dict(attrs), None
    merged, traits = r.attributes(weapon.attributes, attrs)
    best = max(merged, key=lambda k: merged[k], default=None)
    return ({}, None) if best is None else ({best: merged[best]}, traits.get(best))


def _weapon_json(weapon: Attack, sheet: Sheet) -> dict[str, Any]:
    """``{"name", "damage", "skill", "attributes", "shock", "sheet"}``: the sheet's weapon."""
    return {"name": weapon.full_name, "damage": weapon.damage, "skill": weapon.skill,
            "attributes": list(weapon.attributes), "shock": weapon.shock,
            "attack_bonus": weapon.attack_bonus, "sheet": sheet.name}  # fmt: skip


def for_stabilize(
    ctx: typer.Context, path: str | None, skill: int | None, untrained: bool, attrs: Given
) -> tuple[int | None, str | None, dict[str, int], Read]:
    """Stabilizing's Heal level (None: untrained), what it assumed, and the Int and Dex
    modifiers: the options, over the sheet's if one is given.

    Raises:
        SheetError: an unreadable sheet, or one for another system.
    """
    sheet = maybe_sheet(ctx, path, "swn", "swn stabilize")
    if sheet is None:
        return (*swn.assume_skill(skill, untrained), dict(attrs), Read())
    r = _Reading(sheet)
    level, assumed, shown = r.skill("Heal", skill, untrained)
    merged, traits = r.attributes(("int", "dex"), attrs)
    pick = max((k for k in ("int", "dex") if k in merged), key=lambda k: merged[k], default=None)
    r.found["attribute"] = _json(None if pick is None else traits.get(pick), sheet)
    label = shown if pick is None else f"{pick.title()}/{shown}"
    resolved_options(ctx, label, {k: merged[k] for k in traits}, skill_words(level))
    return level, assumed, merged, r.done(label)
