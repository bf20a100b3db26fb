"""Signed heads (contract v1.5): the server's own Ed25519 key signs the chain's head.

At each ``lock``, ``close`` and ``reveal`` the server logs a ``head`` entry right after
it: the seq and chain link of that entry (``over`` and ``head``), the server's public
key (``key``, hex) and the signature of :func:`signed_bytes` (``signature``, hex). A
forger who rewrites an entry and recomputes every digest and chain link after it cannot
recompute these signatures without the server's private key, which is kept in its
database (:mod:`.db.serverkey`) and never in the log or an export.

Pure functions, no I/O; PyNaCl (libsodium) is imported only when a key is used.

>>> signed_bytes("room42", 7, "ab" * 32)[:24]
b'referee-head:v1:room42:7'
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "SIGNED_KINDS",
    "FINGERPRINT",
    "Signer",
    "check_head",
    "fingerprint",
    "signed_bytes",
]

SIGNED_KINDS = ("lock", "close", "reveal")
"""The entries after which the server logs a signed ``head`` entry."""

FINGERPRINT = re.compile(r"[0-9a-f]{64}")
"""A key's fingerprint, as ``referee verify --key`` takes it: 64 lowercase hex digits."""


def signed_bytes(room: str, seq: int, chain: str) -> bytes:
    """What a ``head`` entry's signature signs: ``referee-head:v1:{room}:{seq}:{chain}``,
    as UTF-8 (the room id and the chain are ASCII), for the entry at ``seq`` whose chain
    link is ``chain``. The room is named so that a head cannot be replayed in another."""
    return f"referee-head:v1:{room}:{seq}:{chain}".encode()


def fingerprint(public: bytes) -> str:
    """A public key's fingerprint: the sha256 of its 32 raw bytes, as lowercase hex."""
    return hashlib.sha256(public).hexdigest()


@dataclass(frozen=True, slots=True)
class Signer:
    """The server's key: its 32-byte private seed and its 32-byte public key."""

    seed: bytes
    """The private key's seed (RFC 8032): never logged, never exported."""
    public: bytes
    """The public key, as ``GET /api/key`` serves it."""

    @classmethod
    def from_seed(cls, seed: bytes) -> Signer:
        """The key whose private seed is ``seed`` (32 bytes)."""
        from nacl.signing import SigningKey

        return cls(seed, bytes(SigningKey(seed).verify_key))

    @classmethod
    def new(cls) -> Signer:
        """A fresh key from the system's secure source (libsodium's)."""
        from nacl.signing import SigningKey

        return cls.from_seed(bytes(SigningKey.generate()))

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public)

    def sign(self, message: bytes) -> bytes:
        """The 64-byte Ed25519 signature of ``message``."""
        from nacl.signing import SigningKey

        return bytes(SigningKey(self.seed).sign(message).signature)

    def head(self, room: str, seq: int, chain: str) -> dict[str, Any]:
        """The fields of the ``head`` entry over the entry at ``seq`` with link ``chain``."""
        return {
            "over": seq,
            "head": chain,
            "key": self.public.hex(),
            "signature": self.sign(signed_bytes(room, seq, chain)).hex(),
        }

    def described(self) -> dict[str, str]:
        """What ``GET /api/key`` answers: the algorithm, the public key and its fingerprint."""
        return {"algorithm": "ed25519", "key": self.public.hex(), "fingerprint": self.fingerprint}


def check_head(entry: Mapping[str, Any]) -> bool:
    """Whether a ``head`` entry's signature is its ``key``'s over its ``over`` and
    ``head`` in its room (whatever key that is: the caller compares the key with the
    one it trusts). A malformed field is a bad signature, never an exception."""
    from nacl.exceptions import CryptoError
    from nacl.signing import VerifyKey

    try:
        key = bytes.fromhex(entry["key"])
        signature = bytes.fromhex(entry["signature"])
        message = signed_bytes(str(entry["room"]), int(entry["over"]), str(entry["head"]))
        VerifyKey(key).verify(message, signature)
    except (CryptoError, KeyError, TypeError, ValueError):  # a bad signature, or a bad field
        return False
    return True
