"""Discord's slash commands, drawn from the command registry (as the CLI reference is),
and the command line an interaction's options stand for.

Every rolling command of the registry becomes a slash command with its own options
and help: ``roll`` is ``/roll``, ``gurps check`` is ``/gurps check``. A command whose
exact odds have a twin (``gurps odds check``) gets a boolean ``odds`` option instead of
a second command: Discord caps a top-level command at 8,000 characters, and the GURPS
and SWN groups would not fit twice. Discord also caps a command at 25 options: the
arguments come first, then the options in the order ``--help`` lists them, and the
ones past the cap are typed in ``more`` as on the command line (``more: --rapid 3``).
Options that read files (``--sheet``, a path) or only make sense in a shell
(``--seed``, ``-n``) are left out: a sheet comes from ``/sheet``.

Every rolling command also has ``visibility``: ``public``, ``secret`` (the GM's
secret roll: only the GM sees it; a player's: the player and the GM) or ``blind``
(a player's roll only the GM sees). :func:`command_line` turns an interaction's
options back into the command line that the command layer reads.
"""

from __future__ import annotations

import copy
import enum
import functools
import shlex
import typing
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...commands import reader
from ...commands.registry import COMMANDS
from .own import ATTACHMENT, BOOLEAN, INTEGER, NUMBER, OWN, STRING, SUB_COMMAND

__all__ = [
    "EPHEMERAL",
    "MAX_COMMAND_SIZE",
    "MAX_OPTIONS",
    "Asked",
    "application_commands",
    "command_line",
    "command_size",
]

EPHEMERAL = 64
"""The message flag that shows a reply only to the user who asked."""
MAX_OPTIONS = 25
"""Discord's cap on a command's options (and a group's subcommands)."""
MAX_COMMAND_SIZE = 8000
"""Discord's cap on a top-level command's names, descriptions and values together."""
SUB_COMMAND_GROUP = 2

_HIDDEN = {"sheet", "sheet2", "seed", "path", "n", "runs"}
"""Parameters a chat never gives: they read files or belong to a shell."""
_SKIPPED = {("gurps", "retry"), ("swn", "initiative")}
"""Rolling commands left out: ``swn initiative`` reads a file of combatants."""
_NOT_HERE = {
    "--sheet": ": load your character with /sheet",
    "--sheet2": ": load your character with /sheet",
    "--seed": ": a room's dice come from its seeds (/seed)",
    "-n": "",
    "--runs": "",
    "--json": "",
    "--secret": ": choose visibility: secret",
    "--open": "",
}
"""Options typed in ``more`` or an argument that belong to the CLI alone, refused here
(the rooms' reader refuses them too: this says why, and where to look instead)."""
VISIBILITIES = ("public", "secret", "blind")
SIMULATE: dict[str, Any] = {
    "type": SUB_COMMAND,
    "name": "simulate",
    "description": "Fight an encounter file many times: win odds, rounds (only you see it).",
    "options": [
        {"type": ATTACHMENT, "name": "file", "required": True,
         "description": "The encounter (.toml): example: sheets or numbers inline"},
        {"type": INTEGER, "name": "runs", "min_value": 1, "max_value": 20_000,
         "description": "Fights to simulate (10,000 by default)"},
    ],
}  # fmt: skip
"""``/gurps simulate`` and ``/swn simulate`` (:mod:`.simulating`)."""
MORE = "more"


@dataclass(frozen=True, slots=True)
class Asked:
    """What an interaction asks of the command layer."""

    line: str
    """The command line, as ``referee`` would read it."""
    visibility: str
    """``public``, ``secret`` or ``blind``."""
    odds: bool
    """Only the exact odds: nothing is rolled."""
    sheet: str | None = None
    """The sheet the roll is made as, typed first (``words:@Dai-Blackthorn Stealth``:
    ``Dai-Blackthorn``); :attr:`line` is then what follows it."""


