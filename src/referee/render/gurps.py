"""GURPS results to the JSON contract (fractions as ``"p/q"``; no floats)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..fmt import fraction, percent, readable
from ..results import Versus
from ..systems import gurps as g

__all__ = [
    "retry_text",
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


def retry_text(eff: int, probs: list[Fraction], *, stop_on_critical: bool) -> str:
    """What ``gurps retry`` says: the rule, then the chance to succeed within k attempts
    for each k while the percentage shown still changes, then one line for the rest.

    >>> print(retry_text(5, [g.retry_odds(5, k) for k in range(1, 6)], stop_on_critical=True))
    Repeated attempts at effective skill 5 (004, 'Repeated Attempts', case (c)):
    each retry is at −1, cumulative; a critical failure ends the attempts.
    Chance to succeed within k attempts (the skill of the last one):
    within 1 (skill 5): 4.6% (5/108)
    within 2 (skill 4): 6.2% (121/1944)
    within 3 (skill 3): 7.5% (10541/139968)
    within 4..5: 7.5% (10541/139968) for every k, because:
      from attempt 4 on, the skill would be below 3, where no roll is allowed
    """
    ends = (
        "a critical failure ends the attempts"
        if stop_on_critical
        else "a critical failure does not end them (--continue-after-critical)"
    )
    lines = [
        f"Repeated attempts at effective skill {eff} (004, 'Repeated Attempts', case (c)):",
        f"each retry is at −1, cumulative; {ends}.",
        "Chance to succeed within k attempts (the skill of the last one):",
    ]
    shown = [percent(p) for p in probs]
    # Every attempt up to the last that changes the percentage shown gets a line.
    last = 1 + max((k for k in range(1, len(probs)) if shown[k] != shown[k - 1]), default=0)
    if len(probs) - last < 2:
        last = len(probs)
    for k, p in enumerate(probs[:last], 1):
        lines.append(f"within {k} (skill {eff - k + 1}): {readable(p)}")
    if last == len(probs):
        return "\n".join(lines)
    first, end = last + 1, len(probs)
    possible = eff - 2  # attempts at skill 3 or more
    lines.append(f"within {first}..{end}: {readable(probs[-1])} for every k, because:")
    if first <= possible:
        upto = min(end, possible)
        which = f"attempt {first} adds" if first == upto else f"attempts {first}..{upto} add"
        added = percent(probs[upto - 1] - probs[last - 1])
        lines.append(f"  {which} only {added} in all, less than the precision shown")
    if end > possible:
        lines.append(
            f"  from attempt {max(first, possible + 1)} on, the skill would be below 3, "
            "where no roll is allowed"
        )
    return "\n".join(lines)
