"""Stars Without Number (revised): opposed checks and morale, with exact odds.

Source: *Stars Without Number Revised*, "Opposed Skill Checks" and "Morale", and
the rules notes on Stars Without Number (docs/reference/sources.md).
Pure functions apart from the injected random source; results are frozen.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from ...fmt import percent, rolled
from ...results import Chances, Versus
from ...rng import RandomSource, resolve
from .checks import LIMIT, Check, Kind, _bounded, _dist, _roll

__all__ = [
    "Opposed",
    "TieRule",
    "morale",
    "morale_certainty",
    "morale_odds",
    "morale_triggers",
    "oppose",
    "oppose_odds",
]


class TieRule(StrEnum):
    """Who wins a tied opposed check (``003``, "Opposed Skill Checks")."""

    PC = "pc"
    """The default: ties go to the PC; with no PC or two, to the defender."""
    DEFENDER = "defender"
    """In an ambush: ties go to the defender (the second side)."""


@dataclass(frozen=True, slots=True)
class Opposed:
    """Both sides of an opposed check; the higher total wins."""

    first: Check
    """The first side's roll; its target is the second side's total."""
    second: Check
    """The second (defending) side's roll."""
    winner: int
    """1 or 2."""
    odds: Fraction
    """The exact probability that the first side wins."""
    ties: TieRule
    """How a tie was (or would be) settled."""
    names: tuple[str, str] = ("side 1", "side 2")
    """What the text calls the two sides."""

    system = "swn"
    kind = "oppose"

    @property
    def outcome(self) -> str:
        """``side 1 wins`` or ``side 2 wins`` (a tie is settled by the tie rule)."""
        return f"side {self.winner} wins"

    @property
    def success(self) -> None:
        """An opposed check has a winner, not a success."""
        return None

    @property
    def chances(self) -> Chances:
        """The odds in the shape every result shares (no tie: the rule settles it)."""
        return Versus(self.odds, 1 - self.odds, Fraction(0)).chances

    @property
    def text(self) -> str:
        """Both rolls, the winner (a tie says which rule settled it) and each side's odds:
        ``Opposed: side 1 rolled 6 (2, 4) +2 = 8 vs side 2 rolled 8 (4, 4) +1 = 9: side 2
        wins — odds: side 1 66.4%, side 2 33.6%``."""
        a, b = self.first, self.second
        first, second = self.names
        rolls = " vs ".join(
            f"{name} {rolled(c.natural, c.dice)} {c.modifiers[0][1]:+d} = {c.total}"
            for name, c in ((first, a), (second, b))
        )
        winner = self.names[self.winner - 1]
        if a.total == b.total:
            rule = "ties go to the PC" if self.ties is TieRule.PC else "ties go to the defender"
            if self.ties is TieRule.PC and self.winner == 2:
                rule = "a tie with no single PC goes to the defender"
            verdict = f"a tie, {winner} wins ({rule})"
        else:
            verdict = f"{winner} wins"
        return (
            f"Opposed: {rolls}: {verdict} — odds: {first} {percent(self.odds)}, "
            f"{second} {percent(1 - self.odds)}"
        )


def oppose_odds(
    first: tuple[int, bool], second: tuple[int, bool], *, ties: TieRule | str = TieRule.PC
) -> Fraction:
    """P(the first side wins) an opposed check, without rolling (as :func:`oppose`)."""
    (b1, pc1), (b2, pc2) = first, second
    _bounded("bonus", b1), _bounded("bonus", b2)
    return _oppose_odds(b1 - b2, _tie_to_first(TieRule(ties), pc1, pc2))


def _tie_to_first(ties: TieRule, first_pc: bool, second_pc: bool) -> bool:
    return ties is TieRule.PC and first_pc and not second_pc


def oppose(
    first: tuple[int, bool],
    second: tuple[int, bool],
    *,
    ties: TieRule | str = TieRule.PC,
    names: tuple[str, str] = ("side 1", "side 2"),
    rng: RandomSource | None = None,
) -> Opposed:
    """An opposed check: each side rolls 2d6 + its bonus; the higher total wins.

    Source: ``003``, "Opposed Skill Checks" (ties go to the PC; NPCs add their
    skill only if relevant, else roll straight 2d6, so pass a bonus of 0);
    rules README (in an ambush, ties go to the defender). With the ``pc`` rule
    and no PC (or two), a tie goes to the defender, the second side.

    Args:
        first: the first side's total bonus (skill + attribute) and whether it is a PC.
        second: the same for the second side, the defender.
    """
    ties = TieRule(ties)
    src = resolve(rng)
    (b1, pc1), (b2, pc2) = first, second
    d1, d2 = _roll(src, 2, 6), _roll(src, 2, 6)
    t1, t2 = sum(d1) + b1, sum(d2) + b2
    first_wins = t1 > t2 or (t1 == t2 and _tie_to_first(ties, pc1, pc2))
    p = _oppose_odds(b1 - b2, _tie_to_first(ties, pc1, pc2))
    mods1 = (("bonus", _bounded("bonus", b1)),)
    mods2 = (("bonus", _bounded("bonus", b2)),)
    a = Check(Kind.OPPOSE, d1, mods1, t2, first_wins, p)
    b = Check(Kind.OPPOSE, d2, mods2, t1, not first_wins, 1 - p)
    return Opposed(a, b, 1 if first_wins else 2, p, ties, names)


