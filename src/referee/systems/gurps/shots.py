"""A ranged weapon's Shots: how many it fires before a reload, and how many turns of
Ready the reload takes.

Source: *GURPS Basic Set*, 4th edition, B269-B270, the ranged weapon tables' "Shots"
column: the number of shots before the weapon must be reloaded, then in parentheses
the one-second Ready maneuvers (B366, "Ready") a reload takes; ``T`` for a thrown
weapon (one throw, then the parentheses' turns to ready another); an ``i`` after the
reload time, each shot loaded one at a time; ``30+1`` a magazine and one in the
chamber. A Shots of its own (no parentheses) is a weapon that is not reloaded in a
fight (the table's "-", or a GCS weapon with no reload time).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import RuleError

__all__ = ["Shots", "read_shots"]

_SHOTS = re.compile(r"^\s*(T|\d{1,4})(?:\s*\+\s*(\d{1,2}))?\s*(?:\(\s*(\d{1,2})\s*(i?)\s*\))?\s*$")


@dataclass(frozen=True, slots=True)
class Shots:
    """A weapon's Shots, read."""

    count: int
    """Shots fired before a reload (a thrown weapon: 1)."""
    reload: int
    """Turns of Ready to reload (to ready another thrown weapon); 0: none in a fight."""
    one_at_a_time: bool = False
    """``i``: a reload of :attr:`reload` turns loads one shot, not all of them."""
    thrown: bool = False


def read_shots(text: str) -> Shots:
    """``text`` as B269-B270's Shots column writes it (see the module).

    >>> read_shots("1(2)")
    Shots(count=1, reload=2, one_at_a_time=False, thrown=False)
    >>> read_shots("T(1)").thrown, read_shots("30+1(3)").count, read_shots("5(3i)").one_at_a_time
    (True, 31, True)

    Raises:
        RuleError: a text that is not a Shots, such as ``"lots"`` or ``"0(2)"``.
    """
    found = _SHOTS.match(text)
    if (found is None or (found[1] != "T" and int(found[1]) == 0)
            or (found[1] == "T" and found[2] is not None)):  # fmt: skip
        raise RuleError(f"Shots {text!r}: write it as the weapon table does, such as 1(2), "
                        "T(1), 30+1(3) or 5(3i) (B269)")  # fmt: skip
    thrown = found[1] == "T"
    count = 1 if thrown else int(found[1]) + int(found[2] or 0)
    return Shots(count, int(found[3] or 0), found[4] == "i", thrown)
