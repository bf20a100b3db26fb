"""The interactive prompt (``referee`` with no arguments).

Every command works here as on the command line, without the word ``referee``:
a dice expression rolls it (``4d6kh3``, ``3d6 + 2``), and so do ``gurps check
14-4``, ``fudge roll Good --vs Great``, ``swn save --level 2``, ``odds 3d6``
and ``sample 3d6 -n 1000``, with the command line's own options: ``-n 6``
(six rolls), ``--seed 7``, ``--json``, ``--secret`` and ``--open``. A GURPS
reaction roll is the GM's secret, as on the command line. The arrow keys
recall history (readline); ``help`` lists the commands and ``help COMMAND``
(or ``COMMAND --help``) shows one; ``quit`` (or ``exit``, ``q``) leaves.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from .. import commands
from ..commands.dice import NOTATION
from ..commands.line import split_line
from ..errors import CommandError, NoSheetError, RefereeError
from ..rng import RandomSource, resolve, seeded
from .local import LOCAL
from .output import error_text, replies_text

__all__ = ["HELP", "handle", "run_repl"]

HELP = (
    NOTATION
    + """
Commands: every 'referee' command, without the word referee, e.g.
  gurps check 14-4    fudge roll Good --vs Great    swn save physical --level 2
  odds 3d6    sample 3d6 -n 100000    4d6kh3 -n 6 --seed 7    gurps reaction +2 --open
Options as on the command line: -n N (roll N times), --seed S, --json, --secret, --open.
help COMMAND shows one command's options (help gurps check); help commands lists them all;
quit (or exit, q) leaves."""
)


def handle(line: str, rng: object = None) -> str:
    """Answer one line of input (errors are answered, never raised)."""
    # here, not at the top: 2 ms of start-up otherwise (issue 53)
    from ..commands.reader import front_options, plan_line

    line = line.strip()
    if not line:
        return ""
    if line in ("help", "?"):
        return HELP
    word, _, rest = line.partition(" ")
    try:
        if word == "help":
            return commands.help_text("" if rest.strip() == "commands" else rest.strip())
        if word in ("serve", "verify"):
            return f"'{word}' runs from the command line, not here: quit, then 'referee {line}'"
        words = split_line(line)
        if words[-1] in ("--help", "-h"):
            return commands.help_text(" ".join(words[:-1]))
        words, front = front_options(words)
        source = resolve(seeded(front.seed) if front.seed is not None else rng)  # type: ignore[arg-type]
        assert isinstance(source, RandomSource)
        _, meta, plan = plan_line(words, resources=LOCAL)
        replies = [plan(source) for _ in range(front.n)]
    except RefereeError as exc:
        if isinstance(exc, NoSheetError):
            return error_text(exc, "give one with --sheet FILE, or set REFEREE_SHEET")
        command = exc.command if isinstance(exc, CommandError) else None
        return error_text(exc, f"see 'help {command}'" if command else "")
    secret = (meta.secret if front.secret is None else front.secret) if meta.rolls else None
    return replies_text(replies, front.as_json, secret)


def run_repl(read: Callable[[str], str] = input) -> None:
    """Read lines until ``quit`` or end of input; leave quietly if the reader of the
    output goes away (``referee < commands.txt | head``)."""
    try:
        _loop(read)
    except BrokenPipeError:
        # Nothing more can be shown: send what is left (and Python's flush at exit) nowhere.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _loop(read: Callable[[str], str]) -> None:
    try:
        # here, not at the top: readline is optional (absent on some platforms), and 1 ms (issue 53)
        import readline  # noqa: F401  (arrow-key history for input())
    except ImportError:  # pragma: no cover - not on every platform
        pass
    print("referee: type dice like 4d6kh3 or a command like 'gurps check 12',")
    print("'help' for more, 'quit' to leave.", flush=True)
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
            print(answer, flush=True)
