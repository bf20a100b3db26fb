"""GURPS combat from the sheet: ``gurps attack`` (an attack by weapon, or the whole
exchange against a target) and ``gurps defend`` (Dodge, Parry or Block).

A weapon is named as the sheet names it (``Broadsword (Swung)``, ``Punch``) and
rolls at the level the sheet saved for it; or a level is typed (``14``) with
``--damage``. The target (``--vs``) is another sheet: a file on the command line,
``@NAME`` in a game room; its Dodge, best Parry and Block, DR and HP come from it,
or are typed (``--dodge 8 --parry 10 --dr 2 --hp 12``), as a room's ``resolved``
command writes them. Rules: :mod:`referee.systems.gurps.melee` and
:mod:`referee.systems.gurps.exchange`.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Annotated, Any

import typer

from ..errors import RuleError
from ..fmt import fraction, percent, readable
from ..render.combat import attack_json, defense_json, exchange_json
from ..render.gurps import skill_odds_json
from ..rng import RandomSource
from ..sheets import Attack, Kind, Sheet, find_attack, find_trait, require
from ..systems.gurps.damage import read_damage
from ..systems.gurps.exchange import Target, exchange, injury_chance
from ..systems.gurps.melee import (
    AttackOptions,
    DefenseOptions,
    attack,
    attack_modifiers,
    defend,
    defense_modifiers,
    halved_dodge,
)
from ..systems.gurps.success import skill_odds
from .gurps_traits import best_defense, defense_level
from .registry import LabelOpt, Twin, twins
from .result import Reply, resources_of
from .sheeted import SheetOpt, labelled, resolved_as, sheet_for

__all__ = ["target_of"]

IntOpt = Annotated[int | None, typer.Option(min=-100, max=1000)]
BlockRetreatOpt = Annotated[
    int,
    typer.Option(
        "--block-retreat",
        min=1,
        max=3,
        help="A retreat's bonus to Block: 1 by the Basic Set (B377), or 3.",
    ),
]


def target_of(sheet: Sheet) -> Target:
    """What an exchange needs of a sheet: its Dodge, best Parry and Block, DR and HP."""
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
        fencing=parry is not None and (parry[1].parry or "").strip().upper().endswith("F"),
    )


def _dr_at(given: list[str] | None) -> tuple[tuple[str, int], ...]:
    """``--dr-at skull=4``: DR over one location, each read."""
    from ..systems.gurps.locations import read_location

    out = []
    for item in given or []:
        where, sep, value = item.partition("=")
        if not sep or not re.fullmatch(r"\d{1,4}", value.strip()):
            raise RuleError(f"--dr-at {item!r}: give a location and its DR, like skull=4")
        out.append((read_location(where).key, int(value)))
    return tuple(out)


def _weapon(ctx: typer.Context, text: str, path: str | None) -> tuple[int, Attack | None]:
    """A weapon's level: typed (``14``) or the sheet's for the named weapon."""
    text = " ".join(text.split())
    if re.fullmatch(r"-?\d+", text):
        return int(text), None
    sheet = sheet_for(ctx, path, "gurps", "gurps attack", text)
    found = find_attack(sheet, text)
    if found.level is None:
        raise RuleError(f"{sheet.name}'s sheet saves no skill level for {found.full_name}")
    return found.level, found


@twins(
    "gurps",
    "attack",
    examples=[
        "gurps attack 14 --deceptive 1",
        "gurps attack 14 --location skull --all-out",
        "gurps attack 13 --damage '2d+1 cut' --target-name Orc --parry 10 --dodge 8 --dr 2 --hp 12",
        "gurps attack 15 --damage '1d+2 imp' --random-location --target-name Orc --dodge 9 "
        "--defense dodge --retreat --hp 11",
    ],
)
def attack_cmd(
    ctx: typer.Context,
    weapon: Annotated[
        str,
        typer.Argument(
            metavar="WEAPON",
            help="A weapon on the sheet ('Broadsword (Swung)', Punch) or a skill level (14).",
        ),
    ],
    mod: Annotated[
        list[int] | None, typer.Option("--mod", help="A modifier to hit; repeat for several.")
    ] = None,
    deceptive: Annotated[
        int, typer.Option(min=0, max=10, help="Deceptive Attack: -2 to hit per -1 to defend.")
    ] = 0,
    all_out: Annotated[bool, typer.Option("--all-out", help="All-Out Attack (Determined): +4.")] = (
        False
    ),
    telegraphic: Annotated[
        bool, typer.Option("--telegraphic", help="Telegraphic Attack: +4, the defense +2.")
    ] = False,
    rapid: Annotated[bool, typer.Option("--rapid", help="Rapid Strike: -6.")] = False,
    location: Annotated[
        str | None, typer.Option(help="Aim at a hit location at its penalty (skull, vitals...).")
    ] = None,
    random_location: Annotated[
        bool, typer.Option("--random-location", help="Roll the location on 3d6 after a hit.")
    ] = False,
    criticals: Annotated[
        bool, typer.Option(help="Roll the critical hit and miss tables (B556) when they apply.")
    ] = True,
    damage: Annotated[
        str | None, typer.Option(help="The damage, when WEAPON is a level: '2d+1 cut'.")
    ] = None,
    vs: Annotated[
        str | None,
        typer.Option("--vs", metavar="SHEET", help="The target's sheet (a file; @NAME in a room)."),
    ] = None,
    target_name: Annotated[str | None, typer.Option(help="The target's name.")] = None,
    dodge: IntOpt = None,
    parry: Annotated[
        str | None,
        typer.Option(
            metavar="PARRY", help="The target's Parry: 10, or 9F for a fencing parry (B376)."
        ),
    ] = None,
    block: IntOpt = None,
    dr: Annotated[
        int | None, typer.Option(min=0, max=1000, help="The target's DR (over the torso).")
    ] = None,
    dr_at: Annotated[
        list[str] | None,
        typer.Option("--dr-at", metavar="LOC=DR", help="DR over one location: skull=4."),
    ] = None,
    hp: Annotated[int | None, typer.Option(min=1, max=10000, help="The target's HP.")] = None,
    hp_now: Annotated[
        int | None, typer.Option(min=-100000, max=10000, help="The target's HP now.")
    ] = None,
    defense: Annotated[
        str, typer.Option(help="The target's defense: best, dodge, parry, block or none.")
    ] = "best",
    retreat: Annotated[bool, typer.Option("--retreat", help="The target retreats.")] = False,
    aod: Annotated[
        bool, typer.Option("--aod", help="The target made an All-Out Defense: +2.")
    ] = False,
    shield: Annotated[int, typer.Option(min=0, max=10, help="The target's shield DB.")] = 0,
    parried: Annotated[
        int,
        typer.Option(
            min=0, max=20, help="Parries the target made with this weapon this turn (B376)."
        ),
    ] = 0,
    fencing: Annotated[
        bool,
        typer.Option("--fencing", help="The target parries with a fencing weapon (B376)."),
    ] = False,
    very_tired: Annotated[
        bool,
        typer.Option("--very-tired", help="The target is under 1/3 FP: Dodge halved (B426)."),
    ] = False,
    block_retreat: BlockRetreatOpt = 1,
    label: LabelOpt = None,
    damage_type: Annotated[
        str | None,
        typer.Option("--type", help="The damage type, when --damage gives none (cr, cut...)."),
    ] = None,
    sheet: SheetOpt = None,
) -> Twin:
    """An attack by weapon, with its options and criticals; with a target (--vs, or its
    numbers), the whole exchange: the defense, the hit location, damage through DR,
    injury, and what the GM must call for next, with each step's exact odds."""
    level, found = _weapon(ctx, weapon, sheet)
    options = AttackOptions(
        deceptive, all_out, telegraphic, rapid, location, random_location, criticals
    )
    name = label or (found.full_name if found else None)
    if found is not None:
        resolved_as(ctx, weapon=str(level), label=labelled(found.full_name, label))
    spec_text = damage or (found.damage if found else None)
    parry_level, fenced = _parry(parry)
    target = _target(ctx, vs, target_name, dodge, parry_level, block, dr, hp, hp_now, _dr_at(dr_at))
    fencing = fencing or fenced or (parry is None and target is not None and target.fencing)
    if target is not None and very_tired:
        target = replace(target, very_tired=True)
    if target is None:
        mods = tuple(mod or ())

        def go(rng: RandomSource) -> Reply:
            r = attack(level, label=name, options=options, modifiers=mods, rng=rng)
            return Reply(attack_json(r), r.text)

        def attack_odds() -> Reply:
            eff = level + sum(mods) + sum(m for _, m in attack_modifiers(options))
            o = skill_odds(eff)
            text = (
                f"{name or 'Attack'} {eff}: hits {percent(o.success)}, critical hit "
                f"{percent(o.critical_success)}, critical miss {percent(o.critical_failure)}"
            )
            data = {"system": "gurps", "kind": "odds", "label": name, "effective_skill": eff,
                    "odds": skill_odds_json(o), "text": text}  # fmt: skip
            return Reply(data, text)

        return go, attack_odds
    if spec_text is None:
        raise RuleError("an exchange needs the weapon's damage: name a weapon, or give --damage")
    if damage_type is not None and damage is not None:
        spec_text = f"{damage} {damage_type}"
    elif damage is not None and re.fullmatch(r"\s*\d+d\s*([+-]\s*\d+)?\s*", damage):
        spec_text = f"{damage} cr"  # dice+adds with no type: crushing, as gurps damage
    spec = read_damage(spec_text)
    if found is not None and damage is None:
        resolved_as(ctx, damage=spec_text)
    if mod:
        raise RuleError("--mod is for a lone attack; in an exchange use the options")
    defense_options = DefenseOptions(
        retreat=retreat,
        all_out=aod,
        shield=shield,
        parried=parried,
        fencing=fencing,
        block_retreat=block_retreat,
    )
    injury_chance(level, spec, target, options, defense, defense_options)  # checks the choice

    def exchange_go(rng: RandomSource) -> Reply:
        x = exchange(
            level,
            spec,
            target,
            attacker=name or "Attack",
            options=options,
            defense=defense,
            defense_options=defense_options,
            rng=rng,
        )
        return Reply({**exchange_json(x), "label": name}, x.text)

    def exchange_odds() -> Reply:
        p = injury_chance(level, spec, target, options, defense, defense_options)
        text = f"{name or 'Attack'} on {target.name}: injures {percent(p)}"
        data = {"system": "gurps", "kind": "odds", "label": name, "target": target.name,
                "odds": {"injures": fraction(p)}, "text": text}  # fmt: skip
        return Reply(data, text)

    return exchange_go, exchange_odds


