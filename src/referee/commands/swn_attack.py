"""``swn attack``: 1d20 + attack bonus + skill + attribute against AC, then damage or
Shock; by weapon from the sheet, and against a target's sheet (``--vs``). Rules:
:mod:`referee.systems.swn`."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ..errors import RuleError
from ..render import swn as render
from ..rng import RandomSource
from ..sheets import require
from ..systems import swn
from . import swn_sheet as on
from .registry import LabelOpt, Twin
from .result import Reply, resources_of
from .sheeted import SheetOpt, TargetNameOpt, VsOpt, resolved_as
from .swn import VEX, BonusOpt, SkillOpt, UntrainedOpt, WeaponArg, _known, _twins

__all__: list[str] = []


@_twins(
    "attack",
    [
        "swn attack --attack-bonus 1 --skill 1 --dex 14 --ac 13 --damage 1d8 --shock 2/15",
        "swn attack --untrained --str-mod 1 --ac 10 --damage 1d4 --snap",
        f"swn attack 'Laser Rifle' --ac 15 {VEX}",
        f"swn attack Knife --ac 13 --skill 1 {VEX}",
    ],
)
def attack(
    ctx: typer.Context,
    attrs: on.Given,
    name: WeaponArg = None,
    ac: Annotated[
        int | None, typer.Option("--ac", help="The target's Armor Class (10 if not given).")
    ] = None,
    attack_bonus: BonusOpt = None,
    skill: SkillOpt = None,
    untrained: UntrainedOpt = False,
    damage: Annotated[str | None, typer.Option("--damage", help="Damage dice (1d6).")] = None,
    shock: Annotated[str | None, typer.Option("--shock", help="Shock as AMOUNT/AC: 2/15.")] = None,
    damage_bonus: Annotated[int, typer.Option("--damage-bonus", help="Added to damage.")] = 0,
    mod: Annotated[
        int,
        typer.Option(
            "--mod", min=-20, max=20, help="A situational modifier to hit, the GM's call (0)."
        ),
    ] = 0,
    snap: Annotated[bool, typer.Option("--snap", help="A snap attack (-4).")] = False,
    total_defense: Annotated[
        bool, typer.Option("--total-defense", help="The target is on total defense (+2 AC).")
    ] = False,
    shock_floor: Annotated[
        swn.ShockFloor, typer.Option("--shock-floor", help="When a hit is raised to Shock.")
    ] = swn.ShockFloor.ALWAYS,
    naturals: Annotated[
        bool, typer.Option("--naturals", help="A natural 20 always hits, a natural 1 misses.")
    ] = False,
    shock_through_defense: Annotated[
        bool,
        typer.Option(
            "--shock-through-defense",
            help="Shock still harms a target on total defense (the book makes it immune).",
        ),
    ] = False,
    vs: VsOpt = None,
    target_name: TargetNameOpt = None,
    target_hp: Annotated[
        int | None, typer.Option(min=0, max=10000, help="The target's HP now.")
    ] = None,
    label: LabelOpt = None,
    sheet: SheetOpt = None,
) -> Twin:
    """An attack: 1d20 + attack bonus + skill + attribute vs AC, then damage or Shock.

    An untrained combat skill counts as -2 (--untrained); with neither --skill nor
    --untrained the skill is 0, and the result says so, as it does AC 10 without --ac.
    A sheet (--sheet, or $REFEREE_SHEET) gives the attack bonus, and a weapon named on
    it the rest (its skill, untrained if not on the sheet); options override it.
    With a target (--vs its sheet, or --target-name and --target-hp), its AC comes
    from its sheet (--ac over it) and the result gives its HP after the damage,
    never below 0: at 0 a lethal attack leaves it mortally wounded (003, "Mortal
    Wounds"). A sheet's HP is its full HP; --target-hp gives the HP it has now.
    """
    if vs is not None:
        ac, target_name, target_hp = _target(ctx, vs, ac, target_name, target_hp)
    a, read = on.for_attack(
        ctx, sheet, name, attack_bonus=attack_bonus, skill=skill, untrained=untrained,
        damage=damage, shock=shock, attrs=attrs,
    )  # fmt: skip
    kw: dict[str, Any] = dict(
        ac=10 if ac is None else ac, weapon=swn.Weapon.make(a.damage, a.shock),
        naturals=naturals, shock_through_defense=shock_through_defense,
        attack_bonus=a.attack_bonus,
        skill=a.skill,
        attribute=swn.best_attribute(a.attrs, swn.ATTRIBUTES, "an attack", single=True),
        damage_bonus=damage_bonus, snap=snap, total_defense=total_defense,
        shock_floor=shock_floor, modifier=mod,
    )  # fmt: skip
    o = swn.attack_odds(**kw)

    assumed = _known("AC 10 (not given)" if ac is None else None, a.assumed)

    def go(rng: RandomSource) -> Reply:
        r = swn.attack(assumed=assumed, label=label or read.label, rng=rng, **kw)
        reply = Reply(render.attack_json(r), r.text)
        if target_name is not None or target_hp is not None:
            reply = _hurt(reply, target_name or "the target", target_hp, r.damage)
        return read.reply(reply)

    def chances() -> Reply:
        data = render.attack_odds_json(o, assumed, ac is not None, read.label or "Attack",
                                       target_hp)  # fmt: skip
        return read.reply(Reply(data, data["text"]))

    return go, chances


def _hurt(reply: Reply, who: str, hp: int | None, damage: int) -> Reply:
    """``reply`` with the target's name and, when its HP is known, its HP after the
    damage (``Orc HP 9 → 3``) and its condition (``target_condition``: ``up``, or
    ``mortally wounded`` at 0 HP).

    Source: *Stars Without Number Revised*, "Injury and Healing: Mortal Wounds" (``003``:
    "0 HP from lethal attack = mortally wounded"), through
    :func:`referee.systems.swn.take_damage`: HP never fall below 0. Every attack here is
    lethal (there is no non-lethal option), and the target is taken to be up, as no
    fight is tracked yet.
    """
    data: dict[str, Any] = {**reply.data, "target_name": who, "hp_after": None}
    text = reply.text
    if hp is not None:
        after = swn.take_damage(swn.Health(hp, max(hp, 1)), damage)
        down = "" if after.condition is swn.Condition.UP else f", {after.condition}"
        text += f" ({who} HP {hp} → {after.hp}{down})"
        data.update(hp_after=after.hp, target_condition=str(after.condition))
    return Reply({**data, "text": text}, text)


def _target(
    ctx: typer.Context, vs: str, ac: int | None, name: str | None, hp: int | None
) -> tuple[int | None, str | None, int | None]:
    """The target's AC, name and HP from its sheet (``--vs``), the options over it; a
    game room's resolved command then carries them as typed."""

    found = resources_of(ctx).sheet(vs)
    if found is None:
        raise RuleError(f"no sheet {vs!r} to attack")
    target = require(found, "swn", "swn attack")
    ac = target.ac if ac is None else ac
    name = name or target.name
    hp = target.hp if hp is None else hp
    resolved_as(ctx, vs=None, target_name=name)
    if ac is not None:
        resolved_as(ctx, ac=str(ac))
    if hp is not None:
        resolved_as(ctx, target_hp=str(hp))
    return ac, name, hp
