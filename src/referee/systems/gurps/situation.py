"""The modifiers a GM puts on an attack for its situation, each named: range (B550),
Aim and the weapon's Acc (B364), the attacker's posture (B551) and shock (B419), Move
and Attack (B365), Rapid Fire's bonus (B373) and a Dual-Weapon Attack (B417).

Sources: *GURPS Basic Set*, 4th edition (the rules texts referee works from have no
combat chapter; ``COMBAT.md`` of the rules notes states the combat pages in short):

- B550, "Size and Speed/Range Table": 0 at 2 yards, −1 at 3, −2 at 5, −3 at 7, −4 at
  10, −5 at 15, −6 at 20, −7 at 30, −8 at 50, −9 at 70, −10 at 100, and so on, each
  ×10 of distance −6 more; a distance between two rows takes the farther row (the
  larger penalty). A ranged attack only.
- B364, "Aim": after a turn of Aim, the weapon's Accuracy (Acc) is added to skill; +1
  more after a second turn, +2 after three or more. A ranged attack only.
- B551, "Posture": the table's Attack column is the modifier to a *melee* attack made
  from the posture (crouching, kneeling, sitting −2; crawling, lying prone −4); it does
  not touch a ranged attack (the table's Target column, −2 to hit a low target with a
  ranged attack, is the target's posture, not the attacker's).
- B419, "Shock": −1 per HP of injury to DX and IQ, and the skills based on them, on
  one's next turn (at most −4; −8 with Low Pain Threshold).
- B365, "Move and Attack": a melee attack at −4, and at most effective skill 9; a
  ranged attack at −2 or the weapon's Bulk, whichever is worse. (Its defense limits,
  no parry and no retreat until one's next turn, are the fight's to keep.)
- B373, "Rapid Fire": the bonus to skill for the shots fired (:func:`rof_bonus`).
- B417, "Dual-Weapon Attack": each of the two attacks at −4; the off hand −4 more
  (B52, "Ambidexterity": none for an ambidextrous attacker, who gives no
  ``off_hand``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

from ...errors import RuleError

__all__ = [
    "MOVE_AND_ATTACK_CAP",
    "HalfDamageFrom",
    "Posture",
    "Situated",
    "aim_bonus",
    "at_half_damage",
    "check_situation",
    "move_and_attack_modifier",
    "range_penalty",
    "rof_bonus",
    "situation_modifiers",
    "situation_tail",
]

MOVE_AND_ATTACK_CAP = 9
"""A melee attack made with Move and Attack is at most effective skill 9 (B365)."""


class HalfDamageFrom(StrEnum):
    """Where 1/2D range begins (B378, "Half Damage"; B269, a weapon's "1/2D"), as
    :func:`at_half_damage` reads it: ``past`` the 1/2D (the default: a target farther
    than it, as GURPS Game Aid's damage calculator reads "range to target is greater
    than the 1/2D range"), or ``at`` it or beyond."""

    PAST = "past"
    AT = "at"


def at_half_damage(
    range_yards: int, half_damage_range: int, start: HalfDamageFrom = HalfDamageFrom.PAST
) -> bool:
    """Whether a ranged attack at ``range_yards`` does half damage, for a weapon whose
    1/2D is ``half_damage_range`` yards (*GURPS Basic Set*, 4th edition, B378, "Half
    Damage (1/2D)"; B269): past it, or with :attr:`HalfDamageFrom.AT` at it or beyond.

    >>> at_half_damage(100, 100), at_half_damage(100, 100, HalfDamageFrom.AT)
    (False, True)
    >>> at_half_damage(150, 100)
    True

    Raises:
        RuleError: a negative range or 1/2D.
    """
    if range_yards < 0 or half_damage_range < 0:
        raise RuleError(f"--range {range_yards} and --half-damage-range {half_damage_range}: "
                        "yards are 0 or more")  # fmt: skip
    if start is HalfDamageFrom.AT:
        return range_yards >= half_damage_range
    return range_yards > half_damage_range


class Posture(StrEnum):
    """The attacker's posture, and its modifier to a melee attack (B551's Attack column).

    Source: *GURPS Basic Set*, 4th edition, B551, "Posture" table: standing none;
    crouching, kneeling and sitting −2; crawling and lying prone −4. The column is for
    melee attacks; a ranged attack from any posture takes none (referee's reading of
    the table's note, the one the fight uses too).
    """

    STANDING = "standing"
    CROUCHING = "crouching"
    KNEELING = "kneeling"
    SITTING = "sitting"
    CRAWLING = "crawling"
    PRONE = "prone"

    def melee(self) -> int:
        """The modifier to a melee attack from this posture.

        >>> Posture.PRONE.melee(), Posture.KNEELING.melee(), Posture.STANDING.melee()
        (-4, -2, 0)
        """
        return {Posture.STANDING: 0, Posture.CRAWLING: -4, Posture.PRONE: -4}.get(self, -2)

    def as_target(self, location: str | None) -> int:
        """The modifier to a *ranged* attack at a target in this posture, aimed at
        ``location`` (None: a random location, B398, or the torso).

        Source: *GURPS Basic Set*, 4th edition, B551, "Posture" table, Target column:
        −2 to hit the torso, groin or legs of a target in any posture but standing; no
        penalty to the other locations. An attack at a random location takes it
        (referee's reading: the roll is made before the location is known, and the
        torso is the location an attack names by default, B398).

        >>> Posture.PRONE.as_target(None), Posture.KNEELING.as_target("skull")
        (-2, 0)
        >>> Posture.STANDING.as_target("torso")
        0
        """
        low = location is None or location in ("torso", "groin", "leg", "right leg", "left leg")
        return -2 if self is not Posture.STANDING and low else 0


class Situated(Protocol):
    """What this module reads of an attack's options (:class:`.melee.AttackOptions`)."""

    @property
    def ranged(self) -> bool: ...
    @property
    def range_yards(self) -> int | None: ...
    @property
    def aim(self) -> int: ...
    @property
    def acc(self) -> int | None: ...
    @property
    def posture(self) -> Posture: ...
    @property
    def shock(self) -> int: ...
    @property
    def move_and_attack(self) -> bool: ...
    @property
    def bulk(self) -> int | None: ...
    @property
    def rof(self) -> int: ...
    @property
    def recoil(self) -> int: ...
    @property
    def dual_weapon(self) -> bool: ...
    @property
    def off_hand(self) -> bool: ...
    @property
    def all_out(self) -> bool: ...
    @property
    def strong(self) -> bool: ...
    @property
    def double(self) -> bool: ...
    @property
    def long(self) -> bool: ...
    @property
    def feint(self) -> int | None: ...
    @property
    def rapid(self) -> bool: ...


def _range_rows() -> list[int]:
    """B550's speed/range rows in yards: 2, 3, 5, 7, then 10, 15, 20, 30, 50, 70 for each
    power of ten; the row's index is its penalty."""
    rows = [2, 3, 5, 7]
    scale = 10
    while scale <= 10**7:
        rows += [scale, scale * 3 // 2, scale * 2, scale * 3, scale * 5, scale * 7]
        scale *= 10
    return rows


_ROWS = _range_rows()


def range_penalty(yards: int) -> int:
    """The range penalty of a ranged attack at ``yards`` (the distance to the target).

    Source: *GURPS Basic Set*, 4th edition, B550, "Size and Speed/Range Table", the
    Speed/Range column: 0 at 2 yards or less, −1 at 3, −2 at 5, −3 at 7, −4 at 10, −5
    at 15, −6 at 20, −7 at 30, −8 at 50, −9 at 70, −10 at 100, repeating every ×10; a
    distance between two rows reads the farther one (the larger penalty).

    >>> [range_penalty(y) for y in (1, 2, 3, 4, 10, 11, 100, 1000)]
    [0, 0, -1, -2, -4, -5, -10, -16]

    Raises:
        RuleError: a negative distance, or one past the table (10,000 miles).
    """
    if yards < 0:
        raise RuleError(f"--range {yards}: a distance in yards is 0 or more")
    for index, row in enumerate(_ROWS):
        if yards <= row:
            return -index
    raise RuleError(f"--range {yards}: past B550's table (at most {_ROWS[-1]:,} yards)")


def aim_bonus(turns: int, acc: int) -> int:
    """The bonus for ``turns`` of Aim with a weapon of Accuracy ``acc``.

    Source: *GURPS Basic Set*, 4th edition, B364, "Aim": after one turn of Aim, add the
    weapon's Acc to the attack; "+1 for a second turn, +2 for three or more turns".
    (Bracing the weapon, +1 more, is the GM's: ``--mod +1``.)

    >>> aim_bonus(0, 3), aim_bonus(1, 3), aim_bonus(2, 3), aim_bonus(5, 3)
    (0, 3, 4, 5)
    """
    if turns <= 0:
        return 0
    return acc + min(turns - 1, 2)


def rof_bonus(rof: int) -> int:
    """The bonus to skill for firing ``rof`` shots in one attack.

    Source: *GURPS Basic Set*, 4th edition, B373, "Rapid Fire", the Rapid Fire Bonuses
    table: 1-4 shots +0, 5-8 +1, 9-12 +2, 13-16 +3, 17-24 +4, 25-49 +5, 50-99 +6, and +1
    more for each doubling past that (100-199 +7, 200-399 +8 ...).

    >>> [rof_bonus(n) for n in (1, 4, 5, 8, 9, 12, 13, 16, 17, 24, 25, 49, 50, 99, 100, 200)]
    [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 8]
    """
    for top, bonus in ((4, 0), (8, 1), (12, 2), (16, 3), (24, 4), (49, 5), (99, 6)):
        if rof <= top:
            return bonus
    bonus, top = 7, 199
    while rof > top:
        bonus, top = bonus + 1, top * 2 + 1
    return bonus


def move_and_attack_modifier(ranged: bool, bulk: int | None) -> int:
    """Move and Attack's penalty (*GURPS Basic Set*, 4th edition, B365): −4 in melee
    (and the cap of 9, :data:`MOVE_AND_ATTACK_CAP`); a ranged attack at −2 or the
    weapon's Bulk (``bulk``, as the weapon table writes it: −4), whichever is worse.

    >>> move_and_attack_modifier(False, None), move_and_attack_modifier(True, -1)
    (-4, -2)
    >>> move_and_attack_modifier(True, -5)
    -5
    """
    if not ranged:
        return -4
    return min(-2, bulk if bulk is not None else -2)


def situation_modifiers(options: Situated) -> list[tuple[str, int]]:
    """The situational modifiers of an attack, each named as its text and JSON show it:
    range, Aim, posture, shock, Move and Attack, Rapid Fire's bonus, a Dual-Weapon
    Attack and the off hand (the module's pages: B550, B364, B551, B419, B365, B373,
    B417; 4th edition)."""
    mods: list[tuple[str, int]] = []
    if options.range_yards is not None and range_penalty(options.range_yards):
        mods.append((f"range {options.range_yards} yd", range_penalty(options.range_yards)))
    if options.aim:
        turns = f"{options.aim} turn{'s' if options.aim > 1 else ''}"
        mods.append((f"aim {turns}, Acc {options.acc}", aim_bonus(options.aim, options.acc or 0)))
    if not options.ranged and options.posture.melee():
        mods.append((options.posture.value, options.posture.melee()))
    if options.shock:
        mods.append(("shock", -options.shock))
    if options.move_and_attack:
        mods.append(("move and attack", move_and_attack_modifier(options.ranged, options.bulk)))
    if options.rof > 1 and rof_bonus(options.rof):
        mods.append((f"rapid fire {options.rof}", rof_bonus(options.rof)))
    if options.dual_weapon:
        mods.append(("dual-weapon", -4))
    if options.off_hand:
        mods.append(("off hand", -4))
    return mods


def situation_tail(options: Situated, effective: int) -> list[str]:
    """The situational modifiers as an attack's text names them (``range 10 yd -4``),
    and Move and Attack's cap when a melee attack stands at it (B365)."""
    tail = [f"{n} {m:+d}" for n, m in situation_modifiers(options)]
    if options.move_and_attack and not options.ranged and effective == MOVE_AND_ATTACK_CAP:
        tail.append(f"move and attack: at most {MOVE_AND_ATTACK_CAP}")
    return tail


def check_situation(options: Situated) -> None:
    """Refuse situational options that do not go together, naming the option.

    Raises:
        RuleError: ``--range`` or ``--aim`` on a melee attack; Aim without the weapon's
            Acc, or with Move and Attack (an Aim is its own maneuver, B364, and Move and
            Attack another, B365); Move and Attack with All-Out Attack (two maneuvers);
            Rapid Fire in melee, or a Recoil under 1; numbers out of range.
    """
    if options.range_yards is not None:
        if not options.ranged:
            raise RuleError("--range is for a ranged attack (B550): add --ranged, --thrown or "
                            "--thrown-small")  # fmt: skip
        range_penalty(options.range_yards)
    if not 0 <= options.aim <= 100:
        raise RuleError(f"--aim {options.aim}: turns of Aim are 0 to 100")
    if options.aim and not options.ranged:
        raise RuleError("--aim is for a ranged attack (B364): add --ranged, --thrown or "
                        "--thrown-small")  # fmt: skip
    if options.aim and options.acc is None:
        raise RuleError("--aim needs the weapon's Acc (B364): give --acc, or name a weapon "
                        "whose sheet gives it")  # fmt: skip
    if options.acc is not None and not 0 <= options.acc <= 30:
        raise RuleError(f"--acc {options.acc}: a weapon's Acc is 0 to 30")
    if not 0 <= options.shock <= 8:
        raise RuleError(f"--shock {options.shock}: shock is 0 to 8 (B419; 8 with Low Pain "
                        "Threshold)")  # fmt: skip
    if options.bulk is not None and not -20 <= options.bulk <= 0:
        raise RuleError(f"--bulk {options.bulk}: a weapon's Bulk is 0 to -20 (B269)")
    if options.move_and_attack:
        if options.aim:
            raise RuleError("--aim with --move-and-attack: Aim is a maneuver of its own (B364), "
                            "and Move and Attack another (B365); give one")  # fmt: skip
        aoa = (options.all_out or options.strong or options.double or options.long
               or options.feint is not None)  # fmt: skip
        if aoa:
            raise RuleError("Move and Attack and All-Out Attack are two maneuvers (B365): "
                            "give one")  # fmt: skip
    if not 1 <= options.rof <= 1000:
        raise RuleError(f"--rof {options.rof}: shots fired are 1 to 1000 (B373)")
    if not 1 <= options.recoil <= 100:
        raise RuleError(f"--recoil {options.recoil}: a weapon's Recoil is 1 or more (B373)")
    if options.rof > 1 and not options.ranged:
        raise RuleError("--rof is Rapid Fire, for a ranged attack (B373): add --ranged")
    if options.dual_weapon and (options.double or options.rapid or options.rof > 1):
        raise RuleError("--dual-weapon is two attacks already (B417): not with --double, "
                        "--rapid or --rof")  # fmt: skip
    if options.rapid and (options.double or options.rof > 1):
        raise RuleError("--rapid is Rapid Strike, two attacks at -6 each (B370): not with "
                        "--double (roll its other attack as its own gurps attack) or --rof "
                        "(Rapid Fire is one attack's shots, B373)")  # fmt: skip