@functools.cache
def _registry() -> tuple[Mapping[tuple[str, ...], Any], Any]:
    """The registry and its click group (built once: building it takes milliseconds)."""
    return COMMANDS, reader.build_group()


def _short(text: str | None, most: int = 100) -> str:
    first = " ".join((text or "").replace("\b", "").split("\n\n")[0].split())
    first = first.replace("`", "")
    if len(first) <= most:
        return first or "-"
    cut = first[: most - 1].rsplit(" ", 1)[0]
    return cut + "…"


def _option(param: Any) -> dict[str, Any] | None:
    """A typer parameter as a Discord option, or None if a chat never gives it."""
    if param.name in _HIDDEN or param.name is None:
        return None
    is_argument = param.param_type_name == "argument"
    name = param.name.replace("_", "-")
    if not is_argument:  # the option's own spelling: --type for damage_type
        name = max(param.opts, key=len).lstrip("-")
    option: dict[str, Any] = {
        "type": STRING,
        "name": name.lower()[:32],
        "description": _short(getattr(param, "help", None) or f"The {name}."),
        "required": bool(param.required) or (is_argument and param.nargs == -1),
    }
    kind = _annotation(param)
    if getattr(param, "is_flag", False):
        option["type"] = BOOLEAN
    elif kind is int:
        option["type"] = INTEGER
    elif kind is float:
        option["type"] = NUMBER
    elif isinstance(kind, type) and issubclass(kind, enum.Enum):
        option["choices"] = [{"name": str(c.value), "value": str(c.value)} for c in kind]
    elif typing.get_origin(kind) is list:  # a repeatable option: --mod -2 --mod 1
        option["description"] = _short(option["description"] + " Several: -2 +1", 100)
    if option["type"] == STRING and is_argument and "choices" not in option:
        option["autocomplete"] = True  # a trait's or weapon's name (Discord: not both)
    return option


def _annotation(param: Any) -> Any:
    """A parameter's type, without its ``| None``."""
    kind = param.type_descriptor.annotation
    args = [a for a in typing.get_args(kind) if a is not type(None)]
    if typing.get_origin(kind) is not list and len(args) == 1:
        return args[0]
    return kind


def _subcommand(name: str, click_command: Any, odds: bool, secret: bool) -> dict[str, Any]:
    options = [o for p in click_command.params if (o := _option(p)) is not None]
    options.sort(key=lambda o: not o.get("required"))  # Discord: required ones first
    extra: list[dict[str, Any]] = [
        {
            "type": STRING,
            "name": "visibility",
            "description": "Who sees the result"
            + (" (secret by the rules, unless you say)" if secret else "")
            + ": secret is the GM's, blind the player's.",
            "choices": [{"name": v, "value": v} for v in VISIBILITIES],
        }
    ]
    if odds:
        extra.append(
            {"type": BOOLEAN, "name": "odds", "description": "Only the exact odds: roll nothing."}
        )
    room = MAX_OPTIONS - len(extra)
    if len(options) > room:
        options = options[: room - 1]
        extra.append(
            {
                "type": STRING,
                "name": MORE,
                "description": "Other options, as on the command line: --rapid 3 --all-out",
            }
        )
    return {
        "type": SUB_COMMAND,
        "name": name,
        "description": _short(click_command.help),
        "options": options + extra,
    }


