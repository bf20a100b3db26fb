"""The numbers an event takes from a logged roll's result: the injury of a damage
roll, the success and margin of a called HT roll, an initiative roll's total.

A room fills an event's numbers from the roll it names (``why``: its seq), and
``referee verify`` checks them against the same roll; both go through
:func:`numbers`, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import RuleError

__all__ = ["numbers"]


def numbers(kind: str, result: Mapping[str, Any], rules: int = 2) -> dict[str, Any]:
    """What an event of ``kind`` takes from ``result`` (a roll entry's ``result``, the
    command's ``--json``).

    - ``damage``: ``amount`` (an exchange's injury and its ``location``, an SWN
      attack's damage with Shock, a plain roll's total); a GURPS ``damage`` roll's
      ``basic`` damage, its ``type`` and armor ``divisor``, which the fight takes
      through the target's own DR (contract v1.3; under ``rules`` 1, the logs
      written before it, its ``amount``: the injury at the roll's own ``--dr``);
    - ``result``: ``success``; ``defend``: a GURPS defense roll's ``success`` and
      ``defense`` (dodge, parry or block);
    - ``answer``: ``success``, ``margin`` (a GURPS roll's effective
      skill less the roll; 0 for others), ``critical`` (a critical failure) and
      ``total``.

    >>> numbers("damage", {"system": "swn", "kind": "attack", "damage": 6})
    {'amount': 6}
    >>> numbers("answer", {"system": "gurps", "kind": "success", "success": False,
    ...                    "margin": -5, "outcome": "failure", "roll": 15})
    {'success': False, 'margin': -5, 'critical': False, 'total': 15}

    Raises:
        RuleError: a result with no such number (a refused roll, a roll of another
            kind).
    """
    if "refused" in result:
        raise RuleError("that roll was refused: it gives nothing to apply")
    what = result.get("kind")
    if kind == "damage":
        if what == "damage":
            if rules < 2:
                return {"amount": _int(result.get("injury"))}
            out = {"basic": _int(result.get("basic_damage")), "type": str(result["damage_type"])}
            if result.get("armor_divisor") is not None:
                out["divisor"] = str(result["armor_divisor"])
            if rules >= 5 and isinstance(result.get("expression"), str):  # a critical's max
                out["expression"] = result["expression"]
            return out
        if what in ("exchange", "blow"):  # a blow: the exchange's damage step alone
            hurt = result.get("damage")
            if not isinstance(hurt, Mapping):
                return {"amount": 0}
            where = str(hurt.get("location"))
            if rules >= 5 and hurt.get("effect") == "eye":  # B556 rows 6-7: an eye hit
                where = "eye"
            return {"amount": _int(hurt.get("injury")), "location": where}
        if what == "attack" and result.get("system") == "swn":
            return {"amount": _int(result.get("damage"))}
        if "total" in result and "expression" in result:
            return {"amount": max(0, _int(result.get("total")))}
        raise RuleError("that roll deals no damage: apply a damage roll, an attack or a dice roll")
    if "success" not in result and "total" not in result:
        raise RuleError("that roll has no success or total to answer with")
    if kind == "defend":
        if what != "defense" or result.get("system") != "gurps":
            raise RuleError("a defense takes a GURPS defense roll (gurps defend)")
        return {"success": bool(result.get("success")), "defense": str(result.get("defense"))}
    if kind == "result":
        return {"success": bool(result.get("success"))}
    total = result.get("total", result.get("roll"))
    return {
        "success": bool(result.get("success")),
        "margin": _int(result.get("margin", 0)),
        "critical": result.get("outcome") == "critical failure",
        "total": _int(total if total is not None else 0),
    }


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise RuleError("that roll's result holds no whole number here")
    return v
