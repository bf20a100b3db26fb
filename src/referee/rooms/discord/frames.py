"""The gateway's frames, read so that one the bot cannot read is skipped, not fatal.

hikari reads each frame with one JSON decoder and trusts what it gets: a dispatch
(op 0) whose data is not an object (``"d": null``, ``"d": []``), for any event name,
makes its payload event raise (``mappingproxy() argument must be a mapping``), and a
frame that is not JSON, or not an object, raises in its reader; either ends the
shard, and with it ``referee discord run``. :class:`Frames` is the decoder the bot's
shard is given instead: it passes every frame hikari can read as it is, and turns
one it cannot read into a frame hikari ignores, with one line in the bot's log. A
skipped dispatch keeps its sequence number, so a RESUME does not ask for it again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

__all__ = ["DISPATCH", "Frames", "SKIPPED"]

log = logging.getLogger(__name__)

DISPATCH = 0
SKIPPED = "REFEREE_SKIPPED_FRAME"
"""The event name a skipped dispatch is passed on under: no listener has it, and
hikari drops an event it has no consumer for."""
_IGNORED = {"op": -1, "d": None}
"""An opcode no gateway sends: hikari ignores it."""


class Frames:
    """A JSON decoder for the gateway's frames (hikari's ``loads``) that skips, and
    logs once each, the frames that it cannot read."""

    def __init__(self, loads: Callable[[Any], Any]) -> None:
        self.loads = loads
        self.seq: int | None = None
        """The last dispatch's sequence number: a skipped frame keeps it."""
        self.skipped = 0
        """Frames skipped so far."""

    def __call__(self, data: Any) -> dict[str, Any]:
        try:
            frame = self.loads(data)
        except ValueError:  # json's and orjson's decode errors are ValueErrors
            return self._skip(f"a frame that is not JSON ({_start(data)})")
        if not isinstance(frame, dict):
            return self._skip(f"a frame that is not a JSON object ({_start(data)})")
        op = frame.get("op")
        if not isinstance(op, int) or isinstance(op, bool):
            return self._skip(f"a frame with no opcode ({_start(data)})")
        if op != DISPATCH:
            return frame
        name, seq, body = frame.get("t"), frame.get("s"), frame.get("d")
        numbered = isinstance(seq, int) and not isinstance(seq, bool)
        if numbered:
            self.seq = seq
        if isinstance(name, str) and numbered and isinstance(body, dict):
            return frame
        what = f"a dispatch {str(name)[:40]!r} (sequence {str(seq)[:20]}) whose data is "
        return self._skip(what + _kind(body))

    def _skip(self, what: str) -> dict[str, Any]:
        self.skipped += 1
        log.warning("referee discord: skipped %s from Discord's gateway; the session goes on", what)
        if self.seq is None:
            return dict(_IGNORED)
        return {"op": DISPATCH, "t": SKIPPED, "s": self.seq, "d": {}}


def _kind(value: Any) -> str:
    """What a dispatch's data is, when it is not an object.

    >>> _kind(None), _kind([]), _kind("x")
    ('null', 'a list', 'a string')
    """
    if value is None:
        return "null"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    return "not an object"


def _start(data: Any) -> str:
    """The frame's first characters, as the log shows them.

    >>> _start(b"not json at all, and then some more words that go on and on")
    "'not json at all, and then some more word…'"
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes | bytearray) else str(data)
    return repr(text[:40] + ("…" if len(text) > 40 else ""))
