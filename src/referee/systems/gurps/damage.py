"""GURPS damage rolls against DR, and the injury they do, with exact odds.

Sources: *GURPS Basic Set*, B378, "Damage Rolls", and "The Basics" (dice+adds);
the rules notes on GURPS for the damage minimums and DR (docs/reference/sources.md);
*GURPS Basic Set*, B379, "Wounding Modifiers and Injury", for the wounding
multipliers, which the rules texts referee works from leave to "the combat rules".

Hit locations and their multipliers are in :mod:`.locations`, and what an injury
calls for next (knockdown, consciousness, death checks) in :mod:`.exchange`.
Tight-beam burning is left to the GM.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from fractions import Fraction

from ...errors import RuleError
from ...faces import draw_faces
from ...fmt import rolled
from ...results import Chances
from ...rng import RandomSource
from .success import sum_d6

__all__ = [
    "DAMAGE_TYPES",
    "WOUNDING",
    "DamageRoll",
    "damage",
    "damage_odds",
    "damage_type_name",
    "injury_odds",
    "read_damage",
    "with_adds",
    "DamageSpec",
    "armor_divisor",
]

DAMAGE_TYPES = {
    "cr": "crushing",
    "cut": "cutting",
    "imp": "impaling",
    "pi-": "small piercing",
    "pi": "piercing",
    "pi+": "large piercing",
    "pi++": "huge piercing",
    "burn": "burning",
    "cor": "corrosion",
    "fat": "fatigue",
    "tox": "toxic",
}
"""The damage types referee knows, by their usual abbreviations."""

WOUNDING = {
    "cr": Fraction(1),
    "cut": Fraction(3, 2),
    "imp": Fraction(2),
    "pi-": Fraction(1, 2),
    "pi": Fraction(1),
    "pi+": Fraction(3, 2),
    "pi++": Fraction(2),
    "burn": Fraction(1),
    "cor": Fraction(1),
    "fat": Fraction(1),
    "tox": Fraction(1),
}
"""The wounding multiplier of each type (Basic Set, B379; to the torso)."""


def wound(penetrating: int, damage_type: str) -> int:
    """Injury from penetrating damage: times the wounding multiplier, rounded down, and at
    least 1 when anything penetrates (Basic Set, B379).

    >>> wound(5, "cut"), wound(1, "pi-"), wound(0, "imp"), wound(3, "imp")
    (7, 1, 0, 6)
    """
    if penetrating <= 0:
        return 0
    return max(1, int(penetrating * WOUNDING[damage_type_name(damage_type)]))


_PLAIN = re.compile(r"([1-9][0-9]?)[dD](?:6)?(?:([+-])([0-9]{1,4}))?")
"""Dice+adds as sheets and players write them (``2d+1``, ``3d6-3``), read without the
dice grammar, whose parser (lark, about 40 ms) a command would load for them alone
(issue 74); anything else goes to the grammar, which gives the same reading."""


@functools.lru_cache(maxsize=256)
def _dice_adds(expression: str) -> tuple[int, int]:
    """``"3d-3"`` -> ``(3, -3)``: GURPS dice+adds (``000``, "The Basics")."""
    plain = _PLAIN.fullmatch(expression.strip())
    if plain is not None:
        adds = int(plain[3] or 0)
        return int(plain[1]), -adds if plain[2] == "-" else adds
    return _by_grammar(expression)


def _by_grammar(expression: str) -> tuple[int, int]:
    """:func:`_dice_adds` read by the dice grammar (any form it takes)."""
    from ...ast import Arith, Dice, Literal  # here: the grammar, for an unusual form alone
    from ...parser import parse

    try:
        root = parse(expression).root
    except ValueError as exc:
        raise RuleError(f"cannot read damage {expression!r}: {exc}") from None
    dice, adds = root, 0
    if isinstance(root, Arith) and len(root.rest) == 1 and isinstance(root.rest[0][1], Literal):
        op, lit = root.rest[0]
        if op in "+-" and isinstance(lit, Literal):
            dice, adds = root.first, lit.value if op == "+" else -lit.value
    if not isinstance(dice, Dice) or dice.sides != 6 or dice != Dice(dice.count, 6):
        raise RuleError(f"damage {expression!r} is not dice+adds such as 2d, 3d-3 or 4d+2")
    return dice.count, adds


def _minimum(damage_type: str) -> int:
    return 0 if damage_type == "cr" else 1


def damage_type_name(damage_type: str) -> str:
    """A damage type as the tables name it: case and surrounding spaces do not matter
    (``CUT`` is ``cut``), as with dice suffixes.

    >>> damage_type_name(" CUT "), damage_type_name("Pi++")
    ('cut', 'pi++')

    Raises:
        RuleError: no such damage type.
    """
    name = damage_type.strip().lower()
    if name not in DAMAGE_TYPES:
        raise RuleError(
            f"unknown damage type {damage_type!r}; use one of {', '.join(DAMAGE_TYPES)}"
        )
    return name


@dataclass(frozen=True, slots=True)
class DamageRoll:
    """A resolved damage roll against DR."""

    expression: str
    """The dice+adds as given."""
    dice: tuple[int, ...]
    """The dice rolled."""
    basic_damage: int
    """Dice plus adds, at least 0 for crushing and 1 for other types."""
    dr: int
    """Damage Resistance subtracted from the basic damage."""
    damage_type: str
    """The damage type's abbreviation."""
    penetrating: int
    """Damage that gets through DR: basic damage minus DR, never below 0."""
    chance_through: Fraction = Fraction(0)
    """P(any damage gets through DR), before the roll."""
    divisor: Fraction | None = None
    """The attack's armor divisor (``4d(3) burn``): DR counts as DR ÷ divisor."""

    @property
    def effective_dr(self) -> int:
        """The DR that counts: :func:`armor_dr` of :attr:`dr` and :attr:`divisor`."""
        return armor_dr(self.dr, self.divisor)

    @property
    def injury(self) -> int:
        """The injury: penetrating damage times the wounding multiplier (:func:`wound`)."""
        return wound(self.penetrating, self.damage_type)

    system = "gurps"
    kind = "damage"

    @property
    def outcome(self) -> str:
        """``penetrates`` or ``stopped by DR``."""
        return "penetrates" if self.penetrating else "stopped by DR"

    @property
    def success(self) -> bool:
        """Whether any damage got through DR."""
        return self.penetrating > 0

    @property
    def chances(self) -> Chances:
        """P(penetrates)."""
        return Chances.of(penetrates=self.chance_through)

    @property
    def text(self) -> str:
        """``3d-3 cut vs DR 2: rolled 10 (2, 4, 4), basic damage 7, 5 penetrates: injury 7
        (×1.5)``."""
        div = ""
        if self.divisor is not None:
            div = f"({self.divisor})"
        vs = f"DR {self.dr}"
        if self.divisor is not None:
            vs += f" ÷ {self.divisor} = {self.effective_dr}"
            if self.dr == 0 and self.effective_dr:
                vs += " (DR 0 is DR 1 against a divisor under 1, B110)"
        head = (
            f"{self.expression}{div} {self.damage_type} vs {vs}: "
            f"{rolled(sum(self.dice), self.dice)}, basic damage {self.basic_damage}"
        )
        if not self.penetrating:
            return f"{head}, stopped by DR: no injury"
        mult = WOUNDING[self.damage_type]
        times = f"×{float(mult):g}" if mult.denominator > 1 else f"×{mult.numerator}"
        return f"{head}, {self.penetrating} penetrates: injury {self.injury} ({times})"


