"""Printing results and errors: one line for an error, the text or the JSON for a result.

Light on purpose: the fast path of ``referee roll`` uses it without typer.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from ..commands.result import Reply, mark_secret
from ..errors import RefereeError

__all__ = ["color_wanted", "emit", "error_text", "replies_text", "styled"]

_STYLES = (
    (r"(?<!to )\b(success|succeed|hit|holds|penetrates|certain success)\b", "green"),
    (r"(?<!to )\b(failure|fail|miss|breaks|impossible|stopped by DR)\b", "red"),
    (r"\bcritical success\b", "bold green"),
    (r"\bcritical failure\b", "bold red"),
    (r"\bsucceed with style\b", "bold green"),
    (r"\(secret\)", "bold magenta"),
)
"""What colour marks on a terminal: criticals, successes and failures."""


def color_wanted(stream: Any = None) -> bool:
    """Colour only on a terminal, and never with ``NO_COLOR`` set (no-color.org)."""

    stream = sys.stdout if stream is None else stream
    return not os.environ.get("NO_COLOR") and bool(getattr(stream, "isatty", lambda: False)())


def styled(text: str) -> Any:
    """``text`` as a rich Text with criticals, successes and failures coloured."""
    # here, not at the top: 17 ms of start-up otherwise (issue 53)
    from rich.text import Text

    out = Text(text)
    for pattern, style in _STYLES:
        out.highlight_regex(pattern, style)
    return out


def error_text(exc: RefereeError, hint: str = "") -> str:
    """One line naming the problem (and the front end's ``hint``, in parentheses), plus
    the expression and a caret under its column."""
    text = getattr(exc, "text", "")
    column = getattr(exc, "column", None)
    line = f"error: {exc}" + (f" ({hint})" if hint else "")
    if text and column is not None and len(text) <= 200:
        shown = text.replace("\r", " ").replace("\n", " ").replace("\t", " ")
        line += f"\n  {shown}\n  {' ' * (column - 1)}^"
    return line


def _items(data: Any) -> list[Any]:
    return list(data) if isinstance(data, list) else [data]


def replies_text(replies: Sequence[Reply], as_json: bool, secret: bool | None = None) -> str:
    """Replies as one text: their lines, or their JSON (one object, or a list of several).

    ``secret`` (for rolling commands) says whether they are a GM's secret roll: the
    text of a secret one says so, and each JSON object carries ``"secret"``.
    """
    if secret is not None:
        replies = [mark_secret(r, secret) for r in replies]
    if as_json:
        items = [item for r in replies for item in _items(r.data)]
        out = items[0] if len(items) == 1 else items
        return json.dumps(out, ensure_ascii=False)
    return "\n".join(r.text for r in replies)


def emit(replies: Sequence[Reply], as_json: bool, secret: bool | None = None) -> None:
    """Print replies (see :func:`replies_text`), in colour on a terminal."""
    text = replies_text(replies, as_json, secret)
    if as_json or not color_wanted():
        sys.stdout.write(text + "\n")
        return
    # here, not at the top: 26 ms of start-up otherwise (issue 53)
    from rich.console import Console

    console = Console(highlight=False, soft_wrap=True)
    for line in text.split("\n"):
        console.print(styled(line))
