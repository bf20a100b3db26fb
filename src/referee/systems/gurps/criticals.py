"""GURPS critical hits and critical misses: the tables rolled on 3d6 when they apply.

Source: *GURPS Basic Set*, 4th edition, B556, "Critical Hit Table", "Critical Head
Blow Table" and "Critical Miss Table", and B557, "Unarmed Critical Miss Table" (the
rules texts referee works from name criticals but give no tables; see
docs/reference/sources.md): hit row 8's funny-bone crippling lasts (16 − HT)
seconds, at least 2; miss row 5's second "hit yourself" is used as rolled, full or
half damage. A critical hit to the head (skull, face, eye) reads the Critical Head
Blow Table (B556; ``COMBAT.md``, "Critical tables") with the same 3d6, unless the
attacker turns that off (:attr:`.melee.AttackOptions.head_blow_table`) or the damage
is toxic at the skull (B399: none of the skull's special effects apply to toxic).
An unarmed attack's critical miss (a punch, kick, bite...) reads the Unarmed Critical
Miss Table (B557; :attr:`.melee.AttackOptions.unarmed`, :func:`unarmed_name`).

>>> CRITICAL_HIT[3].effect, CRITICAL_HIT[10].effect, CRITICAL_MISS[18].text[:18]
('triple', 'normal', 'Your weapon breaks')
>>> CRITICAL_HEAD_BLOW[3].effect, CRITICAL_HEAD_BLOW[6].effect, CRITICAL_HEAD_BLOW[17].effect
('max_no_dr', 'eye', 'half_dr_up')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from ...faces import draw_faces
from ...fmt import rolled
from ...rng import RandomSource

__all__ = [
    "CRITICAL_HEAD_BLOW",
    "CRITICAL_HIT",
    "HEAD",
    "CRITICAL_MISS",
    "CRITICAL_MISS_UNARMED",
    "CriticalRoll",
    "Entry",
    "EyeRow",
    "critical_hit",
    "critical_miss",
    "head_blow",
    "unarmed_name",
]


@dataclass(frozen=True, slots=True)
class Entry:
    """One row of a critical table."""

    effect: str
    """What the engine applies to the damage: ``triple``, ``double``, ``max``,
    ``half_dr``, ``major`` (treated as a major wound), ``double_shock``, ``drop``
    (normal damage; the victim drops what they hold) or ``normal``; for a miss, the
    row's short name."""
    text: str
    """The row as the GM reads it out."""


_HIT = {
    "triple": Entry("triple", "The blow does triple damage."),
    "half_dr": Entry(
        "half_dr", "The target's DR protects at half value (round down), after any armor divisor."
    ),
    "double": Entry("double", "The blow does double damage."),
    "max": Entry("max", "The blow does maximum normal damage."),
    "major": Entry(
        "major", "If any damage penetrates DR, treat it as a major wound, whatever the injury."
    ),
    "double_shock": Entry(
        "double_shock",
        "If any damage penetrates DR, it inflicts double shock (at most -8); "
        "a limb or extremity hit is crippled too, but only for (16 - HT) seconds, at "
        "least 2, unless the injury would cripple it anyway (a funny-bone injury).",
    ),
    "normal": Entry("normal", "Normal damage only."),
    "drop": Entry(
        "drop", "Normal damage, and the victim drops anything they hold, even if DR stops it all."
    ),
}

CRITICAL_HIT: dict[int, Entry] = {
    3: _HIT["triple"],
    4: _HIT["half_dr"],
    5: _HIT["double"],
    6: _HIT["max"],
    7: _HIT["major"],
    8: _HIT["double_shock"],
    9: _HIT["normal"],
    10: _HIT["normal"],
    11: _HIT["normal"],
    12: _HIT["drop"],
    13: _HIT["major"],
    14: _HIT["major"],
    15: _HIT["max"],
    16: _HIT["double"],
    17: _HIT["half_dr"],
    18: _HIT["triple"],
}
"""B556's Critical Hit Table, by the 3d6 roll."""

_HEAD = {
    "max_no_dr": Entry(
        "max_no_dr", "The blow does maximum normal damage and ignores the target's DR."
    ),
    "half_dr_up_major": Entry(
        "half_dr_up_major",
        "The target's DR protects at half value (round up), after any armor divisor; if any "
        "damage penetrates, treat it as a major wound.",
    ),
    "eye": Entry(
        "eye",
        "A face or skull hit is treated as an eye hit, even if the attack could not target "
        "the eye (no extra DR; injury over HP/10 blinds it); where an eye hit is impossible "
        "(from behind), as 4.",
    ),
    "off_balance": Entry(
        "off_balance",
        "Normal damage, and the victim is knocked off balance: he must Do Nothing on his "
        "next turn (he may defend).",
    ),
    "normal": Entry("normal", "Normal damage only."),
    "deafen_scar": Entry(
        "deafen_scar",
        "Normal damage; if any penetrates DR, crushing damage deafens the victim, any other "
        "scars him (-1 appearance; -2 burning or corrosion).",
    ),
    "drop": Entry("drop", "Normal damage, and the victim drops his weapon."),
    "half_dr_up": Entry(
        "half_dr_up", "The target's DR protects at half value (round up), after any armor divisor."
    ),
}

