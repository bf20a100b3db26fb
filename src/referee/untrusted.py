"""Every file a user sends, bounded before it is parsed: a character sheet (GCS, TOML,
Foundry's JSON) on the command line, a room's page, its API or Discord's ``/sheet``,
and an encounter for ``gurps simulate`` and ``swn simulate`` (Discord's attachments
included). One limit, one place: its size, nesting, entries, numbers and dotted keys
are checked in one linear pass over the bytes before any parser runs, and JSON or
TOML parsed then with the line of any error.

Every bound is checked by regular expressions and C-level passes over the bytes
(tomllib, pure Python, is quadratic in a dotted key's parts and recursive in a
nesting's depth; Python's ``int`` refuses numbers over 4,300 digits). A 20 KB file
of one dotted key (``a.a.a...a = 1``) took tomllib 6.3 s and 559 MB, and a 100 KB one
over 8.5 GB, before these bounds; deep arrays raised ``RecursionError``. Within them,
any file is answered, read or refused, in well under a second and a few tens of MB:
the time and memory of a parse are bounded by the size, the nesting, the entries and
the key parts together (``tests/test_untrusted_files.py`` measures both, in a child).
"""

from __future__ import annotations

import json
import re
import tomllib
from itertools import accumulate, compress, count, islice
from typing import Any

from .errors import RefereeError

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_DIGITS",
    "MAX_ENTRIES",
    "MAX_KEY_PARTS",
    "MAX_TOML_BYTES",
    "UntrustedFileError",
    "check_bounds",
    "kind_of",
    "load_json",
    "load_toml",
]

MAX_BYTES = 5 * 1024 * 1024
"""Largest file read (5 MiB): GCS files with portraits are 20-200 KiB."""
MAX_TOML_BYTES = 256 * 1024
"""Largest TOML file (256 KiB): TOML sheets and encounters are written by hand (the
examples are under 2 KiB), and tomllib, pure Python, reads the densest TOML at about
1.5 MB a second."""
MAX_DEPTH = 40
"""Deepest nesting of arrays and tables: real GCS files reach 15 (648 files of GCS's
own master library, measured), TOML sheets and encounters 3."""
MAX_KEY_PARTS = 8
"""Most parts of a dotted TOML key or table header (``a.b.c`` has 3): a sheet's and an
encounter's keys have 1 or 2. tomllib's time grows with the square of a key's parts."""
MAX_DIGITS = 100
"""Most digits in a number: a sheet's numbers have a few (GCS floats 17, Foundry's
timestamps 13); Python refuses to read an integer of over 4,300."""
MAX_ENTRIES = 200_000
"""Most entries (keys, array items and tables, counted by their separators) in one
file: the largest GCS file here has under 7,000; 200,000 empty objects are about 13
MB once parsed."""

_BLANK = bytes(b if b == ord("\n") else ord("s") for b in range(256))
"""Every byte but a newline as ``s``: text blanked out, its lines and length kept."""
_JSON_NOISE = re.compile(rb'"[^"\\\n]*(?:\\.[^"\\\n]*)*"?')
"""A JSON string (an unclosed one ends at its line: the pattern never fails once it
starts, so no start is scanned twice)."""
_TOML_NOISE = re.compile(
    rb'"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*(?:""""{0,2})?'
    rb"|'''[^']*(?:'(?!'')[^']*)*(?:''''{0,2})?"
    rb'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?'
    rb"|'[^'\n]*'?"
    rb"|#[^\n]*"
)
"""TOML's strings (multi-line ones first) and comments, unclosed ones included."""
_BRACKETS = re.compile(rb"[\[\]{}]")
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
"""A bracket as the change of depth it makes (-1 as the signed byte 0xff)."""
_ENTRY = re.compile(rb"[,=:\[{]")
"""What each entry has one of (a separator, an assignment, an opening bracket)."""
_LONG_NUMBER = re.compile(rb"(?<![\d_])\d(?:_*\d){%d}[\d_]*" % MAX_DIGITS)
"""A number of over :data:`MAX_DIGITS` digits (TOML's may hold underscores), from its start."""
_ENDS = rb"\n,=\[\]{}"
"""What ends a TOML key: a key is the text between two of these, its parts split by dots."""
_LONG_KEY = re.compile(rb"(?<![^%s])(?:[^%s.]*\.){%d}" % (_ENDS, _ENDS, MAX_KEY_PARTS))
_KEY_END = re.compile(rb"[%s]" % _ENDS)


