"""GCS (GURPS Character Sheet) files, versions 2 to 5: GCS 4.30 up to today's 5.x.

Levels are the ones GCS computed and saved, never recomputed here:

* skills, techniques and spells: ``calc.level``;
* attributes: ``calc.value`` of each entry of ``attributes``, named by the sheet's
  own ``settings.attributes`` (ST, DX, IQ, HT, Will, Per, Vision, Hearing, Fright
  Check, and any plain integer attribute the sheet defines); pools (HP, FP),
  decimals (Basic Speed), Basic Move, references (``integer_ref``) and separators
  are left out, as no success roll is made against them;
* weapons, on any item: ``calc.level``, ``calc.damage``, ``calc.parry``, ``calc.block``;
* the top-level ``calc``: swing, thrust and dodge (unencumbered);
* for the combat rules: the HP and FP pools' and Basic Speed's ``calc.value`` (named
  in any case by ``attr_id`` or the settings' name), DR by body location, and, of the
  enabled traits (``traits``; ``advantages`` before version 4), High and Low Pain
  Threshold and Injury Tolerance's enabled Diffuse, Homogenous or Unliving modifier
  (:mod:`.advantages`).

Version 5 marks an item's kind by its id's first letter (``s`` skill, ``q``
technique, ``p`` and ``r`` spell, ``t`` trait, ``e`` equipment, ``n`` note;
upper case for a container); versions 2-4 by a ``type`` field, and call traits
``advantages``. Items nest in ``children``. XML files and version 1 (GCS before
4.30) are refused with a message that says how to convert them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from ..errors import SheetError
from .advantages import combat_traits, folded
from .formats import kind_of, load_json, whole_number
from .model import Attack, Kind, Sheet, Trait

__all__ = ["VERSIONS", "gcs_sheet", "is_gcs", "read_gcs"]

VERSIONS = range(2, 6)
"""The GCS file versions read (the top-level ``"version"``)."""

_RESAVE = "open it in a current GCS (5.x) and save it, then use the saved file"

_NAMES = {
    "st": "ST",
    "dx": "DX",
    "iq": "IQ",
    "ht": "HT",
    "will": "Will",
    "per": "Per",
    "vision": "Vision",
    "hearing": "Hearing",
    "taste_smell": "Taste & Smell",
    "touch": "Touch",
    "fright_check": "Fright Check",
}
"""Attribute names for files whose settings do not name them."""
_NOT_ROLLED = {"basic_move", "basic_speed"}

_V4_KINDS = {
    "skill": Kind.SKILL,
    "technique": Kind.TECHNIQUE,
    "spell": Kind.SPELL,
    "ritual_magic_spell": Kind.SPELL,
}
_V5_KINDS = {"s": Kind.SKILL, "q": Kind.TECHNIQUE, "p": Kind.SPELL, "r": Kind.SPELL}


def is_gcs(doc: Any) -> bool:
    """Whether parsed JSON looks like a GCS file (a ``version`` and GCS's own keys)."""
    return isinstance(doc, dict) and "version" in doc and ("profile" in doc or "calc" in doc)


def _item_kind(item: dict[str, Any], version: int) -> Kind | None:
    if version >= 5:
        return _V5_KINDS.get(str(item.get("id", ""))[:1])
    return _V4_KINDS.get(str(item.get("type", "")))


def _walk(items: Any) -> Iterator[dict[str, Any]]:
    """Every item of a list, depth first, through ``children``."""
    stack = [iter(items if isinstance(items, list) else [])]
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
            continue
        if isinstance(item, dict):
            yield item
            stack.append(iter(item.get("children") or []))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _technique_of(item: dict[str, Any]) -> str | None:
    """A technique's skill, as GCS shows it after the name: ``Arm Lock (Judo)``."""
    default = item.get("default")
    if not isinstance(default, dict):
        return _str(item.get("specialization"))
    name = _str(default.get("name")) or _str(default.get("type"))
    spec = _str(default.get("specialization"))
    if name and spec:
        return f"{name} ({spec})"
    return name


def _attributes(doc: dict[str, Any]) -> Iterator[Trait]:
    settings = _dict(doc.get("settings"))
    defs = {
        d.get("id"): d
        for d in (settings.get("attributes") or [])
        if isinstance(d, dict) and isinstance(d.get("id"), str)
    }
    for entry in doc.get("attributes") or []:
        if not isinstance(entry, dict):
            continue
        attr_id = entry.get("attr_id")
        calc = _dict(entry.get("calc"))
        value = whole_number(calc.get("value"))
        info = defs.get(attr_id, {})
        if value is None or attr_id in _NOT_ROLLED or info.get("type", "integer") != "integer":
            continue  # pools (HP), decimals (Basic Speed), references and separators
        if "current" in calc:  # a pool (HP, FP) in a file without settings
            continue
        name = _str(info.get("name")) or _NAMES.get(str(attr_id))
        if name:
            yield Trait(name, None, value, Kind.ATTRIBUTE)


def _weapons(item: dict[str, Any], name: str) -> Iterator[Attack]:
    weapons = [w for w in item.get("weapons") or [] if isinstance(w, dict)]
    for w in weapons:
        calc = _dict(w.get("calc"))
        damage = _str(calc.get("damage"))
        if damage is None:
            continue
        yield Attack(
            name=name,
            usage=_str(w.get("usage")),
            damage=damage,
            level=whole_number(calc.get("level")),
            parry=_str(calc.get("parry")),
            block=_str(calc.get("block")),
            acc=_leading(w.get("accuracy", calc.get("accuracy"))),
            bulk=_leading(w.get("bulk", calc.get("bulk"))),
            shots=_str(w.get("shots", calc.get("shots"))),
        )


def _leading(value: Any) -> int | None:
    """A weapon table's number as GCS writes it: ``3``, ``3+2`` (a scope's bonus, left
    out), ``-4``; None when absent or not a number."""
    text = _str(value)
    found = None if text is None else re.match(r"\s*([+-]?\d{1,3})", text)
    return None if found is None else int(found.group(1))


def read_gcs(data: bytes) -> Sheet:
    """A GCS character file as a :class:`~.model.Sheet`.

    Raises:
        SheetError: XML, a version other than 2-5, not a character, malformed JSON
            (with its line), or a file too large or too deeply nested.
    """
    if kind_of(data) == "xml":
        raise SheetError(f"this is a GCS file in the old XML format (GCS before 4.30): {_RESAVE}")
    return gcs_sheet(load_json(data))


def gcs_sheet(doc: Any) -> Sheet:
    """A GCS character file, once parsed (by :func:`~.formats.load_json`), as a
    :class:`~.model.Sheet`.

    Raises:
        SheetError: a version other than 2-5, or not a character.
    """
    if not is_gcs(doc):
        raise SheetError("this JSON is not a GCS character file (it has no version and profile)")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise SheetError(f"the GCS file's version {version!r} is not a number")
    if version < VERSIONS.start:
        raise SheetError(f"this is a GCS file of version {version} (GCS before 4.30): {_RESAVE}")
    if version not in VERSIONS:
        raise SheetError(
            f"this GCS file is version {version}, newer than referee reads "
            f"({VERSIONS.start} to {VERSIONS.stop - 1})"
        )
    if doc.get("type") not in (None, "character"):
        raise SheetError(f"this GCS file is a {doc.get('type')!r}, not a character")
    profile = _dict(doc.get("profile"))
    calc = _dict(doc.get("calc"))
    traits = list(_attributes(doc))
    dodge = calc.get("dodge")
    dodge_level = whole_number(dodge[0]) if isinstance(dodge, list) and dodge else None
    if dodge_level is not None:
        traits.append(Trait("Dodge", None, dodge_level, Kind.DEFENSE))
    attacks: list[Attack] = []
    notes: list[str] = []
    combat = combat_traits(_trait_names(doc))
    both = combat.hpt and combat.lpt
    if both:
        notes.append(
            "the sheet has both High and Low Pain Threshold, which exclude each other "
            "(B59, B142): referee reads neither"
        )
    lists = ("skills", "spells", "traits", "advantages", "equipment", "other_equipment")
    for key in lists:
        for item in _walk(doc.get(key)):
            name = _str(item.get("name")) or _str(item.get("description")) or "?"
            kind = _item_kind(item, version) if key in ("skills", "spells") else None
            level = whole_number(_dict(item.get("calc")).get("level")) if kind else None
            if kind is not None and level is not None:
                spec = (
                    _technique_of(item)
                    if kind is Kind.TECHNIQUE
                    else _str(item.get("specialization"))
                )
                tl = _str(item.get("tech_level")) if kind is not Kind.TECHNIQUE else None
                traits.append(Trait(name, spec, level, kind, tl))
            attacks.extend(_weapons(item, name))
    return Sheet(
        system="gurps",
        name=_str(profile.get("name")) or "the character",
        source=f"GCS version {version}",
        traits=tuple(traits),
        attacks=tuple(attacks),
        swing=_str(calc.get("swing")),
        thrust=_str(calc.get("thrust")),
        hp=whole_number(_pool(doc, _HP)),
        dr=_dr(doc),
        fp=whole_number(_pool(doc, _FP)),
        basic_speed=_speed(_pool(doc, _SPEED)),
        hpt=combat.hpt and not both,
        lpt=combat.lpt and not both,
        injury_tolerance=combat.injury_tolerance,
        notes=tuple(notes),
    )


_HP = {"hp", "hit points"}
_FP = {"fp", "fatigue points"}
_SPEED = {"basic speed"}


def _pool(doc: dict[str, Any], names: set[str]) -> Any:
    """The ``calc.value`` of the attribute whose ``attr_id``, or name in the sheet's
    settings, is one of ``names`` in any case (``hp``, ``HP``, ``Hit Points``)."""
    settings = _dict(doc.get("settings"))
    named = {
        d.get("id"): _str(d.get("name")) or ""
        for d in (settings.get("attributes") or [])
        if isinstance(d, dict) and isinstance(d.get("id"), str)
    }
    for entry in doc.get("attributes") or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("attr_id"), str):
            continue
        if {folded(entry["attr_id"]), folded(named.get(entry["attr_id"], ""))} & names:
            return _dict(entry.get("calc")).get("value")
    return None