CRITICAL_HEAD_BLOW: dict[int, Entry] = {
    3: _HEAD["max_no_dr"],
    4: _HEAD["half_dr_up_major"],
    5: _HEAD["half_dr_up_major"],
    6: _HEAD["eye"],
    7: _HEAD["eye"],
    8: _HEAD["off_balance"],
    9: _HEAD["normal"],
    10: _HEAD["normal"],
    11: _HEAD["normal"],
    12: _HEAD["deafen_scar"],
    13: _HEAD["deafen_scar"],
    14: _HEAD["drop"],
    15: _HIT["max"],
    16: _HIT["double"],
    17: _HEAD["half_dr_up"],
    18: _HIT["triple"],
}
"""B556's Critical Head Blow Table, by the 3d6 roll: for a critical hit to the skull,
face or eye (the skull's row 6-7 "eye" applies to the face as well)."""

HEAD = frozenset({"skull", "face", "eye"})
"""The locations whose critical hits read :data:`CRITICAL_HEAD_BLOW`."""


class EyeRow(StrEnum):
    """What the Critical Head Blow Table's rows 6-7 do to an attack aimed at the eye.

    B556, rows 6-7: "If the attack targeted the face or skull, treat it as an eye hit
    instead ... If an eye hit is impossible (e.g., from behind), treat as 4." An attack
    aimed at the eye is neither case as written: it targeted the eye, and it is an eye
    hit already.
    """

    AS_AIMED = "as-aimed"
    """The default, the row's words: it turns a face or skull hit into an eye hit, and
    names nothing else, so an attack at the eye stays the eye hit it was, with normal
    head-blow damage (×4, blinding over HP/10), as rows 9-11 give."""
    AS_4 = "as-4"
    """The row's other case: the eye hit it grants cannot be made (it is one already),
    so it is read as row 4: DR at half value (rounded up), and a major wound if any
    damage penetrates."""

    def effect(self, effect: str, aimed: str | None) -> str:
        """A head-blow row's ``effect`` for an attack aimed at ``aimed`` (a location's
        key): ``eye`` becomes row 4's ``half_dr_up_major`` at the eye under
        :attr:`AS_4`; anything else is unchanged.

        >>> EyeRow.AS_4.effect("eye", "eye"), EyeRow.AS_4.effect("eye", "skull")
        ('half_dr_up_major', 'eye')
        >>> EyeRow.AS_AIMED.effect("eye", "eye")
        'eye'
        """
        if effect == "eye" and aimed == "eye" and self is EyeRow.AS_4:
            return CRITICAL_HEAD_BLOW[4].effect
        return effect


def head_blow(roll: CriticalRoll) -> CriticalRoll:
    """The same 3d6 read on the Critical Head Blow Table (B556): a critical hit that
    lands on the head."""
    return CriticalRoll("critical head blow", roll.dice, roll.total, CRITICAL_HEAD_BLOW[roll.total])


_BREAKS = Entry("breaks", "Your weapon breaks and is useless (a very fine or solid one may not).")
_SELF = Entry(
    "hits self",
    "You hit yourself in the arm or leg (even odds), for full damage (an impaling, "
    "piercing or ranged attack: roll again; if you hit yourself again, use that "
    "result, full or half damage as the case may be).",
)
_BALANCE = Entry(
    "off balance",
    "You lose your balance: you can do nothing else until your next turn, and your "
    "active defenses are at -2 until then.",
)
_TURNS = Entry("turns in hand", "The weapon turns in your hand: an extra Ready before using it.")
_DROP = Entry("drops", "You drop the weapon (a cheap one breaks instead).")

CRITICAL_MISS: dict[int, Entry] = {
    3: _BREAKS,
    4: _BREAKS,
    5: _SELF,
    6: Entry("hits self (half)", "As 5, but half damage only."),
    7: _BALANCE,
    8: _TURNS,
    9: _DROP,
    10: _DROP,
    11: _DROP,
    12: _TURNS,
    13: _BALANCE,
    14: Entry(
        "flies",
        "A swung weapon flies 1d yards from you (even odds forward or back; anyone there "
        "rolls DX or takes half damage); a thrust or ranged weapon, or a parry: you drop it.",
    ),
    15: Entry(
        "strains shoulder",
        "You strain your shoulder: the weapon arm is crippled for 30 minutes (you need not "
        "drop the weapon, but cannot use it).",
    ),
    16: Entry("falls", "You fall down (a ranged attacker loses balance instead, as 7)."),
    17: _BREAKS,
    18: _BREAKS,
}
"""B556's Critical Miss Table, by the 3d6 roll."""

