"""GURPS commands: ``gurps check``, ``contest``, ``reaction``, ``damage`` (each with its
twin under ``gurps odds``, where ``check`` is the default), ``table`` and ``retry``.
Rules and their validation are in :mod:`referee.systems.gurps`."""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated

import typer

from ..errors import RuleError
from ..fmt import fraction, percent, readable, short_fraction
from ..render import gurps as render
from ..rng import RandomSource
from ..systems import gurps as g
from .gurps_traits import Skill, resolve_damage, resolve_skill
from .registry import LabelOpt, NamesOpt, Twin, command, label_reply, read_names, twins
from .result import Plan, Reply
from .sheeted import SheetOpt, labelled, resolved_as

__all__: list[str] = []

ModOpt = Annotated[
    list[int] | None,
    typer.Option("--mod", help="A modifier to the skill; repeat to add several (-2, +1)."),
]
SkillArg = Annotated[
    list[str],
    typer.Argument(
        metavar="SKILL",
        help="Skill and modifiers: 12, 12-5, Broadsword-14; or a name on the sheet: "
        "Stealth, 'Fast-Draw (Knife)' -2, DX, Per -2, Dodge.",
    ),
]


def _with_trait(reply: Reply, skill: Skill) -> Reply:
    """The reply of a roll made by name, with the trait it used in its JSON."""
    found = skill.json()
    if found is None:
        return reply
    return Reply({**reply.data, "trait": found}, reply.text)


def _skill(text: str, mods: list[int] | None) -> tuple[str | None, int]:
    """A skill as players write it (``14-2``, ``Broadsword-14``) plus ``--mod``s: name and
    effective skill."""
    name, base, own = g.read_skill(text)
    extra = list(mods or [])
    for m in extra:
        if abs(m) > g.success.LIMIT:
            raise RuleError(f"modifier {m:+d} is out of range (-1000 to 1000)")
    return name, base + sum(own) + sum(extra)


@twins(
    "gurps",
    "check",
    joins=True,
    default_odds=True,
    examples=[
        "gurps check 12-5",
        "gurps check 14 --mod -2",
        "gurps check Broadsword-14-2",
        "gurps check 9-5+10 --label Lockpicking --json",
        "gurps check Stealth -2 --sheet example:dai.gcs",
        "gurps check 'Fast-Draw (Knife)' --sheet example:dai.toml",
    ],
)
def check(
    ctx: typer.Context,
    words: SkillArg,
    mod: ModOpt = None,
    label: LabelOpt = None,
    defense: Annotated[
        bool, typer.Option("--defense", help="A defense roll (allowed below 3).")
    ] = False,
    sheet: SheetOpt = None,
) -> Twin:
    """A success roll: 3d6 at or under the effective skill, with criticals and exact odds.

    A name is read from the character's sheet (--sheet, or $REFEREE_SHEET): its level
    is the one the sheet records, and the text and JSON name the trait.
    """
    read = resolve_skill(ctx, " ".join(words), sheet, "gurps check")
    if read.trait is not None:  # what the command is with no sheet
        resolved_as(ctx, words=read.words(), label=labelled(read.trait.full_name, label))
        resolved_as(ctx, defense=defense or read.defense)
    skill, label = read.text, label or read.label
    defense = defense or read.defense
    name, eff = _skill(skill, mod)
    if eff < 3 and not defense:
        typed = ""
        if name is not None and read.trait is None:  # Stealth-2: Stealth at level 2
            base = g.read_skill(skill)[1]
            typed = (
                f"; {skill} reads as {name} at level {base} (for a modifier to the sheet's "
                f"{name}, leave a space: {name} -{base})"
            )
        raise RuleError(
            f"effective skill {eff} is below 3: no roll is allowed "
            f"except a defense roll (000, 'Base Skill vs Effective Skill'){typed}"
        )

    def go(rng: RandomSource) -> Reply:
        r = g.check(skill, modifiers=mod or [], label=label, defense=defense, rng=rng)
        return _with_trait(Reply(render.check_json(r), r.text), read)

    def chances() -> Reply:
        o = g.skill_odds(eff)
        text = (
            f"{_target(skill, mod, label, defense)}: success {readable(o.success)}, "
            f"critical success {percent(o.critical_success)}, "
            f"critical failure {percent(o.critical_failure)}"
        )
        data = {"system": "gurps", "kind": "odds", "effective_skill": eff,
                "odds": render.skill_odds_json(o), "text": text}  # fmt: skip
        return _with_trait(Reply(data, text), read)

    return go, chances


def _target(skill: str, mods: list[int] | None, label: str | None, defense: bool) -> str:
    """What a success roll is against, for its odds: ``Broadsword 14-2 = 12``, ``Skill 12``,
    ``Defense 9`` (the number alone when nothing modifies it)."""
    name, base, own = g.read_skill(skill)
    every = [*own, *(mods or [])]
    what = label or name or ("Defense" if defense else "Skill")
    if not every:
        return f"{what} {base}"
    return f"{what} {base}{''.join(f'{m:+d}' for m in every)} = {base + sum(every)}"


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


