"""``referee fudge ...``: Fudge commands (rendering only; rules are in referee.systems.fudge)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from .cli_common import JsonOpt, SeedOpt, emit, fail, rng_for, system_app
from .errors import RefereeError, RuleError
from .render import fraction, percent
from .systems import fudge as f

app = system_app(
    "Fudge dice (4dF) on a trait ladder, as Psi-punk uses them, with exact odds.\n\n"
    "Levels are ladder names or unique prefixes (Good, gr, Great+1) or numbers (+2, 0, -1)."
)

LadderOpt = Annotated[
    str | None,
    typer.Option("--ladder", help="psi-punk (default), fate-core, or a .toml/.json ladder file."),
]
ModOpt = Annotated[
    list[int] | None,
    typer.Option("--mod", help="An action modifier; repeat to add several (±3 at most)."),
]
RerollOpt = Annotated[
    list[str] | None,
    typer.Option("--reroll", help="+N reroll bonus or -N penalty (N dice, up to 4); repeatable."),
]
StrategyOpt = Annotated[
    f.Strategy,
    typer.Option(
        "--strategy",
        help="Which dice a bonus rerolls: optimal (the best chance of success, then the "
        "best expected result), minus-then-blank, or minus-only.",
    ),
]
ExtremeOpt = Annotated[
    bool, typer.Option("--extreme", help="Allow modifiers beyond ±3 (extreme conditions).")
]
VsOpt = Annotated[
    str | None,
    typer.Option("--vs", help="Difficulty level (default Fair); 'none' to only read the result."),
]


def _rerolls(values: list[str] | None) -> list[int]:
    out = []
    for text in values or []:
        try:
            out.append(int(text.replace(" ", "").removesuffix("dF").removesuffix("df")))
        except ValueError:
            raise RuleError(
                f"cannot read reroll {text!r}: write +1 (bonus) or -1 (penalty)"
            ) from None
    return out


def _level(lv: f.Level | None) -> dict[str, Any] | None:
    return None if lv is None else {"name": lv.name, "value": lv.value}


def _distribution(o: f.ActionOdds) -> list[list[Any]]:
    return [[v, fraction(p)] for v, p in o.distribution]


def action_json(r: f.ActionRoll) -> dict[str, Any]:
    """The JSON contract of an unopposed action (or of one side of an opposed one)."""
    return {
        "system": "fudge",
        "kind": "action",
        "ladder": r.ladder.name,
        "trait": _level(r.trait),
        "modifier": r.modifier,
        "dice": [f.face_text(d) for d in r.dice],
        "natural": (
            {"total": r.natural_total, "dice": [f.face_text(d) for d in r.natural]}
            if r.rolled
            else None
        ),
        "rerolls": [
            {"index": x.index, "from": f.face_text(x.old), "to": f.face_text(x.new)}
            for x in r.rerolls
        ],
        "rolled": r.rolled,
        "result": _level(r.result),
        "difficulty": _level(r.difficulty),
        "degree": r.degree,
        "degree_name": r.degree_name,
        "success": r.success,
        "odds": {
            "success": None if r.odds.success is None else fraction(r.odds.success),
            "distribution": _distribution(r.odds),
        },
        "secret": r.secret,
        "text": r.text,
    }


def _opposed_odds(o: f.OpposedOdds) -> dict[str, str]:
    return {"first": fraction(o.first), "second": fraction(o.second), "tie": fraction(o.tie)}


@app.command(
    epilog="Examples:\n\n  referee fudge roll Good\n\n  referee fudge roll Good --mod +1 --vs Great"
    " --reroll +1\n\n  referee fudge roll gr --vs none --seed 7 --json"
)
def roll(
    trait: Annotated[str, typer.Argument(help="The trait: Good, gr, Great+1, +2.")],
    mod: ModOpt = None,
    vs: VsOpt = None,
    reroll: RerollOpt = None,
    strategy: StrategyOpt = f.Strategy.OPTIMAL,
    extreme: ExtremeOpt = False,
    secret: Annotated[bool, typer.Option("--secret", help="Mark as a GM's secret roll.")] = False,
    roll_anyway: Annotated[
        bool,
        typer.Option(
            "--roll-anyway", help="Roll even when success is certain or impossible (002)."
        ),
    ] = False,
    ladder: LadderOpt = None,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """An unopposed action: trait + modifiers + 4dF against a difficulty, with exact odds.

    When success is certain or impossible, no dice are rolled (002, "Rolling the
    Dice") unless --roll-anyway.
    """
    try:
        r = f.action(
            trait,
            modifier=mod or [],
            difficulty=vs,
            reroll=_rerolls(reroll),
            strategy=strategy,
            extreme=extreme,
            secret=secret,
            roll_anyway=roll_anyway,
            ladder=f.get_ladder(ladder),
            rng=rng_for(seed),
        )
    except RefereeError as exc:
        fail(exc)
    emit(action_json(r), as_json)


@app.command(
    epilog="Examples:\n\n  referee fudge oppose Great Good\n\n"
    "  referee fudge oppose Good Fair --mod +1 --reroll2 -1 --ties defender"
)
def oppose(
    first: Annotated[str, typer.Argument(help="The acting side's trait.")],
    second: Annotated[str, typer.Argument(help="The opposing (defending) side's trait.")],
    mod: ModOpt = None,
    mod2: Annotated[
        list[int] | None, typer.Option("--mod2", help="A modifier for the second side.")
    ] = None,
    reroll: RerollOpt = None,
    reroll2: Annotated[
        list[str] | None, typer.Option("--reroll2", help="Reroll bonus/penalty, second side.")
    ] = None,
    strategy: StrategyOpt = f.Strategy.OPTIMAL,
    ties: Annotated[
        f.TieRule, typer.Option("--ties", help="Who wins a tie: nobody, or the defender.")
    ] = f.TieRule.NOBODY,
    extreme: ExtremeOpt = False,
    secret: Annotated[bool, typer.Option("--secret", help="Mark as a GM's secret roll.")] = False,
    ladder: LadderOpt = None,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """An opposed action: both sides roll; the higher result wins, with exact odds."""
    try:
        r = f.oppose(
            first,
            second,
            modifiers=(mod or [], mod2 or []),
            rerolls=(_rerolls(reroll), _rerolls(reroll2)),
            strategy=strategy,
            ties=ties,
            extreme=extreme,
            secret=secret,
            ladder=f.get_ladder(ladder),
            rng=rng_for(seed),
        )
    except RefereeError as exc:
        fail(exc)
    data = {
        "system": "fudge",
        "kind": "oppose",
        "first": action_json(r.first),
        "second": action_json(r.second),
        "degree": r.degree,
        "winner": r.winner,
        "ties": r.ties.value,
        "odds": _opposed_odds(r.odds),
        "secret": r.secret,
        "text": r.text,
    }
    emit(data, as_json)


@app.command(
    epilog="Examples:\n\n  referee fudge odds Good --vs Great --reroll +1\n\n"
    "  referee fudge odds Good --against Great --json"
)
def odds(
    trait: Annotated[str, typer.Argument(help="The trait.")],
    mod: ModOpt = None,
    vs: VsOpt = None,
    reroll: RerollOpt = None,
    strategy: StrategyOpt = f.Strategy.OPTIMAL,
    against: Annotated[
        str | None, typer.Option("--against", help="An opposing trait: odds of each side winning.")
    ] = None,
    ties: Annotated[f.TieRule, typer.Option("--ties", help="With --against.")] = f.TieRule.NOBODY,
    extreme: ExtremeOpt = False,
    ladder: LadderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Exact odds of an action without rolling: the result's distribution and P(success)."""
    try:
        lad = f.get_ladder(ladder)
        kw: dict[str, Any] = {"modifier": mod or [], "extreme": extreme, "ladder": lad}
        kw.update(reroll=_rerolls(reroll), strategy=strategy)
        o = f.action_odds(trait, difficulty=f.NO_DIFFICULTY if against else vs, **kw)
        other = None
        if against is not None:
            opp = f.action_odds(against, difficulty=f.NO_DIFFICULTY, ladder=lad, extreme=extreme)
            other = f.oppose_odds(o, opp, ties)
        diff = None if against else f.difficulty_level(lad, vs)
    except RefereeError as exc:
        fail(exc)
    head = lad.trait(trait).name + (f"{sum(mod or []):+d}" if mod and sum(mod) else "")
    lines = [
        f"{lad.name_of(v):>16} {v:+4d}  {percent(p):>6}  {fraction(p)}"
        for v, p in reversed(o.distribution)
    ]
    data: dict[str, Any] = {
        "system": "fudge",
        "kind": "odds",
        "trait": _level(lad.trait(trait)),
        "distribution": _distribution(o),
    }
    if other is not None:
        data["against"] = _level(lad.trait(against or ""))
        data["odds"] = _opposed_odds(other)
        summary = (
            f"{head} vs {against}: 1 wins {percent(other.first)} ({fraction(other.first)}), "
            f"2 wins {percent(other.second)}, tie {percent(other.tie)}"
        )
    else:
        data["difficulty"] = _level(diff)
        data["success"] = None if o.success is None else fraction(o.success)
        summary = f"{head}: distribution of the result"
        if o.success is not None and diff is not None:
            summary = (
                f"{head} vs {diff.name}: {percent(o.success)} to succeed ({fraction(o.success)})"
            )
    data["text"] = "\n".join([summary, *lines])
    emit(data, as_json)


@app.command(
    epilog="Examples:\n\n  referee fudge ladder\n\n  referee fudge ladder --ladder fate-core"
)
def ladder(ladder: LadderOpt = None, as_json: JsonOpt = False) -> None:
    """Print the active ladder, marking the trait range and the default difficulty."""
    try:
        lad = f.get_ladder(ladder)
    except RefereeError as exc:
        fail(exc)
    lo, hi = lad.trait_range
    lines = [f"{lad.name} ladder (traits {lad.name_of(lo)} to {lad.name_of(hi)})"]
    for lv in lad.levels:
        notes = []
        if not lo <= lv.value <= hi:
            notes.append("rolled results only")
        if lv.value == lad.default_difficulty:
            notes.append("default difficulty")
        lines.append(f"  {lv.value:+3d}  {lv.name}" + (f"  ({', '.join(notes)})" if notes else ""))
    data = {
        "system": "fudge",
        "kind": "ladder",
        "name": lad.name,
        "levels": [{"name": lv.name, "value": lv.value} for lv in lad.levels],
        "traits": [lo, hi],
        "default_difficulty": lad.default_difficulty,
        "degrees": lad.degrees.value,
        "text": "\n".join(lines),
    }
    emit(data, as_json)
