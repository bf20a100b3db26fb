"""GURPS success rolls, criticals, repeated attempts, contests, reactions and damage.

Sources (docs/reference/sources.md, which gives each one's key): *GURPS Basic Set*, 4th
edition (``000``, in the wording of *GURPS: Stellar Winds*), a player's notes on it
(``001``, the critical tables), *GURPS Lite*, 3rd edition (``004``), and the rules
notes on GURPS (the "rules README"). Every function is pure apart
from the injected random source, and returns a frozen dataclass that carries
its dice, target, margin, outcome and exact odds.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from itertools import product

from ...errors import RuleError
from ...faces import draw_faces
from ...fmt import percent, rolled
from ...results import Chances
from ...rng import RandomSource

__all__ = [
    "Outcome",
    "SkillOdds",
    "SuccessRoll",
    "check",
    "margin",
    "outcome",
    "parse_skill",
    "read_skill",
    "require_rollable",
    "skill_odds",
]

LIMIT = 1000
"""Skills and modifiers must lie in ``[-LIMIT, LIMIT]``."""

_SKILL = re.compile(r"^\s*([+-]?\s*\d+)((?:\s*[+-]\s*\d+)*)\s*$")
_NAMED = re.compile(r"^\s*(.*?[A-Za-z)\]])\s*-\s*(\d.*)$")
_TERM = re.compile(r"([+-])\s*(\d+)")


class Outcome(StrEnum):
    """How a success roll came out."""

    CRITICAL_SUCCESS = "critical success"
    SUCCESS = "success"
    FAILURE = "failure"
    CRITICAL_FAILURE = "critical failure"

    @property
    def success(self) -> bool:
        """Whether this outcome is a success of either kind."""
        return self in (Outcome.CRITICAL_SUCCESS, Outcome.SUCCESS)


@functools.lru_cache(maxsize=4096)
def parse_skill(text: str) -> tuple[int, tuple[int, ...]]:
    """``"9-5+10"`` -> ``(9, (-5, 10))``: a base skill and its modifiers, as players write them.

    Source: ``000``, "Modifiers" and "Base Skill vs Effective Skill" (modifiers
    are cumulative and apply to the target number).

    >>> parse_skill("9-5+10")
    (9, (-5, 10))

    Raises:
        RuleError: the text is not a skill expression, or a number is beyond ±1000.
    """
    match = _SKILL.match(text)
    if match is None:
        raise RuleError(
            f"cannot read skill {text!r}: write a number with modifiers, like 12, 12-5 or "
            "9-5+10, or a named skill like Broadsword-14"
        )
    base = int(match.group(1).replace(" ", ""))
    mods = tuple(int(sign + digits) for sign, digits in _TERM.findall(match.group(2)))
    for value in (base, *mods):
        if abs(value) > LIMIT:
            raise RuleError(f"{value} in skill {text!r} is out of range (-{LIMIT} to {LIMIT})")
    return base, mods


@functools.lru_cache(maxsize=4096)
def read_skill(text: str) -> tuple[str | None, int, tuple[int, ...]]:
    """A skill as GURPS players write it: ``Broadsword-14`` is Broadsword at 14, and
    ``Broadsword-14-2`` the same with a −2 modifier; ``12-5`` has no name.

    Source: the GURPS habit of writing a skill as Name-level (Basic Set; the
    texts write "Animal Handling+4" and "ST-2" for modifiers, ``004``).

    >>> read_skill("Broadsword-14-2"), read_skill("Fast-Draw (Pistol)-12"), read_skill("9-5")
    (('Broadsword', 14, (-2,)), ('Fast-Draw (Pistol)', 12, ()), (None, 9, (-5,)))

    Raises:
        RuleError: as :func:`parse_skill`.
    """
    named = _NAMED.match(text)
    if named is not None and _SKILL.match(named.group(2)):
        return (named.group(1).strip(), *parse_skill(named.group(2)))
    return (None, *parse_skill(text))


def outcome(roll_total: int, effective: int) -> Outcome:
    """The outcome of a 3d6 success roll against an effective skill.

    Source: ``000``, "Success Rolls" and "Critical Success and Failure";
    ``001`` critical tables; rules README (GURPS 4th edition):

    * critical success on 3 or 4 always, 5 at effective skill 15+, 6 at 16+;
    * critical failure on 18 always, 17 at effective skill 15 or less, and any
      roll 10 or more above the effective skill;
    * 3 and 4 always succeed, 17 and 18 always fail; otherwise success is a roll
      at or below the effective skill.

    Where both critical rules could apply (a 3 or 4 against an effective skill
    of -6 or less, possible only on a defense roll), the "always a critical
    success" clause wins.

    >>> outcome(5, 15), outcome(17, 16), outcome(16, 6)
    (<Outcome.CRITICAL_SUCCESS: 'critical success'>, <Outcome.FAILURE: 'failure'>, \
<Outcome.CRITICAL_FAILURE: 'critical failure'>)
    """
    if (
        roll_total <= 4
        or (roll_total == 5 and effective >= 15)
        or (roll_total == 6 and effective >= 16)
    ):
        return Outcome.CRITICAL_SUCCESS
    if roll_total == 18 or (roll_total == 17 and effective <= 15) or roll_total - effective >= 10:
        return Outcome.CRITICAL_FAILURE
    if roll_total <= 16 and roll_total <= effective:
        return Outcome.SUCCESS
    return Outcome.FAILURE


def margin(roll_total: int, effective: int) -> int:
    """The margin of a success roll: positive or 0 on a success, negative on a failure.

    Source: ``000``, "Degree of Success or Failure" (margin = effective skill −
    roll) and "Success Rolls" (3-4 always succeed, 17-18 always fail). Where
    the automatic result contradicts the skill, the margin is clamped: an
    automatic success counts as success by 0, an automatic failure as failure
    by 1. Contests compare these clamped margins, so an automatic failure never
    beats a success.

    >>> margin(12, 14), margin(4, 3), margin(17, 20), margin(11, 10)
    (2, 0, -1, -1)
    """
    raw = effective - roll_total
    if outcome(roll_total, effective).success:
        return max(raw, 0)
    return min(raw, -1)


@dataclass(frozen=True, slots=True)
class SkillOdds:
    """Exact odds of a success roll at one effective skill."""

    success: Fraction
    """P(success), criticals included."""
    critical_success: Fraction
    """P(critical success)."""
    critical_failure: Fraction
    """P(critical failure)."""


@functools.cache
def three_d6() -> dict[int, Fraction]:
    """The distribution of 3d6's total, from its 216 rolls: ``odds("3d6").distribution``
    (a test compares them) without the dice grammar, whose parser (lark, about 40 ms)
    ``referee gurps check 12`` would load for it alone (issue 74).

    >>> three_d6()[10], three_d6()[3]
    (Fraction(1, 8), Fraction(1, 216))
    """
    counts = Counter(a + b + c for a, b, c in product(range(1, 7), repeat=3))
    return {total: Fraction(counts[total], 216) for total in sorted(counts)}


@functools.lru_cache(maxsize=128)
def sum_d6(count: int) -> dict[int, Fraction]:
    """The distribution of the total of ``count`` d6 (``odds(f"{count}d6").distribution``,
    as a test compares them), counted in integers without the dice grammar: a damage
    roll's dice for ``gurps attack``'s odds (issue 74).

    >>> sum_d6(2)[7], sum_d6(1)[1]
    (Fraction(1, 6), Fraction(1, 6))
    """
    if not 1 <= count <= 100:
        raise RuleError(f"{count}d6: from 1 to 100 dice")
    counted, whole = ways(count), 6**count
    return {total: Fraction(counted[total], whole) for total in sorted(counted)}


@functools.cache
def ways(count: int) -> dict[int, int]:
    """Each total of ``count`` d6 and its number of ways (of 6**count)."""
    found = {0: 1}
    for _ in range(count):
        nxt: dict[int, int] = {}
        for total, w in found.items():
            for face in range(1, 7):
                nxt[total + face] = nxt.get(total + face, 0) + w
        found = nxt
    return found


@functools.lru_cache(maxsize=4096)
def skill_odds(effective: int) -> SkillOdds:
    """Exact odds of success and of each critical at ``effective`` skill, from the 3d6 distribution.

    Source: as :func:`outcome`. Cached per effective skill.

    >>> skill_odds(10).success
    Fraction(1, 2)
    """
    dist = three_d6()
    tally = dict.fromkeys(Outcome, Fraction(0))
    for total, p in dist.items():
        tally[outcome(total, effective)] += p
    return SkillOdds(
        tally[Outcome.SUCCESS] + tally[Outcome.CRITICAL_SUCCESS],
        tally[Outcome.CRITICAL_SUCCESS],
        tally[Outcome.CRITICAL_FAILURE],
    )


@dataclass(frozen=True, slots=True)
class SuccessRoll:
    """A resolved success roll with its own explanation."""

    label: str | None
    """What was rolled, e.g. ``Lockpicking``."""
    base_skill: int
    """The skill as on the character sheet."""
    modifiers: tuple[int, ...]
    """Modifiers to the target number, in the order given."""
    effective_skill: int
    """Base skill plus modifiers."""
    dice: tuple[int, int, int]
    """The three dice."""
    roll: int
    """Their sum."""
    outcome: Outcome
    """Critical success, success, failure or critical failure."""
    odds: SkillOdds
    """The exact odds of this roll, before it was made."""
    defense: bool = False
    """True for a defense roll, which may be made at effective skill below 3."""

    system = "gurps"
    kind = "success"

    @property
    def success(self) -> bool:
        """Whether the roll succeeded."""
        return self.outcome.success

    @property
    def chances(self) -> Chances:
        """The odds in the shape every result shares."""
        o = self.odds
        return Chances.of(
            success=o.success,
            critical_success=o.critical_success,
            critical_failure=o.critical_failure,
        )

    @property
    def critical(self) -> bool:
        """Whether the roll was a critical success or failure."""
        return self.outcome in (Outcome.CRITICAL_SUCCESS, Outcome.CRITICAL_FAILURE)

    @property
    def margin(self) -> int:
        """Effective skill minus the roll, clamped so its sign follows the outcome.

        Source: ``000``, "Degree of Success or Failure". See :func:`margin`.
        """
        return margin(self.roll, self.effective_skill)

    @property
    def automatic(self) -> bool:
        """True when "always succeeds" (3-4) or "always fails" (17-18) overruled the skill.

        Then :attr:`margin` is clamped (a 4 against skill 3 succeeds by 0, a 17
        against skill 20 fails by 1), and the text says why.
        """
        return self.success != (self.roll <= self.effective_skill)

    @property
    def skill_text(self) -> str:
        """The skill as written: ``9-5+10``."""
        return str(self.base_skill) + "".join(f"{m:+d}" for m in self.modifiers)

    @property
    def text(self) -> str:
        """``Lockpicking 9-5+10 = 14: rolled 11 (3, 5, 3), success by 3 — 83.8% to succeed``."""
        head = f"{self.label} " if self.label else ""
        skill = self.skill_text
        if self.modifiers:
            skill += f" = {self.effective_skill}"
        word = self.outcome.value
        by = abs(self.margin)
        why = ""
        if self.automatic:
            why = f" ({self.roll} always {'succeeds' if self.success else 'fails'})"
        return (
            f"{head}{skill}: {rolled(self.roll, self.dice)}, {word} by {by}{why}"
            f" — {percent(self.odds.success)} to succeed"
        )


def _bounded_mod(value: int) -> int:
    if abs(value) > LIMIT:
        raise RuleError(f"modifier {value:+d} is out of range (-{LIMIT} to {LIMIT})")
    return value


def require_rollable(effective: int) -> None:
    """Refuse a success roll, and so its odds, at effective skill below 3: "you may not
    attempt a success roll if your effective skill is less than 3, unless you are
    attempting a defense roll" (``000``, "Base Skill vs Effective Skill"; B344, 4th
    edition). The roll (:func:`check`) and every odds that stand for it ask this, so
    the two refuse alike.

    Raises:
        RuleError: ``effective`` below 3.
    """
    if effective < 3:
        raise RuleError(
            f"effective skill {effective} is below 3: no roll is allowed "
            "except a defense roll (000, 'Base Skill vs Effective Skill')"
        )


def check(
    skill: str | int,
    *,
    modifiers: Sequence[int] = (),
    label: str | None = None,
    defense: bool = False,
    rng: RandomSource | None = None,
) -> SuccessRoll:
    """Make a success roll: 3d6 at or under the effective skill.

    Source: ``000``, "Success Rolls", "Modifiers", "Base Skill vs Effective
    Skill", "Degree of Success or Failure", "Critical Success and Failure"
    (GURPS 4th edition, criticals per the rules README).

    ``skill`` is read by :func:`read_skill` (``Broadsword-14-2``: its name is the
    label when no label is given); ``modifiers`` are added after its own.

    Raises:
        RuleError: unreadable skill, or effective skill below 3 without ``defense``.
    """
    name, base, own = read_skill(str(skill))
    mods = own + tuple(_bounded_mod(m) for m in modifiers)
    label = label or name
    effective = base + sum(mods)
    if not defense:
        require_rollable(effective)
    a, b, c = draw_faces(rng, 3, 6)  # the same dice as roll("3d6"), without a RollResult
    total = a + b + c
    return SuccessRoll(
        label,
        base,
        mods,
        effective,
        (a, b, c),
        total,
        outcome(total, effective),
        skill_odds(effective),
        defense,
    )
