"""The ``referee`` console script: a fast path for ``referee roll``, typer for the rest.

Importing typer (and the pydantic it brings) costs more than the whole roll, so
``referee roll EXPR... [-n N] [--seed S] [--json]`` is parsed here directly and
handled by :func:`run_roll`, the same function the typer command calls. Any
other command line, including ``--help`` and anything unusual, goes to the
typer application in :mod:`referee.cli_app`. The engine never imports this.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction

from .errors import RefereeError
from .limits import DEFAULT_LIMITS, Limits

__all__ = ["ROLL_ODDS_LIMITS", "chance", "error_text", "main", "run_roll"]


def error_text(exc: RefereeError) -> str:
    """One line naming the problem, plus the expression and a caret under its column."""
    text = getattr(exc, "text", "")
    column = getattr(exc, "column", None)
    line = f"error: {exc}"
    if text and column is not None and len(text) <= 200:
        line += f"\n  {text}\n  {' ' * (column - 1)}^"
    return line


def chance(expr: str, total: int) -> Fraction | None:
    """P(rolling ``total`` or more), or None when exact odds would be costly.

    The figure beside a roll is a nicety, so it gets a budget a tenth of the
    default (:data:`ROLL_ODDS_LIMITS`): a roll never waits long for its odds.
    """
    from . import odds

    try:
        return odds(expr, ROLL_ODDS_LIMITS).at_least(total)
    except RefereeError:
        return None  # too large for exact odds, or a possible division by zero


def _roll_limits() -> Limits:
    from dataclasses import replace

    return replace(DEFAULT_LIMITS, odds_work=DEFAULT_LIMITS.odds_work // 10,
                   odds_outcomes=DEFAULT_LIMITS.odds_outcomes // 10)  # fmt: skip


ROLL_ODDS_LIMITS = _roll_limits()
"""The budget for the "% to roll this or better" beside a roll."""


def run_roll(exprs: list[str], n: int, seed: int | None, as_json: bool) -> int:
    """Roll each expression ``n`` times and print the results; returns the exit status."""
    from . import roll, seeded
    from .render import fraction, percent, roll_json

    rng = seeded(seed) if seed is not None else None
    out = []
    try:
        for expr in exprs:
            for _ in range(n):
                result = roll(expr, rng=rng)
                at_least = chance(expr, result.total)
                if as_json:
                    data = roll_json(result)
                    data["at_least"] = None if at_least is None else fraction(at_least)
                    out.append(data)
                else:
                    tail = (
                        ""
                        if at_least is None
                        else f"  ({percent(at_least)} to roll this or better)"
                    )
                    print(result.text + tail)
    except RefereeError as exc:
        print(error_text(exc), file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(out[0] if len(out) == 1 else out, ensure_ascii=False))
    return 0


def _fast_roll_args(argv: list[str]) -> tuple[list[str], int, int | None, bool] | None:
    """``roll`` arguments in their plain forms, or None to let typer handle the line."""
    if not argv or argv[0] != "roll":
        return None
    exprs: list[str] = []
    n, seed, as_json = 1, None, False
    args = iter(argv[1:])
    try:
        for arg in args:
            if arg == "--json":
                as_json = True
            elif arg == "--seed":
                seed = int(next(args))
            elif arg == "-n":
                n = int(next(args))
            elif arg.startswith("-"):
                return None
            else:
                exprs.append(arg)
    except (StopIteration, ValueError):
        return None
    if not exprs or not 1 <= n <= 10_000:
        return None
    return exprs, n, seed, as_json


def main() -> None:
    """Console-script entry point."""
    fast = _fast_roll_args(sys.argv[1:])
    if fast is not None:
        sys.exit(run_roll(*fast))
    from .cli_app import app

    app()
