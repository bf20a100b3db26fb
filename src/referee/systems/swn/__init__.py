"""Stars Without Number (revised): saves, skill checks, aid, opposed checks, combat,
injury, morale, and a vectorised encounter simulator.

Pure functions returning frozen results, each with its exact odds. Each docstring
cites its rule: *Stars Without Number Revised* (key ``003``) by section, or the rules
notes on Stars Without Number (the "rules README"); docs/reference/sources.md lists both.

>>> from referee.systems import swn
>>> swn.attribute_modifier(14), swn.save_target(3, 1), swn.save_odds(15)
(1, 12, Fraction(3, 10))
"""

from .attributes import ATTRIBUTES, attribute_modifier, best_attribute, resolve_modifier
from .checks import Check, Kind
from .combat import (
    Attack,
    AttackOdds,
    InitiativeEntry,
    ShockFloor,
    Weapon,
    attack,
    attack_modifier,
    attack_odds,
    damage_distribution,
    hit_odds,
    initiative,
)
from .encounter import Combatant, Encounter, Side, Target, load_encounter, load_party
from .injury import (
    TOOLS,
    Condition,
    DeathWindow,
    Health,
    Stabilization,
    end_round,
    heal,
    rest_night,
    stabilize,
    stabilize_difficulty,
    stabilize_odds,
    take_damage,
    wait_minutes,
)
from .opposed import (
    Opposed,
    TieRule,
    morale,
    morale_certainty,
    morale_odds,
    morale_triggers,
    oppose,
    oppose_odds,
)
from .saves import SaveKind, save, save_attribute, save_odds, save_target
from .skills import (
    DIFFICULTIES,
    MAX_HELPERS,
    PSYCHIC_SKILLS,
    SKILLS,
    CheckOdds,
    Helper,
    assume_skill,
    difficulty_value,
    read_helpers,
    skill_check,
    skill_check_odds,
    skill_name,
    skill_odds,
)
from .turns import ACTIONS, Turn, plan_turn

__all__ = [
    "ATTRIBUTES",
    "ACTIONS",
    "DIFFICULTIES",
    "MAX_HELPERS",
    "PSYCHIC_SKILLS",
    "SKILLS",
    "TOOLS",
    "Attack",
    "AttackOdds",
    "Check",
    "CheckOdds",
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
    "attack_odds",
    "attack_modifier",
    "assume_skill",
    "attribute_modifier",
    "best_attribute",
    "damage_distribution",
    "difficulty_value",
    "end_round",
    "heal",
    "hit_odds",
    "initiative",
    "load_encounter",
    "load_party",
    "morale",
    "morale_certainty",
    "morale_odds",
    "morale_triggers",
    "oppose",
    "oppose_odds",
    "plan_turn",
    "read_helpers",
    "resolve_modifier",
    "rest_night",
    "save",
    "save_attribute",
    "save_odds",
    "save_target",
    "skill_check",
    "skill_check_odds",
    "skill_name",
    "skill_odds",
    "stabilize",
    "stabilize_difficulty",
    "stabilize_odds",
    "take_damage",
    "wait_minutes",
]
