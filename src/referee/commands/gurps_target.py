"""The target of a GURPS attack and the defender's levels, from a sheet or typed: what
``gurps attack`` and ``gurps defend`` (:mod:`.gurps_combat`) read before any rule.

A fencing parry is written as GCS writes it, ``9F`` (B376, B404); a weapon named
without its usage (``Broadsword``) parries at the level every usage shares.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import RuleError
from ..fmt import fraction
from ..systems.gurps.damage import DamageSpec
from ..systems.gurps.exchange import Target
from ..systems.gurps.locations import read_location
from ..systems.gurps.melee import AttackOptions, DefenseOptions
from ..systems.gurps.tolerance import Tolerance, tolerance_of
from .result import Reply, resources_of
from .sheeted import resolved_as, sheet_for

if TYPE_CHECKING:  # the sheet readers load when a sheet is read (issue 74)
    from ..sheets import Attack, Sheet

__all__ = [
    "DrAtOpt",
    "DrOpt",
    "HpNowOpt",
    "HpOpt",
    "HptOpt",
    "LptOpt",
    "defense_from_sheet",
    "dr_at_typed",
    "read_parry",
    "shared_defense",
    "target_of",
    "typed_target",
    "with_pain",
    "with_pain_odds",
    "with_tolerance",
]


def target_of(sheet: Sheet) -> Target:
    """What an exchange needs of a sheet: its Dodge, best Parry and Block, DR, HP, High
    or Low Pain Threshold (B59, B142; ``COMBAT.md``, "Shock, major wounds, knockdown
    (B419–B420)") and Injury Tolerance (B60, B380; none when the sheet lists more than
    one form, which :func:`typed_target` refuses)."""
    from ..sheets import Kind
    from .gurps_traits import best_defense  # a sheet's: loaded with one (issue 74 §1)

    dodge = next((t.level for t in sheet.of_kind(Kind.DEFENSE) if t.name == "Dodge"), None)
    parry, block = best_defense(sheet.attacks, "parry"), best_defense(sheet.attacks, "block")
    torso = sheet.dr_at("torso") or 0
    return Target(
        sheet.name or "the target",
        dodge=dodge,
        parry=None if parry is None else parry[0],
        block=None if block is None else block[0],
        dr=torso,
        hp=sheet.hp,
        dr_at=tuple((k, v) for k, v in sheet.dr if v != torso),
        fencing=parry is not None and _fenced(parry[1], "parry"),
        hpt=sheet.hpt,
        lpt=sheet.lpt,
        tolerance=None if len(sheet.injury_tolerance) > 1 else tolerance_of(sheet.injury_tolerance),
    )


DrOpt = Annotated[
    int | None, typer.Option(min=0, max=1000, help="The target's DR (over the torso).")
]
DrAtOpt = Annotated[
    list[str] | None,
    typer.Option("--dr-at", metavar="LOC=DR", help="DR over one location: skull=4."),
]
HpOpt = Annotated[int | None, typer.Option(min=1, max=10000, help="The target's HP.")]
HpNowOpt = Annotated[int | None, typer.Option(min=-100000, max=10000, help="The target's HP now.")]
"""The target's numbers, typed (over its sheet's): ``gurps attack`` and ``gurps blow``."""


HptOpt = Annotated[
    bool,
    typer.Option(
        "--hpt", help="The target has High Pain Threshold: no shock, HT+3 to knockdown (B59)."
    ),
]
LptOpt = Annotated[
    bool,
    typer.Option(
        "--lpt", help="The target has Low Pain Threshold: shock doubled, HT-4 to knockdown (B142)."
    ),
]


def _pain(target: Target) -> str | None:
    """``high`` or ``low``: the target's pain threshold as the JSON names it; None."""
    return "high" if target.hpt else "low" if target.lpt else None


def with_pain(reply: Reply, target: Target) -> Reply:
    """An exchange's reply with the target's pain threshold: ``pain_threshold`` in its
    JSON (``high``, ``low`` or null) and, with one, what it does at the end of its text:
    B59's High Pain Threshold (no shock, HT+3 against knockdown and stunning) or B142's
    Low (shock doubled, at most −8; HT−4); 4th edition, as ``COMBAT.md``, "Shock, major
    wounds, knockdown (B419–B420)" states them."""
    text = reply.text
    if target.hpt:
        text += f" [{target.name} has High Pain Threshold (B59): no shock, HT+3 against knockdown]"
    elif target.lpt:
        text += (
            f" [{target.name} has Low Pain Threshold (B142): shock doubled (at most -8), "
            "HT-4 against knockdown]"
        )
    return Reply({**reply.data, "pain_threshold": _pain(target), "text": text}, text)


