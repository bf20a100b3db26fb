"""Stars Without Number (revised): saves, skill checks, aid, opposed checks, combat,
injury, morale, and a vectorised encounter simulator.

Pure functions returning frozen results, each with its exact odds. Sources are
cited in each docstring: ``../shared/rules/003_3daee39045b32d3c.txt`` and the
Stars Without Number section of that folder's ``README.md``.

>>> from referee.systems import swn
>>> swn.attribute_modifier(14), swn.save_target(3, 1), swn.save_odds(15)
(1, 12, Fraction(3, 10))
"""

from .checks import (
    DIFFICULTIES,
    Check,
    Helper,
    Kind,
    attribute_modifier,
    difficulty_value,
    resolve_modifier,
    skill_check,
    skill_odds,
)
from .combat import (
    ACTIONS,
    Attack,
    InitiativeEntry,
    ShockFloor,
    Turn,
    Weapon,
    attack,
    attack_modifier,
    damage_distribution,
    hit_odds,
    initiative,
    plan_turn,
)
from .encounter import Combatant, Encounter, Side, Target, load_encounter, load_party
from .injury import (
    TOOLS,
    Condition,
    DeathWindow,
    Health,
    Stabilization,
    end_round,
    rest_night,
    stabilize,
    stabilize_difficulty,
    take_damage,
    wait_minutes,
)
from .opposed import Opposed, TieRule, morale, morale_odds, morale_triggers, oppose
from .saves import SaveKind, save, save_attribute, save_odds, save_target

__all__ = [
    "ACTIONS",
    "DIFFICULTIES",
    "TOOLS",
    "Attack",
    "Check",
    "Combatant",
    "Condition",
    "DeathWindow",
    "Encounter",
    "Health",
    "Helper",
    "InitiativeEntry",
    "Kind",
    "Opposed",
    "SaveKind",
    "ShockFloor",
    "Side",
    "Stabilization",
    "Target",
    "TieRule",
    "Turn",
    "Weapon",
    "attack",
    "attack_modifier",
    "attribute_modifier",
    "damage_distribution",
    "difficulty_value",
    "end_round",
    "hit_odds",
    "initiative",
    "load_encounter",
    "load_party",
    "morale",
    "morale_odds",
    "morale_triggers",
    "oppose",
    "plan_turn",
    "resolve_modifier",
    "rest_night",
    "save",
    "save_attribute",
    "save_odds",
    "save_target",
    "skill_check",
    "skill_odds",
    "stabilize",
    "stabilize_difficulty",
    "take_damage",
    "wait_minutes",
]
