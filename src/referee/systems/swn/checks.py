"""Stars Without Number (revised): attributes, saving throws, skill checks and aid,
each with its exact odds (opposed checks and morale are in :mod:`.opposed`).

Source: ``../shared/rules/003_3daee39045b32d3c.txt`` ("Skill Checks",
"Aiding a Skill Check"; saving throws are in :mod:`.saves`) and the
Stars Without Number section of the rules ``README.md`` (the attribute table,
the save target, the named difficulties). Every function is pure apart from
the injected random source and returns a frozen :class:`Check`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

from ...errors import RuleError
from ...fmt import percent, rolled
from ...odds import odds as dice_odds
from ...results import Chances
from ...rng import RandomSource, resolve
from ...roller import draw_faces

__all__ = [
    "DIFFICULTIES",
    "ByCheck",
    "Check",
    "CheckOdds",
    "Helper",
    "Kind",
    "difficulty_value",
    "skill_check",
    "skill_check_odds",
    "skill_odds",
]

DIFFICULTIES = {"easy": 6, "normal": 8, "hard": 10, "very hard": 12, "impossible": 14}
"""Named skill-check difficulties (rules README); ``near impossible`` is also accepted."""
MAX_SITUATIONAL = 2
"""``003``, "Modifiers": usually no more than ±2 total, unless forced."""
SKILL_RANGE = (0, 4)
"""Skill levels run from 0 to 4; untrained is written as None."""
LIMIT = 100
"""Levels, hit dice, difficulties and modifiers must lie within ±LIMIT."""


class Kind(StrEnum):
    """What a :class:`Check` resolved."""

    SAVE = "save"
    SKILL = "skill"
    ATTACK = "attack"
    MORALE = "morale"
    STABILIZE = "stabilize"
    INITIATIVE = "initiative"
    OPPOSE = "oppose"


_WORDS = {
    Kind.MORALE: ("holds", "breaks (flees, withdraws or surrenders)"),
    Kind.ATTACK: ("hit", "miss"),
}


@dataclass(frozen=True, slots=True)
class Check:
    """A resolved SWN roll with its own explanation: dice, modifiers, target, outcome, odds."""

    kind: Kind
    """Save, skill, attack, morale, stabilize, initiative or oppose."""
    dice: tuple[int, ...]
    """The faces rolled."""
    modifiers: tuple[tuple[str, int], ...]
    """Named modifiers added to the dice, e.g. ``(("skill", 1), ("int", 1))``."""
    target: int
    """The number to meet: save target, difficulty, AC, or morale score (roll under)."""
    success: bool
    """Whether the check succeeded (for morale: the NPC fights on)."""
    odds: Fraction
    """The exact probability of success, known before the roll."""
    roll_under: bool = False
    """True when success is a total at or below the target (morale)."""
    note: str = ""
    """Why the outcome differs from the plain comparison, e.g. "natural 20"."""
    aid: tuple[Check, ...] = field(default=())
    """Helpers' checks (skill checks with aid)."""
    odds_without_aid: Fraction | None = None
    """For an aided check: the probability of success with no helpers."""
    label: str | None = None
    """What was rolled."""
    assumed: tuple[str, ...] = ()
    """What the check took for granted, e.g. ``con +0 (not given)``."""

    system = "swn"

    @property
    def outcome(self) -> str:
        """The result as a word: ``success``/``failure``, ``hit``/``miss``, ``holds``/``breaks``."""
        yes, no = _WORDS.get(self.kind, ("success", "failure"))
        return yes if self.success else no.split(" (", 1)[0]

    @property
    def chances(self) -> Chances:
        """P(success) (for morale: the NPC holds)."""
        return Chances.of(success=self.odds)

    @property
    def natural(self) -> int:
        """The dice alone."""
        return sum(self.dice)

    @property
    def total(self) -> int:
        """The dice plus every modifier."""
        return self.natural + sum(v for _, v in self.modifiers)

    @property
    def text(self) -> str:
        """``Skill check: rolled 9 (4, 5) +1 skill +1 attribute = 11 vs 10: success — 58.3%
        to succeed``."""
        names = {Kind.SAVE: "Save", Kind.SKILL: "Skill check", Kind.MORALE: "Morale"}
        head = self.label or names.get(self.kind, self.kind.value.title())
        mods = "".join(f" {v:+d} {k}" for k, v in self.modifiers if v)
        if self.roll_under:
            cmp = "≤" if self.total <= self.target else ">"
        else:
            cmp = "≥" if self.total >= self.target else "<"
        yes, no = _WORDS.get(self.kind, ("success", "failure"))
        word = yes if self.success else no
        note = f" ({self.note})" if self.note else ""
        shown = rolled(self.natural, self.dice)
        total = f"{mods} = {self.total}" if mods else ""
        out = f"{head}: {shown}{total} {cmp} {self.target}: {word}{note}"
        if self.aid:
            helped = sum(1 for a in self.aid if a.success)
            out += f"; aid: {helped} of {len(self.aid)} helpers succeeded"
        if self.assumed:
            out += f"; assumed {', '.join(self.assumed)}"
        goal = {Kind.MORALE: "to hold", Kind.ATTACK: "to hit"}.get(self.kind, "to succeed")
        return out + f" — {percent(self.odds)} {goal}"


