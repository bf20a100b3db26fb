"""Random sources for the roller.

A source is anything with ``randbelow(n) -> int`` returning a uniform integer
in ``[0, n)`` (the :class:`RandomSource` protocol). Two are provided:

* :class:`SystemSource`, the default: the operating system's secure source
  (``os.urandom``), read 4 KiB at a time so that a die costs no system call.
* :class:`SeededSource`, from :func:`seeded`: a reproducible stream of bytes
  from SHAKE-256 in counter mode over the seed. The same seed gives the same
  rolls on every machine and Python version, which also makes it a stream a
  game room can commit to now and reveal later.

Both turn bytes into faces by rejection sampling, so there is no modulo bias.
The global :mod:`random` module is never used.
"""

from __future__ import annotations

import hashlib
import os
import threading
from typing import Protocol, runtime_checkable

__all__ = ["RandomSource", "SeededSource", "SystemSource", "default_source", "seeded"]

_CHUNK = 4096


@runtime_checkable
class RandomSource(Protocol):
    """The one method the roller needs from a source of randomness."""

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)``; ``n >= 1``."""
        ...


class _ByteSource:
    """Uniform integers from a buffered stream of random bytes, by rejection."""

    __slots__ = ("_buf", "_pos")

    def __init__(self) -> None:
        self._buf = b""
        self._pos = 0

    def _refill(self) -> bytes:
        raise NotImplementedError

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, with no modulo bias."""
        if n <= 256:
            if n <= 1:
                if n == 1:
                    return 0
                raise ValueError(f"randbelow needs n >= 1, got {n!r}")
            limit = 256 - 256 % n
            buf = self._buf
            pos = self._pos
            while True:
                if pos >= len(buf):
                    buf = self._buf = self._refill()
                    pos = 0
                b = buf[pos]
                pos += 1
                if b < limit:
                    self._pos = pos
                    return b % n
        width = (n.bit_length() + 7) // 8
        span = 1 << (8 * width)
        limit = span - span % n
        while True:
            pos = self._pos
            if pos + width > len(self._buf):
                self._buf = self._refill()
                pos = 0
            self._pos = pos + width
            value = int.from_bytes(self._buf[pos : pos + width], "little")
            if value < limit:
                return value % n


class SystemSource(_ByteSource):
    """The operating system's secure random source, buffered 4 KiB at a time."""

    __slots__ = ()

    def _refill(self) -> bytes:
        return os.urandom(_CHUNK)


class SeededSource(_ByteSource):
    """A reproducible stream: SHAKE-256 of the seed and a block counter."""

    __slots__ = ("_counter", "_key", "seed")

    def __init__(self, seed: int | str | bytes) -> None:
        super().__init__()
        self.seed = seed
        """The seed this stream was made from."""
        if isinstance(seed, bytes):
            material = b"b:" + seed
        elif isinstance(seed, str):
            material = b"s:" + seed.encode("utf-8")
        elif isinstance(seed, int) and not isinstance(seed, bool):
            material = b"i:" + str(seed).encode("ascii")
        else:
            raise TypeError(f"a seed is an int, str or bytes, not {type(seed).__name__}")
        self._key = b"referee-seed-v1\x00" + material
        self._counter = 0

    def _refill(self) -> bytes:
        block = self._counter.to_bytes(8, "little")
        self._counter += 1
        return hashlib.shake_256(self._key + block).digest(_CHUNK)

    def __repr__(self) -> str:
        return f"seeded({self.seed!r})"


def seeded(seed: int | str | bytes) -> SeededSource:
    """A reproducible random source: the same seed always gives the same rolls.

    >>> from referee import roll
    >>> roll("3d6", rng=seeded(42)).total == roll("3d6", rng=seeded(42)).total
    True
    """
    return SeededSource(seed)


def numpy_seed(seed: int | str | bytes | None) -> int | None:
    """A seed numpy accepts, from any seed referee accepts (the same seed, the same stream).

    Non-negative integers pass through unchanged; negative integers, strings and
    bytes are hashed (SHA-256) to a 128-bit integer. None stays None (numpy then
    seeds from the operating system).

    >>> numpy_seed(7), numpy_seed(-1) == numpy_seed(-1) != numpy_seed(1)
    (7, True)

    Raises:
        DiceEvalError: a seed of another type.
    """
    if seed is None or (isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0):
        return seed
    if isinstance(seed, int) and not isinstance(seed, bool):
        seed = f"int:{seed}"
    if isinstance(seed, str):
        seed = seed.encode()
    if not isinstance(seed, bytes):
        from .errors import DiceEvalError

        raise DiceEvalError(f"a seed must be an integer, a string or bytes, not {seed!r}")
    return int.from_bytes(hashlib.sha256(seed).digest()[:16], "big")


_local = threading.local()


def default_source() -> SystemSource:
    """This thread's secure system source (buffers are never shared between threads)."""
    try:
        src: SystemSource = _local.source
    except AttributeError:
        src = _local.source = SystemSource()
    return src
