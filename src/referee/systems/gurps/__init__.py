"""GURPS: success rolls, criticals, repeated attempts, contests, reactions, damage.

Pure functions returning frozen results that carry their dice, target, margin,
outcome and exact odds. Sources are cited in each function's docstring.
"""

from .contest import (
    ContestResult,
    Edition,
    Floor,
    quick_contest,
    quick_contest_odds,
    regular_contest,
    regular_contest_odds,
    rolled_skill,
    shorten,
)
from .damage import DAMAGE_TYPES, WOUNDING, DamageRoll, damage, damage_odds, injury_odds, wound
from .reaction import SECRET_BY_DEFAULT, ReactionRoll, reaction, reaction_band, reaction_odds
from .retry import Attempts, RetryRule, repeated_attempts, retry_odds
from .success import (
    Outcome,
    SkillOdds,
    SuccessRoll,
    check,
    outcome,
    parse_skill,
    read_skill,
    skill_odds,
)

__all__ = [
    "Attempts",
    "RetryRule",
    "repeated_attempts",
    "DAMAGE_TYPES",
    "ContestResult",
    "DamageRoll",
    "Edition",
    "Floor",
    "Outcome",
    "SECRET_BY_DEFAULT",
    "ReactionRoll",
    "SkillOdds",
    "SuccessRoll",
    "check",
    "damage",
    "damage_odds",
    "injury_odds",
    "wound",
    "WOUNDING",
    "outcome",
    "parse_skill",
    "read_skill",
    "quick_contest",
    "quick_contest_odds",
    "reaction",
    "reaction_band",
    "reaction_odds",
    "regular_contest",
    "regular_contest_odds",
    "retry_odds",
    "rolled_skill",
    "shorten",
    "skill_odds",
]
