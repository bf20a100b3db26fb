"""``gurps attack``'s options for the situation and the maneuvers a GM reaches for
(issue 66 §2 and §3), gathered into one :class:`Situation` before the command runs:
range (B550), Aim and Acc (B364), posture (B551), the attacker's shock (B419), Move and
Attack with Bulk (B365), Rapid Fire and Recoil (B373), a Dual-Weapon Attack and the off
hand (B417); the target's All-Out Defense (Double) (B366), Dodge and Drop (B377), a
parry of a heavy weapon (B376) and its Injury Tolerance (B380). The rules are
:mod:`referee.systems.gurps.situation` and the modules each option names.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

import typer

from ..errors import RuleError
from ..systems.gurps.defense import Flank, RangedKind
from ..systems.gurps.locations import LargeArea
from ..systems.gurps.situation import HalfDamageFrom, Posture
from ..systems.gurps.tolerance import Tolerance

__all__ = [
    "BreakOnOpt",
    "HeavyOpt",
    "MissileKind",
    "Situation",
    "gather_situation",
    "ranged_kind",
    "situation_params",
]

HeavyOpt = Annotated[
    bool,
    typer.Option(
        "--heavy",
        help="The parry meets a weapon 3x or more its weight: 1d after a parry that holds, "
        "and the parrying weapon breaks on --break-on or less (B376).",
    ),
]
BreakOnOpt = Annotated[
    int | None,
    typer.Option(
        "--break-on",
        min=1,
        max=6,
        help="With --heavy: the 1d roll at or under which the parrying weapon breaks (2).",
    ),
]


@dataclass(frozen=True, slots=True)
class Situation:
    """The options of this module as given (each named as its flag)."""

    range_yards: int | None = None
    half_damage_range: int | None = None
    """``--half-damage-range``: the weapon's 1/2D in yards (B378); None: not given."""
    half_damage_from: HalfDamageFrom = HalfDamageFrom.PAST
    aim: int = 0
    acc: int | None = None
    posture: Posture = Posture.STANDING
    shock: int = 0
    move_and_attack: bool = False
    bulk: int | None = None
    rof: int = 1
    recoil: int | None = None
    """``--recoil`` as typed; None: not given (Recoil 1)."""
    dual_weapon: bool = False
    off_hand: bool = False
    aod_double: bool = False
    dodge_and_drop: bool = False
    heavy: bool = False
    break_on: int | None = None
    """``--break-on`` as typed; None: not given (2)."""
    defense_mod: int = 0
    target_posture: Posture = Posture.STANDING
    target_stunned: bool = False
    target_ht: int | None = None
    """``--target-ht``: the target's HT, for the knockdown roll between two attacks
    (B420); None: not given."""
    flank: Flank = Flank.FRONT
    large_area_dr: LargeArea | None = None
    """``--large-area-dr``: how large-area injury's DR rounds (B400); None: up."""
    tolerance: Tolerance | None = None
    """The target's Injury Tolerance typed (``--unliving``...); None: the sheet's."""


def _opt(
    name: str,
    kind: Any,
    default: Any,
    flag: str,
    help: str,
    min: int | None = None,
    max: int | None = None,
) -> inspect.Parameter:
    return inspect.Parameter(
        name,
        inspect.Parameter.KEYWORD_ONLY,
        default=default,
        annotation=Annotated[kind, typer.Option(flag, help=help, min=min, max=max)],
    )  # fmt: skip


