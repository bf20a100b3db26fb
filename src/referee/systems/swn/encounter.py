"""Encounters for the simulator: combatants and each side's tactic, read from TOML.

An encounter file (see ``examples/swn/`` for complete ones)::

    name = "A first-level Warrior vs 3 street thugs"
    max_rounds = 100                 # optional: the round cap

    [sides.thugs]                    # optional: a side's tactic (these are the defaults)
    target = "random"                # "random" or "weakest" (lowest HP) enemy
    stabilize = true                 # spend Main Actions stabilizing fallen allies
    flee = true                      # NPCs whose morale breaks leave the fight

    [[combatants]]
    name = "Thug"
    side = "thugs"
    count = 3                        # Thug 1, Thug 2, Thug 3
    hp = 4                           # also: pc, ac, attack_bonus, skill, dex / dex_mod,
    damage = "1d6"                   # attribute / attribute_mod (the weapon's attribute,
    shock = "1/13"                   # Dex if absent), damage_bonus, lethal, morale,
                                     # heal, int / int_mod, medkit, lazarus

Source: the fields are the quantities of ``003`` ("Combat", "Injury and
Healing", "Morale") and the rules README.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from ...errors import RefereeError, RuleError
from .attributes import attribute_modifier
from .combat import Weapon

__all__ = [
    "Combatant",
    "Encounter",
    "Side",
    "Target",
    "encounter_from_data",
    "load_encounter",
    "load_party",
]

MAX_COMBATANTS = 64
MAX_ROUNDS = 10_000
_FIELDS = {
    "name", "side", "count", "pc", "hp", "ac", "attack_bonus", "skill", "dex", "dex_mod",
    "attribute", "attribute_mod", "damage", "shock", "damage_bonus", "lethal", "morale",
    "heal", "int", "int_mod", "medkit", "lazarus",
}  # fmt: skip


class Target(StrEnum):
    """Whom a side attacks."""

    RANDOM = "random"
    """A uniformly random enemy who is still up."""
    WEAKEST = "weakest"
    """The enemy with the fewest HP (the first listed on a tie)."""


@dataclass(frozen=True, slots=True)
class Side:
    """A side's simple tactic."""

    name: str
    """The side's name."""
    target: Target = Target.RANDOM
    """Whom to attack."""
    stabilize: bool = True
    """Whether members spend their Main Action stabilizing a mortally wounded ally."""
    flee: bool = True
    """Whether NPCs whose morale breaks leave the fight (else they never check)."""


@dataclass(frozen=True, slots=True)
class Combatant:
    """One fighter, with everything the simulator needs."""

    name: str
    side: str
    hp: int
    ac: int = 10
    pc: bool = False
    attack_bonus: int = 0
    skill: int | None = 0
    """Combat skill 0–4, or None for untrained (−2)."""
    dex_mod: int = 0
    """For initiative."""
    attribute_mod: int = 0
    """The weapon's attribute modifier, added to the hit roll, damage and Shock."""
    weapon: Weapon = Weapon()
    damage_bonus: int = 0
    morale: int | None = None
    """NPC morale score; None never breaks. PCs never check."""
    heal: int | None = None
    """Heal skill for stabilizing; None is untrained (−1)."""
    heal_attribute_mod: int = 0
    """The better of the Int and Dex modifiers, for stabilizing."""
    medkit: bool = False
    lazarus: int = 0
    """Lazarus patches carried; one is used (up) per stabilizing attempt while any remain."""


@dataclass(frozen=True, slots=True)
class Encounter:
    """Combatants, sides and the round cap."""

    name: str
    combatants: tuple[Combatant, ...]
    sides: tuple[Side, ...]
    max_rounds: int = 100

    def side_index(self, name: str) -> int:
        """The position of a side in :attr:`sides`."""
        return [s.name for s in self.sides].index(name)


def load_party(path: str | Path) -> list[tuple[str, int, bool]]:
    """Read ``(name, Dex modifier, is a PC)`` for each ``[[combatants]]`` entry of a TOML file,
    for rolling initiative. An encounter file works, and so does a file of one side.

    Raises:
        RuleError: the file is missing or malformed (naming the line and field).
    """
    text, data, where = _read(path)
    raw = data.get("combatants")
    fail = _failer(text, where)
    if not isinstance(raw, list) or not raw:
        raise fail("combatants", "add at least one [[combatants]] table")
    out: list[tuple[str, int, bool]] = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise fail("combatants", "each entry must be a table")
        bad = set(entry) - _FIELDS
        if bad:
            raise fail(sorted(bad)[0], "unknown field", i)
        if not isinstance(entry.get("name"), str) or not entry["name"].strip():
            raise fail("name", "required: a non-empty string", i)
        if "pc" in entry and not isinstance(entry["pc"], bool):
            raise fail("pc", "must be true or false", i)
        count = _int(entry, "count", fail, i, 1, MAX_COMBATANTS) or 1
        dex = _attr(entry, "dex", fail, i)
        name = entry["name"].strip()
        names = [name] if count == 1 else [f"{name} {k}" for k in range(1, count + 1)]
        out.extend((n, dex, entry.get("pc", False)) for n in names)
    return out


