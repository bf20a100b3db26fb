"""``referee swn ...``: Stars Without Number commands (rendering; rules in referee.systems.swn).

Every rolling command has a twin under ``referee swn odds ...`` that takes the
same options and prints the exact odds without rolling.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any

import typer

from .cli_common import JsonOpt, SeedOpt, emit, fail, rng_for, system_app
from .errors import RefereeError, RuleError
from .render import fraction, percent
from .systems import swn

app = system_app(
    "Stars Without Number (revised): saves, skill checks, combat, injury, morale, "
    "and an encounter simulator, with exact odds."
)
odds_app = system_app("Exact odds of a save, check, attack, stabilization or morale roll.")
app.add_typer(odds_app, name="odds")

_ATTRS = ("str", "dex", "con", "int", "wis", "cha")


def _attr_opts() -> dict[str, inspect.Parameter]:
    params = {}
    for a in _ATTRS:
        for name, flag, what in (
            (a, f"--{a}", "score 3-18"),
            (f"{a}_mod", f"--{a}-mod", "modifier"),
        ):
            params[name] = inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=None,
                annotation=Annotated[int | None, typer.Option(flag, help=f"{a.title()} {what}.")],
            )
    return params


def _with_attrs(fn: Callable[..., None]) -> Callable[..., None]:
    """Add --str/--str-mod ... --cha/--cha-mod to a command; they arrive as ``attrs``."""
    sig = inspect.signature(fn, eval_str=True)
    base = [p for p in sig.parameters.values() if p.name != "attrs"]

    @functools.wraps(fn)
    def wrapper(**kwargs: Any) -> None:
        attrs = {}
        try:
            for a in _ATTRS:
                score, mod = kwargs.pop(a), kwargs.pop(f"{a}_mod")
                if score is not None or mod is not None:
                    attrs[a] = swn.resolve_modifier(a, score, mod)
        except RefereeError as exc:
            fail(exc)
        fn(attrs=attrs, **kwargs)

    _set_signature(wrapper, sig.replace(parameters=[*base, *_attr_opts().values()]))
    return wrapper


def _set_signature(fn: Callable[..., None], sig: inspect.Signature) -> None:
    """Give ``fn`` the (evaluated) signature typer should read its options from."""
    fn.__signature__ = sig  # type: ignore[attr-defined]
    fn.__annotations__ = {p.name: p.annotation for p in sig.parameters.values()}


def _register(name: str, epilog: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register ``fn`` as ``swn NAME`` and, with ``odds_only=True``, as ``swn odds NAME``."""

    def deco(fn: Callable[..., None]) -> Callable[..., None]:
        wrapped = _with_attrs(fn) if "attrs" in inspect.signature(fn).parameters else fn
        sig = inspect.signature(wrapped, eval_str=True)
        if wrapped is fn:
            _set_signature(fn, sig)
        app.command(name, epilog=epilog)(wrapped)

        @functools.wraps(wrapped)
        def only(**kwargs: Any) -> None:
            wrapped(odds_only=True, seed=None, **kwargs)

        params = [p for p in sig.parameters.values() if p.name not in ("odds_only", "seed")]
        _set_signature(only, sig.replace(parameters=params))
        only.__doc__ = f"Exact odds of `swn {name}`, without rolling (same options)."
        odds_app.command(name, epilog=epilog.replace(f"swn {name}", f"swn odds {name}"))(only)
        return fn

    return deco


OddsOnly = Annotated[bool, typer.Option("--odds-only", hidden=True)]
SecretOpt = Annotated[bool, typer.Option("--secret", help="Mark as a GM's secret roll.")]
SkillOpt = Annotated[int, typer.Option("--skill", help="Skill level 0-4.")]
UntrainedOpt = Annotated[bool, typer.Option("--untrained", help="Not even level 0.")]


def _one_attr(
    attrs: dict[str, int], allowed: tuple[str, ...], what: str, *, single: bool = False
) -> int:
    """The better modifier among the attributes given (0 if none), all of them ``allowed``;
    with ``single``, at most one may be given."""
    extra = [a for a in attrs if a not in allowed]
    if extra:
        raise RuleError(f"--{extra[0]} does not apply to {what} (use {', '.join(allowed)})")
    if single and len(attrs) > 1:
        raise RuleError(f"{what} uses one attribute: give only one of {', '.join(attrs)}")
    return max(attrs.values(), default=0)


