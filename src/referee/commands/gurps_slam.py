"""``gurps slam``: a slam (B371), the attack whose damage comes from the slammer's HP and
velocity, and which hurts both; with its exact odds (``gurps odds slam``). The rules
and their readings: :mod:`referee.systems.gurps.slam`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from ..fmt import fraction
from ..render.combat import exchange_json, exchange_odds_json
from ..rng import RandomSource
from ..systems.gurps.damage import DamageSpec
from ..systems.gurps.exchange import Target
from ..systems.gurps.exchange_odds import exchange_odds
from ..systems.gurps.melee import AttackOptions, DefenseOptions
from ..systems.gurps.slam import SlamBounds, SlamOdds, slam, slam_dice, slam_odds
from .registry import LabelOpt, Twin, twins
from .result import Reply

__all__ = ["slam_cmd"]

DrOpt = Annotated[int, typer.Option(min=0, max=1000)]
LevelOpt = Annotated[int | None, typer.Option(min=-100, max=1000)]


@twins(
    "gurps",
    "slam",
    examples=[
        "gurps slam 12 --velocity 6 --attacker-hp 14 --target-name Orc --hp 12 --dodge 8",
        "gurps slam 13 --velocity 10 --attacker-hp 20 --attacker-dr 3 --target-name Orc "
        "--hp 12 --dr 1 --parry 9",
    ],
)
def slam_cmd(
    skill: Annotated[
        int,
        typer.Argument(
            metavar="SKILL", help="The slam's level: DX, Brawling or Sumo Wrestling (B371)."
        ),
    ],
    velocity: Annotated[
        int,
        typer.Option(min=1, max=1000, help="The closing speed in yards a second (B371)."),
    ],
    attacker_hp: Annotated[
        int, typer.Option("--attacker-hp", min=1, max=10000, help="The slammer's HP.")
    ],
    hp: Annotated[int, typer.Option(min=1, max=10000, help="The target's HP.")],
    attacker: Annotated[str, typer.Option(help="The slammer's name.")] = "Slammer",
    attacker_dr: Annotated[
        int, typer.Option("--attacker-dr", min=0, max=1000, help="The slammer's DR (torso).")
    ] = 0,
    target_name: Annotated[str, typer.Option(help="The target's name.")] = "the target",
    dr: DrOpt = 0,
    dodge: LevelOpt = None,
    parry: LevelOpt = None,
    block: LevelOpt = None,
    defense: Annotated[
        str, typer.Option(help="The target's defense: best, dodge, parry, block or none.")
    ] = "best",
    bounds: Annotated[
        SlamBounds,
        typer.Option(
            help="Where B371's dice under 1d end: below (0.25 is 1d-2) or at-most (1d-3)."
        ),
    ] = SlamBounds.BELOW,
    label: LabelOpt = None,
) -> Twin:
    """A slam (B371): the attack and the target's defense; then each does crushing damage
    to the other, (HP x velocity)/100 dice, through DR; who deals twice the basic damage
    it takes knocks the other down."""
    slammer = Target(label or attacker, dr=attacker_dr, hp=attacker_hp)
    target = Target(target_name, dodge=dodge, parry=parry, block=block, dr=dr, hp=hp)
    options = DefenseOptions()
    odds = slam_odds(skill, velocity, slammer, target, defense=defense, defense_options=options,
                     bounds=bounds)  # fmt: skip
    dice = {"slammer": slam_dice(attacker_hp, velocity, bounds),
            "target": slam_dice(hp, velocity, bounds)}  # fmt: skip

    def go(rng: RandomSource) -> Reply:
        s = slam(skill, velocity, slammer, target, defense=defense, defense_options=options,
                 bounds=bounds, rng=rng)  # fmt: skip
        back = s.back
        data = {**exchange_json(s.exchange), "kind": "slam", "label": label, "velocity": velocity,
                "slam_dice": dice, "fallen": s.fallen, "text": s.text,
                "back": None if back is None else {"dice": list(back.dice), "basic": back.basic,
                                                    "dr": back.dr, "injury": back.injury},
                "odds_slam": _odds_json(odds)}  # fmt: skip
        return Reply(data, s.text)

    def odds_of() -> Reply:
        spec = DamageSpec(dice["slammer"], "cr")
        o = exchange_odds(skill, spec, target, AttackOptions(unarmed=True), defense, options,
                          attacker=slammer.name)  # fmt: skip
        data = {**exchange_odds_json(o), "kind": "odds", "slam": _odds_json(odds),
                "slam_dice": dice, "text": odds.text}  # fmt: skip
        return Reply(data, odds.text)

    return go, odds_of


def _odds_json(o: SlamOdds) -> dict[str, str]:
    """A slam's own odds (B371) as exact fractions."""
    return {"hurt_back": fraction(o.hurt_back), "target_falls": fraction(o.target_falls),
            "slammer_falls": fraction(o.slammer_falls)}  # fmt: skip