def _speed(value: Any) -> Fraction | None:
    """Basic Speed in hundredths (GCS saves ``6.75``); None unless a number 0-1000."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or not 0 <= value <= 1000:
        return None
    return Fraction(round(value * 100), 100)


def _enabled(items: Any) -> Iterator[dict[str, Any]]:
    """Every item not disabled (``"disabled": true``), depth first through ``children``;
    a disabled container's children are left out with it."""
    stack = [iter(items if isinstance(items, list) else [])]
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
        elif isinstance(item, dict) and item.get("disabled") is not True:
            yield item
            stack.append(iter(item.get("children") or []))


def _trait_names(doc: dict[str, Any]) -> Iterator[str]:
    """The names of the enabled traits (advantages), with Injury Tolerance's enabled
    modifiers as its form: ``Injury Tolerance (Unliving)``."""
    for key in ("traits", "advantages"):
        for item in _enabled(doc.get(key)):
            name = _str(item.get("name")) or ""
            yield name
            if folded(name) == "injury tolerance":
                for mod in _enabled(item.get("modifiers")):
                    yield f"{name} ({_str(mod.get('name')) or ''})"


def _dr(doc: dict[str, Any]) -> tuple[tuple[str, int], ...]:
    """DR by hit location: each body location's ``calc.dr.all`` less its ``dr_bonus`` (the
    skull's natural 2, which the rules add themselves: B399), so that the sheet keeps
    the armor's DR (GCS 4 and later keep the body under ``settings.body_type``, or at
    the top as ``body_type``)."""
    body = _dict(_dict(doc.get("settings")).get("body_type")) or _dict(doc.get("body_type"))
    out: dict[str, int] = {}
    for loc in body.get("locations") or []:
        if not isinstance(loc, dict) or not isinstance(loc.get("id"), str):
            continue
        value = whole_number(_dict(_dict(loc.get("calc")).get("dr")).get("all"))
        if value is not None:
            natural = whole_number(loc.get("dr_bonus")) or 0
            out.setdefault(str(loc["id"]).lower(), max(value - natural, 0))
    return tuple(out.items())
