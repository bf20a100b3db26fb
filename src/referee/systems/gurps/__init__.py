"""GURPS: success rolls, criticals, repeated attempts, contests, reactions, damage, and
combat (attacks, active defenses, hit locations, the critical tables, the exchange).

Pure functions returning frozen results that carry their dice, target, margin,
outcome and exact odds. Sources are cited in each function's docstring.
"""

from typing import TYPE_CHECKING

from ...lazy import export

if TYPE_CHECKING:
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
    from .criticals import CRITICAL_HIT, CRITICAL_MISS, CriticalRoll, critical_hit, critical_miss
    from .damage import (
        DAMAGE_TYPES,
        WOUNDING,
        DamageRoll,
        damage,
        damage_odds,
        injury_odds,
        read_damage,
        wound,
    )
    from .exchange import Exchange, Target, exchange, injury_chance
    from .locations import LOCATIONS, RANDOM_TABLE, Location, location_wounding, read_location
    from .melee import AttackOptions, AttackRoll, DefenseOptions, DefenseRoll, attack, defend
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

export(
    __name__,
    {
        "contest": (
            "ContestResult",
            "Edition",
            "Floor",
            "quick_contest",
            "quick_contest_odds",
            "regular_contest",
            "regular_contest_odds",
            "rolled_skill",
            "shorten",
        ),
        "criticals": (
            "CRITICAL_HIT",
            "CRITICAL_MISS",
            "CriticalRoll",
            "critical_hit",
            "critical_miss",
        ),
        "damage": (
            "DAMAGE_TYPES",
            "WOUNDING",
            "DamageRoll",
            "damage",
            "damage_odds",
            "injury_odds",
            "read_damage",
            "wound",
        ),
        "exchange": ("Exchange", "Target", "exchange", "injury_chance"),
        "locations": (
            "LOCATIONS",
            "RANDOM_TABLE",
            "Location",
            "location_wounding",
            "read_location",
        ),
        "melee": (
            "AttackOptions",
            "AttackRoll",
            "DefenseOptions",
            "DefenseRoll",
            "attack",
            "defend",
        ),
        "reaction": (
            "SECRET_BY_DEFAULT",
            "ReactionRoll",
            "reaction",
            "reaction_band",
            "reaction_odds",
        ),
        "retry": ("Attempts", "RetryRule", "repeated_attempts", "retry_odds"),
        "success": (
            "Outcome",
            "SkillOdds",
            "SuccessRoll",
            "check",
            "outcome",
            "parse_skill",
            "read_skill",
            "skill_odds",
        ),
    },
)

__all__ = [
    "CRITICAL_HIT",
    "CRITICAL_MISS",
    "LOCATIONS",
    "RANDOM_TABLE",
    "AttackOptions",
    "AttackRoll",
    "CriticalRoll",
    "DefenseOptions",
    "DefenseRoll",
    "Exchange",
    "Location",
    "Target",
    "attack",
    "critical_hit",
    "critical_miss",
    "defend",
    "exchange",
    "injury_chance",
    "location_wounding",
    "read_damage",
    "read_location",
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
