"""4dF with reroll bonuses and penalties, and the exact distribution of the dice.

Source: *Psi-punk*, "Rolling the Dice" (4dF, faces ``+``, blank, ``-``), "Natural
Rolls" and the rerolls section after it; the rules notes, "Psi-punk trait ladder"
(docs/reference/sources.md: a reroll replaces one chosen
die; bonuses and penalties cancel one for one; a penalty with no ``+`` rolled
rerolls nothing). The player chooses which dice a bonus rerolls after seeing
them (*Psi-punk*: "simply choose the dice you wish to reroll"); the default
choice is the best one (:attr:`Strategy.OPTIMAL`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from math import comb
from types import MappingProxyType

from ...ast import FUDGE
from ...errors import RuleError
from ...faces import draw_faces
from ...rng import RandomSource

__all__ = [
    "DICE",
    "MAX_REROLLS",
    "Reroll",
    "Strategy",
    "choose",
    "dice_distribution",
    "face_text",
    "net_rerolls",
    "read_faces",
    "read_rerolls",
    "reroll_dice",
]

DICE = 4
"""Fudge rolls four dice (``002``, "Rolling the Dice")."""
MAX_REROLLS = DICE
"""A reroll bonus or penalty names at most this many dice."""
_FACE = {1: "+", 0: "0", -1: "-"}


class Strategy(StrEnum):
    """Which dice a reroll bonus rerolls (the roller's choice, ``002``, rerolls section)."""

    OPTIMAL = "optimal"
    """The default: the player's best choice. Given the dice, the difficulty and
    N, reroll the dice (at most N, possibly none) that maximise the chance of
    success; among equal chances, the higher expected result; then the fewest
    dice. With no difficulty (or an opposed action), maximise the expected
    result: reroll ``-`` dice only."""
    MINUS_THEN_BLANK = "minus-then-blank"
    """``-`` dice first, then blanks, never a ``+`` (the default before issue 9)."""
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


def read_rerolls(texts: Iterable[str | int]) -> list[int]:
    """Reroll bonuses and penalties as players write them: ``+1``, ``-2``, ``+1dF``.

    >>> read_rerolls(["+1", "-1dF", 2])
    [1, -1, 2]

    Raises:
        RuleError: a text that is not a signed count of dice.
    """
    out = []
    for text in texts:
        if isinstance(text, int):
            out.append(text)
            continue
        cleaned = text.replace(" ", "")
        for suffix in ("dF", "df", "DF"):
            cleaned = cleaned.removesuffix(suffix)
        try:
            out.append(int(cleaned))
        except ValueError:
            raise RuleError(
                f"cannot read reroll {text!r}: write +1 (bonus) or -1 (penalty)"
            ) from None
    return out


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


Counts = tuple[int, int, int]
"""How many ``-``, blank and ``+`` dice: the order of the faces never matters to a choice."""


def _need_key(need: int | None) -> int | None:
    """A need that every (or no) choice meets decides nothing: treat it as no difficulty."""
    return None if need is None or need <= -DICE or need > DICE else need


@functools.cache
def choose(counts: Counts, net: int, strategy: Strategy, need: int | None = None) -> Counts:
    """How many ``-``, blank and ``+`` dice a net reroll rerolls, given the faces rolled.

    ``need`` is the dice total that succeeds (difficulty − trait − modifiers),
    or None with no difficulty. A penalty (``net < 0``) must reroll ``+`` dice
    (``002``); a bonus follows ``strategy`` (:class:`Strategy`). The roller and
    the exact odds both call this, so they follow one policy.

    >>> choose((1, 2, 1), 1, Strategy.OPTIMAL, 1)  # [- 0 0 +] needs +1: reroll the -
    (1, 0, 0)
    >>> choose((0, 2, 2), 1, Strategy.OPTIMAL, 2)  # [0 0 + +] already meets +2: keep
    (0, 0, 0)
    >>> choose((0, 3, 1), 1, Strategy.OPTIMAL, 2)  # [0 0 0 +] needs one more: a blank
    (0, 1, 0)
    """
    minus, blank, plus = counts
    if net <= 0:
        return 0, 0, min(-net, plus)
    if strategy is Strategy.MINUS_ONLY:
        return min(net, minus), 0, 0
    if strategy is Strategy.MINUS_THEN_BLANK:
        rm = min(net, minus)
        return rm, min(net - rm, blank), 0
    need = _need_key(need)
    total = plus - minus
    best: tuple[tuple[Fraction, int, int], Counts] | None = None
    for rm in range(min(net, minus) + 1):
        for rb in range(min(net - rm, blank) + 1):
            for rp in range(min(net - rm - rb, plus) + 1):
                kept, k = total + rm - rp, rm + rb + rp
                p = Fraction(0) if need is None else _at_least(k, need - kept)
                score = (p, kept, -k)  # chance, then expected result, then fewer dice
                if best is None or score > best[0]:
                    best = score, (rm, rb, rp)
    assert best is not None
    return best[1]


def _at_least(k: int, need: int) -> Fraction:
    """P(the sum of ``k`` Fudge dice >= need)."""
    counts = _ndf(k)
    return Fraction(sum(c for s, c in enumerate(counts) if s - k >= need), 3**k)


@functools.lru_cache(maxsize=8192)
def _chosen(
    faces: tuple[int, ...], net: int, strategy: Strategy, need: int | None
) -> tuple[int, ...]:
    """Indices of the dice to reroll: the leftmost dice of each face that :func:`choose` picks."""
    counts = (faces.count(-1), faces.count(0), faces.count(1))
    rm, rb, rp = choose(counts, net, strategy, _need_key(need))
    out: list[int] = []
    for face, n in ((-1, rm), (0, rb), (1, rp)):
        out += [i for i, f in enumerate(faces) if f == face][:n]
    return tuple(sorted(out))


def reroll_dice(
    faces: tuple[int, ...],
    net: int,
    strategy: Strategy,
    rng: RandomSource,
    need: int | None = None,
) -> tuple[tuple[int, ...], tuple[Reroll, ...]]:
    """Apply a net reroll bonus (``net > 0``) or penalty (``net < 0``) to rolled faces.

    Source: ``002``, rerolls section: each chosen die is rerolled once and the
    second result stands; a penalty must reroll a ``+`` die, and with no ``+``
    nothing is rerolled. A bonus rerolls the dice :func:`choose` picks for
    ``need`` (the dice total that succeeds); among equal faces the leftmost
    die is chosen.

    Returns:
        The faces after rerolls, and a record of each reroll.
    """
    if net == 0:
        return faces, ()
    chosen = _chosen(faces, net, strategy, need)
    if not chosen:
        return faces, ()
    out = list(faces)
    done = []
    for i, new in zip(chosen, draw_faces(rng, len(chosen), FUDGE), strict=True):
        out[i] = new
        done.append(Reroll(i, faces[i], new))
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


def dice_distribution(
    net: int = 0, strategy: Strategy = Strategy.OPTIMAL, need: int | None = None
) -> Mapping[int, Fraction]:
    """The exact distribution of the dice total (-4..+4) after a net reroll, before modifiers.

    ``need`` is the dice total that succeeds (it steers :attr:`Strategy.OPTIMAL`).
    Computed by composition, not by enumerating faces: for each count of ``-``,
    blank and ``+`` dice (weighted by the multinomial), the dice that
    :func:`choose` picks are replaced by a fresh ``k``dF. The tests check it
    against enumeration of every face sequence.

    Source: ``002``, "Rolling the Dice" and the rerolls section; rules README.

    >>> dice_distribution()[0], dice_distribution(1)[4]
    (Fraction(19, 81), Fraction(7, 243))
    """
    if abs(net) > MAX_REROLLS:
        raise RuleError(f"a net reroll of {net:+d}dF is beyond ±{MAX_REROLLS}")
    key = _need_key(need) if net > 0 and strategy is Strategy.OPTIMAL else None
    return _distribution(net, strategy, key)


@functools.cache
def _distribution(net: int, strategy: Strategy, need: int | None) -> Mapping[int, Fraction]:
    scale = 3**DICE  # every outcome is counted over 3**DICE * 3**DICE
    counts = dict.fromkeys(range(-DICE, DICE + 1), 0)
    for minus in range(DICE + 1):
        for plus in range(DICE + 1 - minus):
            blank = DICE - minus - plus
            ways = comb(DICE, minus) * comb(DICE - minus, plus)
            rm, rb, rp = choose((minus, blank, plus), net, strategy, need)
            kept = (plus - rp) - (minus - rm)
            k = rm + rb + rp
            fresh = _ndf(k)
            weight = ways * 3 ** (DICE - k)
            for offset, c in enumerate(fresh):
                counts[kept + offset - k] += weight * c
    total = scale * 3**DICE
    return MappingProxyType({v: Fraction(c, total) for v, c in counts.items() if c})
