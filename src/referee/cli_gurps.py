"""``referee gurps ...``: GURPS commands (rendering only; rules are in referee.systems.gurps)."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Annotated, Any

import typer

from .cli_common import JsonOpt, SeedOpt, emit, fail, system_app
from .cli_common import rng_for as _rng
from .errors import RefereeError
from .render import fraction, percent
from .systems import gurps as g

app = system_app("GURPS success rolls, contests, reactions and damage, with exact odds.")


def _effective(skill: str) -> int:
    """The effective skill of ``12-5``, or exit 2 with the error."""
    try:
        base, mods = g.parse_skill(skill)
    except RefereeError as exc:
        fail(exc)
    return base + sum(mods)


def _skill_odds(o: g.SkillOdds) -> dict[str, str]:
    return {
        "success": fraction(o.success),
        "critical_success": fraction(o.critical_success),
        "critical_failure": fraction(o.critical_failure),
    }


def check_json(r: g.SuccessRoll) -> dict[str, Any]:
    """The JSON contract of a success roll."""
    return {
        "system": "gurps",
        "kind": "success",
        "label": r.label,
        "base_skill": r.base_skill,
        "modifiers": list(r.modifiers),
        "effective_skill": r.effective_skill,
        "dice": list(r.dice),
        "roll": r.roll,
        "success": r.success,
        "critical": r.critical,
        "outcome": r.outcome.value,
        "margin": r.margin,
        "automatic": r.automatic,
        "odds": _skill_odds(r.odds),
        "secret": r.secret,
        "text": r.text,
    }


@app.command(
    epilog="Examples:\n\n  referee gurps check 12-5\n\n"
    "  referee gurps check 9-5+10 --label Lockpicking --json"
)
def check(
    skill: Annotated[str, typer.Argument(help="Skill and modifiers: 12, 12-5, 9-5+10.")],
    label: Annotated[str | None, typer.Option("--label", help="What is rolled.")] = None,
    defense: Annotated[
        bool, typer.Option("--defense", help="A defense roll (allowed below 3).")
    ] = False,
    secret: Annotated[bool, typer.Option("--secret", help="Mark as a GM's secret roll.")] = False,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A success roll: 3d6 at or under the effective skill, with criticals and exact odds."""
    try:
        r = g.check(skill, label=label, defense=defense, secret=secret, rng=_rng(seed))
    except RefereeError as exc:
        fail(exc)
    emit(check_json(r), as_json)


@app.command(epilog="Examples:\n\n  referee gurps odds 12-5")
def odds(
    skill: Annotated[str, typer.Argument(help="Skill and modifiers.")],
    as_json: JsonOpt = False,
) -> None:
    """Exact odds of success and of each critical, without rolling."""
    eff = _effective(skill)
    o = g.skill_odds(eff)
    text = (
        f"{skill} = {eff}: success {percent(o.success)} ({fraction(o.success)}), critical "
        f"success {percent(o.critical_success)}, critical failure {percent(o.critical_failure)}"
    )
    data = {"system": "gurps", "kind": "odds", "effective_skill": eff, "odds": _skill_odds(o)}
    emit({**data, "text": text}, as_json)


@app.command()
def table(as_json: JsonOpt = False) -> None:
    """Odds of success and criticals for effective skills 3 to 20."""
    rows = []
    lines = [f"{'skill':>5} {'success':>9} {'crit succ':>9} {'crit fail':>9}"]
    for eff in range(3, 21):
        o = g.skill_odds(eff)
        rows.append({"effective_skill": eff, "odds": _skill_odds(o)})
        lines.append(
            f"{eff:>5} {percent(o.success):>9} {percent(o.critical_success):>9} "
            f"{percent(o.critical_failure):>9}"
        )
    if as_json:
        typer.echo(json.dumps({"system": "gurps", "kind": "table", "rows": rows}))
    else:
        typer.echo("\n".join(lines))


@app.command(epilog="Examples:\n\n  referee gurps retry 12 --max 5")
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
    as_json: JsonOpt = False,
) -> None:
    """Chance to succeed within k attempts, each retry at -1 (004, repeated attempts (c)).

    A critical failure ends the attempts unless --continue-after-critical.
    """
    eff = _effective(skill)
    if eff < 3:
        typer.echo(f"error: effective skill {eff} is below 3: no roll is allowed", err=True)
        raise typer.Exit(2)
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
    emit(data, as_json)


def _odds3(first: Fraction, second: Fraction, tie: Fraction) -> dict[str, str]:
    return {"first": fraction(first), "second": fraction(second), "tie": fraction(tie)}


def _side_text(r: g.SuccessRoll | None, skill: int) -> str:
    if r is None:
        return f"skill {skill} fails without a roll"
    why = f" ({r.roll} always {'succeeds' if r.success else 'fails'})" if r.automatic else ""
    return f"{r.roll} {r.outcome.value} by {abs(r.margin)}{why}"


