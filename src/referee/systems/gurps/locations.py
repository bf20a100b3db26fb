"""GURPS hit locations: the random-location table, aimed locations and their
penalties, each location's wounding changes, crippling thresholds and knockdown.

Source: *GURPS Basic Set*, 4th edition, B398-B400, "Hit Location" (the rules
texts referee works from have no combat chapter; see docs/reference/sources.md).
Locations for humanoids only; the right and left limbs of the random table use
the same rules as any arm or leg.

>>> LOCATIONS["skull"].penalty, LOCATIONS["vitals"].penalty, LOCATIONS["torso"].penalty
(-7, -3, 0)
>>> location_wounding("skull", "cut"), location_wounding("vitals", "imp")
(Fraction(4, 1), Fraction(3, 1))
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from ...errors import RuleError
from .damage import WOUNDING, damage_type_name
from .success import three_d6

__all__ = [
    "LOCATIONS",
    "RANDOM_TABLE",
    "LargeArea",
    "Location",
    "cripples",
    "location_injury",
    "location_odds",
    "location_wounding",
    "read_location",
    "require_targetable",
]


class LargeArea(StrEnum):
    """How large-area injury rounds its DR (B400, "Large-Area Injury": the DR is "the
    average of" the torso's and the least-protected location's; the page does not say
    how a half rounds, so referee makes it an option).

    Given as an attack's ``large_area`` (:attr:`.melee.AttackOptions.large_area`):
    ``True`` reads as :attr:`UP`, the default.
    """

    UP = "up"
    """The default: a half rounds up (torso DR 6, face DR 1: 4), as GCS and GURPS Game
    Aid (``crnormand/gurps``) compute it, so a GM checking by either gets the same."""
    DOWN = "down"
    """A half rounds down (torso 6, face 1: 3): referee's earlier reading."""

    def average(self, torso: int, least: int) -> int:
        """The DR: the average of ``torso`` and ``least``, rounded this way.

        >>> LargeArea.UP.average(6, 1), LargeArea.DOWN.average(6, 1), LargeArea.UP.average(4, 2)
        (4, 3, 3)
        """
        return (torso + least + (1 if self is LargeArea.UP else 0)) // 2


PIERCING = frozenset({"imp", "pi-", "pi", "pi+", "pi++"})
"""Impaling and every piercing type: what may target the vitals and the eye (B399)."""


@dataclass(frozen=True, slots=True)
class Location:
    """One hit location of a humanoid (Basic Set, B398)."""

    key: str
    """``skull``, ``right leg``."""
    penalty: int
    """To hit when aimed at (B398): skull −7, vitals −3, torso 0, ..."""
    extra_dr: int = 0
    """DR the body adds here: the skull's 2 (B399)."""
    cripple_divisor: int | None = None
    """Limbs 2, extremities 3: injury over HP ÷ this cripples, and more is lost (B398)."""
    knockdown: int = 0
    """To the HT roll against knockdown for a hit here (B399, B420): skull and eye −10,
    face and vitals −5."""
    head: bool = False
    """Skull, face or eye: a critical hit uses the Critical Head Blow Table (B556)."""

    @property
    def name(self) -> str:
        return self.key


LOCATIONS: dict[str, Location] = {
    loc.key: loc
    for loc in (
        Location("torso", 0),
        Location("vitals", -3, knockdown=-5),
        Location("skull", -7, extra_dr=2, knockdown=-10, head=True),
        Location("eye", -9, knockdown=-10, head=True),
        Location("face", -5, knockdown=-5, head=True),
        Location("neck", -5),
        Location("groin", -3),
        Location("arm", -2, cripple_divisor=2),
        Location("right arm", -2, cripple_divisor=2),
        Location("left arm", -2, cripple_divisor=2),
        Location("leg", -2, cripple_divisor=2),
        Location("right leg", -2, cripple_divisor=2),
        Location("left leg", -2, cripple_divisor=2),
        Location("hand", -4, cripple_divisor=3),
        Location("foot", -4, cripple_divisor=3),
    )
}
"""Every location by name (Basic Set, B398; B399-B400 for their special rules)."""

RANDOM_TABLE: dict[int, str] = {
    3: "skull",
    4: "skull",
    5: "face",
    6: "right leg",
    7: "right leg",
    8: "right arm",
    9: "torso",
    10: "torso",
    11: "groin",
    12: "left arm",
    13: "left leg",
    14: "left leg",
    15: "hand",
    16: "foot",
    17: "neck",
    18: "neck",
}
"""The random hit location on 3d6 (Basic Set, B398, "Hit Location Table"; the eye
and the vitals are hit only when aimed at)."""


