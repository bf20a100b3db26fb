"""GURPS Quick and Regular Contests, with exact odds.

Sources (docs/reference/sources.md): *GURPS Basic Set*, B348–B349, "Contests", "Quick
Contest", "Margin of Victory", "Regular Contest" (the 4th edition shortening rule,
B349); a player's notes on it, "Contests" (a contestant at effective skill 3 or less
fails automatically); *GURPS Lite*, 3rd edition, "Contests of Skill" (the 3rd edition
shortening rule).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from ...errors import RuleError
from ...fmt import percent, rolled
from ...results import Contest, Versus
from ...rng import RandomSource
from .success import LIMIT, SuccessRoll, check, margin, outcome, skill_odds, three_d6

__all__ = [
    "ContestResult",
    "Edition",
    "Floor",
    "quick_contest",
    "quick_contest_odds",
    "regular_contest",
    "regular_contest_odds",
    "shorten",
]


class Edition(StrEnum):
    """Which shortening rule a Regular Contest uses."""

    FOURTH = "4e"
    THIRD = "3e"
    NONE = "none"


class Floor(StrEnum):
    """What a contestant at a very low effective skill does (the texts disagree).

    Only the 3rd edition shortening (or a low skill typed in) can reach it: the
    4th edition rule never shortens a skill below 10.
    """

    CLAMP = "clamp"
    """The default, ``000`` ("You may not attempt a success roll if your effective
    skill is less than 3"): a skill typed in below 3 is refused, and a skill
    that shortening pushes below 3 is rolled at 3 (the contest's rolled skill
    says so)."""
    AUTO_FAIL = "auto-fail"
    """``001``, "Contests" ("or auto-fail if they have 3 or less E.S."): a
    contestant at effective skill 3 or less fails automatically, without a roll."""


def shorten(a: int, b: int, edition: Edition = Edition.FOURTH) -> tuple[int, int]:
    """Shorten a Regular Contest between effective skills ``a`` and ``b``.

    * 4th edition (rules README, Basic Set p. B349, the default): if both are
      over 14, reduce the lower to 10 and subtract the same from the higher; if
      both are 6 or less, raise the lower to 10 and add the same to the higher.
    * 3rd edition (``004``, "Contests of Skill"): if both are over 14, reduce the
      higher to 14 and subtract the same from the lower (which may fall below 3:
      see :class:`Floor`).
    * none: unchanged.

    >>> shorten(18, 16), shorten(18, 16, Edition.THIRD), shorten(5, 4), shorten(30, 15, "3e")
    ((12, 10), (14, 12), (11, 10), (14, -1))
    """
    edition = Edition(edition)
    if edition is Edition.FOURTH:
        if a > 14 and b > 14:
            cut = min(a, b) - 10
            return a - cut, b - cut
        if a <= 6 and b <= 6:
            lift = 10 - min(a, b)
            return a + lift, b + lift
    elif edition is Edition.THIRD and a > 14 and b > 14:
        cut = max(a, b) - 14
        return a - cut, b - cut
    return a, b


def rolled_skill(effective: int, floor: Floor = Floor.CLAMP) -> int | None:
    """The skill a contestant really rolls against, or None if they fail without a roll.

    >>> rolled_skill(-1), rolled_skill(3), rolled_skill(3, Floor.AUTO_FAIL), rolled_skill(4)
    (3, 3, None, 4)
    """
    if floor is Floor.AUTO_FAIL:
        return effective if effective > 3 else None
    return max(effective, 3)


Side = tuple[bool, int] | None
"""One contestant's result: (success, margin as shown), or None for no roll."""


def _side(skill: int | None, roll_total: int) -> Side:
    if skill is None:
        return None
    return outcome(roll_total, skill).success, margin(roll_total, skill)


def _winner(a: Side, b: Side, resistance: bool) -> int | None:
    """1, 2 or None for one pair of results (``000``, "Quick Contest").

    Success beats failure; between two successes or two failures the larger
    margin as shown wins (automatic results use their clamped margins, see
    :func:`.success.margin`); equal margins tie. A contestant who could not
    roll loses to one who rolled, success or failure.
    """
    if resistance:
        first_wins = a is not None and a[0] and (b is None or not b[0] or a[1] > b[1])
        return 1 if first_wins else 2
    if a is None or b is None:
        return None if a is b else (2 if a is None else 1)
    if a[0] != b[0]:
        return 1 if a[0] else 2
    if a[1] == b[1]:
        return None
    return 1 if a[1] > b[1] else 2


def _victory(winner: int | None, a: Side, b: Side) -> int | None:
    """The margin of victory (``000``, "Margin of Victory"): the winner's margin minus
    the loser's, which covers the text's three cases; None if the loser did not roll."""
    if winner is None or a is None or b is None:
        return None
    return a[1] - b[1] if winner == 1 else b[1] - a[1]


@functools.cache
def _sides(skill: int | None) -> tuple[tuple[Fraction, Side], ...]:
    if skill is None:
        return ((Fraction(1), None),)
    return tuple((p, _side(skill, t)) for t, p in three_d6().items())


@functools.lru_cache(maxsize=4096)
def quick_contest_odds(
    a: int, b: int, resistance: bool = False, floor: Floor = Floor.CLAMP
) -> Versus:
    """Exact odds of a Quick Contest, over every pair of 3d6 totals (the same rule as the roll).

    With ``resistance``, the first side must succeed to win, and ties go to the second.
    """
    sa, sb = _contestant(a, floor), _contestant(b, floor)
    tally = {1: Fraction(0), 2: Fraction(0), None: Fraction(0)}
    for pa, ra in _sides(sa):
        for pb, rb in _sides(sb):
            tally[_winner(ra, rb, resistance)] += pa * pb
    return Versus(tally[1], tally[2], tally[None])


@dataclass(frozen=True, slots=True)
class ContestResult(Contest):
    """A resolved contest, every round recorded."""

    kind: str
    """``quick_contest`` or ``regular_contest``."""
    skills: tuple[int, int]
    """The two effective skills as given."""
    effective_skills: tuple[int, int]
    """The effective skills after shortening (the same as ``skills`` in a Quick Contest)."""
    rolled_skills: tuple[int | None, int | None]
    """The skills really rolled against (:class:`Floor`); None for a side that fails unrolled."""
    rounds: tuple[tuple[SuccessRoll | None, SuccessRoll | None], ...]
    """Each round's two success rolls (None for a side that fails without a roll)."""
    winner: int | None
    """1, 2, or None for a tie (or a Regular Contest stopped at the round cap)."""
    margin_of_victory: int | None
    """The winner's margin of victory (``000``, "Margin of Victory"), or None."""
    odds: Versus
    """Exact odds of each result, before rolling (a Regular Contest has no tie)."""
    expected_rounds: Fraction | None = None
    """For a Regular Contest, the expected number of rounds."""
    capped: bool = False
    """True if a Regular Contest reached the round cap without a winner."""
    edition: Edition = Edition.FOURTH
    """The shortening rule (Regular Contest)."""
    floor: Floor = Floor.CLAMP
    """How a very low skill was treated."""
    names: tuple[str, str] = ("side 1", "side 2")
    """What the text calls the two sides."""
    resistance: bool = False
    """A Quick Contest as a resistance roll: the first side must succeed and win; a tie
    goes to the second, the resisting side (``000``, "Quick Contest")."""

    system = "gurps"

    @property
    def outcome(self) -> str:
        """``side 1 wins``, ``side 2 wins``, ``tie`` or ``no winner`` (stopped at the cap)."""
        return "no winner" if self.capped else Contest.outcome.fget(self)  # type: ignore[attr-defined]

    @property
    def text(self) -> str:
        """The skills (and any shortening), each side's roll and margin, the rounds of a
        Regular Contest, the winner and each side's odds, by name:
        ``Quick Contest 14 vs 12: side 1 rolled 6 (2, 2, 2), success by 8; side 2 rolled
        8 (2, 3, 3), success by 4: side 1 wins by 4 — odds: side 1 63.7%, side 2 27.9%,
        tie 8.4%``."""
        o = self.odds
        first, second = self.names
        if self.capped:
            who = f"nobody wins: stopped at the cap of {len(self.rounds)} rounds"
        elif self.winner is None:
            who = "a tie: nobody wins"
        elif self.resistance and self.winner == 2:
            who = f"{second} resists ({self._why_resisted()})"
        else:
            who = f"{self.names[self.winner - 1]} wins"
        if self.margin_of_victory is not None and not (self.resistance and self.winner == 2):
            who += f" by {self.margin_of_victory}"
        last = self.rounds[-1]
        sides = "; ".join(
            f"{name} {_side_text(x, s)}"
            for name, x, s in zip(self.names, last, self.effective_skills, strict=True)
        )
        rounds = ""
        if self.kind == "regular_contest":
            n = len(self.rounds)
            marks = ", ".join(f"{_mark(a)}/{_mark(b)}" for a, b in self.rounds)
            rounds = f" ({n} rounds: {marks})" if n > 1 else " (1 round)"
        odds = f"{first} {percent(o.first)}, {second} {percent(o.second)}"
        if self.kind == "quick_contest" and not self.resistance:
            odds += f", tie {percent(o.tie)}"
        return (
            f"{self.kind.replace('_', ' ').title()} {self._skills_text()}: {sides}{rounds}: "
            f"{who} — odds: {odds}"
        )

    def _why_resisted(self) -> str:
        """Why the resisting side won: the first failed, the second did better, or a tie."""
        first, second = self.names
        a, b = (_result(r) for r in self.rounds[-1])
        if a is None or not a[0]:
            return f"{first} failed"
        if b is not None and b[0] and b[1] == a[1]:
            return "a tie goes to the resisting side"
        return f"by {self.margin_of_victory}" if self.margin_of_victory else "it did better"

    def _skills_text(self) -> str:
        a, b = self.skills
        out = f"{a} vs {b}"
        if self.effective_skills != self.skills:
            ea, eb = self.effective_skills
            out += f" (shortened, {self.edition.value}: {ea} vs {eb})"
        triples = zip(self.names, self.effective_skills, self.rolled_skills, strict=True)
        for name, eff, at in triples:
            if at is not None and at != eff:
                out += f"; {name} rolls at {at}"
        return out


def _mark(r: SuccessRoll | None) -> str:
    """S for a success, F for a failure, – for a side that could not roll."""
    return "–" if r is None else ("S" if r.success else "F")


def _side_text(r: SuccessRoll | None, skill: int) -> str:
    if r is None:
        return f"at {skill} fails without a roll"
    why = f" ({r.roll} always {'succeeds' if r.success else 'fails'})" if r.automatic else ""
    return f"{rolled(r.roll, r.dice)}, {r.outcome.value} by {abs(r.margin)}{why}"


def _contestant(skill: int, floor: Floor) -> int | None:
    if abs(skill) > LIMIT:
        raise RuleError(f"skill {skill} is out of range (-{LIMIT} to {LIMIT})")
    if floor is Floor.CLAMP and skill < 3:
        raise RuleError(
            f"effective skill {skill} is below 3: no contest roll is allowed "
            "(000, 'Base Skill vs Effective Skill'; --floor auto-fail lets it fail instead)"
        )
    return rolled_skill(skill, floor)


def _roll(skill: int | None, rng: RandomSource | None) -> SuccessRoll | None:
    return None if skill is None else check(skill, rng=rng)


def _result(r: SuccessRoll | None) -> Side:
    return None if r is None else (r.success, r.margin)


def quick_contest(
    a: int,
    b: int,
    *,
    resistance: bool = False,
    floor: Floor = Floor.CLAMP,
    names: tuple[str, str] = ("side 1", "side 2"),
    rng: RandomSource | None = None,
) -> ContestResult:
    """A Quick Contest: one roll each; success beats failure, then the better margin wins.

    Source: ``000``, "Quick Contest" and "Margin of Victory"; ``001``,
    "Contests" for :attr:`Floor.AUTO_FAIL`. The winner and the margin of victory
    come from the margins the rolls show (see :func:`_winner`); a tie means
    nobody wins. With ``resistance`` (a resistance roll, ``000``, "Quick Contest":
    the subject resists), the first side must succeed and do better than the
    second; otherwise the second resists, with no margin of victory unless it did
    better.
    """
    floor = Floor(floor)
    sa, sb = _contestant(a, floor), _contestant(b, floor)
    ra, rb = _roll(sa, rng), _roll(sb, rng)
    winner = _winner(_result(ra), _result(rb), resistance)
    victory = _victory(winner, _result(ra), _result(rb))
    if resistance and winner == 2 and (victory is None or victory <= 0):
        victory = None  # the first side failed, or tied: no margin to speak of
    return ContestResult(
        "quick_contest",
        (a, b),
        (a, b),
        (sa, sb),
        ((ra, rb),),
        winner,
        victory,
        quick_contest_odds(a, b, resistance, floor),
        floor=floor,
        names=names,
        resistance=resistance,
    )


@functools.lru_cache(maxsize=4096)
def regular_contest_odds(
    a: int, b: int, *, edition: Edition = Edition.FOURTH, floor: Floor = Floor.CLAMP
) -> tuple[Versus, Fraction]:
    """The exact odds of a Regular Contest and its expected number of rounds.

    Source: as :func:`regular_contest`.

    Raises:
        RuleError: as :func:`regular_contest`.
    """
    edition, floor = Edition(edition), Floor(floor)
    for skill in (a, b):
        _contestant(skill, floor)  # refuses a typed skill below 3 under CLAMP
    ea, eb = shorten(a, b, edition)
    sa, sb = rolled_skill(ea, floor), rolled_skill(eb, floor)
    pa, pb = (Fraction(0) if s is None else skill_odds(s).success for s in (sa, sb))
    w1, w2 = pa * (1 - pb), pb * (1 - pa)
    ends = w1 + w2
    if ends == 0:
        raise RuleError(f"neither side can succeed at skills {ea} and {eb}: the contest never ends")
    return Versus(w1 / ends, w2 / ends, Fraction(0)), 1 / ends


def regular_contest(
    a: int,
    b: int,
    *,
    edition: Edition = Edition.FOURTH,
    floor: Floor = Floor.CLAMP,
    max_rounds: int = 1000,
    names: tuple[str, str] = ("side 1", "side 2"),
    rng: RandomSource | None = None,
) -> ContestResult:
    """A Regular Contest: roll until one side succeeds and the other fails.

    Source: ``000``, "Regular Contest"; shortening per :func:`shorten`; a
    shortened skill below the floor per :class:`Floor`. Odds in closed form:
    with per-round win chances ``w1 = p1 (1 - p2)`` and ``w2 = p2 (1 - p1)``,
    side 1 wins with ``w1 / (w1 + w2)`` and the expected number of rounds is
    ``1 / (w1 + w2)``.

    Raises:
        RuleError: a skill below 3 under :attr:`Floor.CLAMP`, or neither side can
            ever succeed.
    """
    edition, floor = Edition(edition), Floor(floor)
    versus, expected = regular_contest_odds(a, b, edition=edition, floor=floor)
    ea, eb = shorten(a, b, edition)
    sa, sb = rolled_skill(ea, floor), rolled_skill(eb, floor)
    rounds: list[tuple[SuccessRoll | None, SuccessRoll | None]] = []
    winner: int | None = None
    for _ in range(max_rounds):
        ra, rb = _roll(sa, rng), _roll(sb, rng)
        rounds.append((ra, rb))
        oka, okb = ra is not None and ra.success, rb is not None and rb.success
        if oka != okb:
            winner = 1 if oka else 2
            break
    return ContestResult(
        "regular_contest",
        (a, b),
        (ea, eb),
        (sa, sb),
        tuple(rounds),
        winner,
        None,
        versus,
        expected,
        winner is None,
        edition,
        floor,
        names,
    )