def _read(path: str | Path) -> tuple[str, dict[str, Any], str]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleError(f"cannot read {str(path)!r}: {exc}") from None
    return text, encounter_toml(text, str(path)), str(path)


def encounter_toml(text: str, where: str) -> dict[str, Any]:
    """An encounter's TOML, read within the bounds of every file a user sends
    (:mod:`referee.untrusted`: size, nesting, entries, key parts).

    Raises:
        RuleError: over a bound, or not TOML; naming ``where`` and the line.
    """
    from ...untrusted import UntrustedFileError, load_toml

    try:
        return load_toml(text, "an encounter")
    except UntrustedFileError as exc:
        raise RuleError(f"{where}: {exc}") from None


def load_encounter(path: str | Path) -> Encounter:
    """Read an encounter from a TOML file.

    Raises:
        RuleError: the file is missing or malformed; the message names the file,
            the line and the field.
    """
    text, data, where = _read(path)
    return encounter_from_data(data, text, where)


def _line(text: str, key: str, start: int = 1) -> int:
    lines = text.splitlines()
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for number in range(start, len(lines) + 1):
        if pattern.match(lines[number - 1]):
            return number
    return start


def _failer(text: str, where: str) -> Callable[..., RuleError]:
    """An error builder naming the file, the line of ``key`` (in combatant block ``block``)
    and the field."""
    starts = [n for n, line in enumerate(text.splitlines(), 1) if line.strip() == "[[combatants]]"]

    def fail(key: str, problem: str, block: int | None = None) -> RuleError:
        start = starts[block] if block is not None and block < len(starts) else 1
        return RuleError(f"{where}, line {_line(text, key, start)}, field {key!r}: {problem}")

    return fail


def encounter_from_data(
    data: dict[str, Any], text: str = "", where: str = "encounter"
) -> Encounter:
    """Build an :class:`Encounter` from parsed TOML (or JSON) data; errors name line and field."""
    fail = _failer(text, where)
    unknown = set(data) - {"name", "max_rounds", "sides", "combatants"}
    if unknown:
        raise fail(
            sorted(unknown)[0], "unknown field (expected name, max_rounds, sides, combatants)"
        )
    name = data.get("name", Path(where).stem)
    if not isinstance(name, str):
        raise fail("name", "must be a string")
    max_rounds = data.get("max_rounds", 100)
    if not isinstance(max_rounds, int) or not 1 <= max_rounds <= MAX_ROUNDS:
        raise fail("max_rounds", f"must be an integer from 1 to {MAX_ROUNDS}")
    raw = data.get("combatants")
    if not isinstance(raw, list) or not raw:
        raise fail("combatants", "add at least one [[combatants]] table")
    fighters: list[Combatant] = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise fail("combatants", "each entry must be a table")
        try:
            fighters.extend(_combatants(entry, i, fail))
        except RuleError:
            raise
        except RefereeError as exc:  # a dice expression that does not parse
            raise fail("damage", str(exc), i) from None
        if len(fighters) > MAX_COMBATANTS:
            raise fail("count", f"at most {MAX_COMBATANTS} combatants in all", i)
    names = [c.name for c in fighters]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise fail("name", f"two combatants are called {dup!r}")
    sides = _sides(data.get("sides", {}), fighters, fail)
    if len(sides) < 2:
        raise fail("side", "an encounter needs combatants on at least two sides")
    return Encounter(name, tuple(fighters), sides, max_rounds)