def _parry(text: str | None) -> tuple[int | None, bool]:
    """``--parry 10`` or ``--parry 9F``: the level, and whether it is a fencing parry
    (GCS writes a fencing weapon's Parry with an F; B376, B404)."""
    if text is None:
        return None, False
    found = re.fullmatch(r"\s*(-?\d{1,4})\s*([fF]?)\s*", text)
    if found is None:
        raise RuleError(f"--parry {text!r}: give a level, like 10, or 9F for a fencing parry")
    return int(found.group(1)), bool(found.group(2))


def _target(
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
) -> Target | None:
    """The target: from its sheet (``--vs``), each typed number over the sheet's; or
    from typed numbers alone; None when nothing names one."""
    typed: dict[str, Any] = {
        k: v
        for k, v in {"dodge": dodge, "parry": parry, "block": block, "dr": dr, "hp": hp}.items()
        if v is not None
    }
    if vs is None and name is None and not typed and not dr_at:
        return None
    base = Target(name or "the target")
    if vs is not None:
        found = resources_of(ctx).sheet(vs)
        if found is None:
            raise RuleError(f"no sheet {vs!r} to attack")
        base = target_of(require(found, "gurps", "gurps attack"))
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
    )


@twins(
    "gurps",
    "defend",
    examples=[
        "gurps defend dodge 8 --retreat",
        "gurps defend parry 11 --parried 1 --fencing",
        "gurps defend block 10 --aod --shield 2 --against -1",
    ],
)
def defend_cmd(
    ctx: typer.Context,
    kind: Annotated[str, typer.Argument(metavar="DEFENSE", help="dodge, parry or block.")],
    level: Annotated[
        str | None,
        typer.Argument(
            metavar="LEVEL|WEAPON",
            help="The defense's level (9), or with a sheet: a weapon to parry or block "
            "with (the best one when left out).",
        ),
    ] = None,
    retreat: Annotated[bool, typer.Option("--retreat", help="Retreat (B377).")] = False,
    aod: Annotated[bool, typer.Option("--aod", help="All-Out Defense: +2 (B366).")] = False,
    shield: Annotated[int, typer.Option(min=0, max=10, help="A shield's DB (B374).")] = 0,
    parried: Annotated[
        int, typer.Option(min=0, max=20, help="Parries already made with this weapon (B376).")
    ] = 0,
    fencing: Annotated[
        bool,
        typer.Option("--fencing", help="A parry with a fencing weapon, Boxing, Judo or Karate."),
    ] = False,
    against: Annotated[
        int,
        typer.Option(
            min=-10, max=10, help="The attack's effect: -1 per deceptive level, +2 if telegraphic."
        ),  # fmt: skip
    ] = 0,
    reeling: Annotated[
        bool, typer.Option("--reeling", help="Under 1/3 HP: Dodge halved, rounded up (B419).")
    ] = False,
    very_tired: Annotated[
        bool, typer.Option("--very-tired", help="Under 1/3 FP: Dodge halved, rounded up (B426).")
    ] = False,
    block_retreat: BlockRetreatOpt = 1,
    label: LabelOpt = None,
    sheet: SheetOpt = None,
) -> Twin:
    """An active defense roll: Dodge, Parry or Block, with retreat, All-Out Defense, a
    shield and repeated parries; rolled even at 2 or less (a defense roll)."""
    kind = kind.lower()
    if kind not in ("dodge", "parry", "block"):
        raise RuleError(f"unknown defense {kind!r}; use dodge, parry or block")
    name = label
    if level is not None and re.fullmatch(r"\s*-?\d+\s*[fF]\s*", level):
        level, fencing = level.strip()[:-1], True  # GCS's 9F: a fencing parry (B376)
    if level is None or not re.fullmatch(r"-?\d+", level.strip()):
        value, shown = _defense_from_sheet(ctx, kind, level, sheet)
        name = labelled(shown, label)
        resolved_as(ctx, level=str(value), label=name)
    else:
        value = int(level)
    if kind == "dodge":
        value = halved_dodge(value, reeling=reeling, very_tired=very_tired)
    elif reeling or very_tired:
        raise RuleError("--reeling and --very-tired halve Dodge only (B419, B426)")
    options = DefenseOptions(retreat, aod, shield, parried, fencing, block_retreat)

    def go(rng: RandomSource) -> Reply:
        d = defend(kind, value, options, against=against, label=name, rng=rng)
        return Reply(defense_json(d), d.text)

    def defense_odds() -> Reply:
        eff = value + sum(m for _, m in defense_modifiers(kind, options, against))
        o = skill_odds(eff)
        text = f"{name or kind.title()} {eff}: defends {readable(o.success)}"
        data = {"system": "gurps", "kind": "odds", "label": name, "effective_skill": eff,
                "odds": skill_odds_json(o), "text": text}  # fmt: skip
        return Reply(data, text)

    return go, defense_odds


