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
from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from .errors import DiceEvalError, DiceLimitError, RefereeError

__all__ = [
    "CappedSource",
    "RandomSource",
    "RecordingSource",
    "ReplaySource",
    "SeededSource",
    "SystemSource",
    "default_source",
    "resolve",
    "seeded",
]

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


def resolve(rng: RandomSource | None) -> RandomSource:
    """The source to draw from: ``rng``, or this thread's secure source when it is None.

    Every rule function takes ``rng=None`` and calls this once: the one place a
    default source is chosen.
    """
    return default_source() if rng is None else rng


class RecordingSource:
    """A source that keeps every draw of another, in order, as ``(n, value + 1)``.

    ``value + 1`` is the face a dN shows (1..n), as the rooms' log records draws.
    Every draw is kept: rerolled faces, each die of an explosion, tie-breaks.

    >>> from referee import roll
    >>> rec = RecordingSource(seeded(1))
    >>> roll("2d6", rng=rec).total == sum(v for _, v in rec.draws)
    True
    """

    __slots__ = ("_draws", "_source")

    def __init__(self, source: RandomSource | None = None) -> None:
        self._source = resolve(source)
        self._draws: list[tuple[int, int]] = []

    def randbelow(self, n: int) -> int:
        """A draw from the wrapped source, recorded."""
        value = self._source.randbelow(n)
        self._draws.append((n, value + 1))
        return value

    @property
    def draws(self) -> tuple[tuple[int, int], ...]:
        """Every draw so far, as ``(n, value)`` with value in 1..n."""
        return tuple(self._draws)


class CappedSource:
    """A source that refuses to draw more than ``most`` times from another.

    Rerolls and explosions count, as every draw does: a bot or a game room caps
    what one command may cost with it (see :class:`referee.commands.CommandLimits`).

    >>> from referee import roll
    >>> roll("3d6", rng=CappedSource(seeded(1), 2))
    Traceback (most recent call last):
    referee.errors.DiceLimitError: a command here may draw at most 2 dice; this one draws more
    """

    __slots__ = ("_left", "_source", "most")

    def __init__(self, source: RandomSource | None, most: int) -> None:
        self._source = resolve(source)
        self._left = most
        self.most = most
        """The most draws allowed."""

    def randbelow(self, n: int) -> int:
        """A draw from the wrapped source, or :class:`~referee.errors.DiceLimitError`
        once ``most`` draws were made."""
        self._left -= 1
        if self._left < 0:
            raise DiceLimitError(
                f"a command here may draw at most {self.most:,} dice; this one draws more"
            )
        return self._source.randbelow(n)


class ReplaySource:
    """A source that gives back recorded draws, in order, and checks each ``n``.

    Raises :class:`~referee.errors.RefereeError` when a draw asks for another
    ``n`` than was recorded, or for more draws than there are.

    >>> from referee import roll
    >>> roll("2d6", rng=ReplaySource([(6, 3), (6, 4)])).total
    7
    """

    __slots__ = ("_draws", "_pos")

    def __init__(self, draws: Iterable[Sequence[int]]) -> None:
        self._draws = [(int(n), int(value)) for n, value in draws]
        self._pos = 0

    def randbelow(self, n: int) -> int:
        """The next recorded draw, as ``value - 1``."""
        if self._pos >= len(self._draws):
            raise RefereeError(f"draw {self._pos + 1} (from {n}) was not recorded")
        want, value = self._draws[self._pos]
        if want != n or not 1 <= value <= n:
            raise RefereeError(
                f"draw {self._pos + 1} was recorded as [{want}, {value}], "
                f"but the roll draws from {n}"
            )
        self._pos += 1
        return value - 1

    @property
    def used(self) -> int:
        """How many draws were given back."""
        return self._pos

    @property
    def left(self) -> int:
        """How many recorded draws were not used."""
        return len(self._draws) - self._pos
