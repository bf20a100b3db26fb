"""referee: resolve tabletop role-playing actions by their rules.

Every value referee returns is immutable: parsed expressions, roll results and
distributions are frozen dataclasses or named tuples, safe to cache and share.

The convenience calls are :func:`roll`, :func:`odds`, :func:`parse` and
:func:`sample`; randomness is injected with ``rng=`` (default: the operating
system's secure source; :func:`seeded` for reproducible rolls).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import (
    CommandError,
    DiceEvalError,
    DiceLimitError,
    DiceSyntaxError,
    RefereeError,
    RuleError,
)
from .lazy import export
from .rng import RandomSource, SeededSource, SystemSource, seeded

if TYPE_CHECKING:
    from .ast import Expression
    from .limits import DEFAULT_LIMITS, Limits
    from .odds import Odds, odds
    from .parser import format_expr, parse
    from .roller import DiceGroup, DieRoll, RollResult, roll
    from .sampling import sample

__all__ = [
    "DEFAULT_LIMITS",
    "CommandError",
    "DiceEvalError",
    "DiceGroup",
    "DiceLimitError",
    "DiceSyntaxError",
    "DieRoll",
    "Expression",
    "Limits",
    "Odds",
    "RandomSource",
    "RefereeError",
    "RollResult",
    "RuleError",
    "SeededSource",
    "SystemSource",
    "format_expr",
    "odds",
    "parse",
    "roll",
    "sample",
    "seeded",
    "__version__",
]


def __getattr__(name: str) -> str:
    """``referee.__version__``: the installed package's version, read from its metadata
    only when asked for (so that ``referee roll 3d6`` starts fast). Any other name it
    refuses goes on to the lazy package's own lookup (:func:`.lazy.export`, below)."""
    if name == "__version__":
        # here, not at the top: 35 ms of start-up otherwise (issue 53)
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("referee")
        except PackageNotFoundError:  # pragma: no cover - run from a bare source tree
            return "0+unknown"
    raise AttributeError(f"module 'referee' has no attribute {name!r}")


# The engine's names, each module imported when one of its names is first read (PEP 562,
# :mod:`.lazy`): a rule system's command that draws plain dice (``referee gurps attack``)
# starts without the grammar, the AST and the odds of general expressions (issue 74 §1);
# ``sample`` brings numpy (issue 53).
export(
    __name__,
    {
        "ast": ["Expression"],
        "limits": ["DEFAULT_LIMITS", "Limits"],
        "odds": ["Odds", "odds"],
        "parser": ["format_expr", "parse"],
        "roller": ["DiceGroup", "DieRoll", "RollResult", "roll"],
        "sampling": ["sample"],
    },
)
