"""Stars Without Number (revised): skill checks and aid, with their exact odds.

Source: *Stars Without Number Revised*, "Skill Checks" and "Aiding a Skill Check",
and the rules notes on Stars Without Number (docs/reference/sources.md: the named
difficulties; aid). Every function is pure apart from
the injected random source and returns a frozen :class:`.Check`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ...errors import RuleError
from ...rng import RandomSource, resolve
from .checks import Check, Kind, _at_least, _bounded, _roll

__all__ = [
    "DIFFICULTIES",
    "MAX_HELPERS",
    "PSYCHIC_SKILLS",
    "SKILLS",
    "CheckOdds",
    "Helper",
    "assume_skill",
    "difficulty_value",
    "read_helpers",
    "skill_check",
    "skill_check_odds",
    "skill_name",
    "skill_odds",
]

DIFFICULTIES = {"easy": 6, "normal": 8, "hard": 10, "very hard": 12, "impossible": 14}
"""Named skill-check difficulties (rules README); ``near impossible`` is also accepted."""
MAX_SITUATIONAL = 2
"""``003``, "Modifiers": usually no more than ±2 total, unless forced."""
SKILL_RANGE = (0, 4)
"""Skill levels run from 0 to 4; untrained is written as None."""
MAX_HELPERS = 20
"""The most people who may aid one skill check (each rolls 2d6)."""
SKILLS = (
    "Administer", "Connect", "Exert", "Fix", "Heal", "Know", "Lead", "Notice", "Perform",
    "Pilot", "Program", "Punch", "Shoot", "Sneak", "Stab", "Survive", "Talk", "Trade", "Work",
)  # fmt: skip
"""The skills of *Stars Without Number* (revised), "Skills": a character without
even level 0 in one of them is untrained (``003``, "Skill Checks": −1; rules
README, "Attack": −2 for a combat skill). ``003`` names Exert, Shoot, Stab, Talk,
Sneak and Heal; the full list is the published revised rules'."""
PSYCHIC_SKILLS = (
    "Biopsionics", "Metapsionics", "Precognition", "Telekinesis", "Telepathy", "Teleportation",
)  # fmt: skip
"""The psychic skills of *Stars Without Number* (revised), "Psionics" (the
published revised rules; the seed texts name none)."""


@dataclass(frozen=True, slots=True)
class Helper:
    """Someone aiding a skill check: skill level (None if untrained) and attribute modifier."""

    skill: int | None = 0
    """The helper's skill level, or None for untrained (−1)."""
    attribute: int = 0
    """The helper's attribute modifier."""

    @classmethod
    def read(cls, text: str) -> Helper:
        """A helper from CLI-style text ``SKILL[/MOD]``: the skill level 0–4 or
        ``untrained``, then the attribute modifier −2..+2 (+0 if left out).

        Source: ``003``, "Aiding a Skill Check" (the helper rolls their own check);
        rules README, the attribute modifier table (−2..+2).

        >>> Helper.read("1/+2"), Helper.read("0")
        (Helper(skill=1, attribute=2), Helper(skill=0, attribute=0))
        >>> Helper.read("untrained/-1")
        Helper(skill=None, attribute=-1)

        Raises:
            RuleError: unreadable text, a skill outside 0–4 or a modifier outside −2..+2.
        """
        m = _HELPER.match(text)
        if m is None:
            raise RuleError(
                f"cannot read helper {text!r}: write SKILL[/MOD], e.g. 1/+2, 0 or untrained/-1"
            )
        skill = None if m.group(1).casefold() == "untrained" else int(m.group(1))
        mod = int(m.group(2) or 0)
        lo, hi = SKILL_RANGE
        if skill is not None and not lo <= skill <= hi:
            raise RuleError(f"helper {text!r}: skill level {skill} is outside {lo}-{hi}")
        if not -2 <= mod <= 2:
            raise RuleError(f"helper {text!r}: attribute modifier {mod:+d} is outside -2..+2")
        return cls(skill, mod)


_HELPER = re.compile(r"^\s*(\d+|untrained)\s*(?:/\s*([+-]?\d+)\s*)?$", re.IGNORECASE)


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
    if len(helpers) > MAX_HELPERS:
        raise RuleError(f"{len(helpers)} helpers: at most {MAX_HELPERS} may aid one check")
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
    assumed: Sequence[str] = (),
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
        assumed: what the caller took for granted (``skill 0 (not given)``), named
            in the text.

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
        assumed=tuple(assumed),
    )


def skill_name(name: str) -> str | None:
    """The rules' name of an SWN skill (:data:`SKILLS`, :data:`PSYCHIC_SKILLS`), case
    and spaces aside; None for a name the rules do not have.

    >>> skill_name(" shoot "), skill_name("TELEPATHY"), skill_name("Gunnery")
    ('Shoot', 'Telepathy', None)
    """
    key = "".join(name.split()).casefold()
    return next((s for s in (*SKILLS, *PSYCHIC_SKILLS) if s.casefold() == key), None)


def assume_skill(
    skill: int | None, untrained: bool, penalty: str = ""
) -> tuple[int | None, str | None]:
    """The skill level of ``--skill``/``--untrained`` (None for untrained), and when
    neither was given, level 0 with the assumption that says so: ``skill 0 (not
    given)``, then ``penalty`` (what ``--untrained`` would count instead).

    Source: ``003``, "Skill Checks" (−1 without even level 0); rules README
    (an untrained combat skill counts as −2).

    >>> assume_skill(None, False), assume_skill(2, False), assume_skill(None, True)
    ((0, 'skill 0 (not given)'), (2, None), (None, None))

    Raises:
        RuleError: both a skill level and untrained.
    """
    if untrained:
        if skill is not None:
            raise RuleError(f"give --skill {skill} or --untrained, not both")
        return None, None
    if skill is None:
        return 0, f"skill 0 (not given{penalty})"
    return skill, None


def read_helpers(
    each: Sequence[str], count: int = 0, skill: int | None = None, mod: int | None = None
) -> tuple[list[Helper], str | None]:
    """The people aiding a check: one ``SKILL[/MOD]`` each (:meth:`Helper.read`), or
    ``count`` alike with ``skill`` and ``mod`` (the ``--helpers N`` shorthand, where
    whichever is not given is 0 and named in the assumption returned).

    Source: ``003``, "Aiding a Skill Check" (each helper rolls their own check).

    >>> read_helpers(["1/+1", "untrained"])
    ([Helper(skill=1, attribute=1), Helper(skill=None, attribute=0)], None)
    >>> read_helpers([], 2, skill=1)
    ([Helper(skill=1, attribute=0), Helper(skill=1, attribute=0)], \
'each helper attribute +0 (not given)')

    Raises:
        RuleError: both forms, a skill or mod with no count, too many helpers, or an
            unreadable helper.
    """
    if each:
        if count or skill is not None or mod is not None:
            raise RuleError(
                "give each helper as --helper SKILL[/MOD] (repeat it), or --helpers N with "
                "--helper-skill and --helper-mod for N alike, not both"
            )
        if len(each) > MAX_HELPERS:
            raise RuleError(f"{len(each)} helpers: at most {MAX_HELPERS} may aid one check")
        return [Helper.read(h) for h in each], None
    if not count:
        if skill is not None or mod is not None:
            raise RuleError("--helper-skill and --helper-mod describe --helpers N: give N too")
        return [], None
    missing = [what for what, v in (("skill 0", skill), ("attribute +0", mod)) if v is None]
    assumed = f"each helper {', '.join(missing)} (not given)" if missing else None
    return [Helper(skill or 0, mod or 0)] * count, assumed
