"""Stars Without Number (revised) saving throws, with their exact odds.

Source: *Stars Without Number Revised*, "Types of Saving Throws" and "Saving Throw
Mechanics"; the rules notes, "Saving throws" (docs/reference/sources.md: the save target,
natural 1 and 20).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from enum import StrEnum
from fractions import Fraction

from ...errors import RuleError
from ...rng import RandomSource
from .checks import LIMIT, Check, Kind, _bounded, _roll

__all__ = ["SaveKind", "save", "save_attribute", "save_odds", "save_target"]


class SaveKind(StrEnum):
    """The three saving throws and their two attributes each (``003``, "Saving Throws")."""

    PHYSICAL = "physical"
    EVASION = "evasion"
    MENTAL = "mental"

    @property
    def attributes(self) -> tuple[str, str]:
        """The two attributes whose better modifier applies."""
        return {"physical": ("str", "con"), "evasion": ("dex", "int"), "mental": ("cha", "wis")}[
            self.value
        ]


def save_target(level: int = 1, attribute: int = 0, *, hit_dice: int | None = None) -> int:
    """The saving throw target: 16 − level − the better attribute modifier; NPCs 15 − HD/2.

    Source: ``003``, "Saving Throw Mechanics" (starting score 15, −1 per level,
    modified by the better of two attributes); rules README (so a level-1
    character with no bonus needs 15; an NPC's target is 15 − half its Hit
    Dice, rounded down).

    >>> save_target(1), save_target(3, 1), save_target(hit_dice=5)
    (15, 12, 13)
    """
    if hit_dice is not None:
        return 15 - _bounded("hit dice", hit_dice, 0, LIMIT) // 2
    return 16 - _bounded("level", level, 1, LIMIT) - attribute


@functools.lru_cache(maxsize=4096)
def save_odds(target: int, modifier: int = 0) -> Fraction:
    """P(success) of a save: 1d20 + modifier ≥ target, a natural 1 fails, a natural 20 succeeds.

    Source: ``003``, "Saving Throw Mechanics"; rules README.

    >>> save_odds(15), save_odds(30), save_odds(-5)
    (Fraction(3, 10), Fraction(1, 20), Fraction(19, 20))
    """
    wins = sum(1 for d in range(1, 21) if d == 20 or (d != 1 and d + modifier >= target))
    return Fraction(wins, 20)


def save_attribute(
    kind: SaveKind | str, attributes: Mapping[str, int]
) -> tuple[int, tuple[str, ...]]:
    """The better modifier of a save's two attributes, and what was assumed to get it.

    A missing attribute counts as modifier +0 and is named in the assumptions,
    so ``{"str": -2}`` for a physical save gives 0 ("con +0 (not given)"), not
    -2. Source: ``003``, "Saving Throw Mechanics" ("Modified by best of two
    attributes").

    >>> save_attribute("physical", {"str": -2})
    (0, ('con +0 (not given)',))
    >>> save_attribute("physical", {})
    (0, ('+0, no attribute given',))

    Raises:
        RuleError: an attribute that does not belong to this save.
    """
    kind = SaveKind(kind)
    names = kind.attributes
    extra = [a for a in attributes if a not in names]
    if extra:
        raise RuleError(
            f"{extra[0]} does not apply to a {kind.value} save (use {', '.join(names)})"
        )
    if not attributes:
        return 0, ("+0, no attribute given",)
    missing = tuple(f"{a} +0 (not given)" for a in names if a not in attributes)
    return max(attributes.get(a, 0) for a in names), missing


def save(
    kind: SaveKind | str,
    *,
    level: int = 1,
    attributes: Sequence[int] | Mapping[str, int] = (0, 0),
    hit_dice: int | None = None,
    modifier: int = 0,
    label: str | None = None,
    rng: RandomSource | None = None,
) -> Check:
    """Roll a physical, evasion or mental saving throw.

    Source: ``003``, "Types of Saving Throws" and "Saving Throw Mechanics";
    rules README. A PC's target uses ``level`` and the better of the two
    ``attributes`` modifiers (see :attr:`SaveKind.attributes`); an NPC's uses
    ``hit_dice``. Situational ``modifier`` is added to the roll.

    ``attributes`` is either both modifiers (a sequence) or a mapping of
    attribute names (``str``, ``con``; ``dex``, ``int``; ``cha``, ``wis``) to
    modifiers, where a missing one counts +0 and the result says so
    (:func:`save_attribute`).
    """
    kind = SaveKind(kind)
    assumed: tuple[str, ...] = ()
    if isinstance(attributes, Mapping):
        best, assumed = save_attribute(kind, attributes)
        if hit_dice is not None:
            assumed = ()
    else:
        best = max(attributes) if attributes else 0
    target = save_target(level, best, hit_dice=hit_dice)
    if hit_dice is None:
        how = f"16 - level {level}" + (f" - {best} attribute" if best > 0 else "")
        how += f" + {-best} attribute" if best < 0 else ""
    else:
        how = f"15 - {hit_dice} HD / 2"
    _bounded("modifier", modifier)
    (d,) = _roll(rng, 1, 20)
    if d == 1:
        ok, note = False, "natural 1 always fails"
    elif d == 20:
        ok, note = True, "natural 20 always succeeds"
    else:
        ok, note = d + modifier >= target, ""
    mods = (("situational", modifier),) if modifier else ()
    return Check(
        Kind.SAVE,
        (d,),
        mods,
        target,
        ok,
        save_odds(target, modifier),
        note=note,
        label=label or f"{kind.value.title()} save ({how})",
        assumed=assumed,
    )
