"""A character sheet as ``referee sheet FILE`` shows it: every trait with its level and
the exact chance of a plain roll against it, and every attack with its damage.

The chance of each trait is the system's own plain roll, with no modifier:

* GURPS: 3d6 at or under the level (``000``, "Success Rolls"; no roll below 3);
* SWN: an attribute's modifier and a skill's 2d6 + level against difficulty 8
  (``003``, "Skill Checks", with no attribute); the three saves from level and
  attributes (``003``, "Saving Throws");
* Fudge: 4dF from the trait against the ladder's default difficulty (``002``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..fmt import fraction, percent
from ..sheets import Kind, Sheet, Trait

__all__ = ["sheet_json", "sheet_text", "trait_chance"]

_HEADINGS = {
    Kind.ATTRIBUTE: "Attributes",
    Kind.DEFENSE: "Defenses",
    Kind.SKILL: "Skills",
    Kind.TECHNIQUE: "Techniques",
    Kind.SPELL: "Spells",
    Kind.TRAIT: "Traits",
}


def trait_chance(sheet: Sheet, trait: Trait) -> Fraction | None:
    """The chance of a plain roll against ``trait`` (None where no roll is made)."""
    if sheet.system == "gurps":
        # here, not at the top: 47 ms of start-up otherwise (issue 53)
        from ..systems.gurps import skill_odds

        return skill_odds(trait.level).success if trait.level >= 3 else None
    if sheet.system == "swn":
        if trait.kind is Kind.ATTRIBUTE:
            return None
        # here, not at the top: 78 ms of start-up otherwise (issue 53)
        from ..systems.swn import skill_check_odds

        return skill_check_odds(skill=trait.level, difficulty=8).success
    # here, not at the top: 12 ms of start-up otherwise (issue 53)
    from ..systems.fudge import LADDERS, action_odds

    ladder = LADDERS[sheet.ladder or "psi-punk"]
    return action_odds(trait.level, ladder=ladder).success


def _swn_saves(sheet: Sheet) -> list[dict[str, Any]]:
    # here, not at the top: 91 ms of start-up otherwise (issue 53)
    from ..systems import swn

    scores = {t.name.casefold(): t.level for t in sheet.of_kind(Kind.ATTRIBUTE)}
    mods = {k: swn.attribute_modifier(v, k) for k, v in scores.items()}
    out = []
    for kind in swn.SaveKind:
        best, _ = swn.save_attribute(kind, {k: mods[k] for k in kind.attributes if k in mods})
        target = swn.save_target(sheet.level or 1, best)
        out.append({"save": kind.value, "target": target, "chance": swn.save_odds(target)})
    return out


def sheet_json(sheet: Sheet) -> dict[str, Any]:
    """The sheet as JSON: exact chances as ``"p/q"``; ``text`` as :func:`sheet_text`.

    An SWN skill also carries ``attribute``: its usual attribute, or None where the
    sheet names none (a check by name then asks for one)."""
    traits = []
    for t in sheet.traits:
        p = trait_chance(sheet, t)
        item: dict[str, Any] = {
            "name": t.name,
            "specialization": t.specialization,
            "tech_level": t.tech_level,
            "level": t.level,
            "kind": t.kind.value,
            "chance": None if p is None else fraction(p),
        }
        if sheet.system == "swn" and t.kind is Kind.SKILL:
            item["attribute"] = t.attribute  # its usual attribute (dex), or None: ask
        traits.append(item)
    attacks = [
        {
            "name": a.name,
            "usage": a.usage,
            "damage": a.damage,
            "level": a.level,
            "parry": a.parry,
            "block": a.block,
            "skill": a.skill,
            "attributes": list(a.attributes),
            "shock": a.shock,
        }
        for a in sheet.attacks
    ]
    out: dict[str, Any] = {
        "system": sheet.system,
        "kind": "sheet",
        "name": sheet.name,
        "source": sheet.source,
        "traits": traits,
        "attacks": attacks,
    }
    if sheet.system == "gurps":
        out.update(swing=sheet.swing, thrust=sheet.thrust)
    if sheet.system == "swn":
        out.update(level=sheet.level, attack_bonus=sheet.attack_bonus, ac=sheet.ac, hp=sheet.hp)
        out["saves"] = [{**s, "chance": fraction(s["chance"])} for s in _swn_saves(sheet)]
    if sheet.system == "fudge":
        out["ladder"] = sheet.ladder
    out["text"] = sheet_text(sheet)
    return out


def _level(sheet: Sheet, t: Trait) -> str:
    if sheet.system == "fudge":
        # here, not at the top: 18 ms of start-up otherwise (issue 53)
        from ..systems.fudge import LADDERS

        return LADDERS[sheet.ladder or "psi-punk"].name_of(t.level)
    if sheet.system == "swn" and t.kind is Kind.ATTRIBUTE:
        # here, not at the top: 63 ms of start-up otherwise (issue 53)
        from ..systems.swn import attribute_modifier

        return f"{t.level} ({attribute_modifier(t.level, t.name):+d})"
    return str(t.level)


def sheet_text(sheet: Sheet) -> str:
    """The sheet as a person reads it, section by section."""
    names = {"gurps": "GURPS", "swn": "Stars Without Number", "fudge": "Fudge"}
    lines = [f"{sheet.name} ({names[sheet.system]}, {sheet.source})"]
    if sheet.system == "swn":
        lines.append(
            f"Level {sheet.level}, attack bonus {sheet.attack_bonus or 0:+d}, "
            f"AC {sheet.ac if sheet.ac is not None else '-'}, "
            f"HP {sheet.hp if sheet.hp is not None else '-'}"
        )
        saves = ", ".join(
            f"{s['save']} {s['target']} ({percent(s['chance'])})" for s in _swn_saves(sheet)
        )
        lines.append(f"Saves: {saves}")
    if sheet.system == "gurps" and (sheet.swing or sheet.thrust):
        lines.append(f"Damage: thrust {sheet.thrust or '-'}, swing {sheet.swing or '-'}")
    if sheet.system == "fudge":
        lines.append(f"Ladder: {sheet.ladder}; chances against the default difficulty")
    chance_of = {
        "gurps": "success on 3d6 against",
        "swn": "2d6 + level meeting 8 with",
        "fudge": "4dF meeting the default difficulty with",
    }[sheet.system]
    width = max((len(t.shown_name) for t in sheet.traits), default=0)
    levels = max((len(_level(sheet, t)) for t in sheet.traits), default=0)
    chances = [trait_chance(sheet, t) for t in sheet.traits]
    for kind, heading in _HEADINGS.items():
        traits = [(t, p) for t, p in zip(sheet.traits, chances, strict=True) if t.kind is kind]
        if not traits:
            continue
        rolled = any(p is not None for _, p in traits)
        lines.append(f"{heading}" + (f" (level, chance of {chance_of} it):" if rolled else ":"))
        for t, p in traits:
            odds = "" if p is None else f"  {percent(p):>6}"
            lines.append(f"  {t.shown_name:<{width}}  {_level(sheet, t):>{levels}}{odds}")
    if sheet.attacks:
        lines.append("Attacks:")
        for a in sheet.attacks:
            bits = [a.damage]
            if a.level is not None:
                bits.append(f"skill {a.level}")
            if a.parry and a.parry.lower() != "no":
                bits.append(f"parry {a.parry}")
            if a.block and a.block.lower() != "no":
                bits.append(f"block {a.block}")
            if a.skill:
                bits.append(f"skill {a.skill}")
            if a.attributes:
                bits.append("/".join(a.attributes))
            if a.shock:
                bits.append(f"shock {a.shock}")
            lines.append(f"  {a.full_name}: {', '.join(bits)}")
    lines += [f"note: {n}" for n in sheet.notes]
    return "\n".join(lines)
