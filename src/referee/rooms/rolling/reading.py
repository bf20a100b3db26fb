"""Reading a rolling command for a room: the room's caps, and a dry run that refuses
what the command alone would make fail, before any seq or draw (contract v1.2: no
answer depends on dice the log does not hold). :class:`.plans.Plans` runs it in a
worker thread; :func:`.api.roll_maker` rolls what it read."""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import TYPE_CHECKING

from ... import commands
from ...commands import SHARED_TABLE
from ...commands.reader import find
from ...errors import RefereeError
from ...rng import seeded
from ..errors import ApiError
from ..limits import RoomsLimits
from ..log import check_digestible

if TYPE_CHECKING:
    from ...commands import CommandLimits, Plan

__all__ = ["read_command", "read_odds", "room_limits"]


@functools.lru_cache(maxsize=16)
def room_limits(most_draws: int = RoomsLimits.draws) -> CommandLimits:
    """What one roll in a room may cost: the shared table's caps
    (:data:`referee.commands.SHARED_TABLE`), with the room's own cap on dice (made
    once a cap: every roll asks)."""
    return replace(SHARED_TABLE, dice=most_draws)


def read_odds(command: str, most_draws: int = RoomsLimits.draws) -> tuple[str, Plan]:
    """Read a command that rolls nothing (``odds 3d6``, ``gurps odds check 12``) under
    the room's caps: its exact odds are computed here, in the reader's thread, and its
    plan only returns them.

    Raises:
        ApiError: 422 for a bad command, or one that would roll dice.
    """
    try:
        if find(command.split())[0].rolls:
            raise ApiError(422, "this command rolls dice: only odds are read here")
        shown, plan = commands.plan(command, limits=room_limits(most_draws))
        reply = plan(_NO_DICE)  # the odds, computed now, off the event loop
    except RefereeError as exc:
        raise ApiError(422, str(exc)) from None
    return shown, lambda rng: reply


class _NoDice:
    def randbelow(self, n: int) -> int:
        raise AssertionError("an odds command drew a die")


_NO_DICE = _NoDice()


def read_command(command: str, most_draws: int = RoomsLimits.draws) -> tuple[str, Plan]:
    """Read a rolling command: ``(normalised command, plan)``, after a dry run that
    refuses (422) a roll drawing more than ``most_draws`` dice on a source seeded by
    the command (so the same command always gets the same answer). The plan keeps
    that cap (:func:`room_limits`) when it rolls for real.

    Raises:
        ApiError: 422 with the engine's own message for a bad command.
    """
    try:
        shown, plan = commands.plan(command, only_rolls=True, limits=room_limits(most_draws))
        # A dry run, in the caller's thread rather than in the room's transaction:
        # it refuses most oversized rolls before any lock is taken, and it leaves the
        # engine's caches (a roll's exact odds) warm for the real roll. Its source is
        # the command's own, so its answer is the same for every roll of the command.
        check_digestible(plan(seeded(command)).data, "result")
    except RefereeError as exc:
        raise ApiError(422, str(exc)) from None
    except ValueError as exc:  # check_digestible, which never names a value
        raise ApiError(422, f"this command's result cannot be logged: {exc}") from None
    return shown, plan
