"""Reading a user's ladder file (TOML or JSON) and finding a ladder by name or path.

Source: as :mod:`.ladder`. This is the only place that opens a file for a
ladder; the engine builds ladders from data (:func:`.ladder.ladder_from_data`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...errors import RuleError
from .ladder import _ALIASES, LADDERS, PSI_PUNK, Ladder, ladder_from_data

__all__ = ["get_ladder", "load_ladder"]


def get_ladder(name_or_path: str | Path | None) -> Ladder:
    """A shipped ladder by name (``psi-punk``, ``fate-core``), or a user's file; None is Psi-punk.

    Raises:
        RuleError: an unknown name that is not a file, or a malformed file.
    """
    if name_or_path is None:
        return PSI_PUNK
    key = str(name_or_path).strip().casefold()
    key = _ALIASES.get(key, key)
    if key in LADDERS:
        return LADDERS[key]
    path = Path(name_or_path)
    if path.suffix.lower() in (".toml", ".json") or path.exists():
        return load_ladder(path)
    raise RuleError(
        f"unknown ladder {str(name_or_path)!r}: use psi-punk, fate-core, or a .toml/.json file"
    )


def load_ladder(path: str | Path) -> Ladder:
    """Read a ladder from a TOML or JSON file. The format (TOML shown; JSON has the same keys)::

        name = "My game"
        traits = ["Poor", "Superb"]        # optional: lowest and highest trait
        default_difficulty = "Fair"        # optional: Fair, else the 0 level, else the lowest
        degrees = "number"                 # optional: number, ladder (names) or fate
        [levels]                           # names and consecutive integer values
        Superb = 3
        Great = 2
        ...

    Raises:
        RuleError: the file is missing or malformed; the message names the file,
            the line and the field.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleError(f"cannot read ladder file {str(path)!r}: {exc}") from None
    where = str(path)
    data: Any
    from ...untrusted import UntrustedFileError, check_bounds

    try:  # every file a user sends is bounded before it is parsed
        check_bounds(text.encode(), "json" if path.suffix.lower() == ".json" else "toml",
                     "a ladder file")  # fmt: skip
    except UntrustedFileError as exc:
        raise RuleError(f"{where}: {exc}") from None
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RuleError(f"{where}, line {exc.lineno}: not valid JSON: {exc.msg}") from None
    else:
        import tomllib  # here: ``referee fudge roll Good`` reads no file (issue 74)

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise RuleError(f"{where}: not valid TOML: {exc}") from None
    return ladder_from_data(data, text, where)