def _apply(total: int, dr: int, damage_type: str) -> tuple[int, int]:
    basic = max(total, _minimum(damage_type))
    return basic, max(basic - dr, 0)


def armor_dr(dr: int, divisor: Fraction | int | None, *, bare_dr_one: bool = True) -> int:
    """The DR an attack with an armor divisor meets: DR divided by the divisor, rounded
    down (a divisor under 1, such as (0.5), multiplies DR); against a divisor under 1,
    DR 0 counts as DR 1 (``bare_dr_one``; off, it stays 0, as the fight's logs before
    rules 5 read it).

    Source: *GURPS Basic Set*, p. B378, "Armor Divisors and Penetration Modifiers",
    and p. B102 and B110, "Armor Divisor": with a fractional divisor, "targets that
    have DR 0 (e.g., bare flesh) get DR 1 against your attack" (the seed texts leave
    armor divisors out; GCS writes them after the dice, ``4d(3) burn``). 4th edition.
    DR 1 is the DR met: it is not multiplied again (the words: DR 1 "against your
    attack").

    >>> armor_dr(10, 3), armor_dr(10, None), armor_dr(3, Fraction(1, 2)), armor_dr(1, 5)
    (3, 10, 6, 0)
    >>> armor_dr(0, Fraction(1, 2)), armor_dr(0, Fraction(1, 10)), armor_dr(0, 2)
    (1, 1, 0)
    """
    if divisor is None:
        return dr
    met = int(Fraction(dr) / Fraction(divisor))
    return 1 if bare_dr_one and dr == 0 and divisor < 1 else met


