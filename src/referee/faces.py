"""Plain dice drawn from a random source: the one path by which the roller and the rule
systems alike draw them.

Apart from the roller (:mod:`.roller`, which re-exports :func:`draw_faces`), so that a
rule that draws plain dice (a GURPS success roll's 3d6, a blow's damage dice) does not
load the dice-expression engine with it: ``referee gurps attack`` starts without the
grammar, the AST or the exact odds of general expressions (issue 74 §1).
"""

from __future__ import annotations

from .rng import RandomSource, resolve

__all__ = ["FUDGE", "draw_faces"]

FUDGE = 0
"""The ``sides`` value of a Fudge die (``dF``): faces -1, 0 and +1."""


def draw_faces(rng: RandomSource | None, count: int, sides: int) -> tuple[int, ...]:
    """``count`` plain dice of ``sides`` faces (``FUDGE``, 0, for Fudge dice: -1, 0, +1).

    The one path by which plain dice are drawn, for the roller and the rule
    systems alike: a dN draws ``randbelow(N)`` and shows the value + 1; a dF
    draws ``randbelow(3)`` and shows the value − 1; left to right.

    >>> from referee import seeded
    >>> draw_faces(seeded(1), 3, 6)
    (2, 4, 4)
    """
    rb = resolve(rng).randbelow
    n, offset = (3, -1) if sides == FUDGE else (sides, 1)
    return tuple([rb(n) + offset for _ in range(count)])
