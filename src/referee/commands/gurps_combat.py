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
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import RuleError
from ..systems.gurps.criticals import EyeRow, unarmed_name
from ..systems.gurps.damage import read_damage
from ..systems.gurps.defenses import allowed_against
from ..systems.gurps.locations import require_targetable
from ..systems.gurps.melee import AttackOptions, DefenseOptions, TorsoMiss
from ..systems.gurps.situation import at_half_damage
from .gurps_exchange import exchange_twin, lone_twin
from .gurps_maneuvers import MissileKind, Situation, gather_situation, ranged_kind, situation_params
from .gurps_target import (
    DrAtOpt,
    DrOpt,
    HpNowOpt,
    HpOpt,
    HptOpt,
    LptOpt,
    dr_at_typed,
    read_parry,
    target_of,
    typed_target,
)
from .registry import LabelOpt, Twin, twins
from .sheeted import SheetOpt, TargetNameOpt, VsOpt, labelled, resolved_as, sheet_for

if TYPE_CHECKING:  # the sheet readers load when a sheet is read (issue 74)
    from ..sheets import Attack

__all__ = ["target_of"]  # re-exported from .gurps_target

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


def _weapon(ctx: typer.Context, text: str, path: str | None) -> tuple[int, Attack | None]:
    """A weapon's level: typed (``14``) or the sheet's for the named weapon."""
    text = " ".join(text.split())
    if re.fullmatch(r"-?\d+", text):
        return int(text), None
    sheet = sheet_for(ctx, path, "gurps", "gurps attack", text)
    from ..sheets import find_attack

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
        "gurps attack 13 --ranged --range 20 --aim 2 --acc 4 --damage '2d pi' --target-name Orc "
        "--dodge 8 --hp 12",
        "gurps attack 12 --ranged --rof 10 --recoil 2 --damage '2d+2 pi' --target-name Orc "
        "--dodge 9 --dr 2 --hp 12",
        "gurps attack 14 --move-and-attack --posture kneeling --damage '2d cut' --target-name Orc "
        "--parry 10 --hp 12",
    ],
    extra=situation_params(),
    prepare=gather_situation,
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
    all_out: Annotated[
        bool,
        typer.Option("--all-out", help="All-Out Attack (Determined): +4, or +1 ranged (B365)."),
    ] = False,
    strong: Annotated[
        bool,
        typer.Option("--strong", help="All-Out Attack (Strong): +2 damage or +1 a die (B365)."),
    ] = False,
    double: Annotated[
        bool, typer.Option("--double", help="All-Out Attack (Double): two attacks (B365).")
    ] = False,
    feint: Annotated[
        int | None,
        typer.Option(
            metavar="LEVEL",
            help="All-Out Attack (Feint): a feint against the foe's LEVEL (its best melee "
            "skill, Cloak, Shield or DX), then the attack (B365).",
        ),
    ] = None,
    long: Annotated[
        bool,
        typer.Option(
            "--long",
            help="All-Out Attack (Long): +1 yard reach; a swing -2 damage or -1 a die, a "
            "thrust nothing (Martial Arts p. 97).",
        ),
    ] = False,
    thrust: Annotated[
        bool | None,
        typer.Option(
            "--thrust/--swing",
            help="The attack is a thrust or a swing, for --long (MA97); by default a sheet's "
            "usage 'Thrust', else a swing.",
        ),
    ] = None,
    ranged: Annotated[
        bool,
        typer.Option(
            "--ranged",
            help="A ranged attack (All-Out Attack is +1); a missile, which cannot be parried "
            "(B376) nor retreated from (B377). A sheet's weapon with an Acc is one.",
        ),
    ] = False,
    thrown: Annotated[
        bool, typer.Option("--thrown", help="A thrown weapon: ranged, parried at -1 (B376).")
    ] = False,
    missile: Annotated[
        MissileKind | None,
        typer.Option(
            "--missile",
            help="A missile's kind (ranged): arrow (a bolt, a stone: blocked, B375) or bullet "
            "(a beam: not blocked); by default a bullet when the damage is pi or a tight "
            "beam's, else an arrow.",
        ),
    ] = None,
    thrown_small: Annotated[
        bool,
        typer.Option(
            "--thrown-small",
            help="A small thrown weapon (1 lb or less): ranged, parried at -2 (B376).",
        ),
    ] = False,
    unarmed: Annotated[
        bool | None,
        typer.Option(
            "--unarmed/--armed",
            help="A critical miss reads the Unarmed Critical Miss Table (B557); by default "
            "when the sheet's weapon is a punch, kick, bite...",
        ),
    ] = None,
    torso_miss: Annotated[
        TorsoMiss,
        typer.Option(
            "--torso-miss",
            help="Which aimed misses hit the torso (B399): margin (a failure by 1 as shown, "
            "a 17 at 17+ too) or roll (only skill+1).",
        ),
    ] = TorsoMiss.MARGIN,
    eye_row: Annotated[
        EyeRow,
        typer.Option(
            "--eye-row",
            help="The Critical Head Blow Table's rows 6-7 on an attack at the eye (B556): "
            "as-aimed (an eye hit) or as-4 (as row 4).",
        ),
    ] = EyeRow.AS_AIMED,
    telegraphic: Annotated[
        bool, typer.Option("--telegraphic", help="Telegraphic Attack: +4, the defense +2.")
    ] = False,
    rapid: Annotated[
        bool, typer.Option("--rapid", help="Rapid Strike: two attacks at -6 each (B370).")
    ] = False,
    location: Annotated[
        str | None, typer.Option(help="Aim at a hit location at its penalty (skull, vitals...).")
    ] = None,
    random_location: Annotated[
        bool, typer.Option("--random-location", help="Roll the location on 3d6 after a hit.")
    ] = False,
    criticals: Annotated[
        bool, typer.Option(help="Roll the critical hit and miss tables (B556) when they apply.")
    ] = True,
    tight_beam: Annotated[
        bool,
        typer.Option(
            "--tight-beam", help="A tight-beam burning attack: may target vitals and eye (B399)."
        ),
    ] = False,
    large_area: Annotated[
        bool,
        typer.Option(
            "--large-area",
            help="Large-area injury (explosion, fire): DR the average of the torso's and the "
            "least-protected location's (B400).",
        ),
    ] = False,
    head_blow_table: Annotated[
        bool,
        typer.Option(
            help="A critical hit to the skull, face or eye reads the Critical Head Blow Table "
            "(B556).",
        ),
    ] = True,
    damage: Annotated[
        str | None, typer.Option(help="The damage, when WEAPON is a level: '2d+1 cut'.")
    ] = None,
    vs: VsOpt = None,
    target_name: TargetNameOpt = None,
    dodge: IntOpt = None,
    parry: Annotated[
        str | None,
        typer.Option(
            metavar="PARRY", help="The target's Parry: 10, or 9F for a fencing parry (B376)."
        ),
    ] = None,
    block: IntOpt = None,
    dr: DrOpt = None,
    dr_at: DrAtOpt = None,
    hp: HpOpt = None,
    hp_now: HpNowOpt = None,
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
    male: Annotated[
        bool,
        typer.Option("--male", help="A male humanoid target: groin hits as B399 says."),
    ] = False,
    flexible: Annotated[
        bool,
        typer.Option("--flexible", help="The target's armor is flexible: blunt trauma (B379)."),
    ] = False,
    st: Annotated[
        int | None,
        typer.Option("--st", min=1, max=10000, help="The target's ST, for knockback (B378)."),
    ] = None,
    hpt: HptOpt = False,
    lpt: LptOpt = False,
    block_retreat: BlockRetreatOpt = 1,
    label: LabelOpt = None,
    damage_type: Annotated[
        str | None,
        typer.Option("--type", help="The damage type, when --damage gives none (cr, cut...)."),
    ] = None,
    sheet: SheetOpt = None,
    *,
    attrs: Situation,
) -> Twin:
    """An attack by weapon, with its options and criticals; with a target (--vs, or its
    numbers), the whole exchange: the defense, the hit location, damage through DR,
    injury, and what the GM must call for next, with each step's exact odds. ``attrs``
    gathers the situation's and the maneuvers' options (:mod:`.gurps_maneuvers`)."""
    level, found = _weapon(ctx, weapon, sheet)
    if found is not None and found.acc is not None and not ranged:
        ranged = True  # a weapon with an Acc is a ranged one (B268-B269), as in the room
        resolved_as(ctx, ranged=True)
    kind = ranged_kind(thrown, thrown_small, missile, ranged)
    if unarmed is None:  # by the sheet's name for the attack (B557): a punch, kick, bite...
        unarmed = found is not None and unarmed_name(found.full_name)
    if thrust is None:  # by the sheet's usage (MA97): 'Thrust', else a swing
        thrust = found is not None and "thrust" in (found.usage or "").lower()
    sit = attrs
    acc, bulk = sit.acc, sit.bulk
    if found is not None and sit.aim and acc is None and found.acc is not None:
        acc = found.acc  # the sheet's Acc (B364), written out so the roll replays without it
        resolved_as(ctx, acc=str(acc))
    if found is not None and sit.move_and_attack and bulk is None and found.bulk is not None:
        bulk = found.bulk  # the sheet's Bulk (B365)
        resolved_as(ctx, bulk=str(bulk))
    options = AttackOptions(
        deceptive,
        all_out,
        telegraphic,
        rapid,
        location,
        random_location,
        criticals,
        tight_beam=tight_beam,
        ranged=ranged or thrown or thrown_small,
        ranged_kind=kind,
        strong=strong,
        large_area=(sit.large_area_dr or True) if large_area else False,  # B400's rounding
        head_blow_table=head_blow_table,
        double=double,
        feint=feint,
        long=long,
        thrust=thrust,
        unarmed=unarmed,
        torso_miss=torso_miss,
        eye_row=eye_row,
        modifiers=tuple(mod or ()),
        range_yards=sit.range_yards,
        aim=sit.aim,
        acc=acc,
        posture=sit.posture,
        shock=sit.shock,
        move_and_attack=sit.move_and_attack,
        bulk=bulk,
        rof=sit.rof,
        recoil=sit.recoil or 1,
        dual_weapon=sit.dual_weapon,
        off_hand=sit.off_hand,
    )
    name = label or (found.full_name if found else None)
    if found is not None:
        resolved_as(ctx, weapon=str(level), label=labelled(found.full_name, label))
        if unarmed or (thrust and long):  # what the sheet's names said, replayed without it
            resolved_as(ctx, unarmed=unarmed or None, thrust=(thrust and long) or None)
    spec_text = damage or (found.damage if found else None)
    parry_level, fenced = read_parry(parry)
    target = typed_target(
        ctx, vs, target_name, dodge, parry_level, block, dr, hp, hp_now, dr_at_typed(dr_at),
        hpt=hpt, lpt=lpt, tolerance=sit.tolerance,
    )  # fmt: skip
    fencing = fencing or fenced or (parry is None and target is not None and target.fencing)
    if target is not None and (very_tired or male or flexible or st is not None):
        target = replace(target, very_tired=very_tired, male=male, flexible=flexible, st=st)
    if target is None:
        if location is not None and spec_text is not None:  # only some damage reaches it
            require_targetable(location, read_damage(spec_text).damage_type, tight_beam)
        told = [f for f, on in (("--aod-double", sit.aod_double), ("--dodge-and-drop",
                sit.dodge_and_drop), ("--heavy", sit.heavy), ("--defense-mod", sit.defense_mod),
                ("--target-posture", sit.target_posture != "standing"), ("--target-stunned",
                sit.target_stunned), ("--flank", sit.flank != "front")) if on]  # fmt: skip
        if told:
            raise RuleError(f"{told[0]} is the target's defense: give a target (--vs or "
                            "--target-name and its numbers)")  # fmt: skip
        return lone_twin(level, options, name)
    if spec_text is None:
        raise RuleError("an exchange needs the weapon's damage: name a weapon, or give --damage")
    if damage_type is not None and damage is not None:
        spec_text = f"{damage} {damage_type}"
    elif damage is not None and re.fullmatch(r"\s*\d+d\s*([+-]\s*\d+)?\s*", damage):
        spec_text = f"{damage} cr"  # dice+adds with no type: crushing, as gurps damage
    spec = read_damage(spec_text)
    if sit.half_damage_range is not None and sit.range_yards is not None:  # 1/2D (B378)
        half = at_half_damage(sit.range_yards, sit.half_damage_range, sit.half_damage_from)
        spec = replace(spec, half=half)
    if found is not None and damage is None:
        resolved_as(ctx, damage=spec_text)
    defense_options = DefenseOptions(
        retreat=retreat,
        all_out=aod,
        shield=shield,
        parried=parried,
        fencing=fencing,
        block_retreat=block_retreat,
        aod_double=sit.aod_double,
        drop=sit.dodge_and_drop,
        heavy=sit.heavy,
        break_on=sit.break_on or 2,
        modifier=sit.defense_mod,
        posture=sit.target_posture,
        stunned=sit.target_stunned,
        flank=sit.flank,
    )
    if sit.heavy and allowed_against(options, spec.damage_type).parry is None:
        raise RuleError("--heavy is for a parry (B376), and a missile cannot be parried "
                        "(B376): leave --heavy out")  # fmt: skip
    return exchange_twin(level, spec, target, options, defense, defense_options, name,
                         knockdown_ht=sit.target_ht)  # fmt: skip
