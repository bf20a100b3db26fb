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
from ..systems.gurps.reaction import check_modifier
from .registry import LabelOpt, NamesOpt, Twin, command, label_reply, read_names, twins
from .result import Plan, Reply

__all__: list[str] = []

ModOpt = Annotated[
    list[int] | None,
    typer.Option("--mod", help="A modifier to the skill; repeat to add several (-2, +1)."),
]


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
    ],
)
def check(
    skill: Annotated[
        str, typer.Argument(help="Skill and modifiers: 12, 12-5, 9-5+10, Broadsword-14.")
    ],
    mod: ModOpt = None,
    label: LabelOpt = None,
    defense: Annotated[
        bool, typer.Option("--defense", help="A defense roll (allowed below 3).")
    ] = False,
) -> Twin:
    """A success roll: 3d6 at or under the effective skill, with criticals and exact odds."""
    name, eff = _skill(skill, mod)
    if eff < 3 and not defense:
        raise RuleError(
            f"effective skill {eff} is below 3: no roll is allowed "
            "except a defense roll (000, 'Base Skill vs Effective Skill')"
        )

    def go(rng: RandomSource) -> Reply:
        r = g.check(skill, modifiers=mod or [], label=label, defense=defense, rng=rng)
        return Reply(render.check_json(r), r.text)

    def chances() -> Reply:
        o = g.skill_odds(eff)
        text = (
            f"{_target(skill, mod, label, defense)}: success {readable(o.success)}, "
            f"critical success {percent(o.critical_success)}, "
            f"critical failure {percent(o.critical_failure)}"
        )
        data = {"system": "gurps", "kind": "odds", "effective_skill": eff,
                "odds": render.skill_odds_json(o), "text": text}  # fmt: skip
        return Reply(data, text)

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


