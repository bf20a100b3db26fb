"""Dice commands: ``roll``, ``odds`` and ``sample``."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import CommandError
from ..limits import worst_case_dice
from ..parser import parse
from .registry import LabelOpt, command
from .result import Plan, Reply, resources_of
from .rolling import engine_limits, odds_reply, roll_plan

__all__ = ["NOTATION"]

NOTATION = """\
Dice notation:
  3d6  d20  d%  4dF  3d-3       dice (a bare d is a d6, GURPS style; dF is Fudge)
  + - * / ( )                   arithmetic (/ rounds down; exact inside a function)
  4d6kh3 4d6kl1 4d6dh1 8d6d3    keep/drop highest/lowest (d3 drops the lowest 3)
  3d6kh2dl1                     keep/drop in turn, each on the dice still kept
  d6!  d10!>=9  d6!!  d6!p      explode: add a die; !! compounds; !p penetrates
  d20r1  2d8r1r3  d20ro1        reroll until it no longer matches (r), or once (ro)
  6d10>=8  3d6>3f<2             count successes; f counts failures as -1
  1d20cs>19  3d6cf1  4d6s  sd   mark critical dice; sort the dice shown
  {4d6+3d8, 3d20+3}kh1          keep/drop or count (>21) whole sub-rolls
  {5d6!!}>8                     one pool in braces: the target counts its dice
  floor ceil round abs min max  functions: floor(7/2)=3 round(5/2)=3 max(1d6,1d8)
  1d20+5 # attack               a label"""


@command(
    "roll",
    rolls=True,
    joins=True,
    examples=[
        "roll 4d6kh3",
        "roll '1d20+5 # attack' -n 3 --seed 7",
        "roll 1d20+5 --label 'Sneak attack'",
        "roll 3d-3 '6d10>=8' --json",
        "roll '{5d6!!}>8' 'floor(2d6/2)'",
    ],
    notes=NOTATION,
)
def roll_cmd(
    ctx: typer.Context,
    exprs: Annotated[
        list[str] | None, typer.Argument(metavar="EXPR...", help="Dice expressions.")
    ] = None,
    label: LabelOpt = None,
) -> Plan:
    """Roll dice: the breakdown, and the chance of that total or better."""
    caps = resources_of(ctx).limits
    return roll_plan(exprs or [], caps, label)  # (which refuses no expression, or an empty one)


@command(
    "odds",
    rolls=False,
    joins=True,
    examples=[
        "odds 3d6",
        "odds 4d6kh3 --at-least 15",
        "odds 2d6 --at-most 7 --json",
        "odds '{4d6+3d8, 3d20+3}kh1'",
    ],
    notes=NOTATION,
)
def odds_cmd(
    ctx: typer.Context,
    expr: Annotated[list[str], typer.Argument(metavar="EXPR", help="A dice expression.")],
    at_least: Annotated[int | None, typer.Option("--at-least", help="P(total >= X).")] = None,
    at_most: Annotated[int | None, typer.Option("--at-most", help="P(total <= X).")] = None,
) -> Plan:
    """Exact odds: every outcome with its fraction and percentage, and a bar chart."""
    text = _one(expr)
    if at_least is not None and at_most is not None:
        raise CommandError("give --at-least or --at-most, not both")
    op, value = (">=", at_least) if at_least is not None else ("<=", at_most)
    reply = odds_reply(text, resources_of(ctx).limits, op, value)
    return lambda rng: reply


@command(
    "sample",
    rolls=False,
    joins=True,
    examples=["sample 3d6 -n 1000000", "sample 8d6! -n 100000 --seed 1 --json"],
    notes=NOTATION,
)
def sample_cmd(
    ctx: typer.Context,
    expr: Annotated[list[str], typer.Argument(metavar="EXPR", help="A dice expression.")],
    n: Annotated[int, typer.Option("-n", help="How many rolls to simulate.")] = 100_000,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Seed for a reproducible sample.")
    ] = None,
) -> Plan:
    """Simulate N rolls (vectorised): summary statistics and a histogram."""
    # here, not at the top: each import costs 2-97 ms of start-up otherwise (issue 53)
    from ..render import sample_text
    from ..sampling import summarize

    text = _one(expr)
    resources = resources_of(ctx)
    limits = engine_limits(resources.limits)
    work = resources.limits.work
    if work is not None:
        dice = worst_case_dice(parse(text, limits).root, limits)
        if n * max(dice, 1) > work:
            raise CommandError(
                f"-n {n:,} would simulate {n * dice:,} dice; the limit here is {work:,}", "sample"
            )

    def go(rng: object) -> Reply:
        with resources.progress(n) as tick:
            summary = summarize(text, n, seed=seed, progress=tick, limits=limits)
        return Reply(summary, sample_text(summary))

    return go


def _one(words: list[str]) -> str:
    if len(words) != 1:
        raise CommandError(f"give one expression, not {len(words)}: {' '.join(words)!r}")
    return words[0]
