"""Stars Without Number (revised): the one result every roll gives, a :class:`Check`
(dice, named modifiers, target, outcome, exact odds), and the helpers the rule
modules share. Skill checks and aid are in :mod:`.skills`, saves in :mod:`.saves`,
opposed checks and morale in :mod:`.opposed`.

Source: *Stars Without Number Revised* and the rules notes on Stars Without Number
(docs/reference/sources.md). Results are frozen.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

from ...errors import RuleError
from ...faces import draw_faces
from ...fmt import percent, rolled
from ...odds import odds as dice_odds
from ...results import Chances
from ...rng import RandomSource

__all__ = ["LIMIT", "ByCheck", "Check", "Kind"]

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
    rolled: bool = True
    """False when no roll was made because the outcome was certain (``dice`` is empty
    and ``note`` says why: see :func:`.opposed.morale`)."""

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
        to succeed``; an aided check shows each helper's roll, and a check that needed no
        roll says why (``Morale 13: certain to hold, no roll needed (2d6 + 0 is at most
        12) — 100.0% to hold``)."""
        names = {Kind.SAVE: "Save", Kind.SKILL: "Skill check", Kind.MORALE: "Morale"}
        goal = {Kind.MORALE: "to hold", Kind.ATTACK: "to hit"}.get(self.kind, "to succeed")
        if not self.rolled:
            return self._unrolled_text(names.get(self.kind, self.kind.value.title()), goal)
        head = self.label or names.get(self.kind, self.kind.value.title())
        mods = "".join(f" {v:+d} {k}" for k, v in self.modifiers if v)
        yes, no = _WORDS.get(self.kind, ("success", "failure"))
        word = yes if self.success else no
        note = f" ({self.note})" if self.note else ""
        shown = rolled(self.natural, self.dice)
        total = f"{mods} = {self.total}" if mods else ""
        out = f"{head}: {shown}{total} {self._compared()} {self.target}: {word}{note}"
        if self.aid:
            out += f"; aid: {_aid_text(self.aid)}"
        if self.assumed:
            out += f"; assumed {', '.join(self.assumed)}"
        return out + f" — {percent(self.odds)} {goal}"

    def _compared(self) -> str:
        if self.roll_under:
            return "≤" if self.total <= self.target else ">"
        return "≥" if self.total >= self.target else "<"

    def _unrolled_text(self, name: str, goal: str) -> str:
        head = f"{name} {self.target}"
        if self.label:
            head = f"{self.label} ({name.lower()} {self.target})"
        if self.kind is Kind.MORALE:
            sure = "certain to hold" if self.success else "certain to break"
            sure += "" if self.success else _WORDS[Kind.MORALE][1].removeprefix("breaks")
        else:
            sure = "certain success" if self.success else "impossible"
        note = f" ({self.note})" if self.note else ""
        assumed = f"; assumed {', '.join(self.assumed)}" if self.assumed else ""
        return f"{head}: {sure}, no roll needed{note}{assumed} — {percent(self.odds)} {goal}"


def _aid_text(aid: Sequence[Check]) -> str:
    """``helper 1 rolled 9 (4, 5) +1 = 10 ≥ 8 success, helper 2 rolled 5 (2, 3) = 5 < 8
    failure: +1``: each helper's roll, then the bonus it gave (+1 at most)."""
    rows = []
    for i, a in enumerate(aid, 1):
        bonus = sum(v for _, v in a.modifiers)
        mods = f" {bonus:+d}" if bonus else ""
        rows.append(
            f"helper {i} {rolled(a.natural, a.dice)}{mods} = {a.total} {a._compared()} "
            f"{a.target} {a.outcome}"
        )
    gave = "+1" if any(a.success for a in aid) else "no bonus"
    return f"{', '.join(rows)}: {gave}"


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
