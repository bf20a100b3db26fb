"""The interactive prompt (``referee`` with no arguments, and ``make run``).

Type an expression to roll it; the arrow keys recall history (readline);
``help`` lists the notation, ``odds EXPR`` shows exact odds, ``sample EXPR [N]``
simulates, ``quit`` (or ``exit``, ``q``) leaves.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from . import odds, roll
from .cli import chance, error_text
from .errors import RefereeError
from .render import fraction, percent, shown_rows

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
Commands: odds EXPR, sample EXPR [N], help, quit (or exit, q)"""


def handle(line: str) -> str:
    """Answer one line of input (errors are answered, never raised)."""
    line = line.strip()
    if not line:
        return ""
    if line in ("help", "?"):
        return HELP
    word, _, rest = line.partition(" ")
    try:
        if word in ("odds", "sample") and not rest.strip():
            return f"usage: {word} EXPR" + (" [N]" if word == "sample" else "")
        if word == "odds":
            return _odds(rest)
        if word == "sample":
            return _sample(rest)
        result = roll(line)
        p = chance(line, result.total)
        tail = "" if p is None else f"  ({percent(p)} to roll this or better)"
        return result.text + tail
    except RefereeError as exc:
        return error_text(exc)


def _odds(expr: str) -> str:
    o = odds(expr)
    rows, omitted = shown_rows(o.outcomes, o.counts, o.denominator)
    lines = [f"{o.expression}: mean {float(o.mean):.3f}, stdev {o.stdev:.3f}"]
    for total, count in rows:
        p = Fraction(count, o.denominator)
        lines.append(f"{total:>6}  {fraction(p):>12}  {percent(p):>6}")
    return "\n".join(lines + ([f"({omitted})"] if omitted else []) + list(o.notes))


def _sample(args: str) -> str:
    expr, _, count = args.strip().rpartition(" ")
    if not (count.isdigit() and expr.strip()):
        expr, count = args.strip(), "100000"
    n = int(count)
    if not 1 <= n <= 10_000_000:
        return "error: sample between 1 and 10,000,000 rolls at the prompt"
    import numpy as np

    from .sampling import sample

    values, counts = np.unique(sample(expr, n), return_counts=True)
    mean = float(np.dot(values.astype(np.float64), counts)) / n
    rows, omitted = shown_rows(values.tolist(), counts.tolist(), n)
    lines = [f"{expr.strip()}: {n:,} rolls, mean {mean:.4f}"]
    lines += [f"{v:>6}  {c / n:7.2%}" for v, c in rows]
    return "\n".join(lines + ([f"({omitted})"] if omitted else []))


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
