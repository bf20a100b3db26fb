"""The interactive prompt (``referee`` with no arguments, and ``make run``).

Type an expression to roll it; the arrow keys recall history (readline);
``help`` lists the notation, ``odds EXPR`` shows exact odds, ``quit`` leaves.
"""

from __future__ import annotations

from collections.abc import Callable

from . import odds, roll
from .cli import chance
from .errors import RefereeError
from .render import fraction, percent

HELP = """\
Notation:
  3d6  d20  d%  4dF        dice (N defaults to 1; d% is d100; dF is a Fudge die)
  3d  2d+1  3d-3           GURPS dice+adds: a bare d is a d6
  + - * / ( )              arithmetic (/ rounds down)
  4d6kh3 4d6kl1 4d6dh1 4d6dl1   keep/drop highest/lowest
  d6!  d10!>=9             exploding dice (at most 100 explosions a die)
  d20r1  d20r<3  d20ro1    reroll (until it no longer matches, or once)
  6d10>=8                  count the dice that meet a target
  1d20+5 # attack          a label
Commands: odds EXPR, help, quit"""


def handle(line: str) -> str:
    """Answer one line of input (errors are answered, never raised)."""
    line = line.strip()
    if not line:
        return ""
    if line in ("help", "?"):
        return HELP
    try:
        if line.startswith("odds "):
            o = odds(line[5:])
            rows = [
                f"{k:>6}  {fraction(p):>12}  {percent(p):>6}" for k, p in o.distribution.items()
            ]
            return "\n".join([f"{o.expression}: mean {float(o.mean):.3f}", *rows[:80]])
        result = roll(line)
        try:
            p = chance(line, result.total)
            tail = "" if p is None else f"  ({percent(p)} to roll this or better)"
        except RefereeError:
            tail = ""
        return result.text + tail
    except RefereeError as exc:
        text = getattr(exc, "text", "")
        column = getattr(exc, "column", None)
        if text and column is not None and len(text) <= 200:
            return f"error: {exc}\n  {text}\n  {' ' * (column - 1)}^"
        return f"error: {exc}"


def run_repl(read: Callable[[str], str] = input) -> None:
    """Read lines until ``quit`` or end of input."""
    try:
        import readline  # noqa: F401  (arrow-key history for input())
    except ImportError:  # pragma: no cover - not on every platform
        pass
    print("referee: type dice like 4d6kh3, 'help' for the notation, 'quit' to leave.")
    while True:
        try:
            line = read("roll> ")
        except (EOFError, KeyboardInterrupt):
            print()
            return
        if line.strip() in ("quit", "exit", "q"):
            return
        answer = handle(line)
        if answer:
            print(answer)
