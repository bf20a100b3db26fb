"""Stars Without Number (revised) actions per turn: what a combatant may do in one turn.

Source: *Stars Without Number Revised*, "Combat" ("Actions per Turn", "Main
Actions", "Move Actions", "On Turn Actions", "Instant Actions") and the rules notes,
"Attack" (docs/reference/sources.md: snap attacks and total defense cost the Main Action).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from ...errors import RuleError

__all__ = ["ACTIONS", "ActionType", "Turn", "plan_turn"]


class ActionType(StrEnum):
    """The kinds of action in a turn (``003``, "Actions per Turn")."""

    MAIN = "main"
    MOVE = "move"
    ON_TURN = "on turn"
    INSTANT = "instant"


ACTIONS: dict[str, tuple[ActionType, bool]] = {
    "attack": (ActionType.MAIN, True),
    "disengage": (ActionType.MAIN, True),
    "use-skill": (ActionType.MAIN, True),
    "reload": (ActionType.MAIN, True),
    "produce-item": (ActionType.MAIN, True),
    "second-move": (ActionType.MAIN, True),
    "stabilize": (ActionType.MAIN, True),
    "other-main": (ActionType.MAIN, True),
    "stand": (ActionType.MOVE, False),
    "ready-weapon": (ActionType.MOVE, False),
    "move": (ActionType.MOVE, False),
    "fall-prone": (ActionType.ON_TURN, False),
    "speak": (ActionType.ON_TURN, False),
    "drop-item": (ActionType.ON_TURN, False),
    "trigger-power": (ActionType.INSTANT, False),
    "snap-attack": (ActionType.INSTANT, True),
    "total-defense": (ActionType.INSTANT, True),
}
"""Each action's type and whether it uses the Main Action (``003``, the action lists)."""


@dataclass(frozen=True, slots=True)
class Turn:
    """A valid turn: its actions, and how many Moves it has."""

    actions: tuple[str, ...]
    """The actions in order."""
    moves: int
    """Move actions taken (two only with ``second-move``)."""


def plan_turn(actions: Sequence[str]) -> Turn:
    """Check that a turn's actions fit: one Main Action, one Move (two if the Main
    Action is spent on ``second-move``), any On Turn and Instant actions.

    Snap attacks and total defense are Instant but cost the Main Action. A
    Move can never become a Main Action: a Main Action becomes a second Move.

    Source: ``003``, "Actions per Turn", "Main Actions", "Move Actions", "On
    Turn Actions", "Instant Actions"; rules README, "Attack".

    Raises:
        RuleError: an unknown action, or an impossible turn (naming the clash).
    """
    mains: list[str] = []
    moves = 0
    for name in actions:
        key = name.strip().casefold().replace(" ", "-").replace("_", "-")
        if key not in ACTIONS:
            raise RuleError(f"unknown action {name!r} (one of: {', '.join(ACTIONS)})")
        kind, uses_main = ACTIONS[key]
        if uses_main:
            mains.append(key)
        if kind is ActionType.MOVE:
            moves += 1
    if len(mains) > 1:
        raise RuleError(
            f"impossible turn: {' and '.join(mains)} each need the Main Action, and a turn has "
            "one (a Main Action can become a second Move, never the reverse)"
        )
    allowed = 2 if mains == ["second-move"] else 1
    if moves > allowed:
        raise RuleError(
            f"impossible turn: {moves} Move actions, but only {allowed} "
            "(spend the Main Action on second-move for a second Move)"
        )
    return Turn(tuple(actions), moves)
