"""``gurps defend``: an active defense roll (B374-B377), with its options.

Sources: *GURPS Basic Set*, 4th edition: B374-B377, "Active Defense" (retreat, All-Out
Defense, shields, repeated parries, fencing weapons; a thrown weapon parried at −1, a
small one at −2, B376); B419 and B426 (reeling and very tired halve Dodge).
"""

from __future__ import annotations

import re
from typing import Annotated

import typer

from ..errors import RuleError
from ..fmt import readable
from ..render.combat import defense_json
from ..render.gurps import skill_odds_json
from ..rng import RandomSource
from ..systems.gurps.defense import DefenseOptions, defend, defense_modifiers, halved_dodge
from ..systems.gurps.success import skill_odds
from .gurps_combat import BlockRetreatOpt
from .gurps_target import defense_from_sheet
from .registry import LabelOpt, Twin, twins
from .result import Reply
from .sheeted import SheetOpt, labelled, resolved_as


@twins(
    "gurps",
    "defend",
    examples=[
        "gurps defend dodge 8 --retreat",
        "gurps defend parry 11 --parried 1 --fencing",
        "gurps defend block 10 --aod --shield 2 --against -1",
        "gurps defend dodge 9 --mod -3 --label 'Dodge (prone -3)'",
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
    thrown: Annotated[
        bool, typer.Option("--thrown", help="Parrying a thrown weapon: -1 (B376).")
    ] = False,
    thrown_small: Annotated[
        bool,
        typer.Option(
            "--thrown-small", help="Parrying a small thrown weapon (1 lb or less): -2 (B376)."
        ),
    ] = False,
    mod: Annotated[
        list[int] | None,
        typer.Option(
            "--mod",
            min=-20,
            max=20,
            help="A modifier to the defense (posture, stun: B551, B420); repeat for several.",
        ),
    ] = None,
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
        value, shown, fenced = defense_from_sheet(ctx, kind, level, sheet)
        fencing = fencing or fenced
        name = labelled(shown, label)
        resolved_as(ctx, level=str(value) + ("F" if fenced else ""), label=name)
    else:
        value = int(level)
    if kind == "dodge" and (reeling or very_tired):
        value = halved_dodge(value, reeling=reeling, very_tired=very_tired)
        why = " and ".join(w for w, on in (("reeling", reeling), ("very tired", very_tired)) if on)
        name = f"{name or 'Dodge'} (halved: {why})"
    elif reeling or very_tired:
        raise RuleError("--reeling and --very-tired halve Dodge only (B419, B426)")
    if mod:  # named by the label (a fight's: "Parry (prone -3)"), summed into the level
        value += sum(mod)
    options = DefenseOptions(retreat, aod, shield, parried, fencing, block_retreat)
    if (thrown or thrown_small) and kind != "parry":
        raise RuleError("--thrown and --thrown-small change a parry only (B376)")
    if thrown and thrown_small:
        raise RuleError("a thrown weapon is small or not: --thrown or --thrown-small (B376)")
    parry = -2 if thrown_small else -1 if thrown else 0  # B376: a missile is not parried

    def go(rng: RandomSource) -> Reply:
        d = defend(kind, value, options, against=against, parry=parry, label=name, rng=rng)
        return Reply(defense_json(d), d.text)

    def defense_odds() -> Reply:
        eff = value + sum(m for _, m in defense_modifiers(kind, options, against, parry))
        o = skill_odds(eff)
        text = f"{name or kind.title()} {eff}: defends {readable(o.success)}"
        data = {"system": "gurps", "kind": "odds", "label": name, "effective_skill": eff,
                "odds": skill_odds_json(o), "text": text}  # fmt: skip
        return Reply(data, text)

    return go, defense_odds