_KNOCKED_OUT = Entry(
    "knocks self out",
    "You knock yourself out (the GM says how: a fall on your head, a walk into the foe's "
    "fist or shield); roll HT every 30 minutes to recover.",
)
_STRAIN = Entry(
    "strains limb",
    "A limb you attacked or parried with is strained: 1 HP of injury, and it is crippled "
    "(useless to attack or defend) for 30 minutes; biting or butting, you pull a muscle "
    "instead: moderate pain for (20 - HT) minutes, at least 1.",
)
_OBJECT = Entry(
    "hits object",
    "You strike a solid object (a wall, the floor) instead: crushing damage equal to your "
    "thrust, to the part you struck with, DR protecting; against a foe with a ready "
    "impaling weapon, you fall on it and take its damage, at your own ST.",
)
_STUMBLE = Entry(
    "stumbles",
    "You stumble: attacking, you go a yard past the foe and end your turn facing away "
    "(he is behind you); parrying, you fall down.",
)

CRITICAL_MISS_UNARMED: dict[int, Entry] = {
    3: _KNOCKED_OUT,
    4: _STRAIN,
    5: _OBJECT,
    6: Entry(
        "hits object (half)",
        "As 5, but half damage; a natural weapon (claws, teeth) is broken: -1 damage with "
        "it until healed.",
    ),
    7: _STUMBLE,
    8: Entry("falls", "You fall down."),
    9: _BALANCE,
    10: _BALANCE,
    11: _BALANCE,
    12: Entry(
        "trips",
        "You trip: roll DX not to fall down (DX-4 when kicking; a technique that needs a DX "
        "roll against mishap, at twice its usual penalty).",
    ),
    13: Entry(
        "drops guard",
        "You drop your guard: your active defenses are at -2 next turn, and any Evaluate "
        "bonus or Feint penalty against you counts double until your next turn (the foes "
        "near you see it).",
    ),
    14: _STUMBLE,
    15: Entry(
        "tears muscle",
        "You tear a muscle: 1d-3 injury to the limb you used (the neck, biting or butting); "
        "-1 to attacks and defenses next turn, and -3 to anything with that limb (with the "
        "neck, to anything) until it heals (-1 with High Pain Threshold).",
    ),
    16: _OBJECT,
    17: Entry(
        "strains limb",
        "As 4 (a strained limb or pulled muscle); an animal of IQ 3-5 loses its nerve and "
        "flees on its next turn, or cowers if it cannot.",
    ),
    18: _KNOCKED_OUT,
}
"""B557's Unarmed Critical Miss Table, by the 3d6 roll: for a critical miss with a
punch, kick, bite, claw, slam, head butt or any other unarmed attack."""

_UNARMED = re.compile(
    r"\b(natural attacks?|punch|kick|bite|claws?|slam|head ?butt|butt|knee|elbow|stomp|"
    r"stamp|grapple|shove|talons?|teeth|unarmed)\b",
    re.IGNORECASE,
)


def unarmed_name(name: str) -> bool:
    """Whether a sheet's attack name is an unarmed attack (B557: "bites, claws, ...
    punches, kicks"): GCS's ``Natural Attacks (Punch)``, or a name with punch, kick,
    bite, claw, slam, head butt, knee, elbow, stomp, grapple, shove, talons or teeth.
    This is referee's reading of the name; ``--unarmed`` and ``--armed`` overrule it.

    >>> unarmed_name("Natural Attacks (Punch)"), unarmed_name("Kick"), unarmed_name("Broadsword")
    (True, True, False)
    """
    return _UNARMED.search(name) is not None


@dataclass(frozen=True, slots=True)
class CriticalRoll:
    """A roll on a critical table."""

    table: str
    """``critical hit``, ``critical head blow``, ``critical miss`` or ``unarmed critical
    miss``."""
    dice: tuple[int, int, int]
    total: int
    entry: Entry

    @property
    def text(self) -> str:
        """``critical hit table: rolled 7 (1, 2, 4): If any damage penetrates ...``."""
        return f"{self.table} table: {rolled(self.total, self.dice)}: {self.entry.text}"


def _roll(table: str, rows: dict[int, Entry], rng: RandomSource | None) -> CriticalRoll:
    a, b, c = draw_faces(rng, 3, 6)
    return CriticalRoll(table, (a, b, c), a + b + c, rows[a + b + c])


def critical_hit(rng: RandomSource | None = None) -> CriticalRoll:
    """Roll on the Critical Hit Table (Basic Set, B556; 4th edition), 3d6."""
    return _roll("critical hit", CRITICAL_HIT, rng)


def critical_miss(rng: RandomSource | None = None, *, unarmed: bool = False) -> CriticalRoll:
    """Roll on the Critical Miss Table (Basic Set, B556; 4th edition), 3d6; with
    ``unarmed``, on the Unarmed Critical Miss Table (B557) for an unarmed attack."""
    if unarmed:
        return _roll("unarmed critical miss", CRITICAL_MISS_UNARMED, rng)
    return _roll("critical miss", CRITICAL_MISS, rng)
