"""The advantages and disadvantages a GURPS sheet records that the combat rules read,
named in one place for every reader (:mod:`.gcs`, :mod:`.native`).

Sources: *GURPS Basic Set*, 4th edition: B59, "High Pain Threshold"; B142, "Low Pain
Threshold" (``COMBAT.md``, "Shock, major wounds, knockdown (B419–B420)": no shock and
+3 to knockdown with the one, shock doubled to at most −8 and −4 with the other); B60,
"Injury Tolerance", whose Diffuse, Homogenous and Unliving change wounding (B380), and
which a sheet records here without any rule applying it.

A name matches in any case and spacing: ``High Pain Threshold``, ``high pain
threshold``, ``HPT``. Injury Tolerance is written with its form, ``Injury Tolerance
(Unliving)`` (a GCS file's enabled modifiers are read so).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["PAIN", "TOLERANCE", "CombatTraits", "combat_traits", "folded"]

PAIN = {
    "high pain threshold": "hpt",
    "hpt": "hpt",
    "low pain threshold": "lpt",
    "lpt": "lpt",
}
"""Names of the pain thresholds (B59, B142), folded, and which each is."""
TOLERANCE = {
    "diffuse": "diffuse",
    "homogenous": "homogenous",
    "homogeneous": "homogenous",
    "unliving": "unliving",
}
"""The forms of Injury Tolerance recorded (B60), folded (with the common spelling
``homogeneous``), and the name each is recorded under."""
_TOLERANCE = re.compile(r"injury tolerance\s*(?:\((.*)\)|:\s*(.*))?")


@dataclass(frozen=True, slots=True)
class CombatTraits:
    """What the combat rules read of a character's advantages and disadvantages."""

    hpt: bool = False
    """High Pain Threshold (B59)."""
    lpt: bool = False
    """Low Pain Threshold (B142)."""
    injury_tolerance: tuple[str, ...] = ()
    """Injury Tolerance's forms (B60), of :data:`TOLERANCE`'s names, in order, each once."""


def folded(name: str) -> str:
    """A name as matched: case folded, spaces and underscores as one space.

    >>> folded("  High_Pain  THRESHOLD ")
    'high pain threshold'
    """
    return " ".join(name.replace("_", " ").split()).casefold()


def combat_traits(names: Iterable[str]) -> CombatTraits:
    """The pain thresholds and Injury Tolerance among ``names`` (the advantages and
    disadvantages a sheet lists); any other name is left alone. Both pain thresholds
    may come back set: the reader decides what a sheet with both means.

    Source: B59 (High Pain Threshold), B142 (Low Pain Threshold), B60 (Injury
    Tolerance), 4th edition.

    >>> combat_traits(["Luck", "high pain threshold", "Injury Tolerance (Unliving, No Blood)"])
    CombatTraits(hpt=True, lpt=False, injury_tolerance=('unliving',))
    """
    hpt = lpt = False
    forms: list[str] = []
    for name in names:
        key = folded(name)
        pain = PAIN.get(key)
        hpt, lpt = hpt or pain == "hpt", lpt or pain == "lpt"
        found = _TOLERANCE.fullmatch(key)
        if found is None:
            continue
        for part in re.split(r"[,;/]", found.group(1) or found.group(2) or ""):
            form = TOLERANCE.get(part.strip())
            if form is not None and form not in forms:
                forms.append(form)
    return CombatTraits(hpt, lpt, tuple(forms))