@command("gurps retry", rolls=False, joins=True, examples=["gurps retry 12 --max 5"])
def retry(
    skill: Annotated[str, typer.Argument(help="Skill and modifiers.")],
    mod: ModOpt = None,
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
    _, eff = _skill(skill, mod)
    probs = [
        g.retry_odds(eff, k, stop_on_critical=not carry_on) for k in range(1, max_attempts + 1)
    ]
    text = _retry_text(eff, probs, stop_on_critical=not carry_on)
    data = {
        "system": "gurps",
        "kind": "retry",
        "effective_skill": eff,
        "within": [fraction(p) for p in probs],
        "stop_on_critical": not carry_on,
        "text": text,
    }
    return lambda rng: Reply(data, text)


def _retry_text(eff: int, probs: list[Fraction], *, stop_on_critical: bool) -> str:
    """What ``gurps retry`` says: the rule, then the chance to succeed within k attempts
    for each k while the percentage shown still changes, then one line for the rest.

    >>> print(_retry_text(5, [g.retry_odds(5, k) for k in range(1, 6)], stop_on_critical=True))
    Repeated attempts at effective skill 5 (004, 'Repeated Attempts', case (c)):
    each retry is at −1, cumulative; a critical failure ends the attempts.
    Chance to succeed within k attempts (the skill of the last one):
    within 1 (skill 5): 4.6% (5/108)
    within 2 (skill 4): 6.2% (121/1944)
    within 3 (skill 3): 7.5% (10541/139968)
    within 4..5: 7.5% (10541/139968) for every k, because:
      from attempt 4 on, the skill would be below 3, where no roll is allowed
    """
    ends = (
        "a critical failure ends the attempts"
        if stop_on_critical
        else "a critical failure does not end them (--continue-after-critical)"
    )
    lines = [
        f"Repeated attempts at effective skill {eff} (004, 'Repeated Attempts', case (c)):",
        f"each retry is at −1, cumulative; {ends}.",
        "Chance to succeed within k attempts (the skill of the last one):",
    ]
    shown = [percent(p) for p in probs]
    # Every attempt up to the last that changes the percentage shown gets a line.
    last = 1 + max((k for k in range(1, len(probs)) if shown[k] != shown[k - 1]), default=0)
    if len(probs) - last < 2:
        last = len(probs)
    for k, p in enumerate(probs[:last], 1):
        lines.append(f"within {k} (skill {eff - k + 1}): {readable(p)}")
    if last == len(probs):
        return "\n".join(lines)
    first, end = last + 1, len(probs)
    possible = eff - 2  # attempts at skill 3 or more
    lines.append(f"within {first}..{end}: {readable(probs[-1])} for every k, because:")
    if first <= possible:
        upto = min(end, possible)
        which = f"attempt {first} adds" if first == upto else f"attempts {first}..{upto} add"
        added = percent(probs[upto - 1] - probs[last - 1])
        lines.append(f"  {which} only {added} in all, less than the precision shown")
    if end > possible:
        lines.append(
            f"  from attempt {max(first, possible + 1)} on, the skill would be below 3, "
            "where no roll is allowed"
        )
    return "\n".join(lines)


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
    first: Annotated[str, typer.Argument(help="First side's skill: 14, 14-2, Wrestling-14.")],
    second: Annotated[str, typer.Argument(help="Second side's skill.")],
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
) -> Twin:
    """A Quick (default) or Regular Contest, with each side's exact chance of winning."""
    _, a = _skill(first, mod)
    _, b = _skill(second, mod2)
    who = read_names(names)
    if regular:
        versus, expected = g.regular_contest_odds(a, b, edition=edition, floor=floor)
    else:
        versus, expected = g.quick_contest_odds(a, b, resistance, g.Floor(floor)), None

    def go(rng: RandomSource) -> Reply:
        if regular:
            r = g.regular_contest(a, b, edition=edition, floor=floor, names=who, rng=rng)
        else:
            r = g.quick_contest(a, b, resistance=resistance, floor=floor, names=who, rng=rng)
        return label_reply(Reply(render.contest_json(r), r.text), label)

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
        return label_reply(Reply(data, text), label)

    return go, chances


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
    examples=["gurps damage 3d-3 --dr 2 --type cut", "gurps damage 2d+1 --type imp --label Spear"],
)
def damage(
    expression: Annotated[str, typer.Argument(help="Dice+adds: 2d, 3d-3, 4d+2.")],
    dr: Annotated[int, typer.Option("--dr", help="Damage Resistance.")] = 0,
    damage_type: Annotated[
        str, typer.Option("--type", help="cr, cut, imp, pi-, pi, pi+, pi++, burn, cor, fat, tox.")
    ] = "cr",
    label: LabelOpt = None,
) -> Twin:
    """A damage roll against DR, and the injury it does (wounding multiplier), with odds."""
    dist = g.damage_odds(expression, dr=dr, damage_type=damage_type)
    injury = g.injury_odds(expression, dr=dr, damage_type=damage_type)
    through = sum((p for v, p in dist.items() if v > 0), Fraction(0))

    def go(rng: RandomSource) -> Reply:
        r = g.damage(expression, dr=dr, damage_type=damage_type, rng=rng)
        return label_reply(Reply(render.damage_json(r, dist, injury), r.text), label)

    def chances() -> Reply:
        rows = [
            f"  injury {v:>4}  {percent(p):>6}  {short_fraction(p) or ''}".rstrip()
            for v, p in injury.items()
        ]
        text = "\n".join([f"{expression} {damage_type} vs DR {dr}:", *rows])
        data = {"system": "gurps", "kind": "damage", "dr": dr, "damage_type": damage_type,
                "distribution": [[k, fraction(v)] for k, v in dist.items()],
                "injury_distribution": [[k, fraction(v)] for k, v in injury.items()],
                "odds": {"penetrates": fraction(through)}, "text": text}  # fmt: skip
        return label_reply(Reply(data, text), label)

    return go, chances