@command(
    "gurps retry",
    rolls=False,
    joins=True,
    examples=["gurps retry 12 --max 5", "gurps retry Lockpicking --sheet example:dai.toml"],
)
def retry(
    ctx: typer.Context,
    words: SkillArg,
    mod: ModOpt = None,
    sheet: SheetOpt = None,
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
    read = resolve_skill(ctx, " ".join(words), sheet, "gurps retry")
    _, eff = _skill(read.text, mod)
    probs = [
        g.retry_odds(eff, k, stop_on_critical=not carry_on) for k in range(1, max_attempts + 1)
    ]
    text = render.retry_text(eff, probs, stop_on_critical=not carry_on)
    data = {
        "system": "gurps",
        "kind": "retry",
        "effective_skill": eff,
        "within": [fraction(p) for p in probs],
        "stop_on_critical": not carry_on,
        "text": text,
    }
    if read.trait is not None:
        data["text"] = text = f"{read.label} ({read.trait.level}): {text}"
    reply = _with_trait(Reply(data, text), read)
    return lambda rng: reply


@twins(
    "gurps",
    "contest",
    joins=True,
    examples=[
        "gurps contest 14 12",
        "gurps contest 14-2 12 --names Alice,Orc",
        "gurps contest 18 16 --regular --edition 3e",
        "gurps contest 30 15 --regular --edition 3e --floor auto-fail",
    ],
)
def contest(
    ctx: typer.Context,
    first: Annotated[
        str, typer.Argument(help="First side's skill: 14, 14-2, Wrestling-14, or a name.")
    ],
    second: Annotated[str, typer.Argument(help="Second side's skill, or a name.")],
    mod: ModOpt = None,
    mod2: Annotated[
        list[int] | None, typer.Option("--mod2", help="A modifier to the second side's skill.")
    ] = None,
    names: NamesOpt = None,
    label: LabelOpt = None,
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
    sheet: SheetOpt = None,
) -> Twin:
    """A Quick (default) or Regular Contest, with each side's exact chance of winning.

    A side given by name is read from the sheet; it is called by that name.
    """
    sides = [resolve_skill(ctx, side, sheet, "gurps contest") for side in (first, second)]
    _, a = _skill(sides[0].text, mod)
    _, b = _skill(sides[1].text, mod2)
    who = read_names(names)
    if names is None:
        who = (sides[0].label or who[0], sides[1].label or who[1])
    for param, side in zip(("first", "second"), sides, strict=True):
        if side.trait is not None:
            resolved_as(ctx, **{param: "".join(side.words())}, names=",".join(who))
    traits = [s.json() for s in sides]
    if regular:
        versus, expected = g.regular_contest_odds(a, b, edition=edition, floor=floor)
    else:
        versus, expected = g.quick_contest_odds(a, b, resistance, g.Floor(floor)), None

    def go(rng: RandomSource) -> Reply:
        if regular:
            r = g.regular_contest(a, b, edition=edition, floor=floor, names=who, rng=rng)
        else:
            r = g.quick_contest(a, b, resistance=resistance, floor=floor, names=who, rng=rng)
        return label_reply(_traits(Reply(render.contest_json(r), r.text), traits), label)

    def chances() -> Reply:
        kind = "Regular Contest" if regular else "Quick Contest"
        text = (
            f"{kind} {a} vs {b}: {who[0]} wins {percent(versus.first)}, {who[1]} wins "
            f"{percent(versus.second)}" + ("" if regular else f", tie {percent(versus.tie)}")
        )
        if expected is not None:
            text += f"; {float(expected):.2f} rounds on average"
        data = {"system": "gurps", "kind": "regular_contest" if regular else "quick_contest",
                "skills": [a, b], "odds": render.versus_json(versus), "text": text}  # fmt: skip
        if expected is not None:
            data["expected_rounds"] = fraction(expected)
        return label_reply(_traits(Reply(data, text), traits), label)

    return go, chances


def _traits(reply: Reply, traits: list[dict[str, object] | None]) -> Reply:
    """A contest's reply with ``traits``, each side's trait (None for a typed skill)."""
    if not any(traits):
        return reply
    return Reply({**reply.data, "traits": traits}, reply.text)


@twins(
    "gurps",
    "reaction",
    secret=g.SECRET_BY_DEFAULT,
    examples=["gurps reaction +2", "gurps reaction --mod 2 --mod -1", "gurps reaction -1 --open"],
)
def reaction(
    modifier: Annotated[int, typer.Argument(help="Total reaction modifier, e.g. +2 or -1.")] = 0,
    mod: Annotated[
        list[int] | None,
        typer.Option("--mod", help="A reaction modifier; repeat to add several."),
    ] = None,
    label: LabelOpt = None,
) -> Twin:
    """A reaction roll: 3d6 plus modifiers on the Reaction Table (the GM's secret by default)."""
    from ..systems.gurps.reaction import check_modifier

    total = check_modifier(modifier + sum(mod or []))
    odds = g.reaction_odds(total)

    def go(rng: RandomSource) -> Reply:
        r = g.reaction(total, rng=rng)
        return label_reply(Reply(render.reaction_json(r), r.text), label)

    def chances() -> Reply:
        rows = [
            f"  {band:<11} {percent(p):>6}  {short_fraction(p) or ''}".rstrip()
            for band, p in odds.items()
        ]
        text = "\n".join([f"Reaction 3d6{total:+d}:", *rows])
        data = {"system": "gurps", "kind": "reaction", "modifier": total,
                "odds": {k: fraction(v) for k, v in odds.items()}, "text": text}  # fmt: skip
        return label_reply(Reply(data, text), label)

    return go, chances


@twins(
    "gurps",
    "damage",
    joins=True,
    examples=[
        "gurps damage 3d-3 --dr 2 --type cut",
        "gurps damage 2d+1 --type imp --label Spear",
        "gurps damage '4d(3) burn' --dr 9",
        "gurps damage Punch --sheet example:dai.gcs",
        "gurps damage sw+2 cut --dr 2 --sheet example:dai.toml",
    ],
)
def damage(
    ctx: typer.Context,
    words: Annotated[
        list[str],
        typer.Argument(
            metavar="DAMAGE",
            help="Dice+adds (2d, 3d-3, 4d+2), with a type and armor divisor as a sheet "
            "writes them (2d+1 cut, 4d(3) burn), the sheet's sw/thr plus adds (sw+2 cut), "
            "or an attack's name (Punch, 'Natural Attacks (Bite)').",
        ),
    ],
    dr: Annotated[int, typer.Option("--dr", help="Damage Resistance.")] = 0,
    damage_type: Annotated[
        str | None,
        typer.Option(
            "--type",
            help="cr (the default), cut, imp, pi-, pi, pi+, pi++, burn, cor, fat, tox.",
        ),
    ] = None,
    label: LabelOpt = None,
    sheet: SheetOpt = None,
    basic_only: Annotated[
        bool,
        typer.Option(
            "--basic-only",
            help="Say the basic damage alone: the injury is the target's (its DR and the "
            "hit location), as a room's fight applies it.",
        ),
    ] = False,
) -> Twin:
    """A damage roll against DR, and the injury it does (wounding multiplier), with odds.

    An armor divisor divides DR first (Basic Set p. B378, rounded down). With
    ``--basic-only`` (a room's exchange, issue 71 §1.8) the text names no injury: the
    fight takes the basic damage through the target's own DR at the location (B378,
    B398-B399), and what a player reads is what the tracker did.
    """
    read = resolve_damage(ctx, " ".join(words), damage_type, sheet, "gurps damage")
    expression, kind, div = read.expression, read.damage_type, read.divisor
    if read.sheet is not None:
        resolved_as(ctx, words=read.words(), damage_type=None)
        resolved_as(ctx, label=labelled(read.source or "", label))
    from ..systems.gurps.damage import armor_dr

    met = armor_dr(dr, div)
    dist = g.damage_odds(expression, dr=met, damage_type=kind)
    injury = g.injury_odds(expression, dr=met, damage_type=kind)
    through = sum((p for v, p in dist.items() if v > 0), Fraction(0))
    head = read.source or None
    label = label or head
    tail = "".join(f"; {n}" for n in read.notes)
    attack = read.json()

    def done(reply: Reply) -> Reply:
        data = reply.data if attack is None else {**reply.data, "attack": attack}
        if div is not None:
            data = {**data, "armor_divisor": fraction(div)}
        return label_reply(Reply({**data, "text": reply.text + tail}, reply.text + tail), label)

    def go(rng: RandomSource) -> Reply:
        r = g.damage(expression, dr=dr, damage_type=kind, divisor=div, rng=rng)
        if basic_only:
            dice = ", ".join(str(d) for d in r.dice)
            shown = expression if div is None else f"{expression}({div})"
            text = (f"{shown} {kind}: rolled {sum(r.dice)} ({dice}), basic damage "
                    f"{r.basic_damage}, through the target's DR at the hit location")  # fmt: skip
            return done(Reply({**render.damage_json(r, dist, injury), "text": text}, text))
        return done(Reply(render.damage_json(r, dist, injury), r.text))

    def chances() -> Reply:
        rows = [
            f"  injury {v:>4}  {percent(p):>6}  {short_fraction(p) or ''}".rstrip()
            for v, p in injury.items()
        ]
        vs = f"DR {dr}" if div is None else f"DR {dr} ÷ {div} = {met}"
        shown = expression if div is None else f"{expression}({div})"
        text = "\n".join([f"{shown} {kind} vs {vs}:", *rows])
        data = {"system": "gurps", "kind": "damage", "dr": dr, "damage_type": kind,
                "distribution": [[k, fraction(v)] for k, v in dist.items()],
                "injury_distribution": [[k, fraction(v)] for k, v in injury.items()],
                "odds": {"penetrates": fraction(through)}, "text": text}  # fmt: skip
        return done(Reply(data, text))

    return go, chances
