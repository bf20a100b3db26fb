"""4dF with reroll bonuses and penalties, and the exact distribution of the dice.

Source: ``../shared/rules/002_259f938919412917.txt``, "Rolling the Dice" (4dF,
faces ``+``, blank, ``-``), "Natural Rolls" and the rerolls section after it;
the rules ``README.md``, "Psi-punk trait ladder" (a reroll replaces one chosen
die; bonuses and penalties cancel one for one; a penalty with no ``+`` rolled
rerolls nothing; the default choice maximises the expected result).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from math import comb
from types import MappingProxyType

from ...errors import RuleError
from ...rng import RandomSource

__all__ = [
    "DICE",
    "MAX_REROLLS",
    "Reroll",
    "Strategy",
    "dice_distribution",
    "face_text",
    "net_rerolls",
    "read_faces",
    "reroll_dice",
]

DICE = 4
"""Fudge rolls four dice (``002``, "Rolling the Dice")."""
MAX_REROLLS = DICE
"""A reroll bonus or penalty names at most this many dice."""
_FACE = {1: "+", 0: "0", -1: "-"}


class Strategy(StrEnum):
    """Which dice a reroll bonus rerolls (the roller's choice, ``002``, rerolls section)."""

    MAXIMIZE = "maximize"
    """The default: ``-`` dice first, then blanks, never a ``+`` (rules README)."""
    MINUS_ONLY = "minus-only"
    """Only ``-`` dice: never risk a blank."""


@dataclass(frozen=True, slots=True)
class Reroll:
    """One die rerolled: where it was, what it showed, and what it shows now."""

    index: int
    """The die's position, from 0."""
    old: int
    """The face before the reroll: -1, 0 or +1."""
    new: int
    """The face after: it stands even if worse (``002``)."""


def face_text(face: int) -> str:
    """``+``, ``0`` or ``-``: how a Fudge die is written in text and JSON."""
    return _FACE[face]


def net_rerolls(counts: Iterable[int]) -> int:
    """Cancel reroll bonuses (``+N``) against penalties (``-N``) one for one, before rolling.

    Source: ``002``, rerolls section ("Re-roll penalties cancel any positive
    re-roll bonuses"); rules README.

    >>> net_rerolls([+1, -1]), net_rerolls([+2, -1]), net_rerolls([-2])
    (0, 1, -2)

    Raises:
        RuleError: the bonuses or the penalties together name more than four dice.
    """
    bonus = penalty = 0
    for n in counts:
        if n > 0:
            bonus += n
        else:
            penalty -= n
    for what, n in (("bonus", bonus), ("penalty", penalty)):
        if n > MAX_REROLLS:
            raise RuleError(f"a reroll {what} of {n}dF is more than the {MAX_REROLLS} dice rolled")
    return bonus - penalty


def _chosen(faces: tuple[int, ...], net: int, strategy: Strategy) -> list[int]:
    """Indices of the dice to reroll: penalties take ``+`` dice; bonuses follow the strategy."""
    if net < 0:
        return [i for i, f in enumerate(faces) if f == 1][:-net]
    order = [i for i, f in enumerate(faces) if f == -1]
    if strategy is Strategy.MAXIMIZE:
        order += [i for i, f in enumerate(faces) if f == 0]
    return order[:net]


def reroll_dice(
    faces: tuple[int, ...], net: int, strategy: Strategy, rng: RandomSource
) -> tuple[tuple[int, ...], tuple[Reroll, ...]]:
    """Apply a net reroll bonus (``net > 0``) or penalty (``net < 0``) to rolled faces.

    Source: ``002``, rerolls section: each chosen die is rerolled once and the
    second result stands; a penalty must reroll a ``+`` die, and with no ``+``
    nothing is rerolled. Among equal faces the leftmost die is chosen.

    Returns:
        The faces after rerolls, and a record of each reroll.
    """
    if net == 0:
        return faces, ()
    out = list(faces)
    done = []
    for i in _chosen(faces, net, strategy):
        out[i] = rng.randbelow(3) - 1
        done.append(Reroll(i, faces[i], out[i]))
    return tuple(out), tuple(done)


def read_faces(faces: Iterable[int]) -> tuple[int, ...]:
    """The reading procedure of ``002``: cancel a ``+`` against a ``-``, then drop blanks.

    Returns the dice left on the table, ``+`` first; their sum is the roll.

    >>> read_faces([1, 1, -1, 0])
    (1,)
    """
    faces = tuple(faces)
    plus, minus = faces.count(1), faces.count(-1)
    left = plus - minus
    return (1,) * left if left > 0 else (-1,) * -left


@functools.cache
def _ndf(n: int) -> tuple[int, ...]:
    """Counts of the sums ``-n..n`` of ``n`` Fudge dice, out of ``3**n``."""
    counts = [1]
    for _ in range(n):
        nxt = [0] * (len(counts) + 2)
        for i, c in enumerate(counts):
            for j in range(3):
                nxt[i + j] += c
        counts = nxt
    return tuple(counts)


@functools.cache
def dice_distribution(
    net: int = 0, strategy: Strategy = Strategy.MAXIMIZE
) -> Mapping[int, Fraction]:
    """The exact distribution of the dice total (-4..+4) after a net reroll, before modifiers.

    Computed by composition, not by enumerating faces: for each count of ``-``,
    blank and ``+`` dice (weighted by the multinomial), the chosen dice are
    replaced by a fresh ``k``dF. The tests check it against enumeration of
    every face sequence.

    Source: ``002``, "Rolling the Dice" and the rerolls section; rules README.

    >>> dice_distribution()[0], dice_distribution(1)[4]
    (Fraction(19, 81), Fraction(11, 243))
    """
    if abs(net) > MAX_REROLLS:
        raise RuleError(f"a net reroll of {net:+d}dF is beyond ±{MAX_REROLLS}")
    scale = 3**DICE  # every outcome is counted over 3**DICE * 3**DICE
    counts = dict.fromkeys(range(-DICE, DICE + 1), 0)
    for minus in range(DICE + 1):
        for plus in range(DICE + 1 - minus):
            blank = DICE - minus - plus
            ways = comb(DICE, minus) * comb(DICE - minus, plus)
            if net < 0:
                rerolled_plus = min(-net, plus)
                kept = plus - rerolled_plus - minus
                k = rerolled_plus
            else:
                r_minus = min(net, minus)
                r_blank = min(net - r_minus, blank) if strategy is Strategy.MAXIMIZE else 0
                kept = plus - minus + r_minus
                k = r_minus + r_blank
            fresh = _ndf(k)
            weight = ways * 3 ** (DICE - k)
            for offset, c in enumerate(fresh):
                counts[kept + offset - k] += weight * c
    total = scale * 3**DICE
    return MappingProxyType({v: Fraction(c, total) for v, c in counts.items() if c})
