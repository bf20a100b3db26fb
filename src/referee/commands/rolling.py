"""The ``roll`` command's work, without the argument parser (the CLI's fast path uses it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache

from ..bounds import largest, zero_divisor
from ..errors import CommandError, DiceEvalError, DiceLimitError, RefereeError
from ..fmt import fraction, percent
from ..limits import DEFAULT_LIMITS, Limits
from ..notation import format_expr
from ..odds import odds
from ..parser import parse
from ..rng import RandomSource
from ..roller import roll
from .result import UNLIMITED, CommandLimits, Plan, Reply

__all__ = [
    "ROLL_ODDS_LIMITS",
    "chance",
    "engine_limits",
    "odds_reply",
    "roll_plan",
    "roll_reply",
]

ROLL_ODDS_LIMITS = replace(
    DEFAULT_LIMITS,
    odds_work=DEFAULT_LIMITS.odds_work // 10,
    odds_outcomes=DEFAULT_LIMITS.odds_outcomes // 10,
)
"""The budget for the "% to roll this or better" beside a roll: a tenth of the default."""


@lru_cache(maxsize=256)
def engine_limits(caps: CommandLimits, base: Limits = DEFAULT_LIMITS) -> Limits:
    """The engine's limits for one command under ``caps``: the lower budget for exact
    odds. ``caps.dice`` is not the engine's worst case (that would refuse ``3d6!``,
    whose chains could add 300 dice): it counts the dice really drawn, through
    :class:`referee.rng.CappedSource`, which stops the command at the first die too many."""
    if caps.work is None:
        return base
    return replace(base, odds_work=min(base.odds_work, caps.work))


def chance(expr: str, total: int, limits: Limits = ROLL_ODDS_LIMITS) -> Fraction | None:
    """P(rolling ``total`` or more), or None when exact odds would be costly.

    The figure beside a roll is a nicety, so a roll never waits long for it.
    """

    try:
        return odds(expr, limits).at_least(total)
    except RefereeError:
        return None  # too large for exact odds, or a possible division by zero


@lru_cache(maxsize=4096)
def _within(expr: str, most: int, limits: Limits) -> None:
    """Refuse, before any die is drawn, an expression whose total (or a sub-roll's)
    could pass ``most`` in size, or that could divide by 0: from the expression
    alone, so the refusal is the same whatever the dice would have been
    (:mod:`referee.bounds`). An expression that passed is remembered (a table rolls
    the same few again and again, and the check cost a room's roll a fifth of its
    making, issue 51); a refusal raises, and is not."""

    root = parse(expr, limits).root
    zero = zero_divisor(root, limits)
    if zero is not None:
        raise DiceEvalError(
            f"the divisor {format_expr(zero)} can come to 0: here a roll is refused before "
            "its dice, not after, so divide by something that cannot be 0",
            expr,
            None,
        )
    top = largest(root, limits)
    if top is not None and top > most:
        raise DiceLimitError(
            f"this roll could reach {top:,}, beyond ±{most:,} (2**53 - 1), the largest "
            "number a shared log holds exactly",
            expr,
            None,
        )


def roll_reply(
    exprs: Sequence[str],
    rng: RandomSource,
    caps: CommandLimits = UNLIMITED,
    label: str | None = None,
) -> Reply:
    """Roll each expression once, left to right: its breakdown and its odds.

    The JSON is one roll object, or a list of them for several expressions.
    ``label`` (``--label``) labels each expression that has no ``# label`` of its own.

    Raises:
        CommandError: no expression, or an empty one.
    """
    return roll_plan(exprs, caps, label)(rng)


def roll_plan(
    exprs: Sequence[str], caps: CommandLimits = UNLIMITED, label: str | None = None
) -> Plan:
    """:func:`roll_reply` as a plan: what does not depend on the dice (the limits, the
    labels) is settled once, here, not at each roll of a room's kept plan.

    Raises:
        CommandError: no expression, or an empty one.
    """
    # here, not at the top: 1 ms of start-up otherwise (issue 53)
    from ..render import roll_json

    if not exprs or any(not e.strip() for e in exprs):
        raise CommandError("no dice expression given: type one, like 3d6", "roll")
    limits = engine_limits(caps)
    odds_limits = engine_limits(caps, ROLL_ODDS_LIMITS)
    if label:
        exprs = [e if "#" in e else f"{e} # {label}" for e in exprs]
    each, most = tuple(exprs), caps.integers

    def go(rng: RandomSource) -> Reply:
        data = []
        lines = []
        for expr in each:
            if most is not None:
                _within(expr, most, limits)
            result = roll(expr, rng=rng, limits=limits)
            text = result.text  # (made once: the JSON carries it too)
            shown, tail = _at_least_shown(expr, result.total, odds_limits)
            item = roll_json(result, text)
            item["at_least"] = shown
            data.append(item)
            lines.append(text + tail)
        return Reply(data[0] if len(data) == 1 else data, "\n".join(lines))

    return go


@lru_cache(maxsize=4096)
def _at_least_shown(expr: str, total: int, limits: Limits) -> tuple[str | None, str]:
    """The chance of ``total`` or more, as the roll's JSON and text show it: kept, since
    a table rolls the same few expressions to the same few totals (in a room, the
    lookup and its formatting were a tenth of a roll's making, issue 74 §3)."""
    at_least = chance(expr, total, limits)
    if at_least is None:
        return None, ""
    return fraction(at_least), f"  ({percent(at_least)} to roll this or better)"


def odds_reply(
    text: str, caps: CommandLimits, op: str | None = None, value: int | None = None
) -> Reply:
    """``odds EXPR`` (``--at-least``/``--at-most VALUE`` as ``op`` ``>=``/``<=``): the
    exact odds of every total, as the typer command and the console script's fast path
    (:mod:`referee.cli`) both give them."""
    # here, not at the top: 2 ms of start-up otherwise (issue 53)
    from ..render import odds_json, odds_text

    o = odds(text, engine_limits(caps))
    shown = op if value is not None else None
    return Reply(odds_json(o, shown, value), odds_text(o, shown, value))
