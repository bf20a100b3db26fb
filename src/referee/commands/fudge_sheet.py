"""Fudge commands by trait name: what ``fudge roll "Ranged Combat"`` means once the
character's sheet is read.

* An argument that reads as a ladder level (``Good``, ``gr``, ``Great+1``, ``+2``,
  ``0``: :meth:`referee.systems.fudge.Ladder.parse` succeeds) is a level, as before,
  and opens no default sheet (``$REFEREE_SHEET``) -- unless a sheet is given with
  ``--sheet`` (``--sheet2`` for an opposed action's second side) and has a trait of
  exactly that name, case aside: then the sheet's trait wins, and the text says so.
* Any other argument is a trait's name, looked up on the sheet (``--sheet``, else
  ``$REFEREE_SHEET`` or the caller's sheet) by :func:`referee.sheets.find_trait`:
  its level is the ladder value the sheet records. An unknown name is refused
  naming the character; a name that matches several traits is refused listing
  each with its level. With no sheet at all, the level's own error stands.
* The ladder is ``--ladder`` if given (over the sheet's, and the text says so);
  else the ladder of the sheets given with ``--sheet``/``--sheet2`` (two sheets on
  different ladders need ``--ladder``), else of the sheet a name was read from,
  else Psi-punk. Levels typed beside a name are read on that ladder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import RuleError, SheetError
from ..systems import fudge as f
from .result import Reply, resources_of
from .sheeted import maybe_sheet, sheet_for, trait_json

if TYPE_CHECKING:
    from ..sheets import Sheet, Trait

# The sheets' model is imported where a trait is read from a sheet: ``referee fudge roll
# Good`` reads none (issue 74).

__all__ = ["BY_NAME", "Read", "Sheet2Opt", "Side", "ladder_key", "resolve"]

BY_NAME = """\
A trait is a ladder level (Good, gr, Great+1, +2, 0) or a trait's name on
the character's sheet ('Ranged Combat'), read from --sheet FILE, else from
$REFEREE_SHEET. A level keeps its meaning and opens no default sheet, unless
the sheet given with --sheet has a trait of exactly that name (case aside):
then the sheet's trait wins and the text says so (write the level as a
number, +3, to roll the level). The ladder is the sheet's (the one given with
--sheet, or the one a name was read from) unless --ladder overrides it (the
text says so); levels, --vs included, are read on it."""
"""How a trait argument is read: the commands' help says it."""

Sheet2Opt = Annotated[
    str | None,
    typer.Option(
        "--sheet2",
        metavar="FILE",
        help="The second side's sheet, or example:NAME (default: the first side's sheet).",
    ),
]


@dataclass(frozen=True, slots=True)
class Side:
    """One trait argument once read: what the rules read, and the trait it came from."""

    text: str | int
    """What :func:`referee.systems.fudge.action` reads: the typed level, or the
    trait's ladder value."""
    trait: Trait | None = None
    """The sheet's trait, when a name was looked up (None for a typed level)."""
    sheet: Sheet | None = None
    """The sheet it came from."""

    def json(self) -> dict[str, Any] | None:
        """The trait's JSON (:func:`.sheeted.trait_json`), or None for a typed level."""
        if self.trait is None or self.sheet is None:
            return None
        return trait_json(self.trait, self.sheet)

    def called(self, who: str | None, level: str) -> str:
        """How the text names a trait rolled by name: ``Ron's Ranged Combat (Good)``, or
        ``Ranged Combat (Good)`` when ``who`` is the trait's own name (or None)."""
        assert self.trait is not None and self.sheet is not None
        name = self.trait.full_name
        owner = self.sheet.name if who is None else who
        return f"{name} ({level})" if owner == name else f"{owner}'s {name} ({level})"


