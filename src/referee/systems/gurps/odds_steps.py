"""An exchange's odds as one value (:class:`ExchangeOdds`), and the pieces every odds
module sums with: the HP thresholds an injury crosses (B419), the dice's totals, the
critical tables' effects on a blow (B556).

Sources: *GURPS Basic Set*, 4th edition: B419, "General Injury: Lost Hit Points" (under
1/3 HP reeling; 0 HP; an HT roll to live at −1×HP to −4×HP; dead at −5×HP, destroyed
at −10×HP); B556, the Critical Hit Table and the Critical Head Blow Table (each row
with its 3d6 chance; rows 6-7 at the eye by :class:`.criticals.EyeRow`).
"""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TypeVar

from ...fmt import percent
from .allout import long_damage, strong_damage
from .blows import BLOWS
from .criticals import CRITICAL_HEAD_BLOW, CRITICAL_HIT, EyeRow
from .damage import DamageSpec
from .defense import DefenseOptions
from .locations import require_targetable
from .melee import AttackOptions
from .success import three_d6, ways
from .target import Target

__all__ = [
    "THRESHOLDS",
    "ExchangeOdds",
    "HpOdds",
    "Tails",
    "add",
    "hp_odds",
    "prepared",
    "table_odds",
    "ways",
]

K = TypeVar("K")

THRESHOLDS = (1, 2, 3, 4, 5, 10)
"""The multiples of HP below 0 that the rules name (B419): an HT roll to survive at
−1×HP to −4×HP, dead at −5×HP, the body destroyed at −10×HP."""


@dataclass(frozen=True, slots=True)
class ExchangeOdds:
    """An exchange's odds, step by step, before any die is rolled."""

    attacker: str
    target: str
    effective_skill: int
    hit: Fraction
    """P(the attack hits): a success, or an aimed attack's miss by 1 (B399: the torso)."""
    critical_hit: Fraction
    defense: str | None
    """The defense the target rolls (``best`` chosen), None when it has none to roll."""
    defense_level: int | None
    """That defense's effective level, with every modifier."""
    defended: Fraction
    """P(a hit that is not critical is defended): over the whole exchange."""
    locations: tuple[tuple[str, Fraction], ...]
    """Where a blow that lands falls, and the chance of each (B398's table when the
    location is random; else the one location, and the torso after a miss by 1)."""
    injures: Fraction
    """P(any injury): the blow lands and something penetrates DR."""
    injury: tuple[tuple[int, Fraction], ...]
    """P(each injury), 0 included (a miss, a defense, DR that stops it)."""
    major_wound: Fraction
    knockdown: Fraction
    """P(a knockdown roll is called: a major wound, or a head or vitals hit, B420)."""
    crippled: Fraction
    reeling: Fraction | None
    """P(the target is left under 1/3 of its HP when it was not: B419); None when its
    HP are not known."""
    zero_hp: Fraction | None
    """P(the target is left at 0 HP or less when it was above)."""
    thresholds: tuple[tuple[int, Fraction], ...]
    """P(crossing each −N×HP: 1-4 an HT roll to survive, 5 dead, 10 destroyed)."""
    second_defense: str | None = None
    """All-Out Defense (Double)'s second defense (B366), None without it."""
    second_level: int | None = None
    """That defense's effective level."""
    breaks: Fraction | None = None
    """With a heavy weapon parried (B376): P(the parrying weapon breaks); else None."""
    hits: tuple[tuple[int, Fraction], ...] = ()
    """Rapid Fire (B373): P(each number of hits that land, 0 included); empty without it."""

    system = "gurps"
    kind = "exchange odds"

    @property
    def mean_injury(self) -> Fraction:
        """The injury's mean over the whole exchange."""
        return sum((n * p for n, p in self.injury), Fraction(0))

    @property
    def text(self) -> str:
        """The odds, one step a line."""
        lines = [
            f"{self.attacker} on {self.target} (skill {self.effective_skill}):",
            f"  hits {percent(self.hit)} (critical {percent(self.critical_hit)})",
        ]
        if self.defense is not None:
            then = ""
            if self.second_defense is not None:
                then = f", then {self.second_defense.title()} {self.second_level} (B366)"
            lines.append(
                f"  {self.defense.title()} {self.defense_level}{then} defends "
                f"{percent(self.defended)}"
            )
        if self.breaks is not None:
            lines.append(f"  the parrying weapon breaks {percent(self.breaks)} (B376)")
        if self.hits:
            landed = ", ".join(f"{n}: {percent(p)}" for n, p in self.hits if n)
            lines.append(f"  hits that land (B373, B375): {landed}")
        if len(self.locations) > 1:
            lands = ", ".join(f"{k} {percent(p)}" for k, p in self.locations)
            lines.append(f"  lands on the {lands}")
        lines.append(
            f"  injures {percent(self.injures)}, mean injury {float(self.mean_injury):.2f}; "
            f"major wound {percent(self.major_wound)}, knockdown roll "
            f"{percent(self.knockdown)}, crippled {percent(self.crippled)}"
        )
        common = [(n, p) for n, p in self.injury if p >= Fraction(1, 1000)]
        shown = ", ".join(f"{n}: {percent(p)}" for n, p in common)
        rare = len(self.injury) - len(common)
        lines.append(f"  injury {shown}" + (f" (and {rare} under 0.1% each)" if rare else ""))
        if self.reeling is not None and self.zero_hp is not None:
            hp = [f"reeling {percent(self.reeling)}", f"0 HP or less {percent(self.zero_hp)}"]
            hp += [f"{_threshold(k)} {percent(p)}" for k, p in self.thresholds if p]
            lines.append("  " + ", ".join(hp))
        return "\n".join(lines)


