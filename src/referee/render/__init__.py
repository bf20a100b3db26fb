"""Rendering: results to the JSON contract and to text tables, above the engine.

The engine's results explain themselves in one line (``.text``); this package
turns them into the documented JSON (fractions as ``"p/q"``) and draws the
tables (odds, samples) that every front end shows the same way. Per system:
:mod:`.gurps`, :mod:`.fudge`, :mod:`.swn`; dice: :mod:`.dice`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import export

if TYPE_CHECKING:
    from .dice import MAX_ROWS, odds_json, odds_text, roll_json, sample_text, shown_rows

__all__ = ["MAX_ROWS", "odds_json", "odds_text", "roll_json", "sample_text", "shown_rows"]

# Loaded on first use (:mod:`..lazy`): a rule's renderer (:mod:`.combat`) needs not the
# dice's, nor the engine they read (issue 74 §1).
export(__name__, {"dice": __all__})
