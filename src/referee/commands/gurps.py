"""GURPS commands: ``gurps check``, ``odds``, ``table``, ``retry``, ``contest``, ``reaction``,
``damage``. Rules and their validation are in :mod:`referee.systems.gurps`."""

from __future__ import annotations

from typing import Annotated

import typer

from ..fmt import fraction, percent
from ..render import gurps as render
from ..rng import RandomSource
from ..systems import gurps as g
from .registry import command
from .result import Plan, Reply

__all__: list[str] = []


def _effective(skill: str) -> int:
    base, mods = g.parse_skill(skill)
    return base + sum(mods)


@command(
    "gurps check",
    rolls=True,
    joins=True,
    examples=["gurps check 12-5", "gurps check 9-5+10 --label Lockpicking --json"],
)
def check(
    skill: Annotated[str, typer.Argument(help="Skill and modifiers: 12, 12-5, 9-5+10.")],
    label: Annotated[str | None, typer.Option("--label", help="What is rolled.")] = None,
    defense: Annotated[
        bool, typer.Option("--defense", help="A defense roll (allowed below 3).")
    ] = False,
) -> Plan:
    """A success roll: 3d6 at or under the effective skill, with criticals and exact odds."""
    g.parse_skill(skill)  # refused before any roll

    def go(rng: RandomSource) -> Reply:
        r = g.check(skill, label=label, defense=defense, rng=rng)
        return Reply(render.check_json(r), r.text)

    return go


@command("gurps odds", rolls=False, joins=True, examples=["gurps odds 12-5"])
def odds(skill: Annotated[str, typer.Argument(help="Skill and modifiers.")]) -> Plan:
    """Exact odds of success and of each critical, without rolling."""
    eff = _effective(skill)
    o = g.skill_odds(eff)
    text = (
        f"{skill} = {eff}: success {percent(o.success)} ({fraction(o.success)}), critical "
        f"success {percent(o.critical_success)}, critical failure {percent(o.critical_failure)}"
    )
    data = {
        "system": "gurps",
        "kind": "odds",
        "effective_skill": eff,
        "odds": render.skill_odds_json(o),
        "text": text,
    }
    return lambda rng: Reply(data, text)


@command("gurps table", rolls=False, examples=["gurps table"])
def table() -> Plan:
    """Odds of success and criticals for effective skills 3 to 20."""
    rows = []
    lines = [f"{'skill':>5} {'success':>9} {'crit succ':>9} {'crit fail':>9}"]
    for eff in range(3, 21):
        o = g.skill_odds(eff)
        rows.append({"effective_skill": eff, "odds": render.skill_odds_json(o)})
        lines.append(
            f"{eff:>5} {percent(o.success):>9} {percent(o.critical_success):>9} "
            f"{percent(o.critical_failure):>9}"
        )
    text = "\n".join(lines)
    data = {"system": "gurps", "kind": "table", "rows": rows, "text": text}
    return lambda rng: Reply(data, text)


@command("gurps retry", rolls=False, joins=True, examples=["gurps retry 12 --max 5"])
def retry(
    skill: Annotated[str, typer.Argument(help="Skill and modifiers.")],
    max_attempts: Annotated[int, typer.Option("--max", min=1, max=1000)] = 5,
    carry_on: Annotated[
        bool,
        typer.Option(
            "--continue-after-critical",
            help="Keep trying after a critical failure (by default it ends the attempts).",
        ),
    ] = False,
) -> Plan:
    """Chance to succeed within k attempts, each retry at -1 (004, repeated attempts (c)).

    A critical failure ends the attempts unless --continue-after-critical.
    """
    eff = _effective(skill)
    probs = [
        g.retry_odds(eff, k, stop_on_critical=not carry_on) for k in range(1, max_attempts + 1)
    ]
    text = "\n".join(f"within {k}: {percent(p)} ({fraction(p)})" for k, p in enumerate(probs, 1))
    data = {
        "system": "gurps",
        "kind": "retry",
        "effective_skill": eff,
        "within": [fraction(p) for p in probs],
        "stop_on_critical": not carry_on,
        "text": text,
    }
    return lambda rng: Reply(data, text)


@command(
    "gurps contest",
    rolls=True,
    examples=[
        "gurps contest 14 12",
        "gurps contest 18 16 --regular --edition 3e",
        "gurps contest 30 15 --regular --edition 3e --floor auto-fail",
    ],
)
def contest(
    first: Annotated[int, typer.Argument(help="First side's effective skill.")],
    second: Annotated[int, typer.Argument(help="Second side's effective skill.")],
    regular: Annotated[bool, typer.Option("--regular", help="A Regular Contest.")] = False,
    edition: Annotated[g.Edition, typer.Option("--edition", help="Shortening rule.")] = (
        g.Edition.FOURTH
    ),
    floor: Annotated[
        g.Floor,
        typer.Option(
            "--floor",
            help="Skill below 3: clamp (000: refused if typed, rolled at 3 if shortened) "
            "or auto-fail (001: 3 or less fails without a roll).",
        ),
    ] = g.Floor.CLAMP,
    resistance: Annotated[
        bool, typer.Option("--resistance", help="First side must succeed; ties to the second.")
    ] = False,
) -> Plan:
    """A Quick (default) or Regular Contest, with each side's exact chance of winning."""
    if regular:
        g.regular_contest_odds(first, second, edition=edition, floor=floor)  # refused before a roll
    else:
        g.quick_contest_odds(first, second, resistance, g.Floor(floor))

    def go(rng: RandomSource) -> Reply:
        if regular:
            r = g.regular_contest(first, second, edition=edition, floor=floor, rng=rng)
        else:
            r = g.quick_contest(first, second, resistance=resistance, floor=floor, rng=rng)
        return Reply(render.contest_json(r), r.text)

    return go


@command(
    "gurps reaction",
    rolls=True,
    secret=g.SECRET_BY_DEFAULT,
    examples=["gurps reaction +2", "gurps reaction -- -1"],
)
def reaction(
    modifier: Annotated[int, typer.Argument(help="Total reaction modifier, e.g. +2 or -1.")] = 0,
) -> Plan:
    """A reaction roll: 3d6 plus modifiers on the Reaction Table (the GM's secret by default)."""
    g.reaction_odds(modifier)  # refused before a roll

    def go(rng: RandomSource) -> Reply:
        r = g.reaction(modifier, rng=rng)
        return Reply(render.reaction_json(r), r.text)

    return go


@command("gurps damage", rolls=True, joins=True, examples=["gurps damage 3d-3 --dr 2 --type cut"])
def damage(
    expression: Annotated[str, typer.Argument(help="Dice+adds: 2d, 3d-3, 4d+2.")],
    dr: Annotated[int, typer.Option("--dr", help="Damage Resistance.")] = 0,
    damage_type: Annotated[str, typer.Option("--type", help="cr, cut, imp, pi, burn, ...")] = "cr",
) -> Plan:
    """A damage roll against DR, with the exact distribution of penetrating damage."""
    dist = g.damage_odds(expression, dr=dr, damage_type=damage_type)

    def go(rng: RandomSource) -> Reply:
        r = g.damage(expression, dr=dr, damage_type=damage_type, rng=rng)
        return Reply(render.damage_json(r, dist), r.text)

    return go
