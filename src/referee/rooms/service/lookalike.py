"""Characters' names that read the same: a name is refused where it is confusable with
another character's in the room (``Dаi Blackthorn``, its ``а`` Cyrillic, beside the
real Dai), by Unicode's confusables (UTS #39's data, through
``confusable_homoglyphs``): every front end stores a sheet through
:func:`.sheets.store_sheet`, so the page, the API and Discord alike.

Two names are confusable when their *skeletons* are equal: each is put in NFKC form
(fullwidth and mathematical letters become plain ones), then each character that
Unicode lists as a homoglyph of ASCII letters or digits becomes the first of them
(``а`` → ``a``; ``l``, ``I`` and ``1`` → ``1``); or when they are equal so once
case-folded (``DAI`` and ``Dai``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache

__all__ = ["confusable", "skeleton"]


@cache
def _ascii_twin(char: str) -> str:
    """The character ``char`` is read as: the least ASCII member of its class among
    Unicode's confusables, or its least member. The class is closed under the listing
    (``I`` is listed with ``l``, ``l`` with ``1``: all three are one class)."""
    from confusable_homoglyphs.confusables import confusables_data

    seen, todo = {char}, [char]
    while todo and len(seen) < 1000:
        for glyph in confusables_data.get(todo.pop(), ()):
            found = glyph["c"].strip("\u200e")
            if len(found) == 1 and found not in seen:
                seen.add(found)
                todo.append(found)
    return min(seen, key=lambda c: (not c.isascii(), c))


def _twins(text: str) -> str:
    return " ".join("".join(_ascii_twin(c) for c in word) for word in text.split())


def skeleton(name: str) -> tuple[str, str]:
    """What ``name`` reads as, for comparing names: as it is written, and case-folded.

    >>> skeleton("Dаi Blackthorn") == skeleton("Dai Blackthorn")
    True
    >>> skeleton("Dal")[0] == skeleton("DaI")[0], skeleton("DAI")[1] == skeleton("Dai")[1]
    (True, True)
    >>> skeleton("Dai")[0] == skeleton("Dan")[0]
    False
    """
    plain = unicodedata.normalize("NFKC", name)
    return _twins(plain), _twins(plain.casefold())


def confusable(name: str, others: Iterable[str]) -> str | None:
    """The first of ``others`` that reads as ``name`` does, or None.

    >>> confusable("Dаi Blackthorn", ["Ayla", "Dai Blackthorn"])
    'Dai Blackthorn'
    >>> confusable("Dai Blackthorn", ["Ayla"]) is None
    True
    """
    written, folded = skeleton(name)
    for other in others:
        theirs = skeleton(other)
        if theirs[0] == written or theirs[1] == folded:
            return other
    return None
