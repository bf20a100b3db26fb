"""What one blow's injury does to a GURPS character: shock, a major wound, crippling,
a blinded eye, and the HT roll against knockdown and stunning with its modifier.

Sources: *GURPS Basic Set*, 4th edition (the rules texts referee works from have no
injury chapter; ``COMBAT.md`` of the rules notes states these pages in short):
B419, "Shock"; B420, "Major Wounds" and "Knockdown and Stunning"; B420-B421,
"Crippling Injuries"; B398-B400, "Hit Location" (each location's knockdown
modifier, toxic damage to the skull, the eye, the groin); B59 and B142, High and
Low Pain Threshold. The exchange (:mod:`.exchange`) and the fight engine
(:mod:`referee.fight.gurps`) both call :func:`wound_effects`, so they agree.

>>> w = wound_effects(1, "face", 10)
>>> w.shock, w.major, w.knockdown
(1, False, 0)
>>> wound_effects(6, "face", 10).knockdown
-5
>>> w = wound_effects(9, "hand", 10)
>>> w.injury, w.crippled, w.major, w.knockdown
(4, 'hand', True, 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from ...errors import RuleError
from .damage import damage_type_name
from .locations import Location, cripples, read_location

__all__ = [
    "SHOCK_CAP",
    "StunRecovery",
    "SurviveCritical",
    "Wound",
    "blunt_trauma",
    "extra_dr",
    "knockback",
    "knockdown_location",
    "shock",
    "wound_effects",
]

SHOCK_CAP = 4
"""Shock is at most −4 (B419); −8 when doubled (Low Pain Threshold, B142; a male's
groin hit by crushing, B399; the Critical Hit Table's row 8, B556)."""

_TOXIC_SAFE = frozenset({"skull", "eye"})
"""Where "none of these effects apply to toxic damage" (B399: the skull; the eye
counts as the skull without its extra DR)."""


class StunRecovery(StrEnum):
    """Whether High and Low Pain Threshold change the HT roll to *recover* from stun.

    B59 gives High Pain Threshold "+3 on all HT rolls to avoid knockdown and
    stunning", and B142 Low Pain Threshold −4 on the same rolls; B420's roll at the end
    of each turn to recover from stun is another roll, which neither names.
    """

    PLAIN = "plain"
    """The default, the books' words: the recovery roll is plain HT."""
    BOTH = "both"
    """High Pain Threshold +3 and Low Pain Threshold −4 on the recovery roll too."""

    def modifier(self, hpt: bool, lpt: bool) -> int:
        """The recovery roll's modifier under this reading.

        >>> StunRecovery.PLAIN.modifier(True, False), StunRecovery.BOTH.modifier(True, False)
        (0, 3)
        """
        return 3 * hpt - 4 * lpt if self is StunRecovery.BOTH else 0


class SurviveCritical(StrEnum):
    """What a critical failure by only 1 or 2 does on the HT roll to survive at −N×HP.

    B419: "If you fail by 1 or 2, you are dying ... On any other failure, you die"; a
    critical failure (a 17 against HT 15 or 16, say) can fail by only 1 or 2.
    """

    DEAD = "dead"
    """The default: a critical failure is never "a failure by 1 or 2": dead."""
    DYING = "dying"
    """Only the margin counts: a failure by 1 or 2 leaves the victim dying, critical
    or not."""

    def dies(self, margin: int, critical: bool) -> bool:
        """Whether a failed roll to survive (``margin`` below 0) kills.

        >>> SurviveCritical.DEAD.dies(-2, True), SurviveCritical.DYING.dies(-2, True)
        (True, False)
        >>> SurviveCritical.DEAD.dies(-2, False), SurviveCritical.DYING.dies(-3, False)
        (False, True)
        """
        return margin < -2 or (critical and self is SurviveCritical.DEAD)


def blunt_trauma(basic: int, damage_type: str, penetrated: bool) -> int:
    """Injury from blunt trauma when flexible armor stops a blow (0: none).

    Source: B379, "Flexible Armor and Blunt Trauma": when flexible armor stops all
    the damage, the wearer still takes 1 HP of injury per full 5 points of crushing
    basic damage, or per full 10 of cutting, impaling or piercing damage; other types
    do none.

    >>> blunt_trauma(12, "cr", False), blunt_trauma(19, "cut", False), blunt_trauma(9, "pi", False)
    (2, 1, 0)
    >>> blunt_trauma(12, "cr", True), blunt_trauma(30, "burn", False)
    (0, 0)
    """
    kind = damage_type_name(damage_type)
    if penetrated or kind in ("burn", "cor", "fat", "tox"):
        return 0
    return max(0, basic) // (5 if kind == "cr" else 10)


def knockback(
    basic: int, damage_type: str, penetrated: bool, st: int, notes: tuple[str, ...] = ()
) -> int:
    """Yards of knockback from one blow (0: none).

    Source: B378, "Knockback": crushing damage, whether it penetrates or not, and
    cutting damage that fails to penetrate, knock the target back one yard for each
    full (its ST − 2) of basic damage (at least 1 a yard); a knocked-back target rolls
    DX, Acrobatics or Judo or falls. The markers ``dkb`` (double knockback: twice the
    basic damage counts) and ``nkb`` (none) change it (B104-B105).

    >>> knockback(10, "cr", True, 10), knockback(7, "cr", False, 10), knockback(9, "cut", True, 10)
    (1, 0, 0)
    >>> knockback(9, "cut", False, 5), knockback(8, "cr", True, 10, ("dkb",))
    (3, 2)
    """
    kind = damage_type_name(damage_type)
    marks = {n.lower() for n in notes}
    if "nkb" in marks or not (kind == "cr" or (kind == "cut" and not penetrated)):
        return 0
    pushed = 2 * basic if "dkb" in marks else basic
    return max(0, pushed) // max(1, st - 2)


def extra_dr(location: Location, damage_type: str) -> int:
    """The DR the body adds at ``location`` for a damage type: the skull's 2, except
    against toxic damage ("None of these effects apply to toxic damage", B399).

    >>> from .locations import LOCATIONS
    >>> extra_dr(LOCATIONS["skull"], "cr"), extra_dr(LOCATIONS["skull"], "tox")
    (2, 0)
    """
    if location.key in _TOXIC_SAFE and damage_type_name(damage_type) == "tox":
        return 0
    return location.extra_dr


def knockdown_location(location: Location, damage_type: str = "cr", male: bool = False) -> int:
    """The knockdown modifier a location gives a *major wound* (B399-B400): −10 for the
    skull and eye, −5 for the face and vitals, −5 for a male humanoid's groin (an
    option on the target, ``male``); 0 elsewhere, and 0 for toxic damage to the skull
    or eye (B399's exception).

    >>> from .locations import LOCATIONS
    >>> knockdown_location(LOCATIONS["skull"]), knockdown_location(LOCATIONS["groin"], male=True)
    (-10, -5)
    """
    if location.key in _TOXIC_SAFE and damage_type_name(damage_type) == "tox":
        return 0
    if location.key == "groin":
        return -5 if male else 0
    return location.knockdown


def shock(
    injury: int,
    hp: int | None,
    *,
    lpt: bool = False,
    doubled: bool = False,
    before: int = 0,
) -> int:
    """The shock penalty (as a positive number) after ``injury`` HP in one blow, added to
    the shock already taken this turn (``before``).

    Source: B419, "Shock": −1 per HP of injury, at most −4; "if you have 20 or more
    HP, you suffer −1 per full HP/10 of injury". B142: Low Pain Threshold doubles it,
    at most −8; ``doubled`` (a male's groin hit by crushing, B399; B556 row 8) also
    doubles it, at most −8. High Pain Threshold (no shock) is the caller's to apply.
    Unknown HP (``None``) reads as under 20.

    >>> shock(3, 10), shock(3, 20), shock(19, 20), shock(1, 20), shock(3, 10, lpt=True)
    (3, 1, 4, 0, 6)
    """
    if injury <= 0:
        return min(before, _cap(lpt, doubled))
    per = injury if hp is None or hp < 20 else int(Fraction(injury * 10, hp))
    if lpt:
        per *= 2
    if doubled:
        per *= 2
    return min(before + per, _cap(lpt, doubled))


def _cap(lpt: bool, doubled: bool) -> int:
    return 2 * SHOCK_CAP if lpt or doubled else SHOCK_CAP


@dataclass(frozen=True, slots=True)
class Wound:
    """What one blow's injury does (B419-B421)."""

    injury: int
    """The injury after the crippling cap (B421: "damage beyond that threshold is
    lost")."""
    location: str
    """The location's name: ``skull``, ``right leg``."""
    shock: int
    """The shock penalty this blow gives, as a positive number (0 with High Pain
    Threshold)."""
    major: bool
    """A major wound: over HP/2 in one blow, a crippling injury, or a critical hit's
    "treat it as a major wound" (B420, B556)."""
    crippled: str | None = None
    """The limb or extremity crippled (B421), if any."""
    blinded: bool = False
    """An eye hit for over HP/10: the eye is blinded (B399)."""
    knockdown: int | None = None
    """The modifier to the HT roll against knockdown and stunning, when the rules call
    for one (B420); None when they do not."""

    @property
    def why(self) -> str:
        """Why the knockdown roll is called: ``a major wound`` or ``a hit to the skull``."""
        return "a major wound" if self.major else f"a hit to the {self.location}"


def wound_effects(
    injury: int,
    location: str | Location,
    hp: int | None,
    *,
    damage_type: str = "cr",
    hpt: bool = False,
    lpt: bool = False,
    male: bool = False,
    major_effect: bool = False,
    double_shock: bool = False,
) -> Wound:
    """What ``injury`` HP (after DR and wounding) at ``location`` does to a character of
    ``hp`` full HP (None: unknown).

    Source, 4th edition:

    - B421, "Crippling Injuries": over HP/2 to an arm or leg, over HP/3 to a hand or
      foot cripples it; the injury past that is lost, and a crippling injury is a major
      wound (B420).
    - B420, "Major Wounds": an injury over HP/2 in one blow (``major_effect``: a
      critical hit's "treat it as a major wound", B556).
    - B419, "Shock" (:func:`shock`): High Pain Threshold (``hpt``, B59) gives none.
    - B420, "Knockdown and Stunning": an HT roll on a major wound, and whenever a hit
      to the head (skull, eye, face) or vitals is enough to cause a shock penalty. This
      reading counts the shock before High Pain Threshold: a 1-HP face hit on a man
      with High Pain Threshold still calls the roll, at +3. The location's −5 or −10
      (:func:`knockdown_location`) applies only to a major wound (B399; GURPS Game Aid
      fixed the same point, crnormand/gurps#994). High Pain Threshold +3 (B59), Low
      Pain Threshold −4 (B142).
    - B399, "Eye": injury over HP/10 blinds the eye.
    - B399, "Groin": on a male humanoid (``male``), crushing shock is doubled (at most −8).

    Raises:
        RuleError: negative injury, or an unknown location.
    """
    if injury < 0:
        raise RuleError(f"injury {injury} is negative")
    loc = location if isinstance(location, Location) else read_location(location)
    kind = damage_type_name(damage_type)
    if injury == 0:
        return Wound(0, loc.key, 0, False)
    cap = None if hp is None else cripples(loc.key, hp)
    crippled = cap is not None and injury >= cap
    if cap is not None:
        injury = min(injury, cap)
    major = major_effect or crippled or (hp is not None and 2 * injury > hp)
    doubled = double_shock or (male and loc.key == "groin" and kind == "cr")
    felt = shock(injury, hp)
    taken = 0 if hpt else shock(injury, hp, lpt=lpt, doubled=doubled)
    struck = (loc.head or loc.key == "vitals") and felt > 0
    knockdown = None
    if major or struck:
        knockdown = (knockdown_location(loc, kind, male) if major else 0) + 3 * hpt - 4 * lpt
    blinded = loc.key == "eye" and hp is not None and 10 * injury > hp
    return Wound(injury, loc.key, taken, major, loc.key if crippled else None, blinded, knockdown)