def damage(
    expression: str,
    *,
    dr: int = 0,
    damage_type: str = "cr",
    divisor: Fraction | int | None = None,
    rng: RandomSource | None = None,
) -> DamageRoll:
    """Roll damage: dice+adds, the type's minimum, then DR (divided by ``divisor``).

    Source: ``000``, "Damage Rolls"; rules README: after penalties damage is at
    least 0 for crushing and 1 for other types; DR is subtracted from basic
    damage. (An attack that penetrates does at least 1 injury, which holds
    because penetrating damage is a whole number above 0.) An armor divisor
    divides DR first (:func:`armor_dr`, Basic Set p. B378).
    """
    damage_type = damage_type_name(damage_type)
    if not 0 <= dr <= 1000:
        raise RuleError(f"DR {dr} is out of range (0 to 1000)")
    div = armor_divisor(divisor)
    met = armor_dr(dr, div)
    count, adds = _dice_adds(expression)
    faces = draw_faces(rng, count, 6)  # the dice roll(f"{count}d6") draws, in its order
    basic, through = _apply(sum(faces) + adds, met, damage_type)
    through_p = sum((p for v, p in damage_odds(expression, dr=met, damage_type=damage_type).items()
                     if v > 0), Fraction(0))  # fmt: skip
    return DamageRoll(
        expression, faces, basic, dr, damage_type, through,
        through_p, div,
    )  # fmt: skip


def armor_divisor(divisor: Fraction | int | None) -> Fraction | None:
    """``divisor`` checked as an armor divisor (B378: 0.1 to 100), None for none or 1.

    Raises:
        RuleError: a divisor out of that range (0 among them: no DR divides by it).
    """
    if divisor is None:
        return None
    value = Fraction(divisor)
    if not Fraction(1, 10) <= value <= 100:
        raise RuleError(f"armor divisor {divisor} is out of range (0.1 to 100)")
    return None if value == 1 else value


@dataclass(frozen=True, slots=True)
class DamageSpec:
    """A weapon's damage as a sheet writes it (``2d+1(2) cut``), read for rolling."""

    expression: str
    """The dice+adds: ``2d+1``."""
    damage_type: str
    """``cut``."""
    divisor: Fraction | None = None
    """The armor divisor, if any: ``(2)``."""
    notes: tuple[str, ...] = ()
    """Markers shown but not resolved by referee: ``ex`` (explosive), ``inc``, ``nw``..."""
    half: bool = False
    """A ranged attack at its 1/2D range: basic damage halved after the roll, before DR
    (B378; :func:`.situation.at_half_damage`)."""