class ByCheck:
    """The envelope of a result that succeeds or fails as its ``check`` does (an attack,
    a stabilization): outcome, success and chances are the check's."""

    __slots__ = ()
    check: Check
    system = "swn"

    @property
    def outcome(self) -> str:
        """The check's outcome (``hit``/``miss``, ``success``/``failure``)."""
        return self.check.outcome

    @property
    def success(self) -> bool:
        """Whether the check succeeded."""
        return self.check.success

    @property
    def chances(self) -> Chances:
        """The check's odds."""
        return self.check.chances


@dataclass(frozen=True, slots=True)
class Helper:
    """Someone aiding a skill check: skill level (None if untrained) and attribute modifier."""

    skill: int | None = 0
    """The helper's skill level, or None for untrained (−1)."""
    attribute: int = 0
    """The helper's attribute modifier."""


def _bounded(name: str, value: int, lo: int = -LIMIT, hi: int = LIMIT) -> int:
    if not lo <= value <= hi:
        raise RuleError(f"{name} {value} is outside {lo}..{hi}")
    return value


@functools.cache
def _dist(expr: str) -> tuple[tuple[int, Fraction], ...]:
    return tuple(sorted(dice_odds(expr).distribution.items()))


def _at_least(expr: str, need: int) -> Fraction:
    return sum((p for v, p in _dist(expr) if v >= need), Fraction(0))


def _roll(rng: RandomSource | None, count: int, sides: int) -> tuple[int, ...]:
    return draw_faces(rng, count, sides)


# --- skill checks --------------------------------------------------------------------


def difficulty_value(difficulty: int | str) -> int:
    """A difficulty as a number: ``hard`` → 10 (easy 6, normal 8, hard 10, very hard 12,
    impossible 14), or a number as given.

    Source: rules README, "Skill checks".

    Raises:
        RuleError: an unknown name (listing the known ones).
    """
    if isinstance(difficulty, int):
        return _bounded("difficulty", difficulty)
    key = " ".join(difficulty.strip().casefold().replace("-", " ").replace("_", " ").split())
    key = key.removeprefix("near ")
    if key.lstrip("+-").isdigit():
        return _bounded("difficulty", int(key))
    if key in DIFFICULTIES:
        return DIFFICULTIES[key]
    names = ", ".join(f"{k} {v}" for k, v in DIFFICULTIES.items())
    raise RuleError(f"unknown difficulty {difficulty!r} (a number, or one of: {names})")


def _skill_mod(skill: int | None, untrained: int = -1) -> int:
    if skill is None:
        return untrained
    lo, hi = SKILL_RANGE
    if not lo <= skill <= hi:
        raise RuleError(f"skill level {skill} is outside {lo}-{hi} (use untrained for none)")
    return skill


def _situational(modifier: int, force: bool) -> int:
    if abs(modifier) > MAX_SITUATIONAL and not force:
        raise RuleError(
            f"situational modifier {modifier:+d} is beyond ±{MAX_SITUATIONAL} "
            "(003, 'Modifiers'; allow it with --force)"
        )
    return _bounded("modifier", modifier)


