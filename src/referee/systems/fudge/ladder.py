"""The trait ladder: named levels that a Fudge game supplies as data.

Source: *Psi-punk*, "Rolling the Dice" (the ladder table, empty in the text) and
the rules notes, "Psi-punk trait ladder" (docs/reference/sources.md: the full ladder, the
trait range Poor to Phenomenal, and naming results
beyond the ends). The Fate Core ladder is from *Fate Core System*, "The Ladder".

A ladder is a frozen value. Ship-with ladders are :data:`PSI_PUNK` (the default)
and :data:`FATE_CORE`; :func:`ladder_from_data` builds one from data, and
:mod:`.ladder_file` reads a user's TOML or JSON file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from ...errors import RuleError

__all__ = [
    "FATE_CORE",
    "LADDERS",
    "PSI_PUNK",
    "Degrees",
    "Ladder",
    "Level",
    "ladder_from_data",
]

LIMIT = 1000
"""Levels written with a number (``+2``, ``Great+1``) must lie in ``[-LIMIT, LIMIT]``."""

_NAME = re.compile(r"[A-Za-z][A-Za-z' ]*[A-Za-z']|[A-Za-z]")
_NUMBER = re.compile(r"[+-]?\d+")
_LEVEL = re.compile(r"^\s*([A-Za-z][A-Za-z' ]*?)?\s*(?:([+-])\s*(\d+))?\s*$")


class Degrees(StrEnum):
    """How a ladder speaks of a degree of success (a difference of levels, not a level)."""

    LADDER = "ladder"
    """Named on the ladder, as Psi-punk does (``002``, "Degree of Success": a degree
    of +2 is "Great"): only right on a ladder whose 0 is the middle (Fair)."""
    FATE = "fate"
    """Fate's four outcomes (*Fate Core System*, "Outcomes"): fail below 0, tie at
    0, succeed at 1-2 shifts, succeed with style at 3 or more."""
    NUMBER = "number"
    """Only the number of levels (the default for a ladder file)."""


@dataclass(frozen=True, slots=True)
class Level:
    """One point on the ladder: its value and the name the ladder gives it."""

    name: str
    """``Great``, or beyond the ends ``Astonishing+2`` / ``Abysmal-1``."""
    value: int
    """The number: Fair is 0 on the Psi-punk ladder."""


@dataclass(frozen=True)
class Ladder:
    """A game's trait ladder: consecutive integer values, each with a unique name.

    Source: ``002``, "Rolling the Dice"; rules README, "Psi-punk trait ladder".
    """

    name: str
    """What the ladder is called, e.g. ``Psi-punk``."""
    levels: tuple[Level, ...]
    """The named levels, highest first, with consecutive values."""
    trait_range: tuple[int, int]
    """The lowest and highest trait a character may have; the rest are rolled results only."""
    default_difficulty: int
    """The difficulty of an unopposed action when none is given (Fair)."""
    degrees: Degrees = Degrees.NUMBER
    """How degrees of success are named (:class:`Degrees`)."""
    _parsed: dict[str, Level] = field(default_factory=dict, init=False, compare=False, repr=False)
    _levels: dict[int, Level] = field(default_factory=dict, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        values = [lv.value for lv in self.levels]
        if not values or values != list(range(values[0], values[0] - len(values), -1)):
            raise RuleError(f"ladder {self.name!r}: values must be consecutive, highest first")
        folded = [lv.name.casefold() for lv in self.levels]
        if len(set(folded)) != len(folded):
            raise RuleError(f"ladder {self.name!r}: two levels share a name")

    @property
    def top(self) -> Level:
        """The highest named level."""
        return self.levels[0]

    @property
    def bottom(self) -> Level:
        """The lowest named level."""
        return self.levels[-1]

    def name_of(self, value: int) -> str:
        """The name of ``value``: the ladder's own, or an end name plus the rest.

        Source: rules README, "Psi-punk trait ladder" (``Astonishing+2``, ``Abysmal-1``).

        >>> PSI_PUNK.name_of(2), PSI_PUNK.name_of(9), PSI_PUNK.name_of(-4)
        ('Great', 'Astonishing+2', 'Abysmal-1')
        """
        top, bottom = self.top, self.bottom
        if value > top.value:
            return f"{top.name}+{value - top.value}"
        if value < bottom.value:
            return f"{bottom.name}{value - bottom.value}"
        return self.levels[top.value - value].name

    def degree_name(self, degree: int) -> str | None:
        """What a degree of success is called on this ladder, or None if only a number.

        >>> PSI_PUNK.degree_name(2), FATE_CORE.degree_name(3), FATE_CORE.degree_name(0)
        ('Great', 'succeed with style', 'tie')

        On a ladder that names degrees, a degree beyond either end of the ladder has
        no name (``Abysmal-7`` would read as a level, not a difference): only its number.

        >>> PSI_PUNK.degree_name(-10) is None, PSI_PUNK.degree_name(-3)
        (True, 'Abysmal')
        """
        if self.degrees is Degrees.LADDER:
            if not self.bottom.value <= degree <= self.top.value:
                return None
            return self.name_of(degree)
        if self.degrees is Degrees.FATE:
            if degree < 0:
                return "fail"
            return "tie" if degree == 0 else "succeed" if degree < 3 else "succeed with style"
        return None

    def level(self, value: int) -> Level:
        """``value`` with its name."""
        found = self._levels.get(value)
        if found is None:
            found = Level(self.name_of(value), value)
            if len(self._levels) < 4096:
                self._levels[value] = found
        return found

    def parse(self, text: str | int) -> Level:
        """Read a level as players write it: ``Good``, ``gr``, ``Great+1``, ``+2``, ``-1``.

        Names are case-insensitive and any unique prefix works; an exact name
        wins over a longer name it is a prefix of. A number alone is a value on
        the ladder (``0`` is Fair on Psi-punk's).

        >>> PSI_PUNK.parse("gr"), PSI_PUNK.parse("Great+1").name, PSI_PUNK.parse("-1").name
        (Level(name='Great', value=2), 'Superb', 'Mediocre')

        Raises:
            RuleError: an unknown or ambiguous name (listing the candidates), or a
                number beyond ±1000.
        """
        key = str(text)
        found = self._parsed.get(key)
        if found is None:
            found = _parse(self, key)
            if len(self._parsed) < 4096:
                self._parsed[key] = found
        return found

    def trait(self, text: str | int) -> Level:
        """Parse a character's trait, which must lie in :attr:`trait_range`.

        Source: rules README, "Character traits range from Poor to Phenomenal.
        The other levels occur only as rolled results."

        Raises:
            RuleError: as :meth:`parse`, or a level outside the trait range.
        """
        lv = self.parse(text)
        lo, hi = self.trait_range
        if not lo <= lv.value <= hi:
            raise RuleError(
                f"{lv.name} ({lv.value:+d}) is not a trait on the {self.name} ladder: "
                f"traits run from {self.name_of(lo)} to {self.name_of(hi)} "
                "(use a modifier for more)"
            )
        return lv


def _parse(ladder: Ladder, text: str) -> Level:
    if _NUMBER.fullmatch(text.strip()):
        text = text.strip()
        text = text if text[0] in "+-" else "+" + text
    match = _LEVEL.match(text)
    if match is None or (match.group(1) is None and match.group(3) is None):
        raise RuleError(
            f"cannot read level {text!r}: write a ladder name, a name and a number "
            "(Great+1), or a number (+2)"
        )
    word, sign, digits = match.groups()
    offset = 0 if digits is None else int(sign + digits)
    if abs(offset) > LIMIT:
        raise RuleError(f"{offset:+d} in level {text!r} is out of range (-{LIMIT} to +{LIMIT})")
    base = 0 if word is None else _lookup(ladder, word.strip()).value
    value = base + offset
    if abs(value) > LIMIT:
        raise RuleError(f"level {text!r} = {value:+d} is out of range (-{LIMIT} to +{LIMIT})")
    return ladder.level(value)


def _lookup(ladder: Ladder, word: str) -> Level:
    key = word.casefold()
    exact = [lv for lv in ladder.levels if lv.name.casefold() == key]
    if exact:
        return exact[0]
    found = [lv for lv in ladder.levels if lv.name.casefold().startswith(key)]
    if len(found) == 1:
        return found[0]
    if found:
        names = ", ".join(lv.name for lv in found)
        raise RuleError(f"{word!r} is ambiguous on the {ladder.name} ladder: {names}")
    names = ", ".join(lv.name for lv in ladder.levels)
    raise RuleError(f"unknown level {word!r} on the {ladder.name} ladder (one of: {names})")


def _make(
    name: str,
    levels: list[tuple[str, int]],
    traits: tuple[str, str],
    default: str,
    degrees: Degrees = Degrees.NUMBER,
) -> Ladder:
    lvls = tuple(Level(n, v) for n, v in sorted(levels, key=lambda nv: -nv[1]))
    probe = Ladder(name, lvls, (lvls[-1].value, lvls[0].value), lvls[-1].value)
    lo, hi = probe.parse(traits[0]).value, probe.parse(traits[1]).value
    if lo > hi:
        raise RuleError(f"ladder {name!r}: the lowest trait {traits[0]!r} is above the highest")
    return Ladder(name, lvls, (lo, hi), probe.parse(default).value, degrees)


PSI_PUNK = _make(
    "Psi-punk",
    [
        ("Astonishing", 7),
        ("Extraordinary", 6),
        ("Phenomenal", 5),
        ("Wonderful", 4),
        ("Superb", 3),
        ("Great", 2),
        ("Good", 1),
        ("Fair", 0),
        ("Mediocre", -1),
        ("Poor", -2),
        ("Abysmal", -3),
    ],
    ("Poor", "Phenomenal"),
    "Fair",
    Degrees.LADDER,
)
"""The Psi-punk ladder, Astonishing +7 to Abysmal −3 (rules README); traits Poor to Phenomenal."""

FATE_CORE = _make(
    "Fate Core",
    [
        ("Legendary", 8),
        ("Epic", 7),
        ("Fantastic", 6),
        ("Superb", 5),
        ("Great", 4),
        ("Good", 3),
        ("Fair", 2),
        ("Average", 1),
        ("Mediocre", 0),
        ("Poor", -1),
        ("Terrible", -2),
    ],
    ("Terrible", "Legendary"),
    "Fair",
    Degrees.FATE,
)
"""The Fate Core ladder, Legendary +8 to Terrible −2 (*Fate Core System*, "The Ladder").

Fate does not restrict traits to part of the ladder, so every level is a trait.
The default difficulty is Fair, as for Psi-punk; note that Fair is +2 here.
Degrees are Fate's outcomes (fail, tie, succeed, succeed with style), not levels.
"""

LADDERS = {"psi-punk": PSI_PUNK, "fate-core": FATE_CORE}
"""The ladders that ship with referee, by name (``psipunk``/``fate`` also accepted)."""
_ALIASES = {"psipunk": "psi-punk", "psi": "psi-punk", "fate": "fate-core", "fatecore": "fate-core"}


def _line(text: str, key: str) -> int:
    """The first line of ``text`` that mentions ``key`` (1 if none), to point errors at."""
    for number, line in enumerate(text.splitlines(), 1):
        if re.search(rf"(^|[^A-Za-z]){re.escape(key)}([^A-Za-z]|$)", line):
            return number
    return 1


def _fallback_difficulty(pairs: list[tuple[str, int]]) -> str:
    """Fair if the ladder has it, else the level valued 0, else the lowest level."""
    for name, _ in pairs:
        if name.casefold() == "fair":
            return name
    for name, value in pairs:
        if value == 0:
            return name
    return min(pairs, key=lambda p: p[1])[0]


def ladder_from_data(data: Any, text: str = "", where: str = "ladder") -> Ladder:
    """Build a ladder from parsed TOML/JSON data (``text`` is the source, to name lines).

    The format is described in :func:`.ladder_file.load_ladder`. Nothing is read
    from disk here: a server may pass a user's ladder as data.

    Raises:
        RuleError: malformed data; the message names the line and the field.
    """

    def fail(key: str, problem: str) -> RuleError:
        return RuleError(f"{where}, line {_line(text, key)}, field {key!r}: {problem}")

    if not isinstance(data, dict):
        raise RuleError(f"{where}, line 1: a ladder file is a table with a 'levels' field")
    unknown = set(data) - {"name", "levels", "traits", "default_difficulty", "degrees"}
    if unknown:
        key = sorted(unknown)[0]
        raise fail(
            key, "unknown field (expected name, levels, traits, default_difficulty, degrees)"
        )
    degrees = data.get("degrees", "number")
    if degrees not in {d.value for d in Degrees}:
        raise fail("degrees", "must be number, ladder or fate")
    name = data.get("name", Path(where).stem)
    if not isinstance(name, str) or not name.strip():
        raise fail("name", "must be a non-empty string")
    levels = data.get("levels")
    if not isinstance(levels, dict) or not levels:
        raise fail("levels", "must be a table of level names and integer values")
    pairs: list[tuple[str, int]] = []
    for lname, value in levels.items():
        if not _NAME.fullmatch(lname):
            raise fail(lname, "a level name is letters (and spaces or apostrophes inside)")
        if not isinstance(value, int) or isinstance(value, bool) or abs(value) > LIMIT:
            raise fail(lname, f"the value must be an integer from -{LIMIT} to {LIMIT}")
        pairs.append((lname, value))
    ordered = sorted(v for _, v in pairs)
    if ordered != list(range(ordered[0], ordered[0] + len(ordered))):
        gap = next(
            (v + 1 for v in ordered if v + 1 not in ordered and v != ordered[-1]), ordered[0]
        )
        dup = [v for v in ordered if ordered.count(v) > 1]
        problem = f"value {dup[0]} is used twice" if dup else f"no level has the value {gap}"
        raise fail("levels", f"values must be consecutive integers: {problem}")
    folded = [n.casefold() for n, _ in pairs]
    if len(set(folded)) != len(folded):
        raise fail("levels", "two levels share a name (names are case-insensitive)")
    traits = data.get(
        "traits", [min(pairs, key=lambda p: p[1])[0], max(pairs, key=lambda p: p[1])[0]]
    )
    if (
        not isinstance(traits, list)
        or len(traits) != 2
        or not all(isinstance(t, str | int) for t in traits)
    ):
        raise fail("traits", "must be a list of two levels: the lowest and highest trait")
    default = data.get("default_difficulty", _fallback_difficulty(pairs))
    if not isinstance(default, str | int):
        raise fail("default_difficulty", "must be a level name or number")
    try:
        return _make(name, pairs, (str(traits[0]), str(traits[1])), str(default), Degrees(degrees))
    except RuleError as exc:
        key = "default_difficulty" if str(default) in str(exc) else "traits"
        raise fail(key, str(exc)) from None
