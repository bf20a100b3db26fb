"""Reading a command line the same way in every front end.

A line is split into words (shell-style quotes allowed; ``#`` starts a label
that runs to the end of the line). In the arguments of a command that takes
expressions (dice, GURPS skills), a binary operator joins its neighbours
across spaces, so ``roll 3d6 + 2`` is one expression and ``gurps check 14 -4``
is skill 14-4; whitespace between two complete expressions still separates
them (``roll 1d20+5 2d6`` is two). An argument that looks like a negative
number or die (``-1``, ``-d6``) is an argument, not an option.

This module imports nothing heavy: the CLI's fast path uses it too.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Collection, Sequence

from ..errors import CommandError

__all__ = ["NEGATIVE", "arrange", "is_word", "join_expressions", "normalise", "split_line"]

NEGATIVE = re.compile(r"^-[\d(dD.]")
"""A word that starts like a negative expression or level (``-5``, ``-d6``, ``-1``)."""
_OPERATORS = "+-*/"


def is_word(text: str) -> bool:
    """A word that cannot start a dice expression: an unknown command, not dice."""
    return text[:1].isalpha() and not (
        text[:1] in "dD" and (len(text) == 1 or text[1].isdigit() or text[1] in "%fF")
    )


def split_line(line: str) -> list[str]:
    """The words of a typed line; a label (``# ...``) stays one word with its text.

    >>> split_line("roll 1d20+5 # sneak attack")
    ['roll', '1d20+5', '# sneak attack']
    >>> split_line("gurps check 14-4 --label 'Pick lock'")
    ['gurps', 'check', '14-4', '--label', 'Pick lock']
    """
    head, label = _cut_label(line)
    try:
        words = shlex.split(head)
    except ValueError:  # an unbalanced quote: split on whitespace instead
        words = head.split()
    if label is not None:
        words.append("# " + label.strip())
    return words


def _cut_label(line: str) -> tuple[str, str | None]:
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return line[:i], line[i + 1 :]
    return line, None


def _unclosed(word: str) -> bool:
    return word.count("(") > word.count(")")


def join_expressions(words: Sequence[str]) -> list[str]:
    """Join words that a binary operator (or an open parenthesis) runs across.

    >>> join_expressions(["3d6", "+", "2"]), join_expressions(["1d20+5", "2d6"])
    (['3d6+2'], ['1d20+5', '2d6'])
    >>> join_expressions(["14", "-4"]), join_expressions(["(", "2d6", "+1", ")", "*2"])
    (['14-4'], ['(2d6+1)*2'])
    >>> join_expressions(["1d20+5", "# sneak attack"])
    ['1d20+5 # sneak attack']

    After a name, a modifier keeps its space: ``Stealth -2`` is a trait from a sheet
    and a modifier, where ``Broadsword-14`` is skill Broadsword at 14.

    >>> join_expressions(["Stealth", "-2"]), join_expressions(["Broadsword-14", "-2"])
    (['Stealth -2'], ['Broadsword-14-2'])
    """
    out: list[str] = []
    for word in words:
        if not word:
            continue
        if out and "#" in out[-1]:
            out[-1] += " " + word  # the label runs to the end
        elif out and word.startswith("#"):
            out[-1] += " " + word
        elif out and (_unclosed(out[-1]) or out[-1][-1] in _OPERATORS or word[0] in _OPERATORS):
            out[-1] += (" " if _named(out[-1]) and word[0] in "+-" else "") + word
        else:
            out.append(word)
    return out


def _named(word: str) -> bool:
    """A word that ends a trait's name (``Stealth``, ``Fast-Draw (Knife)``, ``Drive!``):
    a modifier after it keeps its space, so ``Stealth -2`` stays apart from
    ``Broadsword-14`` (a name ending in a digit is a level)."""
    return word[:1].isalpha() and not word[-1].isdigit() and word[-1] not in _OPERATORS


def arrange(
    words: Sequence[str],
    valued: Collection[str],
    *,
    joins: bool,
    options: Collection[str] = (),
    hash_label: bool = True,
) -> list[str]:
    """A command's words in the order its option parser reads them.

    Options (and the values of ``valued`` options) come first; then ``--``
    and the arguments, so that an argument starting with ``-`` is never taken
    for an option; with ``joins``, expression arguments are joined first
    (:func:`join_expressions`). Words after a ``--`` are all arguments.

    >>> arrange(["-4", "--label", "x"], {"--label"}, joins=False)
    ['--label', 'x', '--', '-4']
    >>> arrange(["14", "-4"], set(), joins=True)
    ['--', '14-4']

    A valued option needs its value: it is never taken from the next option
    (any of ``options``, the command's option names) or from ``--``.

    A ``# label`` is the command's ``--label`` when it has one, after every command
    (``hash_label``; ``roll`` keeps its labels in its expressions, each its own):

    >>> arrange(["14", "-2", "# Broadsword"], {"--label"}, joins=True)
    ['--label', 'Broadsword', '--', '14-2']

    >>> arrange(["12", "--label"], {"--label"}, joins=True)
    Traceback (most recent call last):
    referee.errors.CommandError: --label needs a value
    >>> arrange(["12", "--label", "--defense"], {"--label"}, joins=True, options={"--defense"})
    Traceback (most recent call last):
    referee.errors.CommandError: --label needs a value

    Raises:
        CommandError: a valued option with no value.
    """
    taken: list[str] = []
    arguments: list[str] = []
    if hash_label and ("--label" in valued or not joins):  # expressions keep their own
        words = _label_option(words, valued)
    rest = iter(words)
    for word in rest:
        if word == "--":
            arguments.extend(rest)
            break
        name = word.split("=", 1)[0]
        if word in valued:
            value = next(rest, None)
            if value is None or value == "--" or value in valued or value in options:
                raise CommandError(f"{word} needs a value")
            taken += [word, value]
        elif name in valued or (
            word.startswith("-") and len(word) > 1 and not NEGATIVE.match(word)
        ):
            taken.append(word)
        else:
            arguments.append(word)
    if joins:
        arguments = join_expressions(arguments)
    return taken + (["--", *arguments] if arguments else [])


def _label_option(words: Sequence[str], valued: Collection[str]) -> list[str]:
    """A ``# label`` word as ``--label label``, for a command that has a ``--label``
    option (the prompt's label runs to the end of the line; on the command line it is
    one quoted word, ``'# Broadsword'``, and options may follow it).

    Raises:
        CommandError: a label given both ways, or an empty one.
    """
    words = list(words)
    if "--label" not in valued:
        if any(w.startswith("#") for w in words):
            raise CommandError("this command takes no label ('# ...')")
        return words
    at = [
        i
        for i, w in enumerate(words)
        if w.startswith("#") and (i == 0 or words[i - 1] not in valued) and "--" not in words[:i]
    ]
    if not at:
        return words
    label = words[at[-1]][1:].strip()
    if not label:
        raise CommandError("'#' starts a label: write the label after it")
    if len(at) > 1 or "--label" in words or any(w.startswith("--label=") for w in words):
        raise CommandError("give the label once: with --label, or after '#'")
    return ["--label", label, *words[: at[-1]], *words[at[-1] + 1 :]]


def normalise(line: str) -> str:
    """A command line as a room's log records it: trimmed, each run of whitespace one space.

    >>> normalise("  roll 3d6   +\t2 ")
    'roll 3d6 + 2'
    """
    return " ".join(line.split())
