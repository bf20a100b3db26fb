"""The ``referee`` console script: a fast path for ``referee roll``, typer for the rest.

Importing typer (and the pydantic it brings) costs more than the whole roll, so
``referee roll EXPR... [-n N] [--seed S] [--json]`` is parsed here directly and
handled by :func:`run_roll`, the same function the typer command calls. Any
other command line, including ``--help`` and anything unusual, goes to the
typer application in :mod:`referee.cli_app`. The engine never imports this.
"""

from __future__ import annotations

import json
import re
import sys
from fractions import Fraction
from typing import Any

from .errors import RefereeError
from .limits import DEFAULT_LIMITS, Limits

__all__ = ["ROLL_ODDS_LIMITS", "chance", "error_text", "main", "run_roll"]


def error_text(exc: RefereeError) -> str:
    """One line naming the problem, plus the expression and a caret under its column."""
    text = getattr(exc, "text", "")
    column = getattr(exc, "column", None)
    line = f"error: {exc}"
    if text and column is not None and len(text) <= 200:
        shown = (
            text.replace("\r", " ").replace("\n", " ").replace("\t", " ")
        )  # one line, same columns
        line += f"\n  {shown}\n  {' ' * (column - 1)}^"
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
            elif arg.startswith("-") and not _NEGATIVE.match(arg):
                return None
            else:
                exprs.append(arg)
    except (StopIteration, ValueError):
        return None
    if not exprs or not 1 <= n <= 10_000:
        return None
    return exprs, n, seed, as_json


_NEGATIVE = re.compile(r"^-[\d(dD]")
"""An argument that starts like a negative expression or level (``-5``, ``-d6``, ``-1``)."""


def _negatives_last(command: Any, argv: list[str]) -> list[str]:
    """Let ``referee roll -5`` mean the expression ``-5``, not an unknown option.

    Arguments that look like a negative expression and are not an option's
    value are moved after ``--`` (with the other positional arguments, in
    order), using the command's own list of options that take values.
    """
    i = 0
    while i < len(argv) and argv[i] in (getattr(command, "commands", None) or {}):
        command = command.commands[argv[i]]
        i += 1
    rest = argv[i:]
    if "--" in rest or not any(_NEGATIVE.match(t) for t in rest):
        return argv
    valued = {
        opt
        for p in command.params
        if getattr(p, "param_type_name", "") == "option" and not p.is_flag and not p.count
        for opt in p.opts
    }
    options: list[str] = []
    positionals: list[str] = []
    tokens = iter(rest)
    for token in tokens:
        if token in valued:
            options += [token, next(tokens, "")]
        elif token.startswith("-") and not _NEGATIVE.match(token):
            options.append(token)
        else:
            positionals.append(token)
    return argv[:i] + options + ["--"] + positionals


def main() -> None:
    """Console-script entry point: bad usage is one line and exit status 2, as bad input is."""
    fast = _fast_roll_args(sys.argv[1:])
    if fast is not None:
        sys.exit(run_roll(*fast))
    import typer

    from .cli_app import app

    command = typer.main.get_command(app)
    argv = _negatives_last(command, sys.argv[1:])
    try:
        code = command.main(argv, prog_name="referee", standalone_mode=False)
    except typer.Abort:
        print("", file=sys.stderr)
        sys.exit(130)
    except Exception as exc:
        # click's usage and parameter errors (vendored by typer): one line, no box.
        if not hasattr(exc, "format_message"):
            raise
        if type(exc).__name__ == "NoArgsIsHelpError":  # a bare group: its help, not an error
            print(exc.format_message())
            sys.exit(0)
        ctx = getattr(exc, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        print(f"error: {exc.format_message()}{hint}", file=sys.stderr)
        sys.exit(getattr(exc, "exit_code", 2))
    sys.exit(code if isinstance(code, int) else 0)
