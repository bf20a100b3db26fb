"""The fight, for every front end (issue 72 §1; contract v1.5, "one fight, every front
end"): each action of the fight is one function here, beside the
:class:`..guardian.Guardian` that decides who may take it. The HTTP routes
(:mod:`referee.rooms.routes`) and Discord (:mod:`referee.rooms.discord`) call these and
hold no rule of the fight: an import-linter contract keeps :mod:`referee.fight` out of
both.

- :func:`event`: any fight event (start, add, reveal, remove, next, a maneuver, a call's
  answer, stabilize's result, the GM's settings, end), with the call's own roll;
- :func:`attack`: an attack, whole (the roll, the defense or its call, the damage);
- :func:`seen`: the fight as a member may see it;
- :func:`fight_odds`: the GM's odds of the fight from here.
"""

from ..odds import fight_odds
from .attacks import MANEUVERS, attack
from .events import event, seen

__all__ = ["MANEUVERS", "attack", "event", "fight_odds", "seen"]
