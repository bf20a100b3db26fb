"""The gateway's frames, read so that one the bot cannot read is skipped, not fatal.

hikari reads each frame with one JSON decoder and trusts what it gets: a dispatch
(op 0) whose data is not an object (``"d": null``, ``"d": []``) makes its payload
event raise (``mappingproxy() argument must be a mapping``); a READY without its
``session_id`` raises ``KeyError`` in the shard, a HELLO without its
``heartbeat_interval`` too, and an event it deserializes (``GUILD_CREATE`` with
``"d": {}``) prints a traceback; a frame that is not JSON, or not an object, raises
in its reader. Each ended the shard, and with it ``referee discord run``.
:class:`Frames` is the decoder the bot's shard is given instead: it passes each
frame whose fields hikari reads are there and of their types, and turns any other
into one hikari ignores (or, for a READY or a HELLO it cannot start from, into a
request to start again), with one line in the bot's log naming why. A skipped
dispatch keeps its sequence number, so a RESUME does not ask for it again.

The bot reads three events, ``READY``, ``RESUMED`` and ``INTERACTION_CREATE``
(it asks for no intents, so Discord sends it little else): any other is passed on
under :data:`SKIPPED`, which nothing reads, and hikari never deserializes it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

__all__ = ["DISPATCH", "Frames", "SKIPPED", "frame_problem"]

log = logging.getLogger(__name__)

DISPATCH, HEARTBEAT, RECONNECT, INVALID_SESSION, HELLO, ACK = 0, 1, 7, 9, 10, 11
OPS = {DISPATCH, HEARTBEAT, RECONNECT, INVALID_SESSION, HELLO, ACK}
"""The opcodes Discord sends a client (the others are the client's own)."""
SKIPPED = "REFEREE_SKIPPED_FRAME"
"""The event name a skipped dispatch is passed on under: no listener has it, and
hikari drops an event it has no consumer for."""
USED = frozenset({"READY", "RESUMED", "INTERACTION_CREATE"})
"""The events the bot reads; any other is passed on under :data:`SKIPPED`."""
_IGNORED = {"op": -1, "d": None}
"""An opcode no gateway sends: hikari ignores it."""
_AGAIN = {"op": INVALID_SESSION, "d": False}
"""INVALID_SESSION, not resumable: hikari connects again and identifies anew."""
_MOST_HEARTBEAT_MS = 10 * 60 * 1000
"""The longest heartbeat interval taken (Discord's is about 41 s)."""


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _text(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= 4096


def _ready_problem(data: dict[str, Any]) -> str | None:
    """What is wrong with a READY's data, for hikari's reading of it, or None.

    >>> _ready_problem({})
    'no session_id'
    >>> _ready_problem({"session_id": "s", "resume_gateway_url": "wss://x", "user": {},
    ...                 "guilds": [], "v": 10})
    'no user.id'
    """
    for key in ("session_id", "resume_gateway_url"):
        if not _text(data.get(key)):
            return f"no {key}"
    user = data.get("user")
    if not isinstance(user, dict):
        return "no user"
    found = user.get("id")
    if not (isinstance(found, str) and found.isdigit() and len(found) <= 20):
        return "no user.id"
    for key in ("username", "discriminator"):
        if not isinstance(user.get(key), str):
            return f"no user.{key}"
    if not isinstance(data.get("guilds"), list):
        return "no guilds list"
    if "v" not in data:
        return "no v"
    return None


def frame_problem(frame: dict[str, Any]) -> str | None:
    """Why hikari could not read ``frame`` (a JSON object), or None when it can.

    >>> frame_problem({"op": 0, "t": None, "s": 3, "d": {}})
    'a dispatch with no event name (sequence 3)'
    >>> frame_problem({"op": 0, "t": "INTERACTION_CREATE", "s": "abc", "d": {}})
    "a dispatch 'INTERACTION_CREATE' whose sequence is not a number ('abc')"
    >>> frame_problem({"op": 9, "d": "yes"})
    'an INVALID_SESSION (op 9) whose data is not true or false'
    >>> frame_problem({"op": 42, "d": {}})
    'a frame with opcode 42, which Discord does not send'
    """
    op = frame.get("op")
    if not isinstance(op, int) or isinstance(op, bool):
        return "a frame with no opcode"
    if op not in OPS:
        return f"a frame with opcode {op}, which Discord does not send"
    body = frame.get("d")
    if op == DISPATCH:
        name, seq = frame.get("t"), frame.get("s")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
            what = f"a dispatch {str(name)[:40]!r}" if isinstance(name, str) else "a dispatch"
            return f"{what} whose sequence is not a number ({str(seq)[:20]!r})"
        if not isinstance(name, str) or not name:
            return f"a dispatch with no event name (sequence {seq})"
        what = f"a dispatch {name[:40]!r} (sequence {seq})"
        if not isinstance(body, dict):
            return f"{what} whose data is {_kind(body)}"
        if name == "READY":
            why = _ready_problem(body)
            return None if why is None else f"{what} whose data has {why}"
        return None
    if op == INVALID_SESSION and not isinstance(body, bool):
        return "an INVALID_SESSION (op 9) whose data is not true or false"
    if op == HELLO:
        beat: Any = body.get("heartbeat_interval") if isinstance(body, dict) else None
        if not (_number(beat) and 0 < beat <= _MOST_HEARTBEAT_MS):
            return "a HELLO (op 10) with no heartbeat_interval of 1 to 600,000 ms"
    return None


class Frames:
    """A JSON decoder for the gateway's frames (hikari's ``loads``) that skips, and
    logs once each, the frames that it cannot read."""

    def __init__(self, loads: Callable[[Any], Any]) -> None:
        self.loads = loads
        self.seq: int | None = None
        """The last dispatch's sequence number: a skipped frame keeps it."""
        self.skipped = 0
        """Frames skipped so far."""
        self._unused: set[str] = set()
        """The events not read that have been named in the log (once each)."""

    def __call__(self, data: Any) -> dict[str, Any]:
        try:
            frame = self.loads(data)
        except ValueError:  # json's and orjson's decode errors are ValueErrors
            return self._skip(f"a frame that is not JSON ({_start(data)})")
        if not isinstance(frame, dict):
            return self._skip(f"a frame that is not a JSON object ({_start(data)})")
        seq = frame.get("s")
        if frame.get("op") == DISPATCH and isinstance(seq, int) and not isinstance(seq, bool):
            self.seq = seq if seq >= 0 else self.seq
        why = frame_problem(frame)
        op, name = frame.get("op"), frame.get("t")
        if why is not None:
            if op == DISPATCH and name == "READY":  # no session to go on with: a new one
                return self._skip(why, "Discord is asked for a new session", dict(_AGAIN))
            if op == HELLO:  # no heartbeat to keep: connect again
                return self._skip(why, "the bot connects again", {"op": RECONNECT, "d": None})
            return self._skip(why)
        if op == DISPATCH and name not in USED:
            name = str(name)
            if name not in self._unused and len(self._unused) < 100:
                self._unused.add(name)
                log.warning("referee discord: passed over the event %r, which referee does "
                            "not read (said once)", str(name)[:40])  # fmt: skip
            return {"op": DISPATCH, "t": SKIPPED, "s": frame["s"], "d": {}}
        return frame

    def _skip(
        self, what: str, then: str = "the session goes on", instead: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        self.skipped += 1
        log.warning("referee discord: skipped %s from Discord's gateway; %s", what, then)
        if instead is not None:
            return instead
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
