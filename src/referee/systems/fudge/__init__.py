"""Fudge dice and the trait ladder, as Psi-punk uses them.

Pure functions returning frozen results: 4dF actions against a difficulty or
an opponent, reroll bonuses and penalties, and the exact odds of all of it.
The ladder is data (:data:`PSI_PUNK` by default, :data:`FATE_CORE`, or a user's
TOML/JSON file via :func:`load_ladder`). Each docstring cites its rule: *Psi-punk*
(key ``002``) by section, or the rules notes (the "rules README"); docs/reference/sources.md
lists both. *Psi-punk*'s text gives no damage capacity or wound track: damage is
left out, not guessed.

>>> from referee.systems import fudge
>>> fudge.PSI_PUNK.parse("Great+1").name
'Superb'
>>> fudge.action_odds("Good", difficulty="Great", reroll=+1).success
Fraction(146, 243)
"""

from typing import TYPE_CHECKING

from ...lazy import export

if TYPE_CHECKING:
    from .action import (
        MAX_MODIFIER,
        NO_DIFFICULTY,
        ActionOdds,
        ActionRoll,
        action,
        action_odds,
        difficulty_level,
    )
    from .dice import (
        MAX_REROLLS,
        Reroll,
        Strategy,
        choose,
        dice_distribution,
        face_text,
        net_rerolls,
        read_faces,
        read_rerolls,
    )
    from .ladder import FATE_CORE, LADDERS, PSI_PUNK, Degrees, Ladder, Level, ladder_from_data
    from .ladder_file import get_ladder, load_ladder
    from .opposed import OpposedRoll, TieRule, oppose, oppose_odds

export(
    __name__,
    {
        "action": (
            "MAX_MODIFIER",
            "NO_DIFFICULTY",
            "ActionOdds",
            "ActionRoll",
            "action",
            "action_odds",
            "difficulty_level",
        ),
        "dice": (
            "MAX_REROLLS",
            "Reroll",
            "Strategy",
            "choose",
            "dice_distribution",
            "face_text",
            "net_rerolls",
            "read_faces",
            "read_rerolls",
        ),
        "ladder": (
            "FATE_CORE",
            "LADDERS",
            "PSI_PUNK",
            "Degrees",
            "Ladder",
            "Level",
            "ladder_from_data",
        ),
        "ladder_file": ("get_ladder", "load_ladder"),
        "opposed": ("OpposedRoll", "TieRule", "oppose", "oppose_odds"),
    },
)

__all__ = [
    "FATE_CORE",
    "LADDERS",
    "MAX_MODIFIER",
    "MAX_REROLLS",
    "NO_DIFFICULTY",
    "PSI_PUNK",
    "ActionOdds",
    "ActionRoll",
    "Degrees",
    "Ladder",
    "Level",
    "OpposedRoll",
    "Reroll",
    "Strategy",
    "TieRule",
    "action",
    "action_odds",
    "choose",
    "difficulty_level",
    "face_text",
    "dice_distribution",
    "get_ladder",
    "ladder_from_data",
    "load_ladder",
    "net_rerolls",
    "oppose",
    "oppose_odds",
    "read_faces",
    "read_rerolls",
]