def _skills_text(r: g.ContestResult) -> str:
    a, b = r.skills
    out = f"{a} vs {b}"
    if r.effective_skills != r.skills:
        ea, eb = r.effective_skills
        out += f" (shortened, {r.edition.value}: {ea} vs {eb})"
    for n, (eff, rolled) in enumerate(zip(r.effective_skills, r.rolled_skills, strict=True), 1):
        if rolled is not None and rolled != eff:
            out += f"; side {n} rolls at {rolled}"
    return out


def contest_text(r: g.ContestResult) -> str:
    """One line: the skills, the last round's results with their margins, the winner, the odds."""
    o = r.odds
    if r.capped:
        who = f"nobody wins: stopped at the cap of {len(r.rounds)} rounds"
    else:
        who = "nobody wins (tie)" if r.winner is None else f"side {r.winner} wins"
    if r.margin_of_victory is not None:
        who += f" by {r.margin_of_victory}"
    last = r.rounds[-1]
    sides = " vs ".join(_side_text(x, s) for x, s in zip(last, r.effective_skills, strict=True))
    regular = r.kind == "regular_contest"
    n = len(r.rounds)
    rounds = f" after {n} round{'' if n == 1 else 's'}" if regular else ""
    tie = f" / tie {percent(o.tie)}" if not regular else ""
    return (
        f"{r.kind.replace('_', ' ').title()} {_skills_text(r)}: {sides}{rounds}: {who}"
        f" — odds {percent(o.first)} / {percent(o.second)}{tie}"
    )


@app.command(
    epilog="Examples:\n\n  referee gurps contest 14 12\n\n"
    "  referee gurps contest 18 16 --regular --edition 3e\n\n"
    "  referee gurps contest 30 15 --regular --edition 3e --floor auto-fail"
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
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A Quick (default) or Regular Contest, with each side's exact chance of winning."""
    try:
        for v in (first, second):
            if abs(v) > g.success.LIMIT:
                raise RefereeError(f"skill {v} is out of range (-1000 to 1000)")
        if regular:
            r = g.regular_contest(first, second, edition=edition, floor=floor, rng=_rng(seed))
        else:
            r = g.quick_contest(first, second, resistance=resistance, floor=floor, rng=_rng(seed))
    except RefereeError as exc:
        fail(exc)
    rounds = [
        {
            "first": None if a is None else check_json(a),
            "second": None if b is None else check_json(b),
        }
        for a, b in r.rounds
    ]
    o = r.odds
    data: dict[str, Any] = {
        "system": "gurps",
        "kind": r.kind,
        "skills": list(r.skills),
        "effective_skills": list(r.effective_skills),
        "rolled_skills": list(r.rolled_skills),
        "floor": r.floor.value,
        "winner": r.winner,
        "margin_of_victory": r.margin_of_victory,
        "rounds": rounds,
        "odds": _odds3(o.first, o.second, o.tie),
        "text": contest_text(r),
    }
    if r.expected_rounds is not None:
        data["expected_rounds"] = fraction(r.expected_rounds)
        data["edition"] = r.edition.value
    emit(data, as_json)


@app.command(epilog="Examples:\n\n  referee gurps reaction +2")
def reaction(
    modifier: Annotated[int, typer.Argument(help="Total reaction modifier, e.g. +2 or -1.")] = 0,
    open_roll: Annotated[bool, typer.Option("--open", help="Not a secret roll.")] = False,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A reaction roll: 3d6 plus modifiers on the Reaction Table (secret by default)."""
    try:
        r = g.reaction(modifier, secret=not open_roll, rng=_rng(seed))
    except RefereeError as exc:
        fail(exc)
    data = {
        "system": "gurps",
        "kind": "reaction",
        "dice": list(r.dice),
        "roll": r.roll,
        "modifier": r.modifier,
        "total": r.total,
        "reaction": r.reaction,
        "odds": {k: fraction(v) for k, v in r.odds.items()},
        "secret": r.secret,
        "text": r.text,
    }
    emit(data, as_json)


@app.command(epilog="Examples:\n\n  referee gurps damage 3d-3 --dr 2 --type cut")
def damage(
    expression: Annotated[str, typer.Argument(help="Dice+adds: 2d, 3d-3, 4d+2.")],
    dr: Annotated[int, typer.Option("--dr", help="Damage Resistance.")] = 0,
    damage_type: Annotated[str, typer.Option("--type", help="cr, cut, imp, pi, burn, ...")] = "cr",
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A damage roll against DR, with the exact distribution of penetrating damage."""
    try:
        r = g.damage(expression, dr=dr, damage_type=damage_type, rng=_rng(seed))
        dist = g.damage_odds(expression, dr=dr, damage_type=damage_type)
    except RefereeError as exc:
        fail(exc)
    data = {
        "system": "gurps",
        "kind": "damage",
        "expression": r.expression,
        "dice": list(r.dice),
        "basic_damage": r.basic_damage,
        "dr": r.dr,
        "damage_type": r.damage_type,
        "penetrating": r.penetrating,
        "distribution": [[k, fraction(v)] for k, v in dist.items()],
        "text": r.text,
    }
    emit(data, as_json)