def check_json(c: swn.Check, **extra: Any) -> dict[str, Any]:
    """The JSON contract of every SWN check."""
    return {
        "system": "swn",
        "kind": c.kind.value,
        "dice": list(c.dice),
        "natural": c.natural,
        "modifiers": dict(c.modifiers),
        "total": c.total,
        "target": c.target,
        "success": c.success,
        "odds": {"success": fraction(c.odds)},
        "secret": c.secret,
        **extra,
        "text": c.text,
    }


def _odds_out(kind: str, p: Any, text: str, as_json: bool, **extra: Any) -> None:
    data = {"system": "swn", "kind": kind, "odds": {"success": fraction(p)}, **extra}
    emit({**data, "text": f"{text}: {percent(p)} ({fraction(p)})"}, as_json)


@_register("save", "Examples:\n\n  referee swn save physical --level 3 --str 14 --con 10")
def save_cmd(
    kind: Annotated[swn.SaveKind, typer.Argument(help="physical, evasion or mental.")],
    attrs: dict[str, int],
    level: Annotated[int, typer.Option("--level", help="Character level.")] = 1,
    hit_dice: Annotated[int | None, typer.Option("--hit-dice", help="An NPC's HD.")] = None,
    mod: Annotated[int, typer.Option("--mod", help="Situational modifier.")] = 0,
    secret: SecretOpt = False,
    odds_only: OddsOnly = False,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A saving throw: 1d20 at or over 16 - level - the better attribute modifier."""
    try:
        best, _ = swn.save_attribute(kind, attrs)
        target = swn.save_target(level, best, hit_dice=hit_dice)
        if odds_only:
            p = swn.save_odds(target, mod)
            _odds_out("save", p, f"{kind.value.title()} save vs {target}", as_json, target=target)
            return
        r = swn.save(kind, level=level, attributes=attrs, hit_dice=hit_dice, modifier=mod,
                     secret=secret, rng=rng_for(seed))  # fmt: skip
    except RefereeError as exc:
        fail(exc)
    emit(check_json(r, save=kind.value, note=r.note or None, assumed=list(r.assumed)), as_json)


@_register(
    "check",
    "Examples:\n\n  referee swn check --skill 1 --int 14 --difficulty hard\n\n"
    "  referee swn check --untrained --dex-mod 1 --difficulty 8 --peripheral --helpers 2",
)
def check_cmd(
    attrs: dict[str, int],
    skill: SkillOpt = 0,
    untrained: UntrainedOpt = False,
    difficulty: Annotated[
        str,
        typer.Option(
            "--difficulty",
            help="easy 6, normal 8, hard 10, very-hard 12, impossible 14, or a number.",
        ),
    ] = "normal",  # fmt: skip
    peripheral: Annotated[bool, typer.Option("--peripheral", help="+2 difficulty.")] = False,
    mod: Annotated[int, typer.Option("--mod", help="Situational modifier (±2).")] = 0,
    force: Annotated[bool, typer.Option("--force", help="Allow a modifier beyond ±2.")] = False,
    helpers: Annotated[int, typer.Option("--helpers", min=0, max=20, help="People aiding.")] = 0,
    helper_skill: Annotated[int, typer.Option("--helper-skill", help="Their skill.")] = 0,
    helper_mod: Annotated[int, typer.Option("--helper-mod", help="Their attribute mod.")] = 0,
    technical: Annotated[
        bool,
        typer.Option("--technical", help="A technical skill: refused untrained (003)."),
    ] = False,
    secret: SecretOpt = False,
    odds_only: OddsOnly = False,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A skill check: 2d6 + skill + attribute modifier against a difficulty, with aid."""
    try:
        attr = _one_attr(attrs, _ATTRS, "a skill check", single=True)
        level = None if untrained else skill
        team = [swn.Helper(helper_skill, helper_mod)] * helpers
        r = swn.skill_check(skill=level, attribute=attr, difficulty=difficulty,
                            peripheral=peripheral, modifier=mod, force=force, helpers=team,
                            technical=technical, secret=secret, rng=rng_for(seed))  # fmt: skip
    except RefereeError as exc:
        fail(exc)
    without = None if r.odds_without_aid is None else fraction(r.odds_without_aid)
    if odds_only:
        extra = {"target": r.target, "without_aid": without}
        _odds_out("skill", r.odds, f"Skill check vs {r.target}", as_json, **extra)
        return
    data = check_json(r, aid=[check_json(a) for a in r.aid])
    data["odds"]["without_aid"] = without
    emit(data, as_json)


@app.command(
    "oppose",
    epilog="Examples:\n\n  referee swn oppose 2 1\n\n  referee swn oppose 1 1 --ties defender",
)
def oppose_cmd(
    first: Annotated[int, typer.Argument(help="First side's skill + attribute bonus.")],
    second: Annotated[int, typer.Argument(help="Second (defending) side's bonus.")],
    first_npc: Annotated[
        bool, typer.Option("--first-npc", help="The first side is an NPC.")
    ] = False,
    second_pc: Annotated[
        bool, typer.Option("--second-pc", help="The second side is a PC.")
    ] = False,
    ties: Annotated[
        swn.TieRule, typer.Option("--ties", help="pc (default), or defender in an ambush.")
    ] = swn.TieRule.PC,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """An opposed check: both sides roll 2d6 + bonus; the higher total wins.

    An NPC with no relevant expertise has a bonus of 0 (a straight 2d6).
    """
    try:
        r = swn.oppose((first, not first_npc), (second, second_pc), ties=ties, rng=rng_for(seed))
    except RefereeError as exc:
        fail(exc)
    data = check_json(r.first, winner=r.winner, second=check_json(r.second), ties=r.ties.value)
    emit({**data, "text": r.text}, as_json)


@app.command("initiative", epilog="Examples:\n\n  referee swn initiative examples/swn/party.toml")
def initiative_cmd(
    path: Annotated[str, typer.Argument(help="A TOML file of [[combatants]] (name, dex, pc).")],
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Roll initiative once for a combat: 1d8 + Dex modifier, highest first, PCs win ties."""
    try:
        party = swn.load_party(path)
        order = swn.initiative(party, rng=rng_for(seed))
    except RefereeError as exc:
        fail(exc)
    rows = [
        {"system": "swn", "kind": "initiative", "name": e.name, "pc": e.pc, "dice": [e.roll],
         "natural": e.roll, "modifiers": {"dex": e.modifier}, "total": e.total, "target": None,
         "success": None, "odds": {"success": None}, "tiebreak": e.tiebreak}
        for e in order
    ]  # fmt: skip
    text = "\n".join(
        f"{i}. {e.name}{' (PC)' if e.pc else ''}: {e.total} (d8 {e.roll} {e.modifier:+d} Dex)"
        for i, e in enumerate(order, 1)
    )
    emit({"system": "swn", "kind": "initiative", "order": rows, "text": text}, as_json)


@_register(
    "attack",
    "Examples:\n\n  referee swn attack --attack-bonus 1 --skill 1 --dex 14 --ac 13 --damage 1d8"
    " --shock 2/15\n\n  referee swn attack --untrained --str-mod 1 --ac 10 --damage 1d4 --snap",
)
def attack_cmd(
    attrs: dict[str, int],
    ac: Annotated[int, typer.Option("--ac", help="The target's Armor Class.")] = 10,
    attack_bonus: Annotated[int, typer.Option("--attack-bonus", help="Attack bonus.")] = 0,
    skill: SkillOpt = 0,
    untrained: UntrainedOpt = False,
    damage: Annotated[str, typer.Option("--damage", help="Weapon damage dice.")] = "1d6",
    shock: Annotated[str | None, typer.Option("--shock", help="Shock as AMOUNT/AC: 2/15.")] = None,
    damage_bonus: Annotated[int, typer.Option("--damage-bonus", help="Added to damage.")] = 0,
    snap: Annotated[bool, typer.Option("--snap", help="A snap attack (-4).")] = False,
    total_defense: Annotated[
        bool, typer.Option("--total-defense", help="The target is on total defense (+2 AC).")
    ] = False,
    shock_floor: Annotated[
        swn.ShockFloor, typer.Option("--shock-floor", help="When a hit is raised to Shock.")
    ] = swn.ShockFloor.ALWAYS,
    secret: SecretOpt = False,
    odds_only: OddsOnly = False,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """An attack: 1d20 + attack bonus + skill + attribute vs AC, then damage or Shock."""
    try:
        attr = _one_attr(attrs, _ATTRS, "an attack", single=True)
        weapon = swn.Weapon.make(damage, shock)
        r = swn.attack(ac=ac, weapon=weapon, attack_bonus=attack_bonus,
                       skill=None if untrained else skill, attribute=attr,
                       damage_bonus=damage_bonus, snap=snap, total_defense=total_defense,
                       shock_floor=shock_floor, secret=secret, rng=rng_for(seed))  # fmt: skip
    except RefereeError as exc:
        fail(exc)
    dist = [[v, fraction(p)] for v, p in r.distribution]
    if odds_only:
        lines = [f"  {v:>4} damage  {percent(p):>6}  {fraction(p)}" for v, p in r.distribution]
        text = f"Attack vs AC {r.check.target}: {percent(r.check.odds)} to hit"
        emit({"system": "swn", "kind": "attack", "odds": {"success": fraction(r.check.odds)},
              "damage_distribution": dist, "text": "\n".join([text, *lines])}, as_json)  # fmt: skip
        return
    data = check_json(r.check, hit=r.hit, damage=r.damage, shock=r.shock,
                      damage_dice=list(r.damage_dice), damage_distribution=dist)  # fmt: skip
    emit({**data, "text": r.text}, as_json)


@_register(
    "stabilize",
    "Examples:\n\n  referee swn stabilize --rounds 2 --tools medkit --skill 1 --int 12",
)
def stabilize_cmd(
    attrs: dict[str, int],
    rounds: Annotated[int, typer.Option("--rounds", help="Rounds since the victim fell.")] = 0,
    tools: Annotated[str, typer.Option("--tools", help="none, medkit or lazarus.")] = "none",
    skill: SkillOpt = 0,
    untrained: UntrainedOpt = False,
    odds_only: OddsOnly = False,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Stabilize a mortally wounded ally: Int/Heal or Dex/Heal vs 10/8/6 + rounds."""
    try:
        attr = _one_attr(attrs, ("int", "dex"), "stabilizing")
        r = swn.stabilize(rounds=rounds, tool=tools, skill=None if untrained else skill,
                          attribute=attr, rng=rng_for(seed))  # fmt: skip
    except RefereeError as exc:
        fail(exc)
    if odds_only:
        _odds_out("stabilize", r.check.odds, f"Stabilize vs {r.check.target}", as_json,
                  target=r.check.target)  # fmt: skip
        return
    data = check_json(r.check, tool=r.tool, patch_used=r.patch_used)
    emit({**data, "text": r.text}, as_json)


@_register("morale", "Examples:\n\n  referee swn morale 8")
def morale_cmd(
    score: Annotated[int, typer.Argument(help="The NPC's morale score.")],
    mod: Annotated[int, typer.Option("--mod", help="Situational modifier to the roll.")] = 0,
    odds_only: OddsOnly = False,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A morale check: 2d6 at or under the score and the NPC fights on."""
    try:
        r = swn.morale(score, modifier=mod, rng=rng_for(seed))
    except RefereeError as exc:
        fail(exc)
    if odds_only:
        _odds_out("morale", r.odds, f"Morale {score} holds", as_json, target=score)
        return
    emit(check_json(r), as_json)


def _add_simulate() -> None:
    from .cli_swn_sim import simulate_cmd

    example = "examples/swn/warrior_vs_3_thugs.toml -n 100000 --seed 1"
    app.command("simulate", epilog=f"Examples:\n\n  referee swn simulate {example}")(simulate_cmd)


_add_simulate()
