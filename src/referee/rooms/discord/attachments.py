"""What an attachment must be before the bot fetches it: text (TOML or JSON), by the
content type Discord gives it and by its name. An image, or a program (``x.exe`` sent
as ``application/x-msdownload``), is refused with no byte fetched; what is fetched is
then read within the bounds of every file a user sends (:mod:`referee.untrusted`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .calls import Refusal

__all__ = ["EXTENSIONS", "TEXT_TYPES", "refuse_unless_text"]

TEXT_TYPES = frozenset(
    {"application/json", "application/toml", "application/x-toml", "application/octet-stream"}
)
"""Content types taken besides ``text/*``: JSON and TOML, and what Discord gives a file
whose name it does not know (``.gcs``); the name must then be a text file's."""
EXTENSIONS = frozenset({"", "toml", "json", "gcs", "txt"})
"""The names' endings taken (none at all, too)."""


def refuse_unless_text(found: Mapping[str, Any]) -> None:
    """Refuse an attachment (Discord's ``resolved.attachments`` entry) that is not a
    text file by its content type or its name.

    >>> refuse_unless_text({"filename": "dai.toml", "content_type": "text/plain; charset=utf-8"})
    >>> refuse_unless_text({"filename": "Dai.gcs"})
    >>> refuse_unless_text({"filename": "x.exe", "content_type": "application/x-msdownload"})
    Traceback (most recent call last):
    ...
    referee.rooms.discord.calls.Refusal: x.exe is application/x-msdownload, not a text file: ...

    Raises:
        Refusal: not text, naming what it is.
    """
    name = str(found.get("filename") or "")[:100]
    kind = found.get("content_type")
    base = kind.split(";", 1)[0].strip().lower() if isinstance(kind, str) else ""
    ending = name.rsplit(".", 1)[1].lower() if "." in name else ""
    textual = not base or base.startswith("text/") or base in TEXT_TYPES
    if kind is not None and not isinstance(kind, str):
        textual = False
    if not textual or ending not in EXTENSIONS:
        what = base[:60] if base and not textual else f"a .{ending[:20]} file"
        raise Refusal(
            f"{name or 'the file'} is {what}, not a text file: attach a TOML or JSON file "
            "(.toml, .json, .gcs)"
        )
