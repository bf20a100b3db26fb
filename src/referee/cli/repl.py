"""The interactive prompt (``referee`` with no arguments, and the README's ``make run``).

Every command works here as on the command line, without the word ``referee``:
a dice expression rolls it (``4d6kh3``, ``3d6 + 2``), and so do ``gurps check
14-4``, ``fudge roll Good --vs Great``, ``swn save --level 2``, ``odds 3d6``
and ``sample 3d6 -n 1000``. The arrow keys recall history (readline); ``help``
lists the commands and ``help COMMAND`` shows one; ``quit`` (or ``exit``,
``q``) leaves.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import commands
from ..errors import RefereeError
from .local import LOCAL
from .output import error_text

__all__ = ["HELP", "handle", "run_repl"]

HELP = """\
Dice notation:
  3d6  d20  d%  4dF        dice (N defaults to 1; d% is d100; dF is a Fudge die)
  3d  2d+1  3d-3           GURPS dice+adds: a bare d is a d6
  + - * / ( )              arithmetic (/ rounds down); spaces around operators are fine
  4d6kh3 4d6kl1 4d6dh1 4d6dl1   keep/drop highest/lowest
  d6!  d10!>=9             exploding dice (at most 100 explosions a die)
  d20r1  d20r<3  d20ro1    reroll (until it no longer matches, or once)
  6d10>=8                  count the dice that meet a target
  1d20+5 # attack          a label
Commands: every 'referee' command, without the word referee, e.g.
  gurps check 14-4    fudge roll Good --vs Great    swn save physical --level 2
  odds 3d6    sample 3d6 -n 100000
help COMMAND shows one command's options (help gurps check); help commands lists them all;
quit (or exit, q) leaves."""


def handle(line: str, rng: object = None) -> str:
    """Answer one line of input (errors are answered, never raised)."""
    line = line.strip()
    if not line:
        return ""
    if line in ("help", "?"):
        return HELP
    word, _, rest = line.partition(" ")
    try:
        if word == "help":
            return commands.help_text("" if rest.strip() == "commands" else rest.strip())
        result = commands.run(line, rng, resources=LOCAL)  # type: ignore[arg-type]
    except RefereeError as exc:
        return error_text(exc)
    return result.text


def run_repl(read: Callable[[str], str] = input) -> None:
    """Read lines until ``quit`` or end of input."""
    try:
        import readline  # noqa: F401  (arrow-key history for input())
    except ImportError:  # pragma: no cover - not on every platform
        pass
    print("referee: type dice like 4d6kh3 or a command like 'gurps check 12',")
    print("'help' for more, 'quit' to leave.")
    while True:
        try:
            line = read("referee> ")
        except (EOFError, KeyboardInterrupt):
            print()
            return
        if line.strip() in ("quit", "exit", "q"):
            return
        answer = handle(line)
        if answer:
            print(answer)
