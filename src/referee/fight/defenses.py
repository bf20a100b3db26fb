"""The active defenses a combatant may make against an attack, as the fight has it now
(contract v1.4, "the defender chooses her defense"): each one its sheet and state
allow, with its level after the fight's modifiers, its exact odds to hold, and the
``gurps defend`` command that rolls it as her sheet.

Sources: *GURPS Basic Set*, 4th edition: B374-B377, "Active Defense" (Dodge, Parry
with a weapon, Block; retreat, +3 to Dodge and +1 to Parry or Block, +3 to a fencing
parry; one retreat a turn, not while kneeling or sitting, B377 and B551); B376,
"Repeated parries" (COMBAT.md: −4 a parry after the first with the same weapon, −2
fencing); B419 and B426 (reeling and very tired halve Dodge); and the state's own
modifiers and limits (:mod:`.maneuvers`: stunned −4, posture, All-Out Defense,
All-Out Attack's none, Move and Attack's no parry).
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from fractions import Fraction
from typing import Any

from ..commands.gurps_target import target_of
from ..commands.gurps_traits import defense_level
from ..sheets.model import Sheet
from ..systems.gurps.defense import RangedKind, defenses_against
from ..systems.gurps.melee import DefenseOptions, defense_modifiers, halved_dodge
from ..systems.gurps.success import skill_odds
from .maneuvers import defense_modifiers as state_modifiers
from .maneuvers import defenses_allowed
from .model import Combatant

__all__ = ["defense_choices"]

_NO_RETREAT = frozenset({"kneeling", "sitting", "retreated"})
"""Conditions under which a defender may not retreat (B377: once a turn; B551)."""


def defense_choices(
    sheet: Sheet, c: Combatant, against: int = 0, missile: bool = False, damage_type: str = "cr"
) -> list[dict[str, Any]]:
    """Every active defense ``c`` (played from ``sheet``) may make now against an attack
    whose effect on defenses is ``against`` (−1 per level of Deceptive Attack, B369),
    best first (a tie keeps Dodge, Parry, Block and the sheet's order): each
    ``{"label", "command", "level", "odds"}``, ``odds`` its exact chance to hold
    (a defense roll: 3-4 always holds, 17-18 never, B374) as a fraction.

    ``missile``: the attack is a ranged weapon's (the room reads a weapon with an Acc as a
    missile, a thrown one too), of ``damage_type``: the defenses it allows are
    :func:`referee.systems.gurps.defense.defenses_against`'s, the exchange's own rule:
    no parry (B376), no block against a bullet or beam (B375: piercing damage), and no
    retreat (B377: a retreat is against melee attacks). An empty list: no active
    defense is allowed (All-Out Attack, B365) or the sheet gives none."""
    allowed = defenses_allowed(c)
    if missile:  # the one rule of what a missile allows (B375-B377; issue 73 §1.2)
        rule = defenses_against(RangedKind.MISSILE, damage_type)
        allowed = tuple(d for d in allowed if rule.allows(d))
    target = replace(
        target_of(sheet),
        hp=c.value("hp_max") or None,
        current_hp=c.value("hp"),
        very_tired=bool(c.value("fp_max")) and 3 * c.value("fp") < c.value("fp_max"),
    )
    retreats = (False,) if c.conditions & _NO_RETREAT or missile else (False, True)
    found: list[tuple[int, int, dict[str, Any]]] = []
    for kind, base, weapon, fencing in _bases(sheet, target, allowed):
        mods = state_modifiers(c, kind)
        for retreat in retreats:
            options = DefenseOptions(
                retreat=retreat, parried=c.value("parried") if kind == "parry" else 0,
                fencing=fencing,
            )  # fmt: skip
            rolled = mods + defense_modifiers(kind, options, against)
            level = base + sum(m for _, m in rolled)
            found.append((level, len(found), _choice(kind, base, weapon, mods, options,
                                                      against, target, level)))  # fmt: skip
    found.sort(key=lambda x: (-x[0], x[1]))
    return [choice for _, _, choice in found]


def _bases(
    sheet: Sheet, target: Any, allowed: tuple[str, ...]
) -> list[tuple[str, int, str | None, bool]]:
    """``(defense, its level before modifiers, the weapon it is made with, fencing)``
    for each defense the sheet gives and the state allows; Dodge halved when reeling or
    very tired (B419, B426)."""
    out: list[tuple[str, int, str | None, bool]] = []
    if "dodge" in allowed and target.dodge is not None:
        out.append(("dodge", halved_dodge(target.dodge, reeling=target.reeling,
                                          very_tired=target.very_tired), None, False))  # fmt: skip
    for kind in ("parry", "block"):
        if kind not in allowed:
            continue
        by_item: dict[str, list[tuple[int, str, bool]]] = {}
        for a in sheet.attacks:
            level = defense_level(getattr(a, kind))
            if level is not None:
                fencing = kind == "parry" and (a.parry or "").strip().upper().endswith("F")
                by_item.setdefault(a.name, []).append((level, a.full_name, fencing))
        for item, usages in by_item.items():
            if len({(lv, f) for lv, _, f in usages}) == 1:  # one defense, whatever the grip
                out.append((kind, usages[0][0], item, usages[0][2]))
            else:
                out.extend((kind, lv, name, f) for lv, name, f in usages)
    return out


def _choice(
    kind: str,
    base: int,
    weapon: str | None,
    mods: list[tuple[str, int]],
    options: DefenseOptions,
    against: int,
    target: Any,
    level: int,
) -> dict[str, Any]:
    """One defense: its label and the command that rolls it as the sheet."""
    name = kind.title() + (f" ({weapon})" if weapon else "")
    words = ["gurps", "defend", kind] + ([shlex.quote(weapon)] if weapon else [])
    if kind == "dodge":
        words += ["--reeling"] if target.reeling else []
        words += ["--very-tired"] if target.very_tired else []
    if options.retreat:
        words.append("--retreat")
    if options.parried:
        words.append(f"--parried {options.parried}")
    if options.fencing and weapon is None:
        words.append("--fencing")
    if against:
        words.append(f"--against {against}")
    for _, m in mods:
        words.append(f"--mod {m}")
    if mods:
        named = ", ".join(f"{n} {m:+d}" for n, m in mods)
        words.append("--label " + shlex.quote(f"{name} ({named})"))
    odds: Fraction = skill_odds(level).success
    shown = f"{name}{' and retreat' if options.retreat else ''}"
    extra = f" ({', '.join(f'{n} {m:+d}' for n, m in mods)})" if mods else ""
    label = f"{shown} {level}{extra}: {float(odds) * 100:.1f}% to hold"
    return {"label": label, "command": " ".join(words), "level": level, "odds": str(odds)}
