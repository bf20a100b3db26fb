"""Fudge commands: ``fudge roll``, ``oppose``, ``odds`` and ``ladder``.

Rules and their validation are in :mod:`referee.systems.fudge`. A ladder is
named from the built-in set; the CLI's resources may also read a ladder file.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ..fmt import fraction, percent, readable, short_fraction
from ..render import fudge as render
from ..results import Versus
from ..rng import RandomSource
from ..systems import fudge as f
from .fudge_sheet import BY_NAME, Sheet2Opt, ladder_key, resolve
from .registry import (
    DEFAULTS,
    LabelOpt,
    NamesOpt,
    Twin,
    command,
    label_reply,
    read_names,
    twins,
)
from .result import Plan, Reply, Resources
from .sheeted import SheetOpt, labelled, resolved_as

__all__: list[str] = []

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


TRAIT_HELP = "The trait: a level (Good, gr, Great+1, +2) or a name on the sheet ('Ranged Combat')."


def _ladder(ctx: typer.Context, name: str | None) -> f.Ladder:
    resources: Resources = ctx.obj
    return resources.ladder(name)


@command(
    "fudge roll",
    rolls=True,
    examples=[
        "fudge roll Good",
        "fudge roll Good --mod +1 --vs Great --reroll +1",
        "fudge roll gr --vs none --seed 7 --json",
        "fudge roll Poor --vs Astonishing+2 --roll-anyway",
        "fudge roll Good --label 'Pick the lock'",
        "fudge roll 'Ranged Combat' --vs Great --sheet example:ron.toml",
        "fudge roll Focus --ladder fate-core --sheet example:ron.toml",
    ],
    notes=BY_NAME,
)
def roll(
    ctx: typer.Context,
    trait: Annotated[str, typer.Argument(help=TRAIT_HELP)],
    mod: ModOpt = None,
    vs: VsOpt = None,
    reroll: RerollOpt = None,
    strategy: StrategyOpt = f.Strategy.OPTIMAL,
    extreme: ExtremeOpt = False,
    roll_anyway: Annotated[
        bool,
        typer.Option(
            "--roll-anyway", help="Roll even when success is certain or impossible (002)."
        ),
    ] = False,
    ladder: LadderOpt = None,
    label: LabelOpt = None,
    sheet: SheetOpt = None,
) -> Plan:
    """An unopposed action: trait + modifiers + 4dF against a difficulty, with exact odds.

    When success is certain or impossible, no dice are rolled (002, "Rolling the
    Dice") unless --roll-anyway. A trait's name is read from the character's sheet,
    on the sheet's ladder; the text and JSON ("sheet_trait") name the trait.
    """
    read = resolve(ctx, [trait], [sheet], ladder, "fudge roll")
    level = read.sides[0].text
    side = read.sides[0]
    if side.trait is not None:
        resolved_as(ctx, trait=f"{side.trait.level:+d}", ladder=ladder_key(read.ladder, ladder))
        resolved_as(ctx, label=labelled(side.trait.full_name, label))
    kw: dict[str, Any] = dict(
        modifier=mod or [], difficulty=vs, reroll=f.read_rerolls(reroll or []),
        strategy=strategy, extreme=extreme, ladder=read.ladder,
    )  # fmt: skip
    f.action_odds(level, **kw)  # refused before any roll

    def go(rng: RandomSource) -> Reply:
        r = f.action(level, roll_anyway=roll_anyway, rng=rng, **kw)
        return label_reply(read.action(Reply(render.action_json(r), r.text), r), label)

    return go


@twins(
    "fudge",
    "oppose",
    examples=[
        "fudge oppose Great Good",
        "fudge oppose Good Fair --mod +1 --reroll2 -1 --ties defender --names Ron,Bouncer",
        "fudge oppose 'Ranged Combat' Notice --sheet example:ron.toml "
        "--sheet2 example:bouncer.toml",
        "fudge oppose Focus Mind --sheet example:ron.toml",
    ],
)
def oppose(
    ctx: typer.Context,
    first: Annotated[str, typer.Argument(help="The acting side's trait: a level or a name.")],
    second: Annotated[
        str, typer.Argument(help="The opposing (defending) side's trait: a level or a name.")
    ],
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
    ladder: LadderOpt = None,
    names: NamesOpt = None,
    label: LabelOpt = None,
    sheet: SheetOpt = None,
    sheet2: Sheet2Opt = None,
) -> Twin:
    """An opposed action: both sides roll; the higher result wins, with exact odds.

    Each side is a ladder level or a trait's name: the first side's is read from
    --sheet (else $REFEREE_SHEET), the second's from --sheet2 (else the first's
    sheet). Sides by name are called by the characters' names (by the traits' names
    when both are one character's) unless --names. A trait that is a level keeps its
    meaning unless the sheet given has a trait of exactly that name: see 'fudge roll'.
    In a game room, two sheets oppose as 'fudge oppose @ron @bouncer Notice'
    (or 'Focus Brawling', a trait for each side). An
    attack is an opposed action; Psi-punk gives no damage capacity or wound track,
    so its damage is left out (a wound's penalty, such as Hurt -1, is a --mod).
    """
    read = resolve(ctx, [first, second], [sheet, sheet2], ladder, "fudge oppose")
    lad = read.ladder
    who = read_names(names) if names is not None else read.names() or read_names(None)
    for param, side in zip(("first", "second"), read.sides, strict=True):
        if side.trait is not None:
            resolved_as(ctx, **{param: f"{side.trait.level:+d}"}, names=",".join(who))
            resolved_as(ctx, ladder=ladder_key(lad, ladder), sheet2=None)
    if sheet2 is not None:  # levels alone: the second sheet still gave the ladder
        resolved_as(ctx, ladder=ladder_key(lad, ladder), sheet2=None)
    one, two = (s.text for s in read.sides)
    kw: dict[str, Any] = dict(
        modifiers=(mod or [], mod2 or []),
        rerolls=(f.read_rerolls(reroll or []), f.read_rerolls(reroll2 or [])),
        strategy=strategy, ties=ties, extreme=extreme, ladder=lad,
    )  # fmt: skip
    sides = [
        f.action_odds(trait, modifier=m or [], reroll=f.read_rerolls(r or []), ladder=lad,
                      extreme=extreme, strategy=strategy, difficulty=f.NO_DIFFICULTY)
        for trait, m, r in ((one, mod, reroll), (two, mod2, reroll2))
    ]  # fmt: skip
    versus = f.oppose_odds(sides[0], sides[1], ties)

    def go(rng: RandomSource) -> Reply:
        r = f.oppose(one, two, names=who, rng=rng, **kw)
        return label_reply(read.oppose(Reply(render.oppose_json(r), r.text), r), label)

    def chances() -> Reply:
        text = read.noted(
            f"{read.describe(0, who[0], first)} vs {read.describe(1, who[1], second)}: "
            f"{_shares(who, versus, ties)}"
        )
        data: dict[str, Any] = {"system": "fudge", "kind": "oppose", "names": list(who),
                "odds": render.versus_json(versus), "text": text}  # fmt: skip
        if read.named:
            data["traits"] = read.traits()
        return label_reply(Reply(data, text), label)

    return go, chances


@command(
    "fudge odds roll",
    rolls=False,
    examples=[
        "fudge odds Good --vs Great --reroll +1",
        "fudge odds Good --against Great --json",
        "fudge odds 'Ranged Combat' --against Great --sheet example:ron.toml",
    ],
    notes=BY_NAME,
)
def odds(
    ctx: typer.Context,
    trait: Annotated[str, typer.Argument(help=TRAIT_HELP)],
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
    sheet: SheetOpt = None,
) -> Plan:
    """Exact odds of an action without rolling: the result's distribution and P(success).

    A trait's name is read from the character's sheet, as 'fudge roll' reads it.
    """
    read = resolve(ctx, [trait], [sheet], ladder, "fudge odds roll")
    lad, side = read.ladder, read.sides[0]
    kw: dict[str, Any] = {"modifier": mod or [], "extreme": extreme, "ladder": lad}
    kw.update(reroll=f.read_rerolls(reroll or []), strategy=strategy)
    o = f.action_odds(side.text, difficulty=f.NO_DIFFICULTY if against else vs, **kw)
    other = None
    if against is not None:
        opp = f.action_odds(against, difficulty=f.NO_DIFFICULTY, ladder=lad, extreme=extreme)
        other = f.oppose_odds(o, opp, ties)
    diff = None if against else f.difficulty_level(lad, vs)
    level = lad.trait(side.text)
    total = sum(mod or [])
    head = level.name + (f"{total:+d}" if total else "")
    me = head
    if side.trait is not None and side.sheet is not None:
        head = side.called(None, level.name) + (f" {total:+d}" if total else "")
        me = side.sheet.name
    lines = [
        f"{lad.name_of(v):>16} {v:+4d}  {percent(p):>6}  {short_fraction(p) or ''}".rstrip()
        for v, p in reversed(o.distribution)
    ]
    data: dict[str, Any] = {
        "system": "fudge",
        "kind": "odds",
        "trait": render.level_json(level),
        "distribution": render.distribution_json(o),
    }
    if side.trait is not None:
        data["sheet_trait"] = side.json()
    if other is not None:
        data["against"] = render.level_json(lad.trait(against or ""))
        data["odds"] = render.versus_json(other)
        rival = lad.trait(against or "").name
        sides = (f"{me} (you)", f"{rival} (opponent)") if me == rival else (me, rival)
        summary = f"{head} vs {rival}: {_shares(sides, other, ties)}"
    else:
        data["difficulty"] = render.level_json(diff)
        data["success"] = None if o.success is None else fraction(o.success)
        summary = f"{head}: distribution of the result"
        if o.success is not None and diff is not None:
            short = short_fraction(o.success)
            summary = f"{head} vs {diff.name}: {percent(o.success)} to succeed" + (
                f" ({short})" if short else ""
            )
    data["text"] = "\n".join([read.noted(summary), *lines])
    return lambda rng: Reply(data, data["text"])


def _shares(names: tuple[str, str], odds: Versus, ties: f.TieRule) -> str:
    """Each side's chance of winning, by name, and the tie's unless ties go to the defender
    (then the defender's share holds them, and there is no tie to show).

    >>> from fractions import Fraction as F
    >>> _shares(("Ron", "Bouncer"), Versus(F(1, 2), F(1, 3), F(1, 6)), f.TieRule.NOBODY)
    'Ron wins 50.0% (1/2), Bouncer wins 33.3%, tie 16.7%'
    >>> _shares(("Ron", "Bouncer"), Versus(F(1, 2), F(1, 2), F(0)), f.TieRule.DEFENDER)
    'Ron wins 50.0% (1/2), Bouncer wins 50.0% (equal results go to the defender)'
    """
    first, second = names
    text = f"{first} wins {readable(odds.first)}, {second} wins {percent(odds.second)}"
    if f.TieRule(ties) is f.TieRule.DEFENDER:
        return f"{text} (equal results go to the defender)"
    return f"{text}, tie {percent(odds.tie)}"


@command("fudge ladder", rolls=False, examples=["fudge ladder", "fudge ladder --ladder fate-core"])
def ladder(ctx: typer.Context, ladder: LadderOpt = None) -> Plan:
    """Print the active ladder, marking the trait range and the default difficulty."""
    lad = _ladder(ctx, ladder)
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
    return lambda rng: Reply(data, "\n".join(lines))


DEFAULTS[("fudge", "odds")] = "roll"  # "fudge odds Good" is "fudge odds roll Good"