def _sides(raw: Any, fighters: list[Combatant], fail: Any) -> tuple[Side, ...]:
    if not isinstance(raw, dict):
        raise fail("sides", "must be a table of side names")
    out: dict[str, Side] = {}
    for side_name, spec in raw.items():
        if not isinstance(spec, dict):
            raise fail(side_name, "a side is a table with target, stabilize, flee")
        bad = set(spec) - {"target", "stabilize", "flee"}
        if bad:
            raise fail(sorted(bad)[0], "unknown field (expected target, stabilize, flee)")
        target = spec.get("target", "random")
        if target not in ("random", "weakest"):
            raise fail("target", f"{target!r} is not a tactic: random or weakest")
        flags = {}
        for key in ("stabilize", "flee"):
            value = spec.get(key, True)
            if not isinstance(value, bool):
                raise fail(key, "must be true or false")
            flags[key] = value
        out[side_name] = Side(side_name, Target(target), **flags)
    used = list(dict.fromkeys(c.side for c in fighters))
    for side_name in out:
        if side_name not in used:
            raise fail(side_name, "no combatant is on this side")
    return tuple(out.get(s, Side(s)) for s in used)


def _int(entry: dict[str, Any], key: str, fail: Any, block: int, lo: int, hi: int) -> int | None:
    if key not in entry:
        return None
    value = entry[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise fail(key, "must be an integer", block)
    if not lo <= value <= hi:
        if key == "hp" and value < 0:
            raise fail(key, f"hp {value} is negative", block)
        raise fail(key, f"{value} is outside {lo}..{hi}", block)
    return value


def _attr(entry: dict[str, Any], key: str, fail: Any, block: int) -> int:
    score = _int(entry, key, fail, block, -1000, 1000)
    mod = _int(entry, f"{key}_mod", fail, block, -1000, 1000)
    if score is not None and mod is not None:
        raise fail(f"{key}_mod", f"give {key} or {key}_mod, not both", block)
    if score is not None:
        if not 3 <= score <= 18:
            raise fail(key, f"{key} score {score} is outside 3-18", block)
        return attribute_modifier(score)
    if mod is not None and not -2 <= mod <= 2:
        raise fail(f"{key}_mod", f"{mod:+d} is outside -2..+2", block)
    return mod or 0


def _skill(
    entry: dict[str, Any], key: str, fail: Any, block: int, default: int | None
) -> int | None:
    value = entry.get(key, default)
    if value is None or value == "untrained":
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 4:
        raise fail(key, 'a skill level is 0-4, or "untrained"', block)
    return value


def _combatants(entry: dict[str, Any], block: int, fail: Any) -> list[Combatant]:
    bad = set(entry) - _FIELDS
    if bad:
        raise fail(sorted(bad)[0], "unknown field", block)
    for key in ("name", "side"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise fail(key, "required: a non-empty string", block)
    hp = _int(entry, "hp", fail, block, 1, 100_000)
    if hp is None:
        raise fail("hp", "required: the combatant's hit points", block)
    for key in ("pc", "lethal", "medkit"):
        if key in entry and not isinstance(entry[key], bool):
            raise fail(key, "must be true or false", block)
    damage = entry.get("damage", "1d6")
    shock = entry.get("shock")
    if not isinstance(damage, str):
        raise fail("damage", 'must be a dice expression such as "1d8"', block)
    if shock is not None and not isinstance(shock, str):
        raise fail("shock", 'must be written "AMOUNT/AC", e.g. "2/15"', block)
    try:
        weapon = Weapon.make(damage, shock, lethal=entry.get("lethal", True))
    except RuleError as exc:
        raise fail("shock", str(exc), block) from None
    dex = _attr(entry, "dex", fail, block)
    attribute = (
        _attr(entry, "attribute", fail, block)
        if ("attribute" in entry or "attribute_mod" in entry)
        else dex
    )
    pc = entry.get("pc", False)
    morale = _int(entry, "morale", fail, block, 0, 20)
    count = _int(entry, "count", fail, block, 1, MAX_COMBATANTS) or 1
    ac = _int(entry, "ac", fail, block, -100, 100)
    base = dict(
        side=entry["side"],
        hp=hp,
        ac=10 if ac is None else ac,
        pc=pc,
        attack_bonus=_int(entry, "attack_bonus", fail, block, -100, 100) or 0,
        skill=_skill(entry, "skill", fail, block, 0),
        dex_mod=dex,
        attribute_mod=attribute,
        weapon=weapon,
        damage_bonus=_int(entry, "damage_bonus", fail, block, -100, 100) or 0,
        morale=None if pc else morale,
        heal=_skill(entry, "heal", fail, block, None),
        heal_attribute_mod=max(_attr(entry, "int", fail, block), dex),
        medkit=entry.get("medkit", False),
        lazarus=_int(entry, "lazarus", fail, block, 0, 1000) or 0,
    )
    name = entry["name"].strip()
    if count == 1:
        return [Combatant(name=name, **base)]
    return [Combatant(name=f"{name} {k}", **base) for k in range(1, count + 1)]
