"""``gurps blow``: the exchange's damage step on its own, for a hit already made: the
location, the critical table's effect, the damage dice through the target's DR, the
injury and what the GM must call for next (issue 65 §6: "one exchange for every front
end"). A room's one-click attack is the attack roll, the defense roll, then this; it
takes its damage from :func:`referee.systems.gurps.exchange.strike`, the function
``gurps attack``'s exchange takes its own from, so the two agree on the same dice.

Sources: *GURPS Basic Set*, 4th edition: B398-B400 (hit location; an aimed attack that
misses by 1 hits the torso, which the attack roll decides), B378-B379 (damage, DR,
wounding), B556 (the Critical Hit Table's damage rows, ``--critical`` its 3d6 total;
the Critical Head Blow Table for a critical hit that lands on the head), B419-B421.
"""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction
from typing import Annotated, Any

import typer

from ..errors import RuleError
from ..fmt import fraction, percent
from ..odds import odds
from ..render.combat import critical_json, hurt_json
from ..rng import RandomSource
from ..systems.gurps.blows import penetrates
from ..systems.gurps.criticals import CRITICAL_HIT, HEAD, CriticalRoll, EyeRow, head_blow
from ..systems.gurps.damage import read_damage
from ..systems.gurps.exchange import (
    Hurt,
    aimed_options,
    critical_effect,
    hurt_line,
    next_calls,
    strike,
)
from ..systems.gurps.locations import RANDOM_TABLE, read_location, require_targetable
from ..systems.gurps.melee import AttackOptions
from .gurps_target import DrAtOpt, DrOpt, HpNowOpt, HpOpt, HptOpt, LptOpt, dr_at_typed, typed_target
from .registry import LabelOpt, Twin, twins
from .result import Reply
from .sheeted import SheetOpt, TargetNameOpt, VsOpt

__all__ = ["blow_cmd", "blow_json"]


