"""Stars Without Number commands. Each rolling command has a twin under ``swn odds``
that takes the same options and gives the exact odds without drawing a die.

Rules and their validation are in :mod:`referee.systems.swn`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import CommandError
from ..fmt import fraction, percent
from ..render import swn as render
from ..rng import RandomSource
from ..systems import swn
from . import swn_sheet as on
from .registry import LabelOpt, NamesOpt, Twin, command, label_reply, read_names, twins
from .result import Plan, Reply, Resources, resources_of
from .sheeted import SheetOpt, maybe_sheet, resolved_as, sheet_for

if TYPE_CHECKING:
    from ..sheets import Sheet

__all__: list[str] = []

SkillOpt = Annotated[
    int | None, typer.Option("--skill", help="Skill level 0-4 (0, and said so, if not given).")
]
UntrainedOpt = Annotated[bool, typer.Option("--untrained", help="Not even level 0.")]
DIFFICULTY_HELP = """easy 6, normal 8 (if not given, and said so), hard 10, very-hard 12,
impossible 14, or a number."""
ANYWAY_HELP = "Roll even when the result is certain (2d6 + mod is 2 + mod to 12 + mod)."
HELPER_HELP = """One person aiding, as SKILL[/MOD]: skill 0-4 or untrained, then their
attribute modifier (1/+2, 0, untrained/-1). Repeat for each helper."""
HELPERS_HELP = "N helpers alike: the shorthand of N --helper, with --helper-skill/--helper-mod."
VEX = "--sheet example:vex.toml"
NAME_HELP = "Read from the sheet: Dex/Shoot, Int/Heal, or a skill alone (Shoot)."
NameArg = Annotated[str | None, typer.Argument(metavar="[ATTRIBUTE/]SKILL", help=NAME_HELP)]
WEAPON_HELP = "A weapon on the sheet: its damage, Shock, skill and attributes."
WeaponArg = Annotated[str | None, typer.Argument(metavar="[WEAPON]", help=WEAPON_HELP)]
BonusOpt = Annotated[int | None, typer.Option("--attack-bonus", help="Attack bonus (0).")]


def _attr_assumed(attrs: dict[str, int]) -> tuple[str, ...]:
    """A check made with no attribute given says so: ``+0, no attribute given``."""
    return () if attrs else ("+0, no attribute given",)


def _known(*items: str | None) -> tuple[str, ...]:
    return tuple(i for i in items if i)


def _twins(name: str, examples: list[str]) -> Callable[[Callable[..., Twin]], Callable[..., Twin]]:
    """``swn NAME`` and ``swn odds NAME``, taking the attribute options as ``attrs``."""
    return twins("swn", name, examples=examples, prepare=on.gather_attrs, extra=on.attr_params())


@_twins("save", ["swn save physical --level 3 --str 14 --con 10", f"swn save physical {VEX}",
                 f"swn save mental --level 5 {VEX}"])  # fmt: skip
def save(
    ctx: typer.Context,
    kind: Annotated[swn.SaveKind, typer.Argument(help="physical, evasion or mental.")],
    attrs: on.Given,
    level: Annotated[int | None, typer.Option("--level", help="Character level (1).")] = None,
    hit_dice: Annotated[int | None, typer.Option("--hit-dice", help="An NPC's HD.")] = None,
    mod: Annotated[int, typer.Option("--mod", help="Situational modifier.")] = 0,
    label: LabelOpt = None,
    sheet: SheetOpt = None,
) -> Twin:
    """A saving throw: 1d20 at or over 16 - level - the better attribute modifier.

    A sheet (--sheet, or $REFEREE_SHEET) gives the level and attributes; options override it.
    """
    lv, use, read = on.for_save(ctx, sheet, kind, level, attrs)
    best, assumed = swn.save_attribute(kind, use)
    target = swn.save_target(lv, best, hit_dice=hit_dice)

    def go(rng: RandomSource) -> Reply:
        r = swn.save(kind, level=lv, attributes=use, hit_dice=hit_dice, modifier=mod,
                     label=label, rng=rng)  # fmt: skip
        data = render.check_json(r, save=kind.value, note=r.note or None, assumed=list(r.assumed))
        return read.reply(Reply(data, r.text))

    def chances() -> Reply:
        p = swn.save_odds(target, mod)
        data = render.odds_json(
            "save", p, f"{kind.value.title()} save vs {target}", target=target, assumed=assumed
        )
        return read.reply(Reply(data, data["text"]))

    return go, chances


@_twins(
    "check",
    [
        "swn check --skill 1 --int 14 --difficulty hard",
        "swn check --skill 1 --int 14 --difficulty 8 --helper 1/+1 --helper untrained/-1",
        "swn check --untrained --dex-mod 1 --difficulty 8 --peripheral --helpers 2",
        "swn check --skill 2 --difficulty hard --helpers 3 --helper-skill 1 --helper-mod -1",
        f"swn check Dex/Shoot --difficulty 8 {VEX}",
        f"swn check Int/Heal --difficulty hard --skill 3 {VEX}",
        f"swn check Int/Pilot {VEX}",
    ],
)
def check(
    ctx: typer.Context,
    attrs: on.Given,
    name: NameArg = None,
    skill: SkillOpt = None,
    untrained: UntrainedOpt = False,
    difficulty: Annotated[str | None, typer.Option("--difficulty", help=DIFFICULTY_HELP)] = None,
    peripheral: Annotated[bool, typer.Option("--peripheral", help="+2 difficulty.")] = False,
    mod: Annotated[int, typer.Option("--mod", help="Situational modifier (±2).")] = 0,
    force: Annotated[bool, typer.Option("--force", help="Allow a modifier beyond ±2.")] = False,
    helper: Annotated[
        list[str] | None, typer.Option("--helper", metavar="SKILL[/MOD]", help=HELPER_HELP)
    ] = None,
    helpers: Annotated[
        int, typer.Option("--helpers", min=0, max=swn.MAX_HELPERS, help=HELPERS_HELP)
    ] = 0,
    helper_skill: Annotated[
        int | None, typer.Option("--helper-skill", help="With --helpers: their skill (0).")
    ] = None,
    helper_mod: Annotated[
        int | None, typer.Option("--helper-mod", help="With --helpers: their attribute mod (0).")
    ] = None,
    technical: Annotated[
        bool, typer.Option("--technical", help="A technical skill: refused untrained (003).")
    ] = False,
    label: LabelOpt = None,
    sheet: SheetOpt = None,
) -> Twin:
    """A skill check: 2d6 + skill + attribute modifier against a difficulty, with aid.

    Each helper rolls 2d6 + their skill + attribute modifier against the same
    difficulty; if any succeeds the check gets +1 (003, "Aiding a Skill Check").
    Whatever is not given is assumed and said so in the result. A skill named
    (Dex/Shoot) is read from the sheet (--sheet, or $REFEREE_SHEET): a skill of the
    rules not on it is untrained; options override the sheet, and the text says so.
    """
    level, skill_assumed, use, read = on.for_check(ctx, sheet, name, skill, untrained, attrs)
    label = label or read.label
    team, team_assumed = swn.read_helpers(helper or [], helpers, helper_skill, helper_mod)
    normal = f"difficulty {swn.DIFFICULTIES['normal']} (normal, not given)"
    assumed = _known(
        skill_assumed, *_attr_assumed(use), normal if difficulty is None else None, team_assumed
    )
    kw: dict[str, Any] = dict(
        skill=level,
        attribute=swn.best_attribute(use, swn.ATTRIBUTES, "a skill check", single=True),
        difficulty="normal" if difficulty is None else difficulty, peripheral=peripheral,
        modifier=mod, force=force, helpers=team, technical=technical,
    )  # fmt: skip
    o = swn.skill_check_odds(**kw)
    without = None if o.without_aid is None else fraction(o.without_aid)

    def go(rng: RandomSource) -> Reply:
        r = swn.skill_check(label=label, rng=rng, assumed=assumed, **kw)
        data = render.check_json(r, aid=[render.check_json(a) for a in r.aid])
        data["odds"]["without_aid"] = without
        return read.reply(Reply(data, r.text))

    def chances() -> Reply:
        data = render.skill_odds_json(o, len(team), assumed, read.label or "Skill check")
        return read.reply(Reply(data, data["text"]))

    return go, chances


@_twins("stabilize", ["swn stabilize --rounds 2 --tools medkit --skill 1 --int 12",
                      f"swn stabilize --rounds 1 {VEX}",
                      "swn stabilize --rounds 1 --skill 1 --target-name Juno"])  # fmt: skip
def stabilize(
    ctx: typer.Context,
    attrs: on.Given,
    rounds: Annotated[int, typer.Option("--rounds", help="Rounds since the victim fell.")] = 0,
    tools: Annotated[str, typer.Option("--tools", help="none, medkit or lazarus.")] = "none",
    skill: SkillOpt = None,
    untrained: UntrainedOpt = False,
    vs: Annotated[
        str | None,
        typer.Option(
            "--vs",
            metavar="SHEET",
            help="The one stabilized: a sheet (a file; @NAME in a room, whose fight then "
            "gives the rounds it has been down).",
        ),
    ] = None,
    target_name: Annotated[str | None, typer.Option(help="The one stabilized.")] = None,
    label: LabelOpt = None,
    sheet: SheetOpt = None,
) -> Twin:
    """Stabilize a mortally wounded ally: Int/Heal or Dex/Heal vs 10/8/6 + rounds.

    A sheet (--sheet, or $REFEREE_SHEET) gives Heal, Int and Dex; options override it.
    --vs names the one stabilized (in a room, the fight's tracker gives its rounds).
    """
    if vs is not None:
        found = resources_of(ctx).sheet(vs)
        if found is None:
            raise CommandError(f"no sheet {vs!r} to stabilize")
        target_name = target_name or found.name
        resolved_as(ctx, vs=None, target_name=target_name)
    level, skill_assumed, use, read = on.for_stabilize(ctx, sheet, skill, untrained, attrs)
    if target_name and label is None:
        label = f"{read.label} on {target_name}" if read.label else f"Stabilize {target_name}"
    assumed = _known(skill_assumed, *_attr_assumed(use))
    kw: dict[str, Any] = dict(
        rounds=rounds, tool=tools, skill=level,
        attribute=swn.best_attribute(use, ("int", "dex"), "stabilizing"),
    )  # fmt: skip
    o = swn.stabilize_odds(**kw)

    def go(rng: RandomSource) -> Reply:
        r = swn.stabilize(rng=rng, assumed=assumed, **kw)
        data = render.check_json(r.check, tool=r.tool, patch_used=r.patch_used)
        return read.reply(label_reply(Reply({**data, "text": r.text}, r.text), label or read.label))

    def chances() -> Reply:
        data = render.odds_json(
            "stabilize", o.success, f"Stabilize vs {o.target}", target=o.target, assumed=assumed
        )
        return read.reply(label_reply(Reply(data, data["text"]), read.label))

    return go, chances


@twins("swn", "morale", examples=["swn morale 8", "swn morale 13 --roll-anyway"])
def morale(
    score: Annotated[int, typer.Argument(help="The NPC's morale score.")],
    mod: Annotated[int, typer.Option("--mod", help="Situational modifier to the roll.")] = 0,
    roll_anyway: Annotated[bool, typer.Option("--roll-anyway", help=ANYWAY_HELP)] = False,
    label: LabelOpt = None,
) -> Twin:
    """A morale check: 2d6 at or under the score and the NPC fights on.

    2d6 is 2 to 12: when the score (with --mod) makes the result certain, no dice
    are rolled and the result says so, unless --roll-anyway.
    """
    p = swn.morale_odds(score, mod)
    certain = swn.morale_certainty(score, mod)

    def go(rng: RandomSource) -> Reply:
        r = swn.morale(score, modifier=mod, label=label, roll_anyway=roll_anyway, rng=rng)
        return Reply(render.check_json(r), r.text)

    def chances() -> Reply:
        detail = "" if certain is None else f"; {certain}"
        data = render.odds_json("morale", p, f"Morale {score} holds", detail=detail, target=score)
        return Reply(data, data["text"])

    return go, chances


@twins("swn", "oppose", examples=["swn oppose 2 1", "swn oppose 1 1 --ties defender"])
def oppose(
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
    names: NamesOpt = None,
    label: LabelOpt = None,
) -> Twin:
    """An opposed check: both sides roll 2d6 + bonus; the higher total wins.

    An NPC with no relevant expertise has a bonus of 0 (a straight 2d6).
    """
    who = read_names(names)
    sides = (first, not first_npc), (second, second_pc)
    p = swn.oppose_odds(*sides, ties=ties)

    def go(rng: RandomSource) -> Reply:
        r = swn.oppose(*sides, ties=ties, names=who, rng=rng)
        data = render.check_json(
            r.first, winner=r.winner, second=render.check_json(r.second), ties=r.ties.value,
            names=list(r.names),
        )  # fmt: skip
        data["outcome"] = r.outcome
        return label_reply(Reply({**data, "text": r.text}, r.text), label)

    def chances() -> Reply:
        text = (
            f"Opposed {first:+d} vs {second:+d}: {who[0]} {percent(p)}, {who[1]} {percent(1 - p)}"
        )
        data = {"system": "swn", "kind": "oppose", "names": list(who),
                "odds": {"first": fraction(p), "second": fraction(1 - p), "tie": "0/1"},
                "text": text}  # fmt: skip
        return label_reply(Reply(data, text), label)

    return go, chances


@command(
    "swn initiative",
    rolls=True,
    examples=[
        "swn initiative example:party.toml",
        f"swn initiative {VEX} --sheet example:juno.toml example:party.toml",
    ],
)
def initiative(
    ctx: typer.Context,
    path: Annotated[
        str | None,
        typer.Argument(help=on.PARTY_HELP),
    ] = None,
    sheet: on.SheetsOpt = None,
    label: LabelOpt = None,
) -> Plan:
    """Roll initiative once for a combat: 1d8 + Dex modifier, highest first, PCs win ties.

    Everyone in the party file rolls, then each --sheet as a PC with the sheet's Dex
    modifier. With neither, the sheet in $REFEREE_SHEET rolls alone.
    """
    party, sheets, traits, assumed = _for_initiative(ctx, path, sheet)

    def go(rng: RandomSource) -> Reply:
        data = render.initiative_json(swn.initiative(party, rng=rng))
        if sheets:
            text = data["text"] + "".join(f"\nassumed {a}" for a in assumed)
            data = {**data, "sheets": [s.name for s in sheets], "traits": traits,
                    "assumed": assumed, "text": text}  # fmt: skip
        return label_reply(Reply(data, data["text"]), label)

    return go


@command(
    "swn simulate",
    rolls=False,
    examples=["swn simulate example:warrior_vs_3_thugs.toml -n 100000 --seed 1"],
)
def simulate(
    ctx: typer.Context,
    path: Annotated[str, typer.Argument(help=on.ENCOUNTER_HELP)],
    runs: Annotated[int, typer.Option("-n", "--runs", help="Encounters to simulate.")] = 100_000,
    seed: Annotated[int | None, typer.Option("--seed", help="Seed for a reproducible run.")] = None,
) -> Plan:
    """Fight an encounter many times: win odds per side, survival per combatant, rounds.

    Every figure comes with a 95% confidence interval (Wilson for
    probabilities). Without --seed a seed is drawn and reported, so any run can
    be repeated.
    """
    # here, not at the top: 67 ms of start-up otherwise (issue 53)
    from ..systems.swn.simulate import simulate as run_sim

    resources: Resources = ctx.obj
    enc = resources.encounter(path)

    def go(rng: RandomSource) -> Reply:
        with resources.progress(runs) as tick:
            sim = run_sim(enc, runs, seed=seed, progress=tick)
        data = render.simulation_json(sim)
        return Reply(data, data["text"])

    return go


def _for_initiative(
    ctx: typer.Context, path: str | None, paths: Sequence[str] | None
) -> tuple[list[tuple[str, int, bool]], list[Sheet], list[dict[str, Any] | None], list[str]]:
    """Who rolls initiative: the party file's combatants, then a PC for each sheet (its
    Dex modifier). With neither, the caller's sheet (``$REFEREE_SHEET``) if any. Also
    the sheets, each one's Dex trait (None if the sheet has none) and what was assumed.

    Raises:
        CommandError: nobody to roll for.
        SheetError: an unreadable sheet, or one for another system.
    """
    resources = resources_of(ctx)
    party = [] if path is None else list(resources.party(path))
    sheets = [sheet_for(ctx, p, "swn", "swn initiative") for p in paths or ()]
    if path is None and not sheets:
        found = maybe_sheet(ctx, None, "swn", "swn initiative")
        if found is None:
            raise CommandError(
                "'swn initiative' needs someone to roll for: give a party file "
                "(example:party.toml), --sheet FILE for each PC, or both",
                "swn initiative",
            )
        sheets = [found]
    traits: list[dict[str, Any] | None] = []
    assumed: list[str] = []
    for sheet in sheets:
        dex = on._attribute(sheet, "dex")
        if dex is None:
            assumed.append(f"{sheet.name}'s Dex +0 (not on the sheet)")
        party.append((sheet.name, 0 if dex is None else on._mod(dex), True))
        traits.append(on._json(dex, sheet))
    return party, sheets, traits, assumed
