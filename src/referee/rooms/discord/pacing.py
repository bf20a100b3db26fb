"""How fast the bot takes commands: per Discord user and per channel, linked to a room
or not (a linked channel's rolls are also paced by the room's own limits, per member).
Each is a bucket of :attr:`Pace.burst` commands, filled again at :attr:`Pace.rate` a
second; a command that finds its user's or its channel's bucket empty is refused,
with no work done, saying when to try again. ``/referee page`` counts as any other.

Before, 300 ``/roll`` from 30 threads in an unlinked channel all rolled, in 3.5 s.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["CHANNEL", "USER", "Pace", "Pacer", "pace_from"]


@dataclass(frozen=True, slots=True)
class Pace:
    """``burst`` commands at once, then ``rate`` a second."""

    burst: float
    rate: float


USER = Pace(burst=10, rate=1.0)
"""One Discord user's commands: 10 at once, then one a second (a player at a table
sends a few a minute)."""
CHANNEL = Pace(burst=30, rate=3.0)
"""One channel's commands, whoever sends them: 30 at once, then 3 a second."""


def pace_from(text: str | None, default: Pace) -> Pace:
    """``BURST,RATE`` (``REFEREE_DISCORD_USER_PACE``, ``REFEREE_DISCORD_CHANNEL_PACE``),
    or ``default`` when unset.

    >>> pace_from("20,0.5", USER), pace_from(None, USER) == USER
    (Pace(burst=20.0, rate=0.5), True)

    Raises:
        ValueError: not two positive numbers.
    """
    if not text:
        return default
    try:
        burst, rate = (float(part) for part in text.split(","))
    except ValueError:
        raise ValueError(f"{text!r}: write BURST,RATE (two numbers, like 10,1)") from None
    if not (burst >= 1 and rate > 0 and math.isfinite(burst) and math.isfinite(rate)):
        raise ValueError(f"{text!r}: BURST is 1 or more, RATE above 0")
    return Pace(burst, rate)


@dataclass(slots=True)
class Pacer:
    """The buckets of one bot, by user and by channel."""

    user: Pace = USER
    channel: Pace = CHANNEL
    clock: Callable[[], float] = time.monotonic
    _left: dict[str, tuple[float, float]] = field(default_factory=dict)

    def _level(self, key: str, pace: Pace, now: float) -> float:
        left, at = self._left.get(key, (pace.burst, now))
        return min(pace.burst, left + (now - at) * pace.rate)

    def take(self, user: str, channel: str) -> str | None:
        """Take one command of ``user`` in ``channel``: None, or why not (and when to
        try again); a refused command is not counted."""
        now = self.clock()
        mine = self._level(f"u:{user}", self.user, now)
        theirs = self._level(f"c:{channel}", self.channel, now)
        if mine < 1:
            wait = (1 - mine) / self.user.rate
            return (
                f"slow down: you sent {self.user.burst:g} commands in a short time "
                f"(then one every {1 / self.user.rate:g} s); try again in {math.ceil(wait)} s"
            )
        if theirs < 1:
            wait = (1 - theirs) / self.channel.rate
            return (
                f"slow down: this channel sent {self.channel.burst:g} commands in a short "
                f"time (then {self.channel.rate:g} a second); try again in {math.ceil(wait)} s"
            )
        if len(self._left) > 100_000:  # forgotten buckets are full ones
            self._left.clear()
        self._left[f"u:{user}"] = (mine - 1, now)
        self._left[f"c:{channel}"] = (theirs - 1, now)
        return None
