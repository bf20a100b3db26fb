"""The ``roll`` command's work, without the argument parser (the CLI's fast path uses it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

from ..errors import RefereeError
from ..fmt import fraction, percent
from ..limits import DEFAULT_LIMITS
from ..rng import RandomSource
from .result import Reply

__all__ = ["ROLL_ODDS_LIMITS", "chance", "roll_reply"]

ROLL_ODDS_LIMITS = replace(
    DEFAULT_LIMITS,
    odds_work=DEFAULT_LIMITS.odds_work // 10,
    odds_outcomes=DEFAULT_LIMITS.odds_outcomes // 10,
)
"""The budget for the "% to roll this or better" beside a roll: a tenth of the default."""


def chance(expr: str, total: int) -> Fraction | None:
    """P(rolling ``total`` or more), or None when exact odds would be costly.

    The figure beside a roll is a nicety, so a roll never waits long for it.
    """
    from ..odds import odds

    try:
        return odds(expr, ROLL_ODDS_LIMITS).at_least(total)
    except RefereeError:
        return None  # too large for exact odds, or a possible division by zero


def roll_reply(exprs: Sequence[str], rng: RandomSource) -> Reply:
    """Roll each expression once, left to right: its breakdown and its odds.

    The JSON is one roll object, or a list of them for several expressions.
    """
    from ..render import roll_json
    from ..roller import roll

    data = []
    lines = []
    for expr in exprs:
        result = roll(expr, rng=rng)
        at_least = chance(expr, result.total)
        item = roll_json(result)
        item["at_least"] = None if at_least is None else fraction(at_least)
        data.append(item)
        tail = "" if at_least is None else f"  ({percent(at_least)} to roll this or better)"
        lines.append(result.text + tail)
    return Reply(data[0] if len(data) == 1 else data, "\n".join(lines))
