"""GURPS: success rolls, criticals, repeated attempts, contests, reactions, damage.

Pure functions returning frozen results that carry their dice, target, margin,
outcome and exact odds. Sources are cited in each function's docstring.
"""

from .contest import (
    Attempts,
    ContestOdds,
    ContestResult,
    Edition,
    RetryRule,
    quick_contest,
    quick_contest_odds,
    regular_contest,
    repeated_attempts,
    retry_odds,
    shorten,
)
from .reaction import (
    DAMAGE_TYPES,
    DamageRoll,
    ReactionRoll,
    damage,
    damage_odds,
    reaction,
    reaction_band,
)
from .success import Outcome, SkillOdds, SuccessRoll, check, outcome, parse_skill, skill_odds

__all__ = [
    "Attempts",
    "RetryRule",
    "repeated_attempts",
    "DAMAGE_TYPES",
    "ContestOdds",
    "ContestResult",
    "DamageRoll",
    "Edition",
    "Outcome",
    "ReactionRoll",
    "SkillOdds",
    "SuccessRoll",
    "check",
    "damage",
    "damage_odds",
    "outcome",
    "parse_skill",
    "quick_contest",
    "quick_contest_odds",
    "reaction",
    "reaction_band",
    "regular_contest",
    "retry_odds",
    "shorten",
    "skill_odds",
]
