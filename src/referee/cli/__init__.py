"""The ``referee`` console script: fast paths for ``referee roll`` and ``referee odds``,
typer for the rest.

Importing typer costs more than a whole roll, so ``referee roll EXPR... [-n N]
[--seed S] [--json] [--secret]`` is read here directly and answered by the
same work as the typer command (:func:`referee.commands.rolling.roll_reply`),
through the same reader of words; so is ``referee odds EXPR [--json]``
(:func:`referee.commands.rolling.odds_reply`), and an expression it cannot read
goes to typer, which says why. Anything else goes to :mod:`.app`; no
arguments open the interactive prompt (:mod:`.repl`). The engine never
imports this package.
"""

from __future__ import annotations

import sys

from ..commands.line import NEGATIVE, is_word, join_expressions
from ..errors import RefereeError
from ..rng import resolve, seeded
from .output import emit, error_text

__all__ = ["main", "run_odds", "run_roll"]


def run_roll(exprs: list[str], n: int, seed: int | None, as_json: bool, secret: bool) -> int:
    """Roll the expressions ``n`` times and print them; returns the exit status."""
    from ..commands.rolling import roll_reply  # the engine: here, for a roll alone

    rng = resolve(None if seed is None else seeded(seed))
    try:
        replies = [roll_reply(exprs, rng) for _ in range(n)]
    except RefereeError as exc:
        print(error_text(exc), file=sys.stderr)
        return 2
    emit(replies, as_json, secret)
    return 0


def _fast_roll_args(argv: list[str]) -> tuple[list[str], int, int | None, bool, bool] | None:
    """``roll`` arguments in their plain forms, or None to let typer handle the line."""
    if not argv:
        return None
    if argv[0] == "roll":
        argv = argv[1:]
    elif is_word(argv[0]) or argv[0].startswith("-") and not NEGATIVE.match(argv[0]):
        return None  # a command's name or an option: typer's; a bare expression is a roll
    exprs: list[str] = []
    n, seed, as_json, secret = 1, None, False, False
    args = iter(argv)
    try:
        for arg in args:
            if arg == "--json":
                as_json = True
            elif arg == "--secret":
                secret = True
            elif arg == "--seed":
                seed = int(next(args))
            elif arg == "-n":
                n = int(next(args))
            elif arg.startswith("-") and len(arg) > 1 and not NEGATIVE.match(arg):
                return None
            else:
                exprs.append(arg)
    except (StopIteration, ValueError):
        return None
    if not exprs or not 1 <= n <= 10_000:
        return None
    return join_expressions(exprs), n, seed, as_json, secret


def _fast_odds_args(argv: list[str]) -> tuple[str, bool] | None:
    """``odds EXPR [--json]``, EXPR one word: ``(EXPR, as_json)``; else None (typer's)."""
    if not 2 <= len(argv) <= 3 or argv[0] != "odds":
        return None
    words = [w for w in argv[1:] if w != "--json"]
    if len(words) != 1 or words[0].startswith("-") and not NEGATIVE.match(words[0]):
        return None
    return words[0], len(words) < len(argv) - 1


def run_odds(expr: str, as_json: bool) -> int | None:
    """Print ``odds EXPR``'s answer; None when it cannot (typer's path then says why)."""
    from ..commands.result import BUILTIN
    from ..commands.rolling import odds_reply

    try:
        reply = odds_reply(expr, BUILTIN.limits)
    except RefereeError:
        return None
    emit([reply], as_json, None)
    return 0


def main() -> None:
    """Console-script entry point."""
    argv = sys.argv[1:]
    if not argv:
        # here, not at the top: 57 ms of start-up otherwise (issue 53)
        from .repl import run_repl

        run_repl()
        return
    fast = _fast_roll_args(argv)
    if fast is not None:
        sys.exit(run_roll(*fast))
    asked = _fast_odds_args(argv)
    if asked is not None and run_odds(*asked) == 0:
        sys.exit(0)
    # here, not at the top: each import costs 42-63 ms of start-up otherwise (issue 53)
    import typer

    from ..commands.coercion import lighten
    from .app import build

    command = typer.main.get_command(build(argv))
    lighten(command)  # plain values without importing pydantic
    code = command.main(argv, "referee")
    sys.exit(code if isinstance(code, int) else 0)
