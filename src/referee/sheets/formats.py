"""Reading a sheet's bytes safely: the size, nesting, entry, key and number bounds of
:mod:`referee.untrusted` (every file a user sends, one limit in one place), checked in
one linear pass before any parser runs, and JSON or TOML parsed with the line of any
error, as a :class:`~referee.errors.SheetError`.

Readers never open files (the CLI reads them, as it does ladders); they take bytes.
Any file up to :data:`MAX_BYTES` is answered in well under a second, read or refused,
whatever its shape.
"""

from __future__ import annotations

import re
from typing import Any

from .. import untrusted
from ..errors import SheetError
from ..untrusted import (
    MAX_BYTES,
    MAX_DEPTH,
    MAX_DIGITS,
    MAX_ENTRIES,
    MAX_KEY_PARTS,
    MAX_TOML_BYTES,
    UntrustedFileError,
    kind_of,
)

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_DIGITS",
    "MAX_ENTRIES",
    "MAX_KEY_PARTS",
    "MAX_TOML_BYTES",
    "check_bounds",
    "kind_of",
    "load_json",
    "load_toml",
    "whole_number",
]


def check_bounds(data: bytes, kind: str | None = None) -> None:
    """:func:`referee.untrusted.check_bounds` for a character sheet.

    >>> check_bounds(b'{"a": [[[1]]], "b": "[[[[[[["}')
    >>> for hostile in (b"[" * 100, b"a.b.c.d.e.f.g.h.i = 1", b"x = " + b"9" * 5000):
    ...     try:
    ...         check_bounds(hostile)
    ...     except SheetError as exc:
    ...         print(exc)
    the file nests 100 levels deep (line 1); a character sheet needs at most 40
    the key 'a.b.c.d.e.f.g.h.i' has 9 parts (line 1); a sheet's keys have at most 8
    the file holds a number of 5,000 digits (line 1); a sheet's numbers have at most 100

    Raises:
        SheetError: over a bound, naming the line.
    """
    try:
        untrusted.check_bounds(data, kind)
    except UntrustedFileError as exc:
        raise SheetError(str(exc), exc.line) from None


def load_json(data: bytes) -> Any:
    """JSON, after the bounds (:func:`referee.untrusted.load_json`).

    Raises:
        SheetError: over a bound, or not JSON, naming the line and column.
    """
    try:
        return untrusted.load_json(data)
    except UntrustedFileError as exc:
        raise SheetError(str(exc), exc.line) from None


def load_toml(data: bytes) -> dict[str, Any]:
    """TOML, after the bounds (:func:`referee.untrusted.load_toml`).

    Raises:
        SheetError: over a bound, or not TOML, naming the line.
    """
    try:
        return untrusted.load_toml(data)
    except UntrustedFileError as exc:
        raise SheetError(str(exc), exc.line) from None


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
