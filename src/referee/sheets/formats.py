"""Reading a sheet's bytes safely: the size and nesting bounds, checked before any
parser runs, and JSON or TOML parsed with the line of any error.

Readers never open files (the CLI reads them, as it does ladders); they take bytes.
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from ..errors import SheetError

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "check_bounds",
    "kind_of",
    "load_json",
    "load_toml",
    "whole_number",
]

MAX_BYTES = 5 * 1024 * 1024
"""Largest sheet file read (5 MiB): GCS files with portraits are 20-200 KiB."""
MAX_DEPTH = 40
"""Deepest nesting of arrays and tables: real GCS files reach 15 (648 files of GCS's
own master library, measured), TOML sheets 3."""

_STRINGS = re.compile(rb'"(?:[^"\\\n]|\\.)*"' + rb"|'[^'\n]*'")
_BRACKETS = re.compile(rb"[\[\]{}]")


def check_bounds(data: bytes) -> None:
    """Refuse a file that is too large, or nested deeper than a real sheet, before it
    is parsed (a deep file would exhaust a recursive parser).

    >>> check_bounds(b'{"a": [[[1]]]}')
    >>> check_bounds(b"[" * 100)
    Traceback (most recent call last):
    referee.errors.SheetError: the file nests 100 levels deep; a character sheet needs at most 40

    Raises:
        SheetError: over :data:`MAX_BYTES`, or nested over :data:`MAX_DEPTH`.
    """
    if len(data) > MAX_BYTES:
        raise SheetError(
            f"the file is {len(data):,} bytes; a character sheet may be at most {MAX_BYTES:,}"
        )
    depth = deepest = 0
    for mark in _BRACKETS.findall(_STRINGS.sub(b"", data)):
        depth += 1 if mark in b"[{" else -1
        deepest = max(deepest, depth)
    if deepest > MAX_DEPTH:
        raise SheetError(
            f"the file nests {deepest} levels deep; a character sheet needs at most {MAX_DEPTH}"
        )


_WHOLE_TEXT = re.compile(r"[+-]?\d{1,9}")


def whole_number(value: Any, *, text: bool = False) -> int | None:
    """A whole number as a parsed file holds one (an integer, or a float with no
    fraction; with ``text``, also a string of digits), else None. ``True`` is not one.

    >>> whole_number(3), whole_number(3.0), whole_number(True), whole_number("3", text=True)
    (3, 3, None, 3)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if text and isinstance(value, str) and _WHOLE_TEXT.fullmatch(value.strip()):
        return int(value.strip())
    return None


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SheetError(f"the file is not UTF-8 text (line {line})", line) from None


def kind_of(data: bytes) -> str:
    """What the bytes look like: ``xml``, ``json`` or ``toml`` (by their first character).

    >>> kind_of(b'  {"version": 5}'), kind_of(b"<?xml ...?>"), kind_of(b'name = "Ron"')
    ('json', 'xml', 'toml')
    """
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return {b"<": "xml", b"{": "json"}.get(head, "toml")


def load_json(data: bytes) -> Any:
    """JSON, after :func:`check_bounds`.

    Raises:
        SheetError: not JSON, naming the line and column.
    """
    check_bounds(data)
    try:
        return json.loads(_text(data))
    except json.JSONDecodeError as exc:
        raise SheetError(
            f"the file is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
            exc.lineno,
        ) from None


_TOML_WHERE = re.compile(r"\(at line (\d+), column (\d+)\)")


def load_toml(data: bytes) -> dict[str, Any]:
    """TOML, after :func:`check_bounds`.

    Raises:
        SheetError: not TOML, naming the line.
    """
    check_bounds(data)
    try:
        return tomllib.loads(_text(data))
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_WHERE.search(str(exc))
        line = int(found.group(1)) if found else None
        message = _TOML_WHERE.sub("", str(exc)).strip()
        where = f" (line {line}, column {found.group(2)})" if found else ""
        raise SheetError(f"the file is not valid TOML: {message}{where}", line) from None
