"""A blow of a GURPS exchange as it landed (:class:`Hurt`), in words (:func:`hurt_line`),
and what the rules call for after it (:func:`next_calls`).

Sources: *GURPS Basic Set*, 4th edition: B378-B379 (knockback; blunt trauma through
flexible armor), B399 (a blinded eye), B419 ("General Injury: Lost Hit Points": at 0
HP or less an HT roll each turn to stay conscious; at each −1×HP ... −4×HP an HT roll
to live; dead at −5×HP, destroyed at −10×HP), B420 ("Knockdown and Stunning": an HT
roll whenever one suffers a major wound, or a head or vitals hit that causes shock),
B421 (crippling). :mod:`.exchange` rolls the blows; this module says them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ...fmt import percent, rolled
from .criticals import CriticalRoll
from .damage import DamageSpec
from .locations import Location
from .target import Target
from .wounds import Wound, blunt_trauma, knockback

__all__ = ["Hurt", "hurt_line", "next_calls"]


@dataclass(frozen=True, slots=True)
class Hurt:
    """The damage step: location, dice, what the critical table did, and the injury."""

    location: Location
    location_roll: tuple[int, int, int] | None
    dice: tuple[int, ...]
    basic: int
    dr: int
    penetrating: int
    injury: int
    effect: str = "normal"
    chance_through: Fraction = Fraction(0)
    """Before the damage dice: P(any damage penetrates DR here)."""
    wound: Wound | None = None
    """What the injury does (:func:`.wounds.wound_effects`): shock, a major wound,
    crippling, knockdown."""
    head_blow: CriticalRoll | None = None
    """A critical hit that landed on the head at random: its 3d6 read on the Critical
    Head Blow Table (B556) once the location was known."""


def hurt_line(
    h: Hurt, expression: str, damage_type: str, note: str | None = None, *, half: bool = False
) -> str:
    """A blow that landed, in words: where (and its 3d6 when random), the damage against
    DR with its odds to penetrate, the dice, what a critical row did (``note`` in its
    place), the basic damage, what penetrates and the injury, crippling (B421) and a
    blinded eye (B399); ``half``: the basic damage was halved at 1/2D range (B378). The
    exchange's text and ``gurps blow``'s both say it so."""
    where = h.location.key
    if h.location_roll is not None:
        where += f" ({rolled(sum(h.location_roll), h.location_roll)})"
    dmg = f"{expression} {damage_type} vs DR {h.dr} ({percent(h.chance_through)} to penetrate)"
    times = "" if h.effect in ("normal", "drop") else f", {h.effect.replace('_', ' ')}"
    if h.head_blow is not None:
        times = f", a head hit: {h.head_blow.text}"
    if note is not None:
        times = note
    line = f"hits the {where}; {dmg}: {rolled(sum(h.dice), h.dice)}{times}, basic {h.basic}"
    if half:
        line += " (halved at 1/2D, B378)"
    if h.penetrating:
        line += f", {h.penetrating} penetrates: injury {h.injury}"
        if h.wound is not None and h.wound.crippled:
            line += f"; the {h.wound.crippled} is crippled (B421)"
        if h.wound is not None and h.wound.blinded:
            line += "; the eye is blinded (B399)"
    else:
        line += ", stopped by DR: no injury"
    return line


def next_calls(
    target: Target, hurt: Hurt, damage: DamageSpec, hit: int | None = None
) -> tuple[str, ...]:
    """What the rules now call for: B420's knockdown roll (:func:`.wounds.wound_effects`;
    with Rapid Fire, ``hit``, one for each blow that calls it: "whenever you suffer a
    major wound", B420), B378's knockback (:func:`.wounds.knockback`, when ST or HP is
    known), and B419's rolls at 0 HP and below."""
    calls = []
    hp = target.hp
    w = hurt.wound
    before = target.current_hp if target.current_hp is not None else hp
    after = None if before is None else before - hurt.injury
    if hp is not None and after is not None and hurt.injury and after <= -10 * hp:
        return (f"{target.name} is dead at {after} HP, the body destroyed (-10×HP, B419)",)
    if hp is not None and after is not None and hurt.injury and after <= -5 * hp:
        return (f"{target.name} is dead at {after} HP (-5×HP, B419)",)
    if w is not None and w.knockdown is not None:
        mod = f" at {w.knockdown:+d}" if w.knockdown else ""
        calls.append(
            f"{target.name} rolls HT{mod} against knockdown and stunning for {w.why}"
            f"{'' if hit is None else f' (hit {hit})'} (B420: on a failure, stunned and "
            "prone; by 5 or more, unconscious)"
        )
    if hurt.effect == "double_shock" and hurt.penetrating:
        calls.append("double shock, at most -8 (critical hit)")
    trauma = blunt_trauma(hurt.basic, damage.damage_type, hurt.penetrating > 0)
    if target.flexible and hurt.dr and trauma:
        calls.append(
            f"blunt trauma: {target.name} takes {trauma} HP of injury through the flexible "
            "armor (B379)"
        )
    st = target.st if target.st is not None else target.hp
    if st is not None:
        yards = knockback(hurt.basic, damage.damage_type, hurt.penetrating > 0, st, damage.notes)
        if yards:
            calls.append(
                f"{target.name} is knocked back {yards} yard{'s' if yards > 1 else ''} and "
                "rolls DX, Acrobatics or Judo or falls (B378)"
            )
    if hp is None or before is None or after is None or not hurt.injury:
        return tuple(calls)
    if after <= 0 < before or (after <= 0 and before <= 0):
        calls.append(f"{target.name} rolls HT each turn to stay conscious (B419, at 0 HP or less)")
    for k in range(1, 5):
        if after <= -k * hp < before:
            calls.append(f"{target.name} rolls HT to survive at -{k}×HP (B419)")
    return tuple(calls)
