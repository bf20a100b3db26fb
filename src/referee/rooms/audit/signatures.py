"""The export's signed heads checked (contract v1.5, "Signed heads").

Every ``head`` entry must follow the entry it signs (``over`` is the seq before its
own, ``head`` that entry's chain link as the export holds it: the chain *reaches* the
head) and carry a good Ed25519 signature of :func:`..signing.signed_bytes` by its
``key``. Once the first head has appeared, every ``lock``, ``close`` and ``reveal``
must be followed by its head: a forger who re-chains the log and drops the heads that
no longer match is caught so. With a key to trust (``referee verify --key``), every
head must be signed by it, and an export with no head at all fails: it proves nothing
about that key. Without one, the signatures are checked against the keys they name,
and the report says plainly that no signature was checked against a trusted key.

Pure: the entries in, a frozen :class:`Heads` out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..signing import SIGNED_KINDS, check_head, fingerprint

__all__ = ["Heads", "check_heads"]


@dataclass(frozen=True, slots=True)
class Heads:
    """What the export's heads prove."""

    heads: int
    """``head`` entries in the export."""
    keys: tuple[str, ...]
    """The fingerprints of the keys that signed them, in the order first seen."""
    trusted: str | None
    """The fingerprint the verifier was given (``--key``), if any."""
    through: int | None
    """The last seq a good head covers (every entry up to it is signed), if any."""
    first: int | None
    """The seq of the first head (entries before it predate signing), if any."""
    problems: tuple[tuple[int | None, str, str], ...]
    """``(seq, check, detail)`` for each failure."""

    @property
    def checked(self) -> bool:
        """The heads were checked against a key the verifier trusts."""
        return self.trusted is not None and self.heads > 0 and not self.problems


def check_heads(entries: list[dict[str, Any]], trusted: str | None = None) -> Heads:
    """Check every ``head`` entry of ``entries`` (whose seqs are their indexes), and
    that each signed kind after the first head has its own; with ``trusted`` (a key's
    fingerprint), that each head is that key's, and that there is at least one."""
    problems: list[tuple[int | None, str, str]] = []
    keys: list[str] = []
    through: int | None = None
    first: int | None = None
    for i, entry in enumerate(entries):
        if entry.get("kind") == "head":
            first = i if first is None else first
            ok = _one(entries, i, entry, trusted, keys, problems)
            if ok:
                through = entry["over"]
        elif first is not None and entry.get("kind") in SIGNED_KINDS:
            after = entries[i + 1] if i + 1 < len(entries) else None
            if after is None or after.get("kind") != "head":
                problems.append(
                    (i, "head", f"this {entry.get('kind')} has no signed head after it")
                )
    if trusted is not None and first is None:
        problems.append(
            (
                None,
                "head",
                f"no head entry signed by key {trusted}: the export carries no signature "
                "(written before v1.5, or its heads were removed)",
            )
        )
    return Heads(len([e for e in entries if e.get("kind") == "head"]), tuple(keys), trusted,
                 through, first, tuple(problems))  # fmt: skip


def _one(
    entries: list[dict[str, Any]],
    i: int,
    entry: dict[str, Any],
    trusted: str | None,
    keys: list[str],
    problems: list[tuple[int | None, str, str]],
) -> bool:
    """Check the head at seq ``i``; whether it holds."""
    over = entry.get("over")
    if not isinstance(over, int) or isinstance(over, bool) or over != i - 1 or i == 0:
        problems.append((i, "head", "a head must sign the entry just before it"))
        return False
    if entries[over].get("kind") not in SIGNED_KINDS:
        problems.append((i, "head", f"seq {over} is no lock, close or reveal"))
    if entries[over].get("chain") != entry.get("head"):
        problems.append((i, "head", f"the chain does not reach this head (seq {over})"))
        return False
    try:
        key = fingerprint(bytes.fromhex(str(entry.get("key"))))
    except ValueError:
        problems.append((i, "signature", "its key is not hex"))
        return False
    if key not in keys:
        keys.append(key)
    if trusted is not None and key != trusted:
        problems.append((i, "signature", f"signed by key {key}, not by key {trusted}"))
        return False
    if not check_head(entry):
        problems.append((i, "signature", "the signature is not its key's over this head"))
        return False
    return True