def situation_params() -> list[inspect.Parameter]:
    """The options, as parameters added to ``gurps attack``'s signature."""
    return [
        _opt("range_yards", int | None, None, "--range",
             "A ranged attack's distance in yards: B550's range penalty (10 yd: -4).",
             min=0, max=10**8),
        _opt("half_damage_range", int | None, None, "--half-damage-range",
             "The weapon's 1/2D in yards: with --range past it, basic damage is halved "
             "(B378).", min=0, max=10**8),
        _opt("half_damage_from", HalfDamageFrom, HalfDamageFrom.PAST, "--half-damage-from",
             "Where 1/2D begins: past the 1/2D (the default) or at it (B378)."),
        _opt("aim", int, 0, "--aim",
             "Turns of Aim (ranged): the weapon's Acc, +1 for 2 turns, +2 for 3+ (B364).",
             min=0, max=100),
        _opt("acc", int | None, None, "--acc",
             "The weapon's Acc, for --aim; a sheet's weapon gives it.", min=0, max=30),
        _opt("posture", Posture, Posture.STANDING, "--posture",
             "The attacker's posture: melee -2 crouching, kneeling, sitting; -4 crawling, "
             "prone (B551)."),
        _opt("shock", int, 0, "--shock",
             "The attacker's own shock this turn: -1 a point (B419).", min=0, max=8),
        _opt("move_and_attack", bool, False, "--move-and-attack",
             "Move and Attack: melee -4 and at most 9; ranged -2 or --bulk (B365)."),
        _opt("bulk", int | None, None, "--bulk",
             "The weapon's Bulk (-4), for a ranged --move-and-attack; a sheet's weapon "
             "gives it.", min=-20, max=0),
        _opt("rof", int, 1, "--rof",
             "Rapid Fire: shots fired; the RoF bonus, and one more hit per full --recoil "
             "of margin (B373).", min=1, max=1000),
        _opt("recoil", int | None, None, "--recoil", "The weapon's Recoil, for --rof (B373).",
             min=1, max=100),
        _opt("dual_weapon", bool, False, "--dual-weapon",
             "Dual-Weapon Attack: two attacks, each at -4 (B417)."),
        _opt("off_hand", bool, False, "--off-hand",
             "With the off hand: -4 more (B417; not with Ambidexterity); with "
             "--dual-weapon, the second attack."),
        _opt("aod_double", bool, False, "--aod-double",
             "The target made All-Out Defense (Double): a second, different defense "
             "after a failed first (B366)."),
        _opt("dodge_and_drop", bool, False, "--dodge-and-drop",
             "The target dodges and drops against a ranged attack: Dodge +3, then prone "
             "(B377)."),
        _opt("heavy", bool, False, "--heavy",
             "The attacking weapon is 3x or more the parrying weapon's weight: a parry "
             "that holds may break it (B376)."),
        _opt("break_on", int | None, None, "--break-on",
             "With --heavy: the 1d roll at or under which the parrying weapon breaks (2).",
             min=1, max=6),
        _opt("defense_mod", int, 0, "--defense-mod",
             "The GM's own modifier to the target's defense.", min=-20, max=20),
        _opt("target_posture", Posture, Posture.STANDING, "--target-posture",
             "The target's posture: its defenses kneeling or sitting -2, crawling or prone "
             "-3, and no retreat kneeling or sitting (B551)."),
        _opt("target_stunned", bool, False, "--target-stunned",
             "The target is stunned: -4 to its defenses (B420)."),
        _opt("target_ht", int | None, None, "--target-ht",
             "The target's HT: with two attacks (--double, --dual-weapon, --rapid), the "
             "first's knockdown roll is made before the second (B420).", min=1, max=40),
        _opt("flank", Flank, Flank.FRONT, "--flank",
             "Where the attack comes from: side, the target's defenses -2; back, none "
             "(B390-B391)."),
        _opt("large_area_dr", LargeArea | None, None, "--large-area-dr",
             "With --large-area: the average DR's half rounds up (the default, as GCS and "
             "GURPS Game Aid) or down (B400 does not say)."),
        *(_opt(t.value, bool, False, f"--{t.value}",
               f"The target has Injury Tolerance ({t.value.title()}) (B380).")
          for t in Tolerance),
    ]  # fmt: skip


def gather_situation(kwargs: dict[str, Any]) -> None:
    """The options as ``attrs``: one :class:`Situation`.

    Raises:
        RuleError: more than one Injury Tolerance (B60: they exclude each other); an
            option given without the one it belongs to (:func:`orphans`).
    """
    given = [t for t in Tolerance if kwargs.pop(t.value)]
    if len(given) > 1:
        flags = " and ".join(f"--{t.value}" for t in given)
        raise RuleError(f"{flags}: Diffuse, Homogenous and Unliving exclude each other (B60)")
    orphans(kwargs)
    names = [f for f in Situation.__dataclass_fields__ if f != "tolerance"]
    kwargs["attrs"] = Situation(**{n: kwargs.pop(n) for n in names},
                                tolerance=given[0] if given else None)  # fmt: skip


