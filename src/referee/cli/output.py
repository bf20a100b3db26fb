"""Printing results and errors: one line for an error, the text or the JSON for a result.

Light on purpose: the fast path of ``referee roll`` uses it without typer.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from ..commands.result import Reply
from ..errors import RefereeError

__all__ = ["emit", "error_text"]


def error_text(exc: RefereeError) -> str:
    """One line naming the problem, plus the expression and a caret under its column."""
    text = getattr(exc, "text", "")
    column = getattr(exc, "column", None)
    line = f"error: {exc}"
    if text and column is not None and len(text) <= 200:
        shown = text.replace("\r", " ").replace("\n", " ").replace("\t", " ")
        line += f"\n  {shown}\n  {' ' * (column - 1)}^"
    return line


def _items(data: Any) -> list[Any]:
    return list(data) if isinstance(data, list) else [data]


def emit(replies: Sequence[Reply], as_json: bool, secret: bool | None = None) -> None:
    """Print replies: their text, or their JSON (one object, or a list of several).

    ``secret`` (for rolling commands) marks a GM's secret roll: the text says so,
    and each JSON object carries ``"secret"``.
    """
    if as_json:
        items = [item for r in replies for item in _items(r.data)]
        if secret is not None:
            items = [{**item, "secret": secret} for item in items]
        out = items[0] if len(items) == 1 else items
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        return
    for r in replies:
        text = f"(secret) {r.text}" if secret else r.text
        sys.stdout.write(text + "\n")