def _threshold(k: int) -> str:
    if k == 5:
        return "dead (-5×HP)"
    if k == 10:
        return "destroyed (-10×HP)"
    return f"HT to live at -{k}×HP"


def prepared(
    damage: DamageSpec, target: Target, options: AttackOptions, defense_options: DefenseOptions
) -> tuple[DamageSpec, DefenseOptions]:
    """The damage and the defense options as the options change them: a fencing
    Parry (B376); Strong's +2 or +1 a die (B365); Long's cost to a swing (MA97)."""
    if target.fencing and not defense_options.fencing:
        defense_options = replace(defense_options, fencing=True)
    if options.location is not None:
        require_targetable(options.location, damage.damage_type, options.tight_beam)
    if options.strong:
        damage = replace(damage, expression=strong_damage(damage.expression))
    elif options.long:
        damage = replace(damage, expression=long_damage(damage.expression, options.thrust))
    return damage, defense_options


HpOdds = tuple[Fraction | None, Fraction | None, tuple[tuple[int, Fraction], ...]]
"""P(reeling), P(0 HP or less), and P(crossing each of :data:`THRESHOLDS`)."""


@dataclass(frozen=True, slots=True)
class Tails:
    """An injury's distribution as its tails: P(an injury of ``n`` or more) for each
    ``n`` it may take, so that each HP threshold is one look-up (:func:`hp_odds`)."""

    injuries: tuple[int, ...]
    """The injuries above 0 it may take, ascending."""
    at_least: tuple[Fraction, ...]
    """P(an injury of each of :attr:`injuries` or more), in their order, and a last 0."""

    @classmethod
    def of(cls, injury: dict[int, Fraction]) -> Tails:
        """The tails of ``injury`` (each injury's chance; 0 and below count nowhere)."""
        ns = sorted(n for n, p in injury.items() if n > 0 and p)
        at_least = [Fraction(0)]
        for n in reversed(ns):
            at_least.append(at_least[-1] + injury[n])
        return cls(tuple(ns), tuple(reversed(at_least)))

    def from_(self, least: int) -> Fraction:
        """P(an injury of ``least`` or more, and above 0)."""
        return self.at_least[bisect.bisect_left(self.injuries, max(least, 1))]


def hp_odds(target: Target, injury: dict[int, Fraction] | Tails) -> HpOdds:
    """P(reeling), P(0 HP or less) and P(crossing each of :data:`THRESHOLDS`) after an
    injury distributed as ``injury`` (or its :class:`Tails`), from the target's HP now
    (B419); None, None and none when its HP are not known.

    An injury ``n`` leaves ``now - n``: reeling when that is under 1/3 of the HP and
    ``now`` was not (``3 * (now - n) < hp <= 3 * now``); at 0 or less from above
    (``now - n <= 0 < now``); past −k×HP from above it (``now - n <= -k * hp < now``).
    Each is an injury of some least size or more.
    """
    hp = target.hp
    if hp is None:
        return None, None, ()
    now = target.current_hp if target.current_hp is not None else hp
    tails = injury if isinstance(injury, Tails) else Tails.of(injury)
    none = Fraction(0)
    reeling = tails.from_((3 * now - hp) // 3 + 1) if hp <= 3 * now else none
    zero = tails.from_(now) if now > 0 else none
    crossed = tuple((k, tails.from_(now + k * hp) if -k * hp < now else none) for k in THRESHOLDS)
    return reeling, zero, crossed


def add(into: dict[K, Fraction], key: K, p: Fraction) -> None:
    """Add ``p`` to ``into[key]`` (a key with no chance is not made)."""
    if p:
        into[key] = into.get(key, Fraction(0)) + p


@functools.cache
def table_odds(head: bool = False, as_4: bool = False) -> dict[str, Fraction]:
    """P(each effect) of a critical hit: B556's rows over 3d6 (the Critical Head Blow
    Table's with ``head``; its rows 6-7 read as row 4 with ``as_4``, an attack aimed
    at the eye under :attr:`.criticals.EyeRow.AS_4`)."""

    rows = CRITICAL_HEAD_BLOW if head else CRITICAL_HIT
    reading = EyeRow.AS_4 if as_4 else EyeRow.AS_AIMED
    out: dict[str, Fraction] = {}
    for roll_total, p in three_d6().items():
        effect = reading.effect(rows[roll_total].effect, "eye")
        effect = effect if effect in BLOWS else "normal"  # the rest do a normal blow
        out[effect] = out.get(effect, Fraction(0)) + p
    return out