def orphans(kwargs: dict[str, Any]) -> None:
    """Refuse an option that would be ignored, or that contradicts another, as typed
    (issue 73 §2.5): ``--break-on`` without ``--heavy`` (B376); ``--acc`` without
    ``--aim`` (B364); ``--bulk`` without ``--move-and-attack`` (B365); ``--recoil``
    without ``--rof`` (B373); ``--thrust`` or ``--swing`` without ``--long`` (*GURPS
    Martial Arts*, p. 97); ``--feint`` with ``--dual-weapon`` (B365's All-Out Attack
    (Feint) is a feint and one attack, B417's Dual-Weapon Attack two attacks); a prone
    attacker's Move and Attack (B551: a prone fighter moves only by crawling, so say
    ``--posture crawling``; B365).

    Raises:
        RuleError: naming the option and the one it needs.
    """
    lone = [
        ("--break-on", kwargs.get("break_on") is not None, kwargs.get("heavy"), "--heavy",
         "the 1d roll that breaks a parrying weapon (B376)"),
        ("--acc", kwargs.get("acc") is not None, kwargs.get("aim"), "--aim",
         "the weapon's Acc, added after an Aim (B364)"),
        ("--bulk", kwargs.get("bulk") is not None, kwargs.get("move_and_attack"),
         "--move-and-attack", "the weapon's Bulk, for a ranged Move and Attack (B365)"),
        ("--recoil", kwargs.get("recoil") is not None, (kwargs.get("rof") or 1) > 1, "--rof",
         "the weapon's Recoil, for Rapid Fire (B373)"),
        ("--thrust/--swing", kwargs.get("thrust") is not None, kwargs.get("long"), "--long",
         "what All-Out Attack (Long) costs the damage (Martial Arts p. 97)"),
        ("--large-area-dr", kwargs.get("large_area_dr") is not None, kwargs.get("large_area"),
         "--large-area", "how large-area injury rounds its DR (B400)"),
        ("--target-ht", kwargs.get("target_ht") is not None,
         kwargs.get("double") or kwargs.get("dual_weapon") or kwargs.get("rapid"),
         "--double, --dual-weapon or --rapid",
         "the target's HT, for the knockdown roll between two attacks (B420)"),
        ("--half-damage-range", kwargs.get("half_damage_range") is not None,
         kwargs.get("range_yards") is not None, "--range",
         "the weapon's 1/2D, against the range to the target (B378)"),
        ("--half-damage-from", kwargs.get("half_damage_from", "past") != "past",
         kwargs.get("half_damage_range") is not None, "--half-damage-range",
         "where the weapon's 1/2D begins (B378)"),
    ]  # fmt: skip
    for flag, given, needed, need, what in lone:
        if given and not needed:
            raise RuleError(f"{flag} is {what}: it needs {need}, or leave it out")
    if kwargs.get("feint") is not None and kwargs.get("dual_weapon"):
        raise RuleError("--feint with --dual-weapon: All-Out Attack (Feint) is a feint and "
                        "one attack (B365), a Dual-Weapon Attack two (B417); give one")  # fmt: skip
    if kwargs.get("move_and_attack") and kwargs.get("posture") == Posture.PRONE:
        raise RuleError("--posture prone with --move-and-attack: lying prone, a fighter moves "
                        "only by crawling (B551): give --posture crawling, or no move")  # fmt: skip


class MissileKind(StrEnum):
    """``--missile``: what kind of missile a ranged attack is (B375)."""

    ARROW = "arrow"
    BULLET = "bullet"


def ranged_kind(
    thrown: bool, thrown_small: bool, missile: MissileKind | None, ranged: bool
) -> RangedKind:
    """The attack's :class:`~referee.systems.gurps.defense.RangedKind` from
    ``--thrown``, ``--thrown-small`` and ``--missile`` (B375-B376); a plain ``--ranged``
    is :attr:`~referee.systems.gurps.defense.RangedKind.MISSILE`, told by its damage.

    Raises:
        RuleError: two kinds at once, or ``--missile`` on a melee attack.
    """
    given = [f for f, on in (("--thrown", thrown), ("--thrown-small", thrown_small),
                             (f"--missile {missile}", missile is not None)) if on]  # fmt: skip
    if len(given) > 1:
        raise RuleError(f"{' and '.join(given)}: a ranged attack is one kind (B375-B376)")
    if missile is not None and not ranged:
        raise RuleError(f"--missile {missile} is a ranged attack's: add --ranged")
    if thrown or thrown_small:
        return RangedKind.SMALL_THROWN if thrown_small else RangedKind.THROWN
    return RangedKind.MISSILE if missile is None else RangedKind(missile.value)