@twins(
    "gurps",
    "blow",
    examples=[
        "gurps blow '2d+1 cut' --target-name Orc --dr 2 --hp 12",
        "gurps blow '1d+2 imp' --location skull --target-name Orc --dr 2 --hp 12 --critical 3",
        "gurps blow '2d cr' --random-location --target-name Orc --hp 11 --hp-now 4",
    ],
)
def blow_cmd(
    ctx: typer.Context,
    damage: Annotated[
        str, typer.Argument(metavar="DAMAGE", help="The damage, with its type: '2d+1 cut'.")
    ],
    location: Annotated[
        str | None, typer.Option(help="Where the hit lands (skull, vitals...); the torso if none.")
    ] = None,
    random_location: Annotated[
        bool, typer.Option("--random-location", help="Roll the location on 3d6 (B398).")
    ] = False,
    critical: Annotated[
        int | None,
        typer.Option(
            min=3,
            max=18,
            metavar="ROW",
            help="A critical hit: the 3d6 total rolled on the Critical Hit Table (B556).",
        ),
    ] = None,
    head_blow_table: Annotated[
        bool,
        typer.Option(help="A critical hit to the head reads the Critical Head Blow Table (B556)."),
    ] = True,
    eye_row: Annotated[
        EyeRow,
        typer.Option("--eye-row", help="The head blow table's rows 6-7 at the eye (B556)."),
    ] = EyeRow.AS_AIMED,
    tight_beam: Annotated[
        bool, typer.Option("--tight-beam", help="A tight-beam burning attack (B399).")
    ] = False,
    large_area: Annotated[
        bool, typer.Option("--large-area", help="Large-area injury (B400).")
    ] = False,
    vs: VsOpt = None,
    target_name: TargetNameOpt = None,
    dr: DrOpt = None,
    dr_at: DrAtOpt = None,
    hp: HpOpt = None,
    hp_now: HpNowOpt = None,
    male: Annotated[bool, typer.Option("--male", help="A male humanoid target (B399).")] = False,
    flexible: Annotated[
        bool, typer.Option("--flexible", help="The target's armor is flexible (B379).")
    ] = False,
    st: Annotated[
        int | None, typer.Option("--st", min=1, max=10000, help="The target's ST (B378).")
    ] = None,
    hpt: HptOpt = False,
    lpt: LptOpt = False,
    unconscious: Annotated[
        bool,
        typer.Option(
            "--unconscious",
            help="The target is already unconscious: no knockdown roll (B420), nor one to "
            "stay conscious (B419). In a room's fight the tracker says so.",
        ),
    ] = False,
    label: LabelOpt = None,
    sheet: SheetOpt = None,
) -> Twin:
    """The damage of a hit that landed: its location, the critical table's effect, the
    dice through DR, the injury and what the GM calls for next, with the odds to
    penetrate."""
    spec_text = damage
    if re.fullmatch(r"\s*\d+d\s*([+-]\s*\d+)?\s*", damage):
        spec_text = f"{damage} cr"  # dice+adds with no type: crushing, as gurps damage
    spec = read_damage(spec_text)
    if location is not None and random_location:
        raise RuleError("a blow lands at --location or at a --random-location, not both")
    if location is not None:
        require_targetable(location, spec.damage_type, tight_beam)
    target = typed_target(
        ctx, vs, target_name or "the target", None, None, None, dr, hp, hp_now,
        dr_at_typed(dr_at), hpt=hpt, lpt=lpt,
    )  # fmt: skip
    assert target is not None  # a name always makes one
    if male or flexible or st is not None:
        target = replace(target, male=male, flexible=flexible, st=st)
    options = AttackOptions(
        location=location,
        random_location=random_location,
        tight_beam=tight_beam,
        large_area=large_area,
        head_blow_table=head_blow_table,
        eye_row=eye_row,
    )
    options = aimed_options(options, spec)
    crit: CriticalRoll | None = None
    if critical is not None:  # the table the attack read: B556's head blows when aimed there
        crit = CriticalRoll("critical hit", _faces(critical), critical, CRITICAL_HIT[critical])
        if options.head_blow_table and location is not None:
            if read_location(location).key in HEAD:
                crit = head_blow(crit)
    effect = critical_effect(crit, options)
    name = label or "Blow"

    def go(rng: RandomSource) -> Reply:
        h = strike(spec, target, options, effect, rng, crit)
        calls = next_calls(target, h, spec)
        if unconscious:  # B420: knockdown and stunning mean nothing to the unconscious
            calls = tuple(
                c for c in calls if "against knockdown" not in c and "to stay conscious" not in c
            )
        data = blow_json(h, spec.expression, spec.damage_type, target.name, calls, crit)
        text = _text(name, target.name, spec.expression, spec.damage_type, h, target, calls)
        return Reply({**data, "label": label, "text": text}, text)

    def odds() -> Reply:
        chance = _through(spec, target, location, random_location, effect, large_area)
        text = f"{name} on {target.name}: penetrates DR {percent(chance)} once it lands"
        data = {"system": "gurps", "kind": "odds", "label": label, "text": text,
                "odds": {"penetrates": fraction(chance)}}  # fmt: skip
        return Reply(data, text)

    return go, odds


def _through(
    spec: Any, target: Any, location: str | None, random: bool, effect: str, large: bool
) -> Fraction:
    """P(the damage penetrates DR): at the location, or over B398's 3d6 table."""
    if not random:
        return penetrates(spec, target, read_location(location or "torso"), effect, large)
    table = odds("3d6").distribution
    return sum(
        (p * penetrates(spec, target, read_location(RANDOM_TABLE[t]), effect, large)
         for t, p in table.items()),
        Fraction(0),
    )  # fmt: skip


def _faces(total: int) -> tuple[int, int, int]:
    """Three faces that sum to ``total`` (3-18), for a critical row given by its total."""
    a = min(6, total - 2)
    b = min(6, total - a - 1)
    return a, b, total - a - b


def blow_json(
    h: Hurt,
    expression: str,
    damage_type: str,
    target: str,
    calls: tuple[str, ...],
    crit: CriticalRoll | None,
) -> dict[str, Any]:
    """A blow's JSON: the same ``damage`` object as an exchange's (docs/reference/json.md)."""
    return {
        "system": "gurps",
        "kind": "blow",
        "outcome": "injures" if h.injury else "no injury",
        "success": bool(h.injury),
        "odds": {"penetrates": fraction(h.chance_through)},
        "target": target,
        "critical_table": critical_json(crit),
        "damage": hurt_json(h, expression, damage_type),
        "calls": list(calls),
    }


def _text(
    name: str, who: str, expression: str, kind: str, h: Hurt, target: Any, calls: tuple[str, ...]
) -> str:
    line = f"{name} on {who} {hurt_line(h, expression, kind)}"
    now = target.current_hp if target.current_hp is not None else target.hp
    if now is not None and h.injury:
        line += f" ({who} {now} → {now - h.injury} HP)"
    if calls:
        line += ". Next: " + "; ".join(calls)
    return line
