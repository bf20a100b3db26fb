"""All-Out Attack's Double, Feint and Long (B365), beside Determined and Strong
(:mod:`.melee`): what each does to an exchange, and the feint's odds.

Source: *GURPS Basic Set*, 4th edition, B365, "All-Out Attack", as ``COMBAT.md``
states it ("Double: two attacks; Feint: a feint, then an attack; Long: +1 yard of
reach, at a cost in damage (check the book's wording)"), and B365, "Feint".
Readings referee states, as the texts leave them open:

- **Double** is two attacks on the same foe, each an exchange of its own, the second
  against the foe as the first left it (its HP, so a reeling foe's halved Dodge).
- **Feint** is a Quick Contest of the attacker's skill against the foe's resisting
  level (its best melee weapon skill, Cloak or Shield, or DX: the GM gives it);
  won, the margin of victory comes off the foe's active defense against the attack.
  The feint must succeed to win (a Quick Contest as a resistance roll, ``000``): a
  failed feint takes nothing off.
- **Long** gives a yard of reach (the GM's to place) and costs −2 damage, or −1 a
  die when that is more, as Strong's bonus is +2 or +1 a die when that is more.
"""

from __future__ import annotations

import functools
from fractions import Fraction

from .contest import Floor, _contestant, _sides, _victory, _winner
from .damage import _dice_adds, with_adds

__all__ = ["feint_odds", "long_damage"]


def long_damage(expression: str) -> str:
    """Damage dice+adds under All-Out Attack (Long): −2, or −1 a die when that is more.

    >>> long_damage("1d+1"), long_damage("2d"), long_damage("3d+2"), long_damage("4d")
    ('1d-1', '2d-2', '3d-1', '4d-4')
    """
    count, _ = _dice_adds(expression)
    return with_adds(expression, -max(2, count))


@functools.lru_cache(maxsize=1024)
def feint_odds(skill: int, resisting: int) -> tuple[tuple[int, Fraction], ...]:
    """P(each penalty a feint puts on the foe's defense): its margin of victory when
    the attacker wins the Quick Contest (resistance: the feint must succeed), 0
    otherwise; exact over both 3d6 (``000``, "Quick Contest" and "Margin of Victory").

    >>> dict(feint_odds(30, 3))[0]  # 18 fails the feint, a 3 or 4 resists it
    Fraction(1, 54)
    """
    a, b = _contestant(skill, Floor.CLAMP), _contestant(resisting, Floor.CLAMP)
    out: dict[int, Fraction] = {}
    for pa, ra in _sides(a):
        for pb, rb in _sides(b):
            won = _winner(ra, rb, True) == 1
            m = _victory(1, ra, rb) if won else 0
            out[m or 0] = out.get(m or 0, Fraction(0)) + pa * pb
    return tuple(sorted(out.items()))