class UntrustedFileError(RefereeError):
    """A file a user sent that is not read: over a bound, or not valid JSON or TOML.
    The message names what is wrong and, where it can, the line."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line
        """1-based line of the problem in the file, when it has one."""


def _line(text: bytes, at: int) -> int:
    return text.count(b"\n", 0, at) + 1


def _check_depth(text: bytes, what: str) -> None:
    """Nesting of brackets, by C-level passes: the deepest level, then (when too deep)
    where it first goes too deep."""
    steps = memoryview(text.translate(_STEPS, _NOT_BRACKETS)).cast("b")
    deepest = max(accumulate(steps), default=0)
    if deepest <= MAX_DEPTH:
        return
    over = map((MAX_DEPTH + 1).__eq__, accumulate(steps))
    nth = next(compress(count(), over))
    line = _line(text, next(islice(_BRACKETS.finditer(text), nth, None)).start())
    raise UntrustedFileError(
        f"the file nests {deepest} levels deep (line {line}); {what} needs at most {MAX_DEPTH}",
        line,
    )


def _check_entries(text: bytes, what: str) -> None:
    entries = sum(text.count(c) for c in b",=:[{")
    if entries > MAX_ENTRIES:
        found = next(islice(_ENTRY.finditer(text), MAX_ENTRIES, None))
        line = _line(text, found.start())
        raise UntrustedFileError(
            f"the file holds over {MAX_ENTRIES:,} entries (line {line}); {what} needs far fewer",
            line,
        )


def _check_numbers(text: bytes, what: str) -> None:
    found = _LONG_NUMBER.search(text)
    if found:
        line = _line(text, found.start())
        digits = len(found.group()) - found.group().count(b"_")
        raise UntrustedFileError(
            f"the file holds a number of {digits:,} digits (line {line}); "
            f"{_owner(what)} numbers have at most {MAX_DIGITS}",
            line,
        )


def _check_keys(text: bytes, data: bytes, what: str) -> None:
    found = _LONG_KEY.search(text)
    if found:
        end = _KEY_END.search(text, found.start())
        stop = len(text) if end is None else end.start()
        parts = text.count(b".", found.start(), stop) + 1
        key = data[found.start() : min(stop, found.start() + 40)].decode("utf-8", "replace")
        shown = key.strip() + ("..." if stop - found.start() > 40 else "")
        line = _line(text, found.start())
        raise UntrustedFileError(
            f"the key {shown!r} has {parts:,} parts (line {line}); "
            f"{_owner(what)} keys have at most {MAX_KEY_PARTS}",
            line,
        )


def _noun(what: str) -> str:
    """``sheet`` from ``a character sheet``; ``encounter`` from ``an encounter``."""
    return what.rsplit(" ", 1)[-1]


def _owner(what: str) -> str:
    """``a sheet's`` from ``a character sheet``; ``an encounter's`` from ``an encounter``."""
    return "a sheet's" if what.endswith("sheet") else f"{what}'s"


def check_bounds(data: bytes, kind: str | None = None, what: str = "a character sheet") -> None:
    """Refuse a file that is too large, nested deeper than a real one, holding more
    entries, or a number or a dotted key longer, before it is parsed: a deep file would
    exhaust a recursive parser, a long number Python's ``int``, and a long dotted key
    would take tomllib minutes and gigabytes. Strings and comments are skipped; the
    pass is linear. ``kind`` is the file's (``json``, ``toml``; by default
    :func:`kind_of`'s); ``what`` names the file in the messages.

    >>> check_bounds(b'{"a": [[[1]]], "b": "[[[[[[["}')
    >>> for hostile in (b"[" * 100, b"a.b.c.d.e.f.g.h.i = 1", b"x = " + b"9" * 5000):
    ...     try:
    ...         check_bounds(hostile, what="an encounter")
    ...     except UntrustedFileError as exc:
    ...         print(exc)
    the file nests 100 levels deep (line 1); an encounter needs at most 40
    the key 'a.b.c.d.e.f.g.h.i' has 9 parts (line 1); an encounter's keys have at most 8
    the file holds a number of 5,000 digits (line 1); an encounter's numbers have at most 100

    Raises:
        UntrustedFileError: over :data:`MAX_BYTES` (a TOML file over
            :data:`MAX_TOML_BYTES`), nested over :data:`MAX_DEPTH`, over
            :data:`MAX_ENTRIES` entries, a number over :data:`MAX_DIGITS` digits, or a
            TOML key of over :data:`MAX_KEY_PARTS` parts; naming the line.
    """
    if len(data) > MAX_BYTES:
        raise UntrustedFileError(
            f"the file is {len(data):,} bytes; {what} may be at most {MAX_BYTES:,}"
        )
    kind = kind or kind_of(data)
    if kind == "toml":
        if len(data) > MAX_TOML_BYTES:
            raise UntrustedFileError(
                f"the file is {len(data):,} bytes; a TOML {_noun(what)} may be at most "
                f"{MAX_TOML_BYTES:,} (a GCS file or a Foundry export may be larger)"
            )
        text = _TOML_NOISE.sub(lambda found: found.group().translate(_BLANK), data)
    elif kind == "json":
        text = _JSON_NOISE.sub(b"s", data)  # a JSON string never spans lines
    else:
        return
    _check_depth(text, what)
    _check_entries(text, what)
    _check_numbers(text, what)
    if kind == "toml":
        _check_keys(text, data, what)


def kind_of(data: bytes) -> str:
    """What the bytes look like: ``xml``, ``json`` or ``toml`` (by their first character).

    >>> kind_of(b'  {"version": 5}'), kind_of(b"<?xml ...?>"), kind_of(b'name = "Ron"')
    ('json', 'xml', 'toml')
    """
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return {b"<": "xml", b"{": "json"}.get(head, "toml")


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UntrustedFileError(f"the file is not UTF-8 text (line {line})", line) from None


def load_json(data: bytes, what: str = "a character sheet") -> Any:
    """JSON, after :func:`check_bounds`.

    Raises:
        UntrustedFileError: over a bound, or not JSON, naming the line and column.
    """
    check_bounds(data, "json", what)
    try:
        return json.loads(_text(data))
    except json.JSONDecodeError as exc:
        raise UntrustedFileError(
            f"the file is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
            exc.lineno,
        ) from None
    except (ValueError, RecursionError) as exc:  # past the bounds' reach: never a traceback
        raise UntrustedFileError(f"the file cannot be read as JSON: {_cut(exc)}") from None


_TOML_WHERE = re.compile(r"\(at line (\d+), column (\d+)\)")


def load_toml(data: bytes | str, what: str = "a character sheet") -> dict[str, Any]:
    """TOML, after :func:`check_bounds`.

    >>> load_toml("a.a.a.a.a.a.a.a.a.a = 1", "an encounter")
    Traceback (most recent call last):
    ...
    referee.untrusted.UntrustedFileError: the key 'a.a.a.a.a.a.a.a.a.a' has 10 parts ...

    Raises:
        UntrustedFileError: over a bound, or not TOML, naming the line.
    """
    raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
    check_bounds(raw, "toml", what)
    try:
        return tomllib.loads(data if isinstance(data, str) else _text(data))
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_WHERE.search(str(exc))
        line = int(found.group(1)) if found else None
        message = _TOML_WHERE.sub("", str(exc)).strip()
        where = f" (line {line}, column {found.group(2)})" if found else ""
        raise UntrustedFileError(f"the file is not valid TOML: {message}{where}", line) from None
    except (ValueError, RecursionError) as exc:  # past the bounds' reach: never a traceback
        raise UntrustedFileError(f"the file cannot be read as TOML: {_cut(exc)}") from None


def _cut(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 100 else text[:97] + "..."