@functools.lru_cache(maxsize=4096)
def skill_odds(bonus: int, difficulty: int, helpers: tuple[int, ...] = ()) -> Fraction:
    """P(2d6 + bonus ≥ difficulty), with aid from helpers whose bonuses are given.

    Aid gives +1 when at least one helper succeeds against the same difficulty,
    however many do (``003``, "Aiding a Skill Check"; rules README).

    >>> skill_odds(0, 8), skill_odds(0, 8, (0,))
    (Fraction(5, 12), Fraction(35, 72))
    """
    plain = _at_least("2d6", difficulty - bonus)
    if not helpers:
        return plain
    none_help = Fraction(1)
    for h in helpers:
        none_help *= 1 - _at_least("2d6", difficulty - h)
    return (1 - none_help) * _at_least("2d6", difficulty - bonus - 1) + none_help * plain


@dataclass(frozen=True, slots=True)
class CheckOdds:
    """A skill check's target and exact odds, known before any roll."""

    target: int
    """The difficulty, after a peripheral skill's +2."""
    success: Fraction
    """P(success), aid included."""
    without_aid: Fraction | None
    """P(success) with no helpers, when there are helpers."""


def _setup(
    skill: int | None,
    attribute: int,
    difficulty: int | str,
    peripheral: bool,
    modifier: int,
    force: bool,
    technical: bool,
) -> tuple[int, list[tuple[str, int]]]:
    if technical and skill is None:
        raise RuleError(
            "this technical skill cannot be attempted untrained (003, 'Skill Checks'): "
            "no roll is made"
        )
    target = difficulty_value(difficulty) + (2 if peripheral else 0)
    mods = [("skill", _skill_mod(skill)), ("attribute", attribute)]
    if modifier:
        mods.append(("situational", _situational(modifier, force)))
    return target, mods


def skill_check_odds(
    *,
    skill: int | None = 0,
    attribute: int = 0,
    difficulty: int | str = 8,
    peripheral: bool = False,
    modifier: int = 0,
    force: bool = False,
    helpers: Sequence[Helper] = (),
    technical: bool = False,
) -> CheckOdds:
    """The exact odds of :func:`skill_check` with the same arguments, without rolling.

    Source: as :func:`skill_check`.
    """
    target, mods = _setup(skill, attribute, difficulty, peripheral, modifier, force, technical)
    bonus = sum(v for _, v in mods)
    helper_bonus = tuple(_skill_mod(h.skill) + h.attribute for h in helpers)
    return CheckOdds(
        target,
        skill_odds(bonus, target, helper_bonus),
        skill_odds(bonus, target) if helpers else None,
    )


def skill_check(
    *,
    skill: int | None = 0,
    attribute: int = 0,
    difficulty: int | str = 8,
    peripheral: bool = False,
    modifier: int = 0,
    force: bool = False,
    helpers: Sequence[Helper] = (),
    technical: bool = False,
    label: str | None = None,
    rng: RandomSource | None = None,
) -> Check:
    """Roll a skill check: 2d6 + skill + attribute modifier against a difficulty.

    Source: ``003``, "Skill Checks" (−1 without even level 0; a peripheral
    skill adds +2 to the difficulty; situational modifiers up to ±2),
    "Aiding a Skill Check" (each helper rolls against the same difficulty; +1
    if any succeeds, however many); rules README. Helpers roll first, in order.

    Args:
        skill: the skill level 0–4, or None for untrained (−1).
        attribute: the attribute modifier.
        difficulty: a number or a name (easy, normal, hard, very hard, impossible).
        peripheral: the skill only partly applies (+2 difficulty).
        modifier: situational modifier, at most ±2 unless ``force``.
        helpers: people aiding, each rolling their own check first.
        technical: a technical skill, which "cannot be attempted untrained"
            (``003``, "Skill Checks"): with ``skill=None`` it is refused, no roll.

    Raises:
        RuleError: a technical skill untrained, or a value out of range.
    """
    target, mods = _setup(skill, attribute, difficulty, peripheral, modifier, force, technical)
    odds = skill_check_odds(
        skill=skill, attribute=attribute, difficulty=difficulty, peripheral=peripheral,
        modifier=modifier, force=force, helpers=helpers, technical=technical,
    )  # fmt: skip
    src = resolve(rng)
    aid = tuple(
        skill_check(skill=h.skill, attribute=h.attribute, difficulty=target, rng=src, label="Aid")
        for h in helpers
    )
    if any(a.success for a in aid):
        mods.append(("aid", 1))
    dice = _roll(src, 2, 6)
    total = sum(dice) + sum(v for _, v in mods)
    return Check(
        Kind.SKILL,
        dice,
        tuple(mods),
        target,
        total >= target,
        odds.success,
        aid=aid,
        odds_without_aid=odds.without_aid,
        label=label,
    )