def read_location(text: str) -> Location:
    """A location by name: case and extra spaces do not matter (``Right Leg``).

    Raises:
        RuleError: no such location (the message lists them).
    """
    key = " ".join(text.lower().replace("-", " ").split())
    key = {"head": "skull", "eyes": "eye", "body": "torso", "chest": "torso"}.get(key, key)
    if key not in LOCATIONS:
        raise RuleError(f"unknown hit location {text!r}; use one of {', '.join(LOCATIONS)}")
    return LOCATIONS[key]


def require_targetable(location: str, damage_type: str, tight_beam: bool = False) -> None:
    """Refuse an attack that may not target ``location``.

    Source: *GURPS Basic Set*, B399 (4th edition): "Only impaling, piercing, and
    tight-beam burning attacks can target the vitals", and the same for the eye.

    >>> require_targetable("vitals", "imp"), require_targetable("eye", "burn", tight_beam=True)
    (None, None)
    >>> require_targetable("vitals", "cut")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: a cut attack cannot target the vitals: only impaling, piercing ...

    Raises:
        RuleError: the damage type cannot target the location.
    """
    key = read_location(location).key
    kind = damage_type_name(damage_type)
    if key in ("vitals", "eye") and kind not in PIERCING and not (kind == "burn" and tight_beam):
        raise RuleError(
            f"a {kind} attack cannot target the {key}: only impaling, piercing and "
            "tight-beam burning attacks can (B399)"
        )


@functools.lru_cache(maxsize=1024)
def location_wounding(location: str, damage_type: str, tight_beam: bool = False) -> Fraction:
    """The wounding multiplier of a damage type at a location.

    Source: *GURPS Basic Set*, B398-B400 (4th edition):

    - skull and eye: ×4 for every type but toxic (B399);
    - vitals: ×3 for impaling and every piercing type, ×2 for tight-beam burning
      (``tight_beam``: the attacker says the burning attack is a beam);
    - neck: crushing and corrosion ×1.5, cutting ×2;
    - face: corrosion ×1.5;
    - arms, legs, hands and feet: large and huge piercing and impaling ×1;
    - torso and groin: the usual multipliers (B379).
    """
    kind = damage_type_name(damage_type)
    key = read_location(location).key
    usual = WOUNDING[kind]
    if key in ("skull", "eye"):
        return usual if kind == "tox" else Fraction(4)
    if key == "vitals" and kind in PIERCING:
        return Fraction(3)
    if key == "vitals" and kind == "burn" and tight_beam:
        return Fraction(2)
    if key == "neck" and kind in ("cr", "cor"):
        return Fraction(3, 2)
    if key == "neck" and kind == "cut":
        return Fraction(2)
    if key == "face" and kind == "cor":
        return Fraction(3, 2)
    if LOCATIONS[key].cripple_divisor and kind in ("imp", "pi+", "pi++"):
        return Fraction(1)
    return usual


@functools.lru_cache(maxsize=1024)
def cripples(location: str, hp: int) -> int | None:
    """The least injury that cripples a limb or extremity for a character of ``hp`` HP:
    over HP/2 for a limb, over HP/3 for a hand or foot (B398); None elsewhere."""
    divisor = read_location(location).cripple_divisor
    if divisor is None:
        return None
    return int(Fraction(max(hp, 1), divisor)) + 1


def location_injury(
    penetrating: int, damage_type: str, location: str, hp: int | None, tight_beam: bool = False
) -> int:
    """The injury from penetrating damage at a location: times its wounding multiplier
    (rounded down, at least 1 when anything penetrates), and for a limb or
    extremity, no more than crippling takes when the HP are known ("Damage beyond
    that threshold is lost", B398).

    >>> location_injury(10, "cut", "arm", 10), location_injury(3, "cr", "skull", None)
    (6, 12)
    """
    if penetrating <= 0:
        return 0
    injury = max(1, int(penetrating * location_wounding(location, damage_type, tight_beam)))
    cap = None if hp is None else cripples(location, hp)
    return injury if cap is None else min(injury, cap)


@functools.cache
def location_odds() -> dict[str, Fraction]:
    """P(each location) on the random table: the 3d6 distribution over B398's rows.

    >>> location_odds()["torso"]
    Fraction(13, 54)
    """
    out: dict[str, Fraction] = {}
    for total, p in three_d6().items():
        key = RANDOM_TABLE[total]
        out[key] = out.get(key, Fraction(0)) + p
    return out