def with_pain_odds(
    reply: Reply,
    target: Target,
    skill: int,
    damage: DamageSpec,
    options: AttackOptions,
    defense: str,
    defense_options: DefenseOptions,
) -> Reply:
    """An exchange's odds with the target's pain threshold (``pain_threshold``) and,
    with one, the exact odds of the shock (``odds.shock``) and of the knockdown roll's
    modifier (``odds.knockdown_at``) it changes, a line of text
    (:func:`referee.systems.gurps.pain.pain_odds`; B59, B142)."""
    from ..systems.gurps.pain import pain_odds  # the odds': loaded for them alone

    data = {**reply.data, "pain_threshold": _pain(target)}
    if not (target.hpt or target.lpt):
        return Reply(data, reply.text)
    if options.rof > 1:  # pain_odds reads one blow; a volley's shock is its blows' own
        text = f"{reply.text}\n  (the shock and knockdown odds of a volley are not given)"
        return Reply({**data, "text": text}, text)
    pain = pain_odds(skill, damage, target, options, defense, defense_options)
    text = f"{reply.text}\n{pain.text}"
    shock = [[n, fraction(p)] for n, p in pain.shock]
    knockdown = [[m, fraction(p)] for m, p in pain.knockdown]
    odds = {**data.get("odds", {}), "shock": shock, "knockdown_at": knockdown}
    return Reply({**data, "odds": odds, "text": text}, text)


_TOLERANCE = {
    Tolerance.UNLIVING: "impaling and huge piercing x1, large piercing x1/2, piercing x1/3, "
    "small piercing x1/5",
    Tolerance.HOMOGENOUS: "impaling and huge piercing x1/2, large piercing x1/3, piercing "
    "x1/5, small piercing x1/10; no brain, no vitals (B60)",
    Tolerance.DIFFUSE: "impaling and piercing at most 1 injury, anything else at most 2; no "
    "brain, no vitals, no crippling (B60)",
}


def with_tolerance(reply: Reply, target: Target) -> Reply:
    """An exchange's reply, or its odds', with the target's Injury Tolerance:
    ``injury_tolerance`` in its JSON (``unliving``, ``homogenous``, ``diffuse`` or null)
    and, with one, what it does at the end of the text (B380, B60; the rules and
    readings of :mod:`referee.systems.gurps.tolerance`)."""
    t = target.tolerance
    text = reply.text
    if t is not None:
        text += f" [{target.name} has Injury Tolerance ({t.title()}) (B380): {_TOLERANCE[t]}]"
    value = None if t is None else t.value
    return Reply({**reply.data, "injury_tolerance": value, "text": text}, text)


def dr_at_typed(given: list[str] | None) -> tuple[tuple[str, int], ...]:
    """``--dr-at skull=4``: DR over one location, each read."""

    out = []
    for item in given or []:
        where, sep, value = item.partition("=")
        if not sep or not re.fullmatch(r"\d{1,4}", value.strip()):
            raise RuleError(f"--dr-at {item!r}: give a location and its DR, like skull=4")
        out.append((read_location(where).key, int(value)))
    return tuple(out)


def read_parry(text: str | None) -> tuple[int | None, bool]:
    """``--parry 10`` or ``--parry 9F``: the level, and whether it is a fencing parry
    (GCS writes a fencing weapon's Parry with an F; B376, B404)."""
    if text is None:
        return None, False
    found = re.fullmatch(r"\s*(-?\d{1,4})\s*([fF]?)\s*", text)
    if found is None:
        raise RuleError(f"--parry {text!r}: give a level, like 10, or 9F for a fencing parry")
    return int(found.group(1)), bool(found.group(2))


