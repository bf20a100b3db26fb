"""Where a simulated GURPS fight starts: a fight already under way (a room's tracker,
issue 68 §4), or, without a :class:`Start`, every fighter at full HP, up and standing,
in the order of Basic Speed (*GURPS Basic Set*, 4th edition, B363)."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import RuleError
from .sim_encounter import Encounter
from .sim_oracle import DEAD, FLED, UNCONSCIOUS, UP

__all__ = ["POSTURE_KNEELING", "POSTURE_PRONE", "STATES", "Start"]

STATES = {"up": UP, "unconscious": UNCONSCIOUS, "dead": DEAD, "fled": FLED}
"""A fighter's state at the start, by name."""
POSTURE_KNEELING, POSTURE_PRONE = 1, 2
"""Indices in :data:`.sim_oracle.POSTURES`."""
_POSTURE = {"standing": 0, "crouching": 0, "kneeling": 1, "sitting": 1, "crawling": 2,
            "prone": 2}  # fmt: skip
"""A posture's index in :data:`.sim_oracle.POSTURES`, by the tracker's name (B551)."""


@dataclass(frozen=True, slots=True)
class Start:
    """Where every fight starts from: a fight already under way (a room's tracker, issue
    68 §4), one value a fighter, in the encounter's order. Without one, each fighter
    starts at full HP, up, and the order of turns is by Basic Speed (B363)."""

    hp: tuple[int, ...]
    """Each fighter's HP now (its full HP is the encounter's)."""
    state: tuple[str, ...]
    """Each one's state: ``up``, ``unconscious``, ``dead`` or ``fled`` (:data:`STATES`)."""
    stunned: tuple[bool, ...]
    """Stunned (B420): it rolls HT to recover at its next turn instead of acting."""
    shock: tuple[int, ...]
    """The shock penalty on its next turn (B419), 0 for none."""
    order: tuple[int, ...] = ()
    """The order of turns, as fighters' indices (every fighter once); empty: by speed."""
    turn: int = 0
    """The place in :attr:`order` whose turn it is: the first round starts there."""
    posture: tuple[str, ...] = ()
    """Each one's posture: ``standing``, ``kneeling`` or ``prone`` (a seat reads as
    kneeling, a crawl as prone, a crouch as standing: rising from it is free, B364);
    empty: all standing."""

    def check(self, enc: Encounter) -> None:
        """Raises RuleError: a value per fighter missing, or an order that is not one."""
        c = len(enc.fighters)
        if not len(self.hp) == len(self.state) == len(self.stunned) == len(self.shock) == c:
            raise RuleError(f"a start gives one value a fighter: {c} fighters")
        if self.posture and (len(self.posture) != c
                             or any(p not in _POSTURE for p in self.posture)):  # fmt: skip
            raise RuleError(f"a start's postures are one a fighter, of {', '.join(_POSTURE)}")
        if any(s not in STATES for s in self.state):
            raise RuleError(f"a start's states are {', '.join(STATES)}")
        if self.order and sorted(self.order) != list(range(c)):
            raise RuleError("a start's order names every fighter once")
        if not 0 <= self.turn < max(1, len(self.order)):
            raise RuleError("a start's turn is a place in its order")
