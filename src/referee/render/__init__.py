"""Rendering: results to the JSON contract and to text tables, above the engine.

The engine's results explain themselves in one line (``.text``); this package
turns them into the documented JSON (fractions as ``"p/q"``) and draws the
tables (odds, samples) that every front end shows the same way. Per system:
:mod:`.gurps`, :mod:`.fudge`, :mod:`.swn`; dice: :mod:`.dice`.
"""

from __future__ import annotations

from .dice import MAX_ROWS, odds_json, odds_text, roll_json, sample_text, shown_rows

__all__ = ["MAX_ROWS", "odds_json", "odds_text", "roll_json", "sample_text", "shown_rows"]
