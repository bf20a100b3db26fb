"""Injury Tolerance (Unliving, Homogenous, Diffuse): the wounding it changes and the
hit locations it leaves without their extra effects.

Sources: *GURPS Basic Set*, 4th edition:

- B380, "Injury to Unliving, Homogenous, and Diffuse Targets": **Unliving** gives
  impaling and huge piercing a wounding modifier of ×1, large piercing ×1/2, piercing
  ×1/3, small piercing ×1/5; **Homogenous** impaling and huge piercing ×1/2, large
  piercing ×1/3, piercing ×1/5, small piercing ×1/10; **Diffuse**: impaling and piercing
  attacks of any size never do more than 1 HP of injury, other attacks never more than
  2, except area-effect, cone and explosion attacks (here: ``large_area``), which do
  normal injury.
- B60, "Injury Tolerance": the three exclude each other; Homogenous includes No Brain
  and No Vitals, Diffuse No Blood, No Brain and No Vitals and immunity to crippling.
  No Brain (B60): a blow to the skull or eye is treated as a blow to the face (an eye
  injury can still blind the eye); No Vitals: a blow to the vitals (or groin) as one to
  the torso.

Readings referee states (docs/systems/gurps.md):

- Unliving keeps the skull's, eye's and vitals' own multipliers (×4, ×3): B380 changes
  the damage types' modifiers, and a location's replaces the type's (B398-B399).
  Elsewhere its type's modifier holds, a limb's ×1 cap included (never raising it).
- No Brain treats the skull and eye as the face for wounding, the skull's DR 2 and
  knockdown; the armor's DR is still the struck location's. No Vitals treats the vitals
  and the groin as the torso, as B60 says (hits to the vitals or groin are torso hits;
  GURPS Game Aid's damage calculator reads it so too): no −5 to knockdown, no doubled
  crushing shock at a male's groin.
- Diffuse treats a limb or extremity as the torso: it is never crippled.
"""

from __future__ import annotations

from enum import StrEnum
from fractions import Fraction

from ...errors import RuleError
from .damage import damage_type_name
from .locations import LargeArea, Location, location_injury, location_wounding, read_location

__all__ = ["TOLERANT_WOUNDING", "Tolerance", "struck_as", "tolerance_of", "tolerant_injury"]


class Tolerance(StrEnum):
    """The forms of Injury Tolerance that change injury (B60, B380)."""

    UNLIVING = "unliving"
    HOMOGENOUS = "homogenous"
    DIFFUSE = "diffuse"


TOLERANT_WOUNDING: dict[Tolerance, dict[str, Fraction]] = {
    Tolerance.UNLIVING: {"imp": Fraction(1), "pi++": Fraction(1), "pi+": Fraction(1, 2),
                         "pi": Fraction(1, 3), "pi-": Fraction(1, 5)},
    Tolerance.HOMOGENOUS: {"imp": Fraction(1, 2), "pi++": Fraction(1, 2), "pi+": Fraction(1, 3),
                           "pi": Fraction(1, 5), "pi-": Fraction(1, 10)},
}  # fmt: skip
"""B380's wounding modifiers for Unliving and Homogenous targets (the other types keep
B379's)."""

_PIERCING = frozenset({"imp", "pi-", "pi", "pi+", "pi++"})
_OWN = frozenset({"skull", "eye", "vitals"})
"""The locations whose multipliers replace a type's (B398-B399)."""


def tolerance_of(forms: tuple[str, ...]) -> Tolerance | None:
    """The one form a sheet records (``("unliving",)``), or None.

    Raises:
        RuleError: more than one (B60: Diffuse, Homogenous and Unliving exclude each
            other).
    """
    known = [Tolerance(f) for f in forms if f in set(Tolerance)]
    if len(known) > 1:
        raise RuleError(f"Injury Tolerance ({', '.join(t.title() for t in known)}): Diffuse, "
                        "Homogenous and Unliving exclude each other (B60)")  # fmt: skip
    return known[0] if known else None


def struck_as(location: Location, tolerance: Tolerance | None) -> Location:
    """The location whose rules a blow at ``location`` follows (*GURPS Basic Set*, 4th
    edition, B60): No Brain's skull and
    eye as the face (Homogenous, Diffuse), No Vitals' vitals and groin as the torso, and
    Diffuse's limbs and extremities as the torso.

    >>> from .locations import LOCATIONS
    >>> struck_as(LOCATIONS["skull"], Tolerance.HOMOGENOUS).key
    'face'
    >>> struck_as(LOCATIONS["skull"], Tolerance.UNLIVING).key, struck_as(LOCATIONS["hand"],
    ...     Tolerance.DIFFUSE).key
    ('skull', 'torso')
    """
    if tolerance in (Tolerance.HOMOGENOUS, Tolerance.DIFFUSE):
        if location.key in ("skull", "eye"):
            return read_location("face")
        if location.key in ("vitals", "groin"):  # No Vitals (B60)
            return read_location("torso")
    if tolerance is Tolerance.DIFFUSE and location.cripple_divisor:
        return read_location("torso")
    return location


def tolerant_injury(
    penetrating: int,
    damage_type: str,
    struck: Location,
    hp: int | None,
    tolerance: Tolerance,
    tight_beam: bool = False,
    large_area: bool | LargeArea = False,
) -> int:
    """The injury of ``penetrating`` damage at the location a blow follows (``struck``,
    :func:`struck_as`) on a target with Injury Tolerance (*GURPS Basic Set*, 4th
    edition, B380, with the module's readings): Unliving's and Homogenous' modifiers for
    impaling and piercing; Diffuse's at most 1 HP from impaling or piercing, 2 from
    anything else (but a large-area attack's normal injury); at least 1 when anything
    penetrates; a limb's crippling cap.

    >>> from .locations import LOCATIONS
    >>> [tolerant_injury(9, "pi", LOCATIONS["torso"], 20, t) for t in Tolerance]
    [3, 1, 1]
    >>> tolerant_injury(9, "cut", LOCATIONS["torso"], 20, Tolerance.DIFFUSE)
    2
    >>> tolerant_injury(4, "imp", LOCATIONS["vitals"], 20, Tolerance.UNLIVING)  # ×3 kept
    12
    """
    if penetrating <= 0:
        return 0
    kind = damage_type_name(damage_type)
    normal = location_injury(penetrating, kind, struck.key, hp, tight_beam)
    if tolerance is Tolerance.DIFFUSE:
        return normal if large_area else min(normal, 1 if kind in _PIERCING else 2)
    table = TOLERANT_WOUNDING[tolerance]
    if kind not in table or struck.key in _OWN:
        return normal
    mult = min(table[kind], location_wounding(struck.key, kind, tight_beam))
    injury = max(1, int(penetrating * mult))
    return min(injury, normal)  # the crippling cap, which location_injury applied