_DAMAGE_TEXT = re.compile(
    r"^\s*(\d+)d\s*([+-]\s*\d+)?\s*(?:\((\d+(?:\.\d+)?)\))?\s+([A-Za-z+-]+)((?:\s+\w+)*)\s*$"
)
MARKERS = {
    "ex": "explosive",
    "inc": "incendiary",
    "sur": "surge",
    "frag": "fragmentation",
    "rad": "radiation",
    "dkb": "double knockback",
    "nkb": "no knockback",
    "nw": "no wounding",
    "lin": "linked",
}
"""Markers after a damage type (Basic Set, "Damage Modifiers") that referee shows and
leaves to the GM."""


def read_damage(text: str) -> DamageSpec:
    """Read a weapon's damage as GCS computes it: dice+adds, an optional armor divisor
    in parentheses, the damage type, and optional markers.

    >>> read_damage("1d-4 cr")
    DamageSpec(expression='1d-4', damage_type='cr', divisor=None, notes=(), half=False)
    >>> read_damage("4d(3) burn").divisor, read_damage("3d cr ex").notes
    (Fraction(3, 1), ('ex',))

    Raises:
        RuleError: anything else (``1d burn/point``, ``R-HT-2 or KO``, ``Special``):
            referee rolls only dice+adds with a damage type.
    """
    found = _DAMAGE_TEXT.match(text)
    if found is None or found.group(4).lower() not in DAMAGE_TYPES:
        raise RuleError(
            f"cannot roll the damage {text!r}: referee rolls dice+adds with a damage type, "
            "like 2d+1 cut or 4d(3) burn"
        )
    adds = (found.group(2) or "").replace(" ", "")
    notes = tuple(found.group(5).split())
    for note in notes:
        if note.lower() not in MARKERS:
            raise RuleError(
                f"cannot roll the damage {text!r}: {note!r} is not a marker referee knows "
                f"({', '.join(MARKERS)})"
            )
    div = found.group(3)
    return DamageSpec(
        f"{found.group(1)}d{adds if adds not in ('+0', '-0') else ''}",
        damage_type_name(found.group(4)),
        armor_divisor(Fraction(div)) if div else None,
        notes,
    )


def with_adds(dice: str, adds: int) -> str:
    """Basic thrust or swing plus adds, as dice+adds: ``with_adds("1d-2", 2)`` is ``1d``.

    >>> with_adds("1d-2", 2), with_adds("2d", -1), with_adds("1d+2", 3)
    ('1d', '2d-1', '1d+5')
    """
    count, base = _dice_adds(dice)
    total = base + adds
    return f"{count}d" + (f"{total:+d}" if total else "")


@functools.lru_cache(maxsize=1024)
def damage_odds(expression: str, *, dr: int = 0, damage_type: str = "cr") -> dict[int, Fraction]:
    """The exact distribution of penetrating damage (before the wounding multiplier)."""
    damage_type = damage_type_name(damage_type)
    count, adds = _dice_adds(expression)
    out: dict[int, Fraction] = {}
    for total, p in sum_d6(count).items():
        through = _apply(total + adds, dr, damage_type)[1]
        out[through] = out.get(through, Fraction(0)) + p
    return dict(sorted(out.items()))


@functools.lru_cache(maxsize=1024)
def injury_odds(expression: str, *, dr: int = 0, damage_type: str = "cr") -> dict[int, Fraction]:
    """The exact distribution of injury: penetrating damage through :func:`wound`."""
    damage_type = damage_type_name(damage_type)
    out: dict[int, Fraction] = {}
    for through, p in damage_odds(expression, dr=dr, damage_type=damage_type).items():
        hurt = wound(through, damage_type)
        out[hurt] = out.get(hurt, Fraction(0)) + p
    return dict(sorted(out.items()))