def _shared_defense(sheet: Sheet, weapon: str, kind: str) -> Attack | None:
    """The weapon named without its usage (``Broadsword``) when every usage of it has
    the same Parry (or Block): any of them, since the defense is the same; None
    otherwise (:func:`find_attack` then says which usages it matches)."""
    key = " ".join(weapon.split()).casefold()
    usages = [a for a in sheet.attacks if a.name.casefold() == key and a.usage]
    levels = {defense_level(getattr(a, kind)) for a in usages}
    if len(usages) < 2 or len(levels) != 1 or None in levels:
        return None
    return usages[0]


def _defense_from_sheet(
    ctx: typer.Context, kind: str, weapon: str | None, path: str | None
) -> tuple[int, str]:
    """A defense's level from the sheet: Dodge; a weapon's Parry or Block (the best)."""
    sheet = sheet_for(ctx, path, "gurps", "gurps defend", weapon or kind.title())
    if kind == "dodge":
        trait = find_trait(sheet, "Dodge", (Kind.DEFENSE,))
        return trait.level, "Dodge"
    if weapon is not None:
        found = _shared_defense(sheet, weapon, kind) or find_attack(sheet, weapon)
        value = defense_level(getattr(found, kind))
        if value is None:
            raise RuleError(f"{found.full_name} cannot {kind} on {sheet.name}'s sheet")
        return value, f"{kind.title()} ({found.full_name})"
    best = best_defense(sheet.attacks, kind)
    if best is None:
        raise RuleError(f"{sheet.name}'s sheet has no weapon that can {kind}")
    return best[0], f"{kind.title()} ({best[1].full_name})"
