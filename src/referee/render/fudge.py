"""Fudge results to the JSON contract (fractions as ``"p/q"``; no floats)."""

from __future__ import annotations

from typing import Any

from ..fmt import fraction
from ..results import Versus
from ..systems import fudge as f

__all__ = ["action_json", "distribution_json", "level_json", "oppose_json", "versus_json"]


def level_json(lv: f.Level | None) -> dict[str, Any] | None:
    """A ladder level as ``{"name", "value"}``."""
    return None if lv is None else {"name": lv.name, "value": lv.value}


def distribution_json(o: f.ActionOdds) -> list[list[Any]]:
    """P(result = value) for each value."""
    return [[v, fraction(p)] for v, p in o.distribution]


def versus_json(o: Versus) -> dict[str, str]:
    """Each side's chance and the tie's."""
    return {"first": fraction(o.first), "second": fraction(o.second), "tie": fraction(o.tie)}


def action_json(r: f.ActionRoll) -> dict[str, Any]:
    """An unopposed action, or one side of an opposed one."""
    return {
        "system": "fudge",
        "kind": "action",
        "ladder": r.ladder.name,
        "trait": level_json(r.trait),
        "modifier": r.modifier,
        "dice": [f.face_text(d) for d in r.dice],
        "natural": (
            {"total": r.natural_total, "dice": [f.face_text(d) for d in r.natural]}
            if r.rolled
            else None
        ),
        "rerolls": [
            {"index": x.index, "from": f.face_text(x.old), "to": f.face_text(x.new)}
            for x in r.rerolls
        ],
        "rolled": r.rolled,
        "result": level_json(r.result),
        "difficulty": level_json(r.difficulty),
        "degree": r.degree,
        "degree_name": r.degree_name,
        "success": r.success,
        "outcome": r.outcome,
        "odds": {
            "success": None if r.odds.success is None else fraction(r.odds.success),
            "distribution": distribution_json(r.odds),
        },
        "text": r.text,
    }


def oppose_json(r: f.OpposedRoll) -> dict[str, Any]:
    """An opposed action: both sides, the degree, the winner and the odds."""
    return {
        "system": "fudge",
        "kind": "oppose",
        "first": action_json(r.first),
        "second": action_json(r.second),
        "degree": r.degree,
        "winner": r.winner,
        "outcome": r.outcome,
        "names": list(r.names),
        "ties": r.ties.value,
        "odds": versus_json(r.odds),
        "text": r.text,
    }
