"""The rooms' log as the contract defines it (docs/reference/rooms-contract.md, "The log").

Pure functions, no I/O: the canonical form of an entry, its digest and chain
link, what each member may see of it (:func:`view`, the one function every
path goes through), and the checks a digested entry must pass (no floats,
integers within ±(2⁵³ − 1), ASCII keys).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
import time
from collections.abc import Callable, Collection, Mapping
from datetime import UTC, datetime
from typing import Any

import orjson

from ..errors import RefereeError

__all__ = [
    "FIGHT_KINDS",
    "GENESIS",
    "GM_ONLY_KINDS",
    "Frames",
    "KINDS",
    "REDACTED_KEYS",
    "VISIBILITIES",
    "canon",
    "chain_link",
    "check_digestible",
    "decode",
    "digest",
    "encode",
    "hash_token",
    "new_id",
    "new_salt",
    "new_token",
    "now",
    "outcome",
    "seal",
    "sees_whole",
    "view",
    "ws_frame",
]

GENESIS = "0" * 64
"""The chain before seq 0."""

KINDS = ("room", "join", "epoch", "seed", "lock", "roll", "reveal", "close", "declassify", "sheet",
         "leave", "invite", "archive", "token", "combatant", "change", "turn", "head")  # fmt: skip
"""Every kind of entry."""

FIGHT_KINDS = ("combatant", "change", "turn")
"""The fight's entries (contract v1.2, with v1.3's rule): a ``combatant`` or ``change``
entry with ``"visibility": "gm"`` (a hidden combatant's) is redacted for players as a
secret roll is; every other fight entry is public, whatever roll it came from."""

GM_ONLY_KINDS = (*FIGHT_KINDS, "sheet")
"""Entry kinds that may carry ``"visibility": "gm"``: the fight's, and (contract v1.3,
"The GM's sheets are the GM's") a ``sheet`` entry for a sheet the GM uploaded."""

VISIBILITIES = ("public", "gm", "blind")
"""Who may see a roll: everyone; its roller and the GM; the GM only."""

REDACTED_KEYS = ("room", "seq", "kind", "time", "roller", "by", "visibility", "digest", "chain")
"""What a redacted entry keeps, beside ``"redacted": true`` (a roll has a ``roller``,
a fight's entry a ``by``)."""

MAX_SAFE = 2**53 - 1
"""Integers in a digested entry stay within ±MAX_SAFE (so JSON readers agree)."""


def canon(value: Any) -> bytes:
    """The canonical bytes of a JSON value: sorted keys, no spaces, UTF-8 (RFC 8785 for
    the values a digested entry may hold). Made by orjson, byte for byte what
    ``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
    gives for them (a property test holds it to that), at a tenth of the time.

    >>> canon({"b": [1, None, True], "a": "é"}).decode()
    '{"a":"é","b":[1,null,true]}'
    """
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def encode(value: Any) -> str:
    """An entry, or a member's view of one, as JSON text: its canonical form. It is
    what the store keeps, what a live socket sends and what a POST answers."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def decode(text: str | bytes) -> Any:
    """JSON text (a stored entry) back to its value."""
    return orjson.loads(text)


def digest(entry: Mapping[str, Any]) -> str:
    """sha256 of the canonical entry without its ``digest`` and ``chain``.

    >>> digest({"kind": "note", "room": "room42", "salt": "0" * 32, "seq": 0, "text": "hello"})
    'bf66e71401bdff5b4a7af45dfcdedb458abca913100f56741c8b7360c1aa108a'
    """
    body = {k: v for k, v in entry.items() if k not in ("digest", "chain")}
    return hashlib.sha256(canon(body)).hexdigest()


def chain_link(previous: str, entry_digest: str) -> str:
    """``sha256((previous chain + digest).encode())``; seq 0 follows :data:`GENESIS`.

    >>> chain_link(GENESIS, "bf66e71401bdff5b4a7af45dfcdedb458abca913100f56741c8b7360c1aa108a")
    '336e5701582b0d0d4106b26eff7c2b9d647f073d46f44d14d1c4943dc283b292'
    """
    return hashlib.sha256((previous + entry_digest).encode()).hexdigest()


def seal(entry: dict[str, Any], previous: str) -> dict[str, Any]:
    """The entry with its ``digest`` and ``chain`` added (a new dict)."""
    d = digest(entry)
    return {**entry, "digest": d, "chain": chain_link(previous, d)}


def check_digestible(value: Any, where: str = "entry") -> None:
    """Refuse what a digested entry may not hold: floats, integers beyond ±(2⁵³ − 1),
    non-ASCII keys, or anything that is not JSON.

    Raises:
        ValueError: naming the first offending path.
    """
    if _plain(value):  # the usual case, without the paths: a tenth of the time
        return
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, bool) or v is None or isinstance(v, str):
            continue
        if isinstance(v, int):
            if abs(v) > MAX_SAFE:
                raise ValueError(f"{path} is beyond ±(2**53 - 1)")  # never the value
            continue
        if isinstance(v, float):
            raise ValueError(f"{path} is a float; the log holds no floats")
        if isinstance(v, Mapping):
            for k, item in v.items():
                if not isinstance(k, str) or not k.isascii():
                    raise ValueError(f"{path} has a key that is not ASCII text: {k!r}")
                stack.append((f"{path}.{k}", item))
            continue
        if isinstance(v, (list, tuple)):
            stack.extend((f"{path}[{i}]", item) for i, item in enumerate(v))
            continue
        raise ValueError(f"{path} is not JSON ({type(v).__name__})")


def _plain(value: Any) -> bool:
    """Whether ``value`` is made of plain JSON values only (``dict`` with ASCII ``str``
    keys, ``list``, ``tuple``, ``str``, ``int`` within ±MAX_SAFE, ``bool``, None), by
    their exact types: then :func:`check_digestible` passes it. False means only that
    the careful walk, which names the path, decides (a float, a subclass, a big int)."""
    stack = [value]
    pop, push = stack.pop, stack.append
    while stack:
        v = pop()
        t = type(v)
        if t is str or t is bool or v is None:
            continue
        if t is int:
            if -MAX_SAFE <= v <= MAX_SAFE:
                continue
            return False
        if t is dict:
            for k, item in v.items():
                if type(k) is not str or not k.isascii():
                    return False
                push(item)
            continue
        if t is list or t is tuple:
            stack.extend(v)
            continue
        return False
    return True


def outcome(plan: Callable[[Any], Any], source: Any) -> tuple[Any, str, str | None]:
    """Run a roll's plan on ``source`` for its log entry: ``(result, text, refused)``.

    A roll that fails once its dice are drawn (a limit met while drawing, a rule
    that refuses what was rolled, a result the log cannot hold) is still logged,
    its seq used up, as a *refused* roll: ``result`` is ``{"refused": why}``, the
    text says so, and ``refused`` is ``why``. Its draws are in the entry like any
    roll's, so no answer depends on dice the log does not hold (contract v1.2), and
    ``referee verify`` replays the refusal as it replays a result. ``refused`` is
    None for a roll that went through.
    """
    try:
        reply = plan(source)
        check_digestible(reply.data, "result")
    except RefereeError as exc:
        why = str(exc)
    except ValueError as exc:  # check_digestible: never names a value
        why = f"this command's result cannot be logged: {exc}"
    except (ArithmeticError, RecursionError, MemoryError):
        why = "the engine could not finish this roll"
    else:
        return reply.data, reply.text, None
    return {"refused": why}, f"refused: {why}", why


def view(entry: Mapping[str, Any], member: str, revealed: Collection[int] = ()) -> dict[str, Any]:
    """What ``member`` may see of ``entry``: the one rule for every path (the POST
    answer, the log, the export, the live stream and the page).

    Every kind but ``roll``, the fight's and ``sheet`` (:data:`GM_ONLY_KINDS`) is
    public; one of those with ``"visibility": "gm"`` is the GM's alone (a hidden
    combatant's entries, a sheet the GM uploaded: contract v1.3). A ``public`` roll is
    seen whole by all; a ``gm`` roll by its roller and the GM; a ``blind`` roll by the
    GM only. A roll whose seq is in ``revealed`` is seen whole by all. Anyone else gets
    exactly :data:`REDACTED_KEYS` and ``"redacted": true``.

    >>> e = {"room": "r", "seq": 3, "kind": "roll", "time": "t", "salt": "s", "roller": "gm",
    ...      "visibility": "gm", "text": "1d20 = [16] = 16", "digest": "d", "chain": "c"}
    >>> sorted(view(e, "p:alice"))
    ['chain', 'digest', 'kind', 'redacted', 'roller', 'room', 'seq', 'time', 'visibility']
    >>> view(e, "gm") == e and view(e, "p:alice", revealed={3}) == e
    True
    """
    if sees_whole(entry, member, revealed):
        return dict(entry)
    out = {k: entry[k] for k in REDACTED_KEYS if k in entry}
    out["redacted"] = True
    return out


def sees_whole(entry: Mapping[str, Any], member: str, revealed: Collection[int] = ()) -> bool:
    """Whether :func:`view` gives ``member`` the whole ``entry`` (else, its redacted form)."""
    kind = entry.get("kind")
    visibility = entry.get("visibility")
    if kind in GM_ONLY_KINDS:
        return visibility != "gm" or member == "gm"
    if kind != "roll" or entry.get("seq") in revealed:
        return True
    return (
        visibility == "public"
        or member == "gm"
        or (visibility == "gm" and member == entry.get("roller"))
    )


_SECOND: tuple[int, str] = (-1, "")
"""The last whole second :func:`now` formatted, and its text up to the seconds."""


def now() -> str:
    """The time now as the log writes it: ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (UTC). The
    text up to the seconds is formatted once a second (``strftime`` was a few percent
    of a roll's CPU under load).

    >>> len(now()), now()[10], now()[19], now()[-1]
    (27, 'T', '.', 'Z')
    """
    global _SECOND
    seconds, micros = divmod(time.time_ns() // 1000, 1_000_000)
    second, text = _SECOND
    if second != seconds:
        text = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.")
        _SECOND = (seconds, text)
    return f"{text}{micros:06d}Z"


_SALTS: list[str] = []
_SALTS_LOCK = threading.Lock()
os.register_at_fork(after_in_child=_SALTS.clear)  # never a salt shared with a child


def new_salt() -> str:
    """16 random bytes as lowercase hex: from the OS's secure generator, read 4 KiB at a
    time (one system call a salt cost a batch's thread a release of the interpreter
    lock each, and under load a wait to take it back, issue 51)."""
    with _SALTS_LOCK:
        if not _SALTS:
            raw = secrets.token_hex(16 * 256)
            _SALTS.extend(raw[i : i + 32] for i in range(0, len(raw), 32))
        return _SALTS.pop()


def new_id() -> str:
    """A room id: 128 random bits, URL-safe (``A-Z a-z 0-9 _ -``)."""
    return secrets.token_urlsafe(16)


def new_token() -> str:
    """A member's secret (256 random bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """What the server stores of a token: its sha256, as hex. Tokens are 256 random
    bits, so a fast hash is enough: there is nothing to guess from."""
    return hashlib.sha256(token.encode()).hexdigest()


def ws_frame(text: str) -> bytes:
    """``text`` as one unmasked WebSocket text frame (RFC 6455 §5.2), as a server sends
    it: the same bytes for every socket.

    >>> ws_frame("hi")
    b'\\x81\\x02hi'
    """
    payload = text.encode()
    n = len(payload)
    if n < 126:
        head = bytes((0x81, n))
    elif n < 1 << 16:
        head = bytes((0x81, 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x81, 127)) + n.to_bytes(8, "big")
    return head + payload


class Frames:
    """Entries already encoded, as members see them: whole or redacted (:func:`view`
    gives every member one of these two), encoded once for every socket that sends
    them and every answer. Entries never change, so neither do their texts; the whole
    form of a stored entry is its stored text (:func:`encode`), kept here by the store
    as it writes and reads them (:meth:`whole`). Each text's WebSocket frame
    (:func:`ws_frame`) is made once too, for every live socket (:meth:`frame`)."""

    def __init__(self, most: int = 4096) -> None:
        self.most = most
        self._texts: dict[tuple[str, int, bool], str] = {}
        self._frames: dict[tuple[str, int, bool], bytes] = {}

    def frame(self, entry: Mapping[str, Any], member: str, revealed: Collection[int]) -> bytes:
        """``ws_frame(self.text(entry, member, revealed))``, made once per form."""
        key = (entry["room"], entry["seq"], sees_whole(entry, member, revealed))
        found = self._frames.get(key)
        if found is None:
            found = self._frames[key] = ws_frame(self.text(entry, member, revealed))
            if len(self._frames) > self.most:
                del self._frames[next(iter(self._frames))]  # the oldest
        return found

    def text(self, entry: Mapping[str, Any], member: str, revealed: Collection[int]) -> str:
        """``encode(view(entry, member, revealed))``, encoded once per form."""
        key = (entry["room"], entry["seq"], sees_whole(entry, member, revealed))
        found = self._texts.get(key)
        if found is None:
            found = encode(view(entry, member, revealed))
            self._keep(key, found)
        return found

    def whole(self, entry: Mapping[str, Any], text: str) -> None:
        """``text`` is ``encode(entry)`` (a committed entry's stored text)."""
        self._keep((entry["room"], entry["seq"], True), text)

    def _keep(self, key: tuple[str, int, bool], text: str) -> None:
        self._texts[key] = text
        if len(self._texts) > self.most:
            del self._texts[next(iter(self._texts))]  # the oldest
