"""GURPS results to the JSON contract (fractions as ``"p/q"``; no floats)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..fmt import fraction
from ..results import Versus
from ..systems import gurps as g

__all__ = [
    "check_json",
    "contest_json",
    "damage_json",
    "reaction_json",
    "skill_odds_json",
    "versus_json",
]


def skill_odds_json(o: g.SkillOdds) -> dict[str, str]:
    """The odds of a success roll."""
    return {
        "success": fraction(o.success),
        "critical_success": fraction(o.critical_success),
        "critical_failure": fraction(o.critical_failure),
    }


def check_json(r: g.SuccessRoll) -> dict[str, Any]:
    """A success roll."""
    return {
        "system": "gurps",
        "kind": "success",
        "label": r.label,
        "base_skill": r.base_skill,
        "modifiers": list(r.modifiers),
        "effective_skill": r.effective_skill,
        "dice": list(r.dice),
        "roll": r.roll,
        "success": r.success,
        "critical": r.critical,
        "outcome": r.outcome.value,
        "margin": r.margin,
        "automatic": r.automatic,
        "odds": skill_odds_json(r.odds),
        "text": r.text,
    }


def versus_json(o: Versus) -> dict[str, str]:
    """Each side's chance and the tie's."""
    return {"first": fraction(o.first), "second": fraction(o.second), "tie": fraction(o.tie)}


def contest_json(r: g.ContestResult) -> dict[str, Any]:
    """A Quick or Regular Contest, every round included."""
    data: dict[str, Any] = {
        "system": "gurps",
        "kind": r.kind,
        "skills": list(r.skills),
        "effective_skills": list(r.effective_skills),
        "rolled_skills": list(r.rolled_skills),
        "floor": r.floor.value,
        "winner": r.winner,
        "outcome": r.outcome,
        "margin_of_victory": r.margin_of_victory,
        "rounds": [
            {
                "first": None if a is None else check_json(a),
                "second": None if b is None else check_json(b),
            }
            for a, b in r.rounds
        ],  # fmt: skip
        "names": list(r.names),
        "odds": versus_json(r.odds),
        "text": r.text,
    }
    if r.expected_rounds is not None:
        data["expected_rounds"] = fraction(r.expected_rounds)
        data["edition"] = r.edition.value
    return data


def reaction_json(r: g.ReactionRoll) -> dict[str, Any]:
    """A reaction roll."""
    return {
        "system": "gurps",
        "kind": "reaction",
        "dice": list(r.dice),
        "roll": r.roll,
        "modifier": r.modifier,
        "total": r.total,
        "reaction": r.reaction,
        "outcome": r.outcome,
        "odds": {k: fraction(v) for k, v in r.odds.items()},
        "text": r.text,
    }


def damage_json(
    r: g.DamageRoll, dist: dict[int, Fraction], injury: dict[int, Fraction]
) -> dict[str, Any]:
    """A damage roll, with the exact distributions of penetrating damage and of injury."""
    return {
        "system": "gurps",
        "kind": "damage",
        "expression": r.expression,
        "dice": list(r.dice),
        "basic_damage": r.basic_damage,
        "dr": r.dr,
        "damage_type": r.damage_type,
        "penetrating": r.penetrating,
        "success": r.success,
        "outcome": r.outcome,
        "odds": {"penetrates": fraction(r.chance_through)},
        "injury": r.injury,
        "wounding": fraction(g.WOUNDING[r.damage_type]),
        "distribution": [[k, fraction(v)] for k, v in dist.items()],
        "injury_distribution": [[k, fraction(v)] for k, v in injury.items()],
        "text": r.text,
    }