@functools.lru_cache(maxsize=1024)
def _oppose_odds(edge: int, tie_to_first: bool) -> Fraction:
    d = _dist("2d6")
    win = Fraction(0)
    for x, px in d:
        for y, py in d:
            if x + edge > y or (x + edge == y and tie_to_first):
                win += px * py
    return win


@functools.lru_cache(maxsize=256)
def morale_odds(score: int, modifier: int = 0) -> Fraction:
    """P(2d6 + modifier ≤ morale score): the NPC keeps fighting.

    Source: ``003``, "Morale"; rules README.

    >>> morale_odds(8)
    Fraction(13, 18)
    """
    return sum((p for v, p in _dist("2d6") if v + modifier <= score), Fraction(0))


def _certain(score: int, modifier: int) -> tuple[bool, str] | None:
    """(holds, why) when the outcome of a morale check is certain, else None."""
    dice = f"2d6 {'-' if modifier < 0 else '+'} {abs(modifier)}"
    if score >= 12 + modifier:
        return True, f"{dice} is at most {12 + modifier}"
    if score < 2 + modifier:
        return False, f"{dice} is at least {2 + modifier}"
    return None


def morale_certainty(score: int, modifier: int = 0) -> str | None:
    """Why a morale check needs no roll, or None when its outcome is uncertain.

    2d6 runs from 2 to 12, so with ``modifier`` added a score at or above 12 +
    modifier always holds and one below 2 + modifier always breaks (``003``,
    "Morale": "Equal or less = keep fighting"; "Greater = flee/withdraw/surrender").

    >>> morale_certainty(13)
    'certain to hold, no roll needed (2d6 + 0 is at most 12)'
    >>> morale_certainty(0)
    'certain to break, no roll needed (2d6 + 0 is at least 2)'
    >>> morale_certainty(10, -2), morale_certainty(8)
    ('certain to hold, no roll needed (2d6 - 2 is at most 10)', None)
    """
    found = _certain(score, modifier)
    if found is None:
        return None
    holds, why = found
    return f"certain to {'hold' if holds else 'break'}, no roll needed ({why})"


def morale(
    score: int,
    *,
    modifier: int = 0,
    label: str | None = None,
    roll_anyway: bool = False,
    rng: RandomSource | None = None,
) -> Check:
    """A morale check: 2d6 at or below the morale score and the NPC fights on; above, it breaks.

    A broken NPC flees, withdraws or surrenders (``003``, "Morale": "Greater =
    flee/withdraw/surrender"); which one is the GM's call, so the result says all three.

    When the outcome is certain (:func:`morale_certainty`: a score of 12 or
    more with no modifier always holds, one below 2 always breaks) no dice are
    drawn and the check is not rolled (:attr:`.Check.rolled` is False), unless
    ``roll_anyway``.

    Source: ``003``, "Morale" (NPCs check after the first casualty and at 50%
    losses; PCs never check: see :func:`morale_triggers`).

    >>> print(morale(13).text)
    Morale 13: certain to hold, no roll needed (2d6 + 0 is at most 12) — 100.0% to hold
    """
    _bounded("morale score", score, 0, LIMIT)
    mods = (("situational", _bounded("modifier", modifier)),) if modifier else ()
    odds = morale_odds(score, modifier)
    certain = _certain(score, modifier)
    if certain is not None and not roll_anyway:
        holds, why = certain
        return Check(Kind.MORALE, (), mods, score, holds, odds, roll_under=True, note=why,
                     label=label, rolled=False)  # fmt: skip
    dice = _roll(rng, 2, 6)
    ok = sum(dice) + modifier <= score
    return Check(Kind.MORALE, dice, mods, score, ok, odds, roll_under=True, label=label)


def morale_triggers(side_size: int, casualties_before: int, casualties_after: int) -> list[str]:
    """Which morale checks a side's new casualties trigger: the first casualty, and 50% losses.

    Source: ``003``, "Morale" ("Check after first casualty and at 50% losses";
    PCs never check, so call this for NPC sides only). The list names why; a
    non-empty list is one morale check, even when both triggers coincide (a
    side of one or two): one casualty is one event.

    >>> morale_triggers(4, 0, 1), morale_triggers(4, 1, 2), morale_triggers(4, 2, 3)
    (['first casualty'], ['50% losses'], [])
    """
    out = []
    if casualties_before == 0 < casualties_after:
        out.append("first casualty")
    if 2 * casualties_before < side_size <= 2 * casualties_after:
        out.append("50% losses")
    return out