def typed_target(
    ctx: typer.Context,
    vs: str | None,
    name: str | None,
    dodge: int | None,
    parry: int | None,
    block: int | None,
    dr: int | None,
    hp: int | None,
    hp_now: int | None,
    dr_at: tuple[tuple[str, int], ...] = (),
    hpt: bool = False,
    lpt: bool = False,
    tolerance: Tolerance | None = None,
) -> Target | None:
    """The target: from its sheet (``--vs``), each typed number over the sheet's, and
    High or Low Pain Threshold (``--hpt``, ``--lpt``) and Injury Tolerance
    (``--unliving``...) typed or the sheet's; or from typed values alone; None when
    nothing names one.

    Raises:
        RuleError: no such sheet, both pain thresholds (B59 and B142 exclude each
            other), or an Injury Tolerance other than the sheet's (B60).
    """
    typed: dict[str, Any] = {
        k: v
        for k, v in {"dodge": dodge, "parry": parry, "block": block, "dr": dr, "hp": hp}.items()
        if v is not None
    }
    if vs is None and name is None and not typed and not dr_at and not hpt and not lpt:
        return None if tolerance is None else Target(tolerance=tolerance)
    base = Target(name or "the target")
    if vs is not None:
        found = resources_of(ctx).sheet(vs)
        if found is None:
            raise RuleError(f"no sheet {vs!r} to attack")
        from ..sheets import require

        read = require(found, "gurps", "gurps attack")
        tolerance_of(read.injury_tolerance)  # refuses two forms at once (B60)
        base = target_of(read)
        if name:
            base = replace(base, name=name)
        resolved_as(ctx, vs=None, target_name=base.name)
        table = dict(base.dr_at) | dict(dr_at)
        if table:
            resolved_as(ctx, dr_at=[f"{k}={v}" for k, v in table.items()])
        for key in ("dodge", "parry", "block", "dr", "hp"):
            value = typed.get(key, getattr(base, key))
            if value is not None and (key != "dr" or value):
                fenced = key == "parry" and key not in typed and base.fencing
                resolved_as(ctx, **{key: str(value) + ("F" if fenced else "")})
    if hpt and lpt:
        raise RuleError("--hpt and --lpt: High and Low Pain Threshold exclude each other "
                        "(B59, B142); give one")  # fmt: skip
    if (hpt and base.lpt) or (lpt and base.hpt):
        sheet_has = "Low" if base.lpt else "High"
        raise RuleError(
            f"--{'hpt' if hpt else 'lpt'}: {base.name}'s sheet has {sheet_has} Pain Threshold, "
            "and the two exclude each other (B59, B142)"
        )
    hpt, lpt = hpt or base.hpt, lpt or base.lpt
    if vs is not None and (hpt or lpt):
        resolved_as(ctx, hpt=hpt, lpt=lpt)
    if tolerance is not None and base.tolerance not in (None, tolerance):
        raise RuleError(
            f"--{tolerance.value}: {base.name}'s sheet has Injury Tolerance "
            f"({base.tolerance.title()}), and the two exclude each other (B60)"
        )
    tolerance = tolerance or base.tolerance
    if vs is not None and tolerance is not None:
        resolved_as(ctx, **{tolerance.value: True})
    values = {**{k: getattr(base, k) for k in ("dodge", "parry", "block", "dr", "hp")}, **typed}
    return Target(
        base.name,
        values["dodge"],
        values["parry"],
        values["block"],
        values["dr"] or 0,
        values["hp"],
        hp_now,
        tuple((dict(base.dr_at) | dict(dr_at)).items()),
        fencing=base.fencing and "parry" not in typed,
        hpt=hpt,
        lpt=lpt,
        tolerance=tolerance,
    )


def shared_defense(sheet: Sheet, weapon: str, kind: str) -> Attack | None:
    """The weapon named without its usage (``Broadsword``) when every usage of it has
    the same Parry (or Block): any of them, since the defense is the same; None
    otherwise (:func:`find_attack` then says which usages it matches)."""
    from .gurps_traits import defense_level

    key = " ".join(weapon.split()).casefold()
    usages = [a for a in sheet.attacks if a.name.casefold() == key and a.usage]
    levels = {defense_level(getattr(a, kind)) for a in usages}
    if len(usages) < 2 or len(levels) != 1 or None in levels:
        return None
    return usages[0]


def defense_from_sheet(
    ctx: typer.Context, kind: str, weapon: str | None, path: str | None
) -> tuple[int, str, bool]:
    """A defense's level from the sheet: Dodge; a weapon's Parry or Block (the best), and
    whether it is a fencing parry (GCS's ``9F``, B376)."""
    from ..sheets import Kind, find_attack, find_trait
    from .gurps_traits import best_defense, defense_level

    sheet = sheet_for(ctx, path, "gurps", "gurps defend", weapon or kind.title())
    if kind == "dodge":
        trait = find_trait(sheet, "Dodge", (Kind.DEFENSE,))
        return trait.level, "Dodge", False
    if weapon is not None:
        shared = shared_defense(sheet, weapon, kind)
        found = shared or find_attack(sheet, weapon)
        value = defense_level(getattr(found, kind))
        if value is None:
            raise RuleError(f"{found.full_name} cannot {kind} on {sheet.name}'s sheet")
        shown = found.name if shared else found.full_name
        return value, f"{kind.title()} ({shown})", _fenced(found, kind)
    best = best_defense(sheet.attacks, kind)
    if best is None:
        raise RuleError(f"{sheet.name}'s sheet has no weapon that can {kind}")
    return best[0], f"{kind.title()} ({best[1].full_name})", _fenced(best[1], kind)


def _fenced(weapon: Attack, kind: str) -> bool:
    return kind == "parry" and (weapon.parry or "").strip().upper().endswith("F")
