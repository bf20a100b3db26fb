"""The errors referee raises: one root, one class per kind of failure.

Every error is a :class:`ValueError`, so callers that only care that the input
was bad can catch that. Messages quote the offending input with ``!r`` and,
for dice expressions, carry the 1-based column of the problem.
"""

from __future__ import annotations

__all__ = [
    "CommandError",
    "DiceEvalError",
    "DiceLimitError",
    "DiceSyntaxError",
    "RefereeError",
    "NoSheetError",
    "RuleError",
    "SheetError",
]


class RefereeError(ValueError):
    """Root of every error referee raises on bad input."""


class _Located(RefereeError):
    """An error tied to a place in a dice expression."""

    def __init__(self, message: str, text: str = "", column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        """What was wrong, in one sentence."""
        self.text = text
        """The whole expression that was being read."""
        self.column = column
        """1-based column of the problem in :attr:`text`, or ``None`` if it has no place."""

    def __str__(self) -> str:
        if self.column is None:
            return self.message
        return f"{self.message} (column {self.column})"

    def caret(self) -> str:
        """The expression with a ``^`` under the offending column, on two lines.

        >>> DiceSyntaxError("unexpected 'x'", "3d6x", 4).caret()
        '3d6x\\n   ^'
        """
        if self.column is None:
            return self.text
        return f"{self.text}\n{' ' * (self.column - 1)}^"


class DiceSyntaxError(_Located):
    """A dice expression that does not follow the notation."""


class DiceLimitError(_Located):
    """A dice expression that is valid but asks for more work than the limits allow."""


class DiceEvalError(_Located):
    """A dice expression that failed while being evaluated (division by zero)."""


class RuleError(RefereeError):
    """A request that a game's rules do not allow (e.g. effective skill below 3)."""


class CommandError(RefereeError):
    """A command line that is malformed, unknown, or not allowed where it was given.

    The message makes sense on its own, in a terminal or in a chat; a front end
    adds its own hint (``see 'help roll'``, ``see 'referee roll --help'``) from
    :attr:`command`.
    """

    def __init__(self, message: str, command: str | None = None) -> None:
        super().__init__(message)
        self.command = command
        """The command the line named (``gurps check``), if it named one."""


class SheetError(RefereeError):
    """A character sheet that cannot be read, or a trait it does not have (or has
    several of). The message names the file's problem in a player's words and, for
    a malformed file, the line."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line
        """1-based line of the problem in the file, when it has one."""


class NoSheetError(CommandError):
    """A command that names a trait, with no character sheet to read it from. A front
    end says how to give one (``--sheet FILE`` on the command line, ``@NAME`` in a room)."""
