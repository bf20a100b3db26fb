"""GURPS combat results as JSON: an attack, a defense, a critical table's row, and
the whole exchange (the objects ``gurps attack`` and ``gurps defend`` print with
``--json``, and a game room logs)."""

from __future__ import annotations

from typing import Any

from ..fmt import fraction
from ..systems.gurps.criticals import CriticalRoll
from ..systems.gurps.exchange import Exchange, Hurt
from ..systems.gurps.exchange_odds import ExchangeOdds
from ..systems.gurps.melee import AttackRoll, DefenseRoll, attack_modifiers, capped
from ..systems.gurps.rapid import scored_hits
from .gurps import contest_json, skill_odds_json

__all__ = [
    "attack_json",
    "critical_json",
    "defense_json",
    "exchange_json",
    "exchange_odds_json",
    "hurt_json",
]


def critical_json(r: CriticalRoll | None) -> dict[str, Any] | None:
    """A roll on a critical table, or None."""
    if r is None:
        return None
    return {
        "table": r.table,
        "dice": list(r.dice),
        "total": r.total,
        "effect": r.entry.effect,
        "text": r.entry.text,
    }


def attack_json(r: AttackRoll) -> dict[str, Any]:
    """An attack roll."""
    s = r.check
    return {
        "system": "gurps",
        "kind": "attack",
        "label": s.label,
        "skill": s.base_skill,
        "modifiers": list(s.modifiers),
        "effective": s.effective_skill,
        "dice": list(s.dice),
        "roll": s.roll,
        "outcome": r.outcome,
        "success": r.success,
        "margin": s.margin,
        "defense_modifier": r.defense_modifier,
        "named_modifiers": [[n, m] for n, m in named_modifiers(r)],
        "torso_instead": r.torso_instead,
        "critical_table": critical_json(r.critical),
        "odds": skill_odds_json(s.odds),
        "text": r.text,
    }


def defense_json(r: DefenseRoll) -> dict[str, Any]:
    """An active defense roll."""
    s = r.check
    return {
        "system": "gurps",
        "kind": "defense",
        "defense": r.defense,
        "label": s.label,
        "level": s.base_skill,
        "modifiers": list(s.modifiers),
        "effective": s.effective_skill,
        "dice": list(s.dice),
        "roll": s.roll,
        "outcome": r.outcome,
        "success": r.success,
        "margin": s.margin,
        "odds": skill_odds_json(s.odds),
        "text": r.text,
    }


def named_modifiers(r: AttackRoll) -> list[tuple[str, int]]:
    """An attack's modifiers by name (the GM's own as ``modifier``), with Move and
    Attack's cap of 9 when it applied (B365)."""
    named, mods = attack_modifiers(r.options), r.check.modifiers
    cap = capped(r.check.base_skill + sum(mods[:-1]), r.options) if mods else []
    return named + cap if cap and cap[0][1] == mods[-1] else named


def hurt_json(h: Hurt, expression: str, damage_type: str) -> dict[str, Any]:
    """One blow that landed: where, its dice, DR, injury and what it does (an
    exchange's ``damage``, and ``gurps blow``'s)."""
    return {
        "expression": expression,
        "type": damage_type,
        "location": h.location.key,
        "location_roll": None if h.location_roll is None else list(h.location_roll),
        "dice": list(h.dice),
        "basic": h.basic,
        "dr": h.dr,
        "penetrating": h.penetrating,
        "injury": h.injury,
        "effect": h.effect,
        "odds": {"penetrates": fraction(h.chance_through)},
        "shock": 0 if h.wound is None else h.wound.shock,
        "major_wound": h.wound is not None and h.wound.major,
        "crippled": None if h.wound is None else h.wound.crippled,
        "blinded": h.wound is not None and h.wound.blinded,
        "head_blow": critical_json(h.head_blow),
    }


def exchange_json(x: Exchange) -> dict[str, Any]:
    """The whole exchange: each step with its dice and odds, then the injury, the HP
    after (when known) and what the GM must call for next; All-Out Defense (Double)'s
    second defense, a heavy weapon's breakage roll, and Rapid Fire's hits (``hits``:
    scored and landed; ``more``: each blow after the first)."""
    step = x.step
    broke = None if step is None or step.breakage is None else step.breakage
    second = None if step is None or step.second is None else defense_json(step.second)
    return {
        "system": "gurps",
        "kind": "exchange",
        "attacker": x.attacker,
        "target": x.target.name,
        "attack": attack_json(x.attack),
        "defense": None if x.defense is None else defense_json(x.defense),
        "damage": None
        if x.hurt is None
        else hurt_json(x.hurt, x.damage.expression, x.damage.damage_type),
        "second_defense": second,
        "breakage": None
        if broke is None
        else {"roll": broke.roll, "break_on": broke.break_on, "broke": broke.broke},
        "hits": {"scored": scored_hits(x.attack), "landed": len(x.hurts)},
        "more": [hurt_json(h, x.damage.expression, x.damage.damage_type) for h in x.more],
        "hp_after": x.hp_after,
        "outcome": x.outcome,
        "success": x.success,
        "odds": {
            **({} if x.odds is None else exchange_odds_json(x.odds)["odds"]),
            "injures": fraction(x.chance_to_injure),
        },
        "chance_to_injure": fraction(x.chance_to_injure),
        "feint": None if x.feint is None else contest_json(x.feint),
        "calls": list(x.calls),
        "text": x.text,
    }


def exchange_odds_json(o: ExchangeOdds) -> dict[str, Any]:
    """An exchange's odds before any die (``gurps odds attack`` with a target): each
    step's chance as an exact fraction, the injury's distribution and its mean."""
    hp = None
    if o.reeling is not None and o.zero_hp is not None:
        hp = {
            "reeling": fraction(o.reeling),
            "zero_hp": fraction(o.zero_hp),
            "thresholds": [[-k, fraction(p)] for k, p in o.thresholds],
        }
    return {
        "system": "gurps",
        "kind": "odds",
        "label": o.attacker,
        "target": o.target,
        "effective_skill": o.effective_skill,
        "odds": {
            "hit": fraction(o.hit),
            "critical_hit": fraction(o.critical_hit),
            "defense": o.defense,
            "defense_level": o.defense_level,
            "defended": fraction(o.defended),
            "locations": [[k, fraction(p)] for k, p in o.locations],
            "injures": fraction(o.injures),
            "injury": [[n, fraction(p)] for n, p in o.injury],
            "mean_injury": fraction(o.mean_injury),
            "major_wound": fraction(o.major_wound),
            "knockdown": fraction(o.knockdown),
            "crippled": fraction(o.crippled),
            "hp": hp,
            "second_defense": o.second_defense,
            "second_level": o.second_level,
            "breaks": None if o.breaks is None else fraction(o.breaks),
            "hits": [[n, fraction(p)] for n, p in o.hits],
        },
        "text": o.text,
    }
