"""The one attacked in a GURPS exchange: its defenses, DR, HP and what changes them,
and the active defense it rolls.

Sources: *GURPS Basic Set*, 4th edition: B374-B377, "Active Defense" (the best
defense, a fencing parry); B419, "General Injury: Lost Hit Points" (reeling: under
1/3 HP, Dodge halved); B426, "Lost Fatigue Points" (very tired: the same); B399,
"Groin" (a male humanoid); B59 and B142, High and Low Pain Threshold; B376,
"Parrying" (a missile cannot be parried); B380, Injury Tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import RuleError
from .defense import DEFENSES, DefenseOptions, defense_modifiers, halved_dodge
from .tolerance import Tolerance

__all__ = ["Target", "choose_defense"]


@dataclass(frozen=True, slots=True)
class Target:
    """What the exchange needs of the one attacked (from their sheet, or typed)."""

    name: str = "the target"
    dodge: int | None = None
    parry: int | None = None
    block: int | None = None
    dr: int = 0
    """DR over the torso, and wherever :attr:`dr_at` says nothing (the skull adds its
    own 2)."""
    hp: int | None = None
    """Hit points at full health (major wounds, crippling, the thresholds)."""
    current_hp: int | None = None
    """Hit points now, when the fight is tracked (else :attr:`hp`)."""
    dr_at: tuple[tuple[str, int], ...] = ()
    """DR over particular locations (``("skull", 4)``; ``leg`` covers both legs)."""
    hpt: bool = False
    """High Pain Threshold: no shock, +3 against knockdown (B59)."""
    lpt: bool = False
    """Low Pain Threshold: shock doubled, −4 against knockdown (B142)."""
    male: bool = False
    """A male humanoid: a groin hit's major wound is at −5 to knockdown, and crushing
    shock there is doubled (B399). Off by default."""
    fencing: bool = False
    """The Parry is a fencing parry (GCS's ``9F``): +3 to retreat, −2 per further
    parry (B376-B377)."""
    very_tired: bool = False
    """Under 1/3 of its FP: Dodge halved, rounding up (B426)."""
    flexible: bool = False
    """Its armor is flexible: a blow it stops may still do blunt trauma (B379)."""
    st: int | None = None
    """ST, for knockback (B378); when not given, :attr:`hp` stands for it (HP start
    equal to ST, B16)."""
    tolerance: Tolerance | None = None
    """Injury Tolerance (Unliving, Homogenous or Diffuse): the wounding and the hit
    locations it changes (B380, B60; :mod:`.tolerance`)."""

    @property
    def reeling(self) -> bool:
        """Under 1/3 of its HP now (:attr:`current_hp` of :attr:`hp`): Dodge halved,
        rounding up (B419)."""
        return self.hp is not None and self.current_hp is not None and 3 * self.current_hp < self.hp

    def dr_over(self, location: str) -> int:
        """The DR over ``location``: :attr:`dr_at`'s, else :attr:`dr`."""
        table = dict(self.dr_at)
        key = location.removeprefix("right ").removeprefix("left ")
        return table.get(location, table.get(key, self.dr))

    def level(self, defense: str) -> int | None:
        """The defense's level; Dodge halved when reeling or very tired
        (:func:`.defense.halved_dodge`, B419, B426)."""
        dodge = self.dodge
        if dodge is not None:
            dodge = halved_dodge(dodge, reeling=self.reeling, very_tired=self.very_tired)
        return {"dodge": dodge, "parry": self.parry, "block": self.block}[defense]


def choose_defense(
    target: Target, choice: str, options: DefenseOptions, against: int, parry: int | None = 0
) -> tuple[str, int] | None:
    """The defense rolled: the one named, or with ``best`` the highest effective one the
    target has (Dodge first on a tie); None for ``none``. ``parry`` is what the attack
    does to a parry (:func:`.melee.parry_modifier`): a thrown weapon's −1 or −2, or
    None for a missile, which cannot be parried (B376), so ``best`` passes over the
    Parry.

    Raises:
        RuleError: a defense the target does not have, a parry against a missile, or
            an unknown choice.
    """
    if choice == "none":
        return None
    if choice == "parry" and parry is None:
        raise RuleError("a missile cannot be parried (B376): dodge or block it")
    if choice == "best":
        known = [(d, target.level(d)) for d in DEFENSES if target.level(d) is not None
                 and not (d == "parry" and parry is None)]  # fmt: skip
        if not known:
            if parry is None and target.parry is not None:
                raise RuleError(
                    f"{target.name} has only a Parry given, and a missile cannot be parried "
                    "(B376): it needs a Dodge or a Block"
                )
            raise RuleError(f"{target.name} has no active defense given (dodge, parry or block)")

        def effective(item: tuple[str, int | None]) -> int:
            mods = defense_modifiers(item[0], options, against, parry or 0)
            return (item[1] or 0) + sum(m for _, m in mods)

        best = max(known, key=effective)
        return best[0], int(best[1] or 0)
    if choice not in DEFENSES:
        raise RuleError(f"unknown defense {choice!r}; use dodge, parry, block, best or none")
    level = target.level(choice)
    if level is None:
        raise RuleError(f"{target.name} has no {choice.title()} given")
    return choice, level
