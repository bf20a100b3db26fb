"""All-Out Attack's Double, Feint and Long, beside Determined and Strong
(:mod:`.melee`): what each does to an exchange, and the feint's odds.

Sources, 4th edition: *GURPS Basic Set*, B365, "All-Out Attack" (Determined, Double,
Feint, Strong) and "Feint"; B376, "Parrying" (−4 a parry after the first with the
same weapon); *GURPS Martial Arts*, p. 97, "All-Out Attack (Long)": the Basic Set
has no Long (``COMBAT.md`` lists it under B365 and says to check the book's wording;
B365 names four options, and Long is Martial Arts'). Readings referee states:

- **Double** is two attacks on the same foe, each an exchange of its own, the second
  against the foe as the first left it: its HP (so a reeling foe's halved Dodge), and
  a Parry the first made counts against the second (B376's −4, −2 fencing: the
  target's Parry is one weapon's).
- **Feint** is a Quick Contest of the attacker's skill against the foe's resisting
  level (its best melee weapon skill, Cloak or Shield, or DX: the GM gives it). B365:
  if the attacker succeeds and the foe fails, the attacker's margin of success comes
  off the foe's active defense against the attack; if both succeed and the attacker
  by more, the margin of victory does; otherwise nothing (:func:`feint_penalty`).
- **Long** gives a yard of reach (the GM's to place); a swing loses 2 damage, or 1 a
  die when that is worse, and a thrust loses nothing (MA97).
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import TYPE_CHECKING

from .damage import _dice_adds, with_adds

if TYPE_CHECKING:  # the Quick Contest, loaded by a feint alone (issue 74 §1)
    from .contest import ContestResult, Side

__all__ = ["feint_odds", "feint_penalty", "long_damage", "strong_damage"]


def strong_damage(expression: str) -> str:
    """Damage dice+adds under All-Out Attack (Strong): +2, or +1 per die when that is more.

    Source: B365, "All-Out Attack": "Strong: Make a single attack ... at +2 to damage or
    +1 damage per die, whichever is better" (melee only; 4th edition).

    >>> strong_damage("1d-2"), strong_damage("2d+1"), strong_damage("3d"), strong_damage("4d-1")
    ('1d', '2d+3', '3d+3', '4d+3')
    """

    count, _ = _dice_adds(expression)
    return with_adds(expression, max(2, count))


def long_damage(expression: str, thrust: bool = False) -> str:
    """Damage dice+adds under All-Out Attack (Long): a swing −2, or −1 a die when that
    is worse; a thrust unchanged.

    Source: *GURPS Martial Arts*, p. 97, "All-Out Attack (Long)" (4th edition): the
    reach of a swing "costs −2 damage or −1 per die, whichever is worse"; a thrust's
    damage is unchanged. (The Basic Set's B365 has no Long.)

    >>> long_damage("1d+1"), long_damage("2d"), long_damage("3d+2"), long_damage("4d")
    ('1d-1', '2d-2', '3d-1', '4d-4')
    >>> long_damage("2d", thrust=True)
    '2d'
    """
    if thrust:
        return expression
    count, _ = _dice_adds(expression)
    return with_adds(expression, -max(2, count))


def _penalty(a: Side, b: Side) -> int:
    """The feint's penalty to the foe's defense for one pair of results: the
    attacker's margin of success when the foe fails; its margin of victory when
    both succeed and it by more; else 0 (B365, "Feint")."""
    if a is None or not a[0]:
        return 0
    if b is None or not b[0]:
        return a[1]
    return max(a[1] - b[1], 0)


def feint_penalty(feint: ContestResult) -> int:
    """What a rolled feint takes off the foe's active defense against the attack.

    Source: *GURPS Basic Set*, B365, "Feint" (4th edition): the feint is a Quick
    Contest; "if you succeed and your foe fails", your margin of success is the
    penalty; if you both succeed and you do better, your margin of victory; if you
    fail, or the foe does as well or better, the feint fails (0).

    >>> from referee.rng import ReplaySource
    >>> from .contest import quick_contest
    >>> feint_penalty(quick_contest(14, 12, resistance=True,
    ...               rng=ReplaySource([(6, f) for f in (2, 4, 4, 4, 5, 5)])))  # 10 vs 14
    4
    """
    from .contest import _result

    a, b = (_result(r) for r in feint.rounds[-1])
    return _penalty(a, b)


@functools.lru_cache(maxsize=1024)
def feint_odds(skill: int, resisting: int) -> tuple[tuple[int, Fraction], ...]:
    """P(each penalty a feint puts on the foe's defense) (:func:`feint_penalty`), exact
    over both 3d6 (B365, "Feint"; ``000``, "Quick Contest").

    >>> dict(feint_odds(30, 3))[0]  # only a 17 or 18 fails the feint (000: always)
    Fraction(1, 54)
    """
    from .contest import Floor, _contestant, _sides

    a, b = _contestant(skill, Floor.CLAMP), _contestant(resisting, Floor.CLAMP)
    out: dict[int, Fraction] = {}
    for pa, ra in _sides(a):
        for pb, rb in _sides(b):
            m = _penalty(ra, rb)
            out[m] = out.get(m, Fraction(0)) + pa * pb
    return tuple(sorted(out.items()))