@dataclass(frozen=True, slots=True)
class Read:
    """A command's trait arguments once read, the ladder they roll on, and what the
    text adds (an option over the sheet, a trait that won over a level)."""

    sides: tuple[Side, ...]
    """One per trait argument, in order."""
    ladder: f.Ladder
    """The ladder the roll uses."""
    notes: tuple[str, ...] = ()
    """Appended to the text, each after ``; ``."""

    @property
    def named(self) -> bool:
        """Whether any side was read from a sheet."""
        return any(s.trait is not None for s in self.sides)

    def names(self) -> tuple[str, str] | None:
        """An opposed action's default side names: the characters' names, or the
        traits' names when both come from one character; None when no side is named."""
        a, b = self.sides[0], self.sides[1]
        if not self.named:
            return None
        if a.sheet is not None and b.sheet is not None and a.trait and b.trait:
            if a.sheet is b.sheet or a.sheet.name == b.sheet.name:
                return a.trait.full_name, b.trait.full_name
        return (
            "side 1" if a.sheet is None or a.trait is None else a.sheet.name,
            "side 2" if b.sheet is None or b.trait is None else b.sheet.name,
        )

    def noted(self, text: str) -> str:
        """``text`` and the notes."""
        return text + "".join(f"; {n}" for n in self.notes)

    def action(self, reply: Reply, r: f.ActionRoll) -> Reply:
        """A roll's reply, naming the trait rolled by name: ``Ron's Ranged Combat (Good),
        rolled ...``, with ``sheet_trait`` in its JSON (unchanged for a typed level)."""
        side = self.sides[0]
        found = side.json()
        if found is None:
            return reply
        head = r.trait.name + (f"{r.modifier:+d}" if r.modifier else "")
        shown = side.called(None, r.trait.name) + (f" {r.modifier:+d}" if r.modifier else "")
        text = self.noted(_swap(reply.text, head, shown))
        return Reply({**reply.data, "sheet_trait": found, "text": text}, text)

    def oppose(self, reply: Reply, r: f.OpposedRoll) -> Reply:
        """An opposed action's reply: each side by name says its trait and level
        (``Ron: Ranged Combat (Good), rolled ...``), and the JSON has ``traits``."""
        if not self.named:
            return reply
        lines = reply.text.split("\n")
        for i, (side, roll) in enumerate(zip(self.sides, (r.first, r.second), strict=True)):
            if side.trait is None or r.names[i] == side.trait.full_name or i >= len(lines):
                continue
            mod = f"{roll.modifier:+d}" if roll.modifier else ""
            head = f"{r.names[i]}: {roll.trait.name}{mod}"
            shown = f"{r.names[i]}: {side.trait.full_name} ({roll.trait.name})"
            lines[i] = _swap(lines[i], head, shown + (f" {mod}" if mod else ""))
        text = self.noted("\n".join(lines))
        return Reply({**reply.data, "traits": self.traits(), "text": text}, text)

    def traits(self) -> list[dict[str, Any] | None]:
        """Each side's trait JSON, or None for a typed level."""
        return [s.json() for s in self.sides]

    def describe(self, i: int, who: str, typed: str) -> str:
        """A side in an odds line: ``Ron (Good)`` for a typed level (as before), or
        ``Ron's Ranged Combat (Good)`` by name."""
        side = self.sides[i]
        if side.trait is None:
            return f"{who} ({typed})"
        return side.called(who, self.ladder.name_of(side.trait.level))


def _swap(text: str, head: str, shown: str) -> str:
    """``text`` with ``head`` at its start replaced by ``shown`` (unchanged otherwise)."""
    return shown + text[len(head) :] if text.startswith(head) else text


def ladder_key(ladder: f.Ladder, given: str | None) -> str | None:
    """``--ladder`` as typed with no sheet: a built-in ladder's name (None for the
    default, Psi-punk), else what was given (a ladder file, on the command line)."""
    for key, known in f.LADDERS.items():
        if known == ladder:
            return None if known == f.PSI_PUNK else key
    return given


def _ladder_of(sheet: Sheet) -> f.Ladder:
    """The built-in ladder a Fudge sheet's traits are written on."""
    return f.LADDERS.get(sheet.ladder or "psi-punk", f.PSI_PUNK)


def _exact(sheet: Sheet | None, text: str) -> Trait | None:
    """The sheet's trait named exactly ``text`` (case and spacing aside), if one is."""
    if sheet is None:
        return None
    from ..sheets import Kind
    from ..sheets.match import normal

    q = normal(text)
    found = [t for t in sheet.of_kind(Kind.TRAIT) if q in (normal(t.full_name), normal(t.name))]
    return found[0] if len(found) == 1 else None


def _lookup(sheet: Sheet, text: str, ladder: f.Ladder, error: RuleError) -> Trait:
    """:func:`find_trait` on ``sheet``, its errors naming levels on ``ladder`` and saying
    why ``text`` is not a level either.

    Raises:
        SheetError: no such trait, or several (each listed with its level).
    """
    from ..sheets import Kind, find_trait

    try:
        return find_trait(sheet, text, (Kind.TRAIT,))
    except SheetError as exc:
        message = str(exc)
        for t in sheet.traits:  # "Focus 2 (trait)" -> "Focus: Great (+2)"
            message = message.replace(
                f"{t.full_name} {t.level} (trait)",
                f"{t.full_name}: {ladder.name_of(t.level)} ({t.level:+d})",
            )
        why = f": {error}" if "ambiguous" in str(error) else ""
        raise SheetError(
            f"{message}; nor is {text!r} a level on the {ladder.name} ladder{why}"
        ) from None


