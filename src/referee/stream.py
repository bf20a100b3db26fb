"""The rooms' fairness stream: dice drawn from HMAC-SHA256 of a committed seed.

The rooms' contract (docs/reference/rooms-contract.md, "Randomness: commit, mix, reveal"):
a roll's stream is the blocks ``HMAC-SHA256(key=seed,
msg=f"v1:{room}:{epoch}:{seq}:{roller}:{mix}:{i}")`` for i = 0, 1, 2, ...; each
32-byte block gives four big-endian unsigned 64-bit integers, in order. To
draw from n: ``limit = 2**64 - 2**64 % n``; take the next x; skip it if
``x >= limit``; otherwise the draw is ``x % n + 1`` (here ``randbelow`` returns
``x % n``, and the face shown is one more, as for every source).

:class:`HmacStream` is a :class:`referee.rng.RandomSource` like any other, so
the same engine code rolls in rooms, on the command line and in tests.
"""

from __future__ import annotations

import hashlib
import hmac
import json

__all__ = ["HmacStream", "commitment", "mix"]

_TWO64 = 1 << 64


class HmacStream:
    """The stream of one roll (one room, epoch, seq and roller, under one mix).

    >>> s = HmacStream(bytes(range(32)), "room42", 1, 0, "p:alice", "0" * 64)
    >>> 0 <= s.randbelow(6) < 6
    True
    """

    __slots__ = ("_block", "_key", "_msg", "_pending", "drawn")

    def __init__(self, seed: bytes, room: str, epoch: int, seq: int, roller: str, mix: str) -> None:
        self._key = seed
        self._msg = f"v1:{room}:{epoch}:{seq}:{roller}:{mix}:"
        self._block = 0
        self._pending: list[int] = []
        self.drawn = 0
        """How many 64-bit integers were taken, rejected ones included."""

    def _next(self) -> int:
        if not self._pending:
            mac = hmac.new(self._key, f"{self._msg}{self._block}".encode(), hashlib.sha256)
            raw = mac.digest()
            self._block += 1
            self._pending = [int.from_bytes(raw[i : i + 8], "big") for i in (24, 16, 8, 0)]
        self.drawn += 1
        return self._pending.pop()

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, by the contract's rejection rule."""
        if not 1 <= n <= _TWO64:
            raise ValueError(f"cannot draw from {n}")
        limit = _TWO64 - _TWO64 % n
        while True:
            x = self._next()
            if x < limit:
                return x % n


def commitment(seed: bytes) -> str:
    """What an epoch entry logs of a server seed: its sha256, as hex.

    >>> commitment(bytes(range(32)))
    '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd'
    """
    return hashlib.sha256(seed).hexdigest()


def mix(seeds: dict[str, str]) -> str:
    """The mix of an epoch's client seeds: sha256 of the canonical JSON list of
    ``[member, seed]`` pairs sorted by member.

    >>> mix({})
    '4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945'
    """
    pairs = [[k, v] for k, v in sorted(seeds.items())]
    canon = json.dumps(pairs, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canon.encode()).hexdigest()