def application_commands() -> list[dict[str, Any]]:
    """Every slash command, as ``PUT /applications/{id}/commands`` takes them.

    >>> names = [c["name"] for c in application_commands()]
    >>> names
    ['roll', 'odds', 'fudge', 'gurps', 'swn', 'sheet', 'seed', 'referee', 'fight']
    >>> gurps = next(c for c in application_commands() if c["name"] == "gurps")
    >>> [s["name"] for s in gurps["options"]]
    ['attack', 'blow', 'check', 'contest', 'damage', 'defend', 'reaction', 'slam', 'simulate']
    """
    commands, group = _registry()
    out: list[dict[str, Any]] = []
    for top in ("roll", "odds"):
        sub = _subcommand(top, group.commands[top], odds=False, secret=False)
        if top == "odds":  # a dice expression's odds roll nothing: who sees them is moot
            sub["options"] = [o for o in sub["options"] if o["name"] != "visibility"]
        for o in sub["options"]:
            if o["name"] in ("exprs", "expr"):
                o["required"] = True
                o.pop("autocomplete", None)
        sub["options"].sort(key=lambda o: not o.get("required"))
        out.append({"name": top, "description": sub["description"], "options": sub["options"]})
    for system in ("fudge", "gurps", "swn"):
        subs = []
        node = group.commands[system]
        for path, meta in sorted(commands.items()):
            if len(path) != 2 or path[0] != system or not meta.rolls or path in _SKIPPED:
                continue
            twin = (system, "odds", path[1]) in commands
            subs.append(_subcommand(path[1], node.commands[path[1]], twin, meta.secret))
        if system in ("gurps", "swn"):
            subs.append(copy.deepcopy(SIMULATE))
        out.append({"name": system, "description": _short(node.help), "options": subs})

    out.extend(copy.deepcopy(OWN))
    for command in out:
        command["type"] = 1  # CHAT_INPUT
        _fit(command)
    return out


def command_size(command: Mapping[str, Any]) -> int:
    """The characters Discord counts against :data:`MAX_COMMAND_SIZE`: every name,
    description and choice's name and value."""
    total = len(command["name"]) + len(command.get("description", ""))
    for option in command.get("options", ()):
        total += command_size(option)
    for choice in command.get("choices", ()):
        total += len(choice["name"]) + len(str(choice["value"]))
    return total


def _descriptions(command: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for option in command.get("options", ()):
        yield option
        yield from _descriptions(option)


def _fit(command: dict[str, Any]) -> None:
    """Shorten the options' descriptions until ``command`` fits Discord's cap."""
    most = 100
    while command_size(command) > MAX_COMMAND_SIZE and most > 20:
        most -= 10
        for option in _descriptions(command):
            option["description"] = _short(option["description"], most)


def command_line(data: Mapping[str, Any]) -> Asked:
    """The command line that an interaction's ``data`` (its command and options) asks
    for. Arguments that take several words (``words: Stealth -2``) are split as the
    command line splits them; any other value is one word, quoted.

    >>> command_line({"name": "gurps", "options": [{"type": 1, "name": "check",
    ...     "options": [{"type": 3, "name": "words", "value": "Stealth -2"},
    ...                 {"type": 3, "name": "visibility", "value": "blind"}]}]})
    Asked(line='gurps check Stealth -2', visibility='blind', odds=False, sheet=None)

    A sheet typed first (``@NAME``, as a room's command begins) is the sheet rolled as:

    >>> command_line({"name": "roll", "options": [{"type": 3, "name": "exprs",
    ...     "value": "@Dai-Blackthorn 3d6"}]})
    Asked(line='roll 3d6', visibility='public', odds=False, sheet='Dai-Blackthorn')

    Raises:
        ValueError: options that no slash command has (the message says which).
    """
    words = [_word(data.get("name"))]
    options = list(data.get("options") or ())
    while options and options[0].get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP):
        words.append(_word(options[0].get("name")))
        options = list(options[0].get("options") or ())
    node: Any = reader.group_for(words)  # a /roll's first use builds no other command
    for word in words:
        node = getattr(node, "commands", {}).get(word)
        if node is None:
            raise ValueError(f"no command /{' '.join(words)}")
    if getattr(node, "commands", None) is not None:
        raise ValueError(f"/{' '.join(words)} needs a subcommand")
    params = _params(node)
    visibility, odds = "public", False
    meta = COMMANDS.get(tuple(words))
    if meta is not None and meta.secret:
        visibility = "secret"
    line: list[str] = list(words)
    flags: list[str] = []
    command = f"/{' '.join(words)}"
    for given in options:
        name, value = given.get("name"), given.get("value")
        if name == "visibility":
            if value not in VISIBILITIES:
                raise ValueError(
                    f"option 'visibility' of {command} is {shown_value(value)}: it is "
                    f"one of {', '.join(VISIBILITIES)}"
                )
            visibility = str(value)
        elif name == "odds":
            if not isinstance(value, bool):
                raise ValueError(f"option 'odds' of {command} is {shown_value(value)}: "
                                 "it is True or False")  # fmt: skip
            odds = value
        elif name == MORE:
            if not isinstance(value, str):
                raise ValueError(f"option 'more' of {command} is {shown_value(value)}: "
                                 "it takes text")  # fmt: skip
            flags.append(value)
        elif name in params:
            param, option = params[name]
            if not _fits(option["type"], value):
                raise ValueError(
                    f"option {name!r} of {command} is {shown_value(value)}: it takes "
                    f"{_KINDS.get(option['type'], 'text')}"
                )
            if param.param_type_name == "argument":
                line.append(str(value) if param.nargs == -1 else shlex.quote(str(value)))
            elif typing.get_origin(_annotation(param)) is list:
                flags.extend(
                    f"{max(param.opts, key=len)} {shlex.quote(w)}" for w in str(value).split()
                )
            elif option["type"] == BOOLEAN:
                if value is True:
                    flags.append(max(param.opts, key=len))
            else:
                flags.append(f"{max(param.opts, key=len)} {shlex.quote(str(value))}")
        else:
            raise ValueError(f"{command} has no option {str(name)[:40]!r}")
    for word in " ".join(str(w) for w in line[len(words) :] + flags).split():
        flag = word.strip("'\"").split("=", 1)[0]
        if flag in _NOT_HERE:
            raise ValueError(f"{flag} is not for Discord{_NOT_HERE[flag]}")
    sheet = None
    first = line[len(words)] if len(line) > len(words) else ""
    if first.startswith("@") and words != ["fudge", "oppose"]:  # (which opposes @A to @B)
        sheet, _, line[len(words)] = first[1:].partition(" ")  # @NAME, then the roll
    if odds:
        if (words[0], "odds", *words[1:]) not in COMMANDS:
            raise ValueError(f"/{' '.join(words)} has no odds option")
        line.insert(1, "odds")
    return Asked(" ".join(w for w in line + flags if w), visibility, odds, sheet)


