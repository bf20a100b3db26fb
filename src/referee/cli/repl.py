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
from ..commands.dice import NOTATION
from ..errors import RefereeError
from .local import LOCAL
from .output import error_text

__all__ = ["HELP", "handle", "run_repl"]

HELP = (
    NOTATION
    + """
Commands: every 'referee' command, without the word referee, e.g.
  gurps check 14-4    fudge roll Good --vs Great    swn save physical --level 2
  odds 3d6    sample 3d6 -n 100000
help COMMAND shows one command's options (help gurps check); help commands lists them all;
quit (or exit, q) leaves."""
)


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
