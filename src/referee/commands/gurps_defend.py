"""``gurps defend``: an active defense roll (B374-B377), with its options.

Sources: *GURPS Basic Set*, 4th edition: B374-B377, "Active Defense" (retreat, All-Out
Defense, shields, repeated parries, fencing weapons; a thrown weapon parried at −1, a
small one at −2, B376); B366, All-Out Defense (Double): a second, different defense
after a failed first; B377, Dodge and Drop (+3, then prone); B376, "Parrying Heavy
Weapons" (the 1d for breakage, :mod:`referee.systems.gurps.defenses`); B419 and B426
(reeling and very tired halve Dodge).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Annotated

import typer

from ..errors import RuleError
from ..faces import draw_faces
from ..fmt import fraction, percent, readable
from ..render.combat import defense_json
from ..render.gurps import skill_odds_json
from ..rng import RandomSource
from ..systems.gurps.defense import (
    DEFENSES,
    DefenseOptions,
    defend,
    defense_modifiers,
    halved_dodge,
)
from ..systems.gurps.defenses import Breakage
from ..systems.gurps.success import skill_odds
from .gurps_combat import BlockRetreatOpt
from .gurps_maneuvers import BreakOnOpt, HeavyOpt
from .gurps_target import defense_from_sheet
from .registry import LabelOpt, Twin, twins
from .result import Reply
from .sheeted import SheetOpt, labelled, resolved_as


@twins(
    "gurps",
    "defend",
    examples=[
        "gurps defend dodge 8 --retreat",
        "gurps defend parry 11 --parried 1 --fencing",
        "gurps defend block 10 --aod --shield 2 --against -1",
        "gurps defend dodge 9 --mod -3 --label 'Dodge (prone -3)'",
        "gurps defend parry 11 --heavy",
        "gurps defend dodge 8 --aod-double parry=10",
    ],
)
def defend_cmd(
    ctx: typer.Context,
    kind: Annotated[str, typer.Argument(metavar="DEFENSE", help="dodge, parry or block.")],
    level: Annotated[
        str | None,
        typer.Argument(
            metavar="LEVEL|WEAPON",
            help="The defense's level (9), or with a sheet: a weapon to parry or block "
            "with (the best one when left out).",
        ),
    ] = None,
    retreat: Annotated[bool, typer.Option("--retreat", help="Retreat (B377).")] = False,
    aod: Annotated[bool, typer.Option("--aod", help="All-Out Defense: +2 (B366).")] = False,
    shield: Annotated[int, typer.Option(min=0, max=10, help="A shield's DB (B374).")] = 0,
    parried: Annotated[
        int, typer.Option(min=0, max=20, help="Parries already made with this weapon (B376).")
    ] = 0,
    fencing: Annotated[
        bool,
        typer.Option("--fencing", help="A parry with a fencing weapon, Boxing, Judo or Karate."),
    ] = False,
    against: Annotated[
        int,
        typer.Option(
            min=-10, max=10, help="The attack's effect: -1 per deceptive level, +2 if telegraphic."
        ),  # fmt: skip
    ] = 0,
    reeling: Annotated[
        bool, typer.Option("--reeling", help="Under 1/3 HP: Dodge halved, rounded up (B419).")
    ] = False,
    very_tired: Annotated[
        bool, typer.Option("--very-tired", help="Under 1/3 FP: Dodge halved, rounded up (B426).")
    ] = False,
    block_retreat: BlockRetreatOpt = 1,
    thrown: Annotated[
        bool, typer.Option("--thrown", help="Parrying a thrown weapon: -1 (B376).")
    ] = False,
    thrown_small: Annotated[
        bool,
        typer.Option(
            "--thrown-small", help="Parrying a small thrown weapon (1 lb or less): -2 (B376)."
        ),
    ] = False,
    mod: Annotated[
        list[int] | None,
        typer.Option(
            "--mod",
            min=-20,
            max=20,
            help="A modifier to the defense (posture, stun: B551, B420); repeat for several.",
        ),
    ] = None,
    aod_double: Annotated[
        str | None,
        typer.Option(
            "--aod-double",
            metavar="KIND=LEVEL",
            help="All-Out Defense (Double): a second, different defense if this one fails "
            "(B366): parry=10.",
        ),
    ] = None,
    dodge_and_drop: Annotated[
        bool,
        typer.Option(
            "--dodge-and-drop",
            help="Dodge and Drop against a ranged attack: +3, then prone (B377).",
        ),
    ] = False,
    heavy: HeavyOpt = False,
    break_on: BreakOnOpt = None,
    label: LabelOpt = None,
    sheet: SheetOpt = None,
) -> Twin:
    """An active defense roll: Dodge, Parry or Block, with retreat, All-Out Defense, a
    shield and repeated parries; rolled even at 2 or less (a defense roll)."""
    kind = kind.lower()
    if kind not in ("dodge", "parry", "block"):
        raise RuleError(f"unknown defense {kind!r}; use dodge, parry or block")
    name = label
    if level is not None and re.fullmatch(r"\s*-?\d+\s*[fF]\s*", level):
        level, fencing = level.strip()[:-1], True  # GCS's 9F: a fencing parry (B376)
    if level is None or not re.fullmatch(r"-?\d+", level.strip()):
        value, shown, fenced = defense_from_sheet(ctx, kind, level, sheet)
        fencing = fencing or fenced
        name = labelled(shown, label)
        resolved_as(ctx, level=str(value) + ("F" if fenced else ""), label=name)
    else:
        value = int(level)
    if kind == "dodge" and (reeling or very_tired):
        value = halved_dodge(value, reeling=reeling, very_tired=very_tired)
        why = " and ".join(w for w, on in (("reeling", reeling), ("very tired", very_tired)) if on)
        name = f"{name or 'Dodge'} (halved: {why})"
    elif reeling or very_tired:
        raise RuleError("--reeling and --very-tired halve Dodge only (B419, B426)")
    if mod:  # named by the label (a fight's: "Parry (prone -3)"), summed into the level
        value += sum(mod)
    if dodge_and_drop and kind != "dodge":
        raise RuleError("--dodge-and-drop is a Dodge (B377)")
    if heavy and kind != "parry" and aod_double is None:
        raise RuleError("--heavy is a parry's (B376)")
    if break_on is not None and not heavy:
        raise RuleError("--break-on is the 1d roll that breaks a parrying weapon (B376): it "
                        "needs --heavy, or leave it out")  # fmt: skip
    break_on = 2 if break_on is None else break_on
    options = DefenseOptions(retreat, aod, shield, parried, fencing, block_retreat,
                             drop=dodge_and_drop, heavy=heavy, break_on=break_on)  # fmt: skip
    second = _second(aod_double, kind)
    if (thrown or thrown_small) and kind != "parry":
        raise RuleError("--thrown and --thrown-small change a parry only (B376)")
    if thrown and thrown_small:
        raise RuleError("a thrown weapon is small or not: --thrown or --thrown-small (B376)")
    parry = -2 if thrown_small else -1 if thrown else 0  # B376: a missile is not parried

    def go(rng: RandomSource) -> Reply:
        d = defend(kind, value, options, against=against, parry=parry, label=name, rng=rng)
        data, text, held = defense_json(d), d.text, d if d.defended else None
        if second is not None and not d.defended:  # B366: a second, different defense
            e = defend(second[0], second[1], options, against=against,
                       parry=parry if second[0] == "parry" else 0, rng=rng)  # fmt: skip
            data["second"], held = defense_json(e), e if e.defended else None
            text += f"; then (All-Out Defense, Double, B366): {e.text}"
        data["breakage"] = None
        if heavy and held is not None and held.defense == "parry":  # B376
            b = Breakage(draw_faces(rng, 1, 6)[0], break_on)
            data["breakage"] = {"roll": b.roll, "break_on": b.break_on, "broke": b.broke}
            text += f"; {b.text}"
        if dodge_and_drop:
            text += "; then prone (Dodge and Drop, B377)"
        return Reply({**data, "text": text}, text)

    def defense_odds() -> Reply:
        eff = value + sum(m for _, m in defense_modifiers(kind, options, against, parry))
        o = skill_odds(eff)
        text = f"{name or kind.title()} {eff}: defends {readable(o.success)}"
        data = {"system": "gurps", "kind": "odds", "label": name, "effective_skill": eff,
                "odds": skill_odds_json(o), "text": text}  # fmt: skip
        held, parried = o.success, o.success * (kind == "parry")
        if second is not None:
            mods = defense_modifiers(second[0], options, against, parry)
            then = skill_odds(second[1] + sum(m for _, m in mods)).success
            held += (1 - o.success) * then
            parried += (1 - o.success) * then * (second[0] == "parry")
            text += f"; with {second[0].title()} {second[1]} after (B366): {percent(held)}"
            data["either"] = fraction(held)
        if heavy:
            breaks = parried * Fraction(break_on, 6)
            text += f"; the parrying weapon breaks {percent(breaks)} (B376)"
            data["breaks"] = fraction(breaks)
        return Reply({**data, "text": text}, text)

    return go, defense_odds


def _second(given: str | None, first: str) -> tuple[str, int] | None:
    """``--aod-double parry=10``: the second defense and its level (B366).

    Raises:
        RuleError: not KIND=LEVEL, or the same kind as the first.
    """
    if given is None:
        return None
    found = re.fullmatch(r"\s*(dodge|parry|block)\s*=\s*(-?\d{1,3})\s*", given.lower())
    if found is None:
        raise RuleError(f"--aod-double {given!r}: give the second defense, like parry=10")
    if found.group(1) == first:
        raise RuleError(f"--aod-double {given!r}: the second defense is a different one (B366)")
    assert found.group(1) in DEFENSES
    return found.group(1), int(found.group(2))