_KINDS = {STRING: "text", INTEGER: "a whole number", NUMBER: "a number", BOOLEAN: "True or False"}


def _fits(kind: int, value: Any) -> bool:
    """Whether ``value`` is what Discord sends for an option of type ``kind``."""
    if kind == BOOLEAN:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if kind == INTEGER:
        return isinstance(value, int)
    if kind == NUMBER:
        return isinstance(value, int | float)
    return isinstance(value, str)


def shown_value(value: Any) -> str:
    """A value Discord would not send, as an error names it.

    >>> shown_value(None), shown_value(["3d6"]), shown_value("gm")
    ('null', 'a list', "'gm'")
    """
    if value is None:
        return "null"
    if isinstance(value, list | dict):
        return "a list" if isinstance(value, list) else "an object"
    return repr(value)[:40]


_PARAMS: dict[int, dict[str, tuple[Any, dict[str, Any]]]] = {}


def _params(node: Any) -> dict[str, tuple[Any, dict[str, Any]]]:
    """A click command's parameters by their option's name (worked out once each)."""
    found = _PARAMS.get(id(node))
    if found is None:
        found = {}
        for p in node.params:
            option = _option(p)
            if option is not None:
                found[option["name"]] = (p, option)
        _PARAMS[id(node)] = found
    return found


def _word(name: Any) -> str:
    if not isinstance(name, str) or not name or len(name) > 32:
        raise ValueError("the interaction names no command")
    return name


def option_values(data: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    """The options of the innermost subcommand of ``data``."""
    options = list(data.get("options") or ())
    while options and options[0].get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP):
        options = list(options[0].get("options") or ())
    return options