def resolve(
    ctx: typer.Context,
    texts: Sequence[str],
    paths: Sequence[str | None],
    ladder: str | None,
    command: str,
) -> Read:
    """Read a command's trait arguments (one, or an opposed action's two) as the
    module's rules say, with ``paths[i]`` the ``--sheet`` for side ``i`` (the second
    side falls back on the first's sheet).

    Raises:
        CommandError: an unknown ladder, or a sheet the caller cannot read.
        RuleError: two sheets on different ladders and no ``--ladder``; a typed level's
            own error when there is no sheet to read a name from.
        SheetError: a sheet of another system, unreadable, or without the trait.
    """
    resources = resources_of(ctx)
    given = None if ladder is None else resources.ladder(ladder)
    explicit = [None if p is None else sheet_for(ctx, p, "fudge", command) for p in paths]
    own = [explicit[i] if explicit[i] is not None else explicit[0] for i in range(len(texts))]
    lad = given or _common([s for s in explicit if s is not None]) or resources.ladder(None)
    default: list[Sheet | None] = []
    sides: list[Side] = []
    notes: list[str] = []
    for text, sheet in zip(texts, own, strict=True):
        try:
            level = lad.parse(text)
        except RuleError as exc:
            if sheet is None:
                if not default:  # $REFEREE_SHEET or the caller's, read once
                    default.append(maybe_sheet(ctx, None, "fudge", command))
                sheet = default[0]
            if sheet is None:  # no sheet to read a name from: the level's own error
                if "unknown level" not in str(exc):
                    raise
                raise RuleError(
                    f"{exc}; or give a sheet (--sheet FILE) to roll a trait by name"
                ) from None
            found = _lookup(sheet, text, _ladder_of(sheet), exc)
            sides.append(Side(found.level, found, sheet))
            continue
        trait = _exact(sheet, text)
        if trait is None or sheet is None:
            sides.append(Side(text))
            continue
        notes.append(
            f"{text!r} is {sheet.name}'s trait, not the level {level.name} "
            f"(write {level.value:+d} to roll the level)"
        )
        sides.append(Side(trait.level, trait, sheet))
    used = [s.sheet for s in sides if s.sheet is not None]
    if given is not None:
        notes += _over(ladder or "", given, sides)
    else:
        lad = _common([*(s for s in explicit if s is not None), *used]) or lad
    return Read(tuple(sides), lad, tuple(notes))


def _common(sheets: Sequence[Sheet]) -> f.Ladder | None:
    """The one ladder ``sheets`` are written on (None when there are none).

    Raises:
        RuleError: two sheets on different ladders.
    """
    ladders: dict[str, Sheet] = {}
    for s in sheets:
        ladders.setdefault(s.ladder or "psi-punk", s)
    if len(ladders) > 1:
        (a, sa), (b, sb) = list(ladders.items())[:2]
        raise RuleError(
            f"{sa.name}'s sheet is on the {a} ladder and {sb.name}'s on {b}: "
            "give --ladder to roll both on one"
        )
    return None if not sheets else _ladder_of(sheets[0])


def _over(given: str, ladder: f.Ladder, sides: Sequence[Side]) -> list[str]:
    """``--ladder fate-core over the sheet's psi-punk (Focus +2 is Fair)``: what the text
    says for each sheet read by name whose ladder ``--ladder`` replaces. A trait keeps
    its value, which may have another name on the new ladder."""
    sheets = {id(s.sheet): s.sheet for s in sides if s.sheet is not None}
    notes: list[str] = []
    for key, sheet in sheets.items():
        if _ladder_of(sheet) == ladder:
            continue
        whose = "the sheet's" if len(sheets) == 1 else f"{sheet.name}'s"
        kept = ", ".join(
            f"{s.trait.full_name} {s.trait.level:+d} is {ladder.name_of(s.trait.level)}"
            for s in sides
            if s.trait is not None and id(s.sheet) == key
        )
        notes.append(f"--ladder {given} over {whose} {sheet.ladder or 'psi-punk'} ({kept})")
    return notes
