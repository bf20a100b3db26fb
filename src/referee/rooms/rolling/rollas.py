"""Rolling as a character (contract v1.1, "Rolling as a sheet"): which sheet a roll is
made as (``@NAME``, or a member's only sheet), and the command it resolves to.

Each server keeps the rooms' sheet lists it has used (read once, then kept up to date
by the ``sheet`` entries it publishes, its own and, on PostgreSQL, the other servers'),
each sheet read once per version (by its sha256), and each command resolved once per
sheet version: a roll as a sheet costs about what any roll costs. The routes that
upload and show sheets are in :mod:`.characters`.
"""

from __future__ import annotations

import asyncio
import logging
import re
import shlex
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ... import commands
from ...commands.line import split_line
from ...commands.reader import find
from ...errors import RefereeError, SheetError
from ...sheets import read_sheet
from ..db.sheetstore import SheetRow
from ..errors import ApiError

_log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from ...commands import CommandLimits
    from ...sheets import Sheet
    from ..db.store import Member, Store

__all__ = [
    "MAX_SHEET",
    "SHEET_NAME",
    "Lru",
    "RoomSheets",
    "as_sheet",
    "read_sheet_body",
    "resolve_as",
]


class _State(Protocol):
    """What rolling as a sheet uses of the server's state (:class:`.state.State`)."""

    sheets: RoomSheets
    store: Store

    async def revealed(self, room: str) -> set[int]: ...
    def follows(self, room: str) -> bool: ...


SHEET_NAME = re.compile(r"[A-Za-z0-9_-]{1,40}")
"""A sheet's name in a room (chosen by its uploader)."""

MAX_SHEET = 1024 * 1024
"""Largest sheet body (1 MiB); every other call keeps the 64 KiB limit."""


class Lru(OrderedDict[Any, Any]):
    """A dict that keeps its ``most`` newest keys (:meth:`keep`)."""

    def __init__(self, most: int) -> None:
        super().__init__()
        self.most = most

    def keep(self, key: Any, value: Any) -> None:
        self[key] = value
        self.move_to_end(key)
        if len(self) > self.most:
            self.popitem(last=False)


class RoomSheets:
    """This server's knowledge of the rooms' sheets (see the module)."""

    def __init__(self) -> None:
        self._rooms: dict[str, dict[str, SheetRow]] = {}
        self._read: Lru = Lru(512)
        """Sheets read, by sha256."""
        self.resolved: Lru = Lru(8192)
        """``(sha256, command) -> (command as typed, resolved command)``, and
        ``("weapon", sha256, weapon) -> (level, damage, ranged)`` for the fight's attacks
        (:func:`..service.fighting.blows.weapon_of`)."""

    async def of(self, st: _State, room: str) -> dict[str, SheetRow]:
        """``room``'s sheets by name: read from the database once, then kept up to date."""
        found = self._rooms.get(room)
        if found is None or not st.follows(room):
            await st.revealed(room)  # follow the room first: no sheet entry is missed
            rows = await st.store.sheets_of(room)
            found = self._rooms.setdefault(room, {})
            for row in rows:
                self._newer(found, row)
        return found

    def seen(self, entry: Mapping[str, Any]) -> None:
        """A ``sheet`` entry was published: keep the room's list up to date."""
        found = self._rooms.get(entry["room"])
        if found is not None:
            self._newer(found, SheetRow.of_entry(entry))

    def forget(self, room: str) -> None:
        self._rooms.pop(room, None)

    @staticmethod
    def _newer(found: dict[str, SheetRow], row: SheetRow) -> None:
        old = found.get(row.sheet)
        if old is None or old.seq < row.seq:
            found[row.sheet] = row

    async def sheet(self, st: _State, room: str, row: SheetRow) -> Sheet:
        """The sheet ``row`` names, read (once per version)."""
        got: Sheet | None = self._read.get(row.sha256)
        if got is None:
            stored = await st.store.sheet_body(room, row.sheet)
            if stored is None:
                raise ApiError(404, f"no sheet {row.sheet!r} in this room")
            got = await asyncio.to_thread(read_sheet_body, stored[1])
            self._read.keep(stored[0].sha256, got)
        return got

    def read(self, sha: str, sheet: Sheet) -> None:
        self._read.keep(sha, sheet)


def read_sheet_body(body: bytes) -> Sheet:
    """A sheet a member sent (the page, the API, Discord's ``/sheet``), read within the
    bounds of every file a user sends (:mod:`referee.untrusted`); a refusal is logged
    in one line.

    Raises:
        ApiError: 422, saying why it cannot be read.
    """
    try:
        return read_sheet(body)
    except SheetError as exc:
        _log.warning("referee rooms: refused a sheet of %s bytes: %s", f"{len(body):,}", exc)
        raise ApiError(422, f"this sheet cannot be read: {exc}") from None


_REF = re.compile(r"(?:^|\s)@([^\s]+)")
"""A sheet named inside a command (``--vs @orc``), beyond the ``@NAME`` it may start with."""


async def as_sheet(
    st: _State, room: str, member: Member, command: str, limits: CommandLimits
) -> tuple[str, SheetRow | None, str] | None:
    """Whether ``command`` (normalised) is rolled as a sheet, or names other sheets
    (a target: ``--vs @orc``): ``(the command as the log keeps it, the sheet's row or
    None, the resolved command)``, or None.

    A sheet named inside the command must be one the member may read: their own, or
    any for the GM (its numbers go into the resolved command, which every member who
    sees the roll sees).

    Raises:
        ApiError: 403 for a player naming another member's sheet; 422 for an unknown
            sheet, or a command that cannot be resolved against it (the engine's message).
    """
    named: str | None = None
    as_typed = command
    pair = _two_sheets(command)
    if pair is not None:  # fudge oppose @A @B TRAIT: A's trait against B's
        command = pair
    if command.startswith("@"):
        head, _, command = command.partition(" ")
        named = head[1:]
        if not SHEET_NAME.fullmatch(named):
            raise ApiError(422, f"{head!r} names no sheet: @NAME, with a sheet's name")
        if not command:
            raise ApiError(422, f"{head} needs a command to roll, such as {head} 3d6")
    sheets = await st.sheets.of(st, room)
    row: SheetRow | None = None
    if named is not None:
        row = _readable(sheets, named, member)
    else:
        own = [r for r in sheets.values() if r.owner == member.id]
        row = own[0] if len(own) == 1 else None
    # A stabilize names its patient, whose sheet it does not read (issue 71 §1.6): a
    # player's medic may aim it at another player's character.
    aim = command.startswith("swn stabilize ")
    refs = {f"@{name}": _readable(sheets, name, member, aim) for name in _REF.findall(command)}
    if row is None and not refs:
        return None
    key = (None if row is None else row.sha256, tuple((k, r.sha256) for k, r in refs.items()),
           command)  # fmt: skip
    done: tuple[str, str] | None = st.sheets.resolved.get(key)
    if done is None:
        sheet = None if row is None else await st.sheets.sheet(st, room, row)
        others = {k: await st.sheets.sheet(st, room, r) for k, r in refs.items()}
        done = await asyncio.to_thread(resolve_as, command, sheet, limits, others)
        st.sheets.resolved.keep(key, done)
    typed, resolved = done
    if pair is not None:
        return as_typed, row, resolved
    return (typed if named is None else f"@{named} {typed}"), row, resolved


def _two_sheets(command: str) -> str | None:
    """``fudge oppose @ron @bouncer Notice [options]`` as the command layer reads it:
    ``@ron fudge oppose Notice Notice --sheet2 @bouncer [options]``; with a second
    trait, ``fudge oppose @ron @bouncer Fighting Brawling`` opposes Ron's Fighting to
    the bouncer's Brawling (None for any other command)."""
    if command.count("@") < 2:  # no quoting makes an @: most rolls end here, unsplit
        return None

    try:
        words = split_line(command)
    except RefereeError:
        return None
    if len(words) < 5 or words[:2] != ["fudge", "oppose"]:
        return None
    first, second, trait = words[2], words[3], words[4]
    if not (first.startswith("@") and second.startswith("@")) or trait.startswith("-"):
        return None
    rest = words[5:]
    other = trait
    if rest and not rest[0].startswith("-"):
        other, rest = rest[0], rest[1:]
    return shlex.join([first, "fudge", "oppose", trait, other, "--sheet2", second, *rest])


def _readable(
    sheets: Mapping[str, SheetRow], name: str, member: Member, aim: bool = False
) -> SheetRow:
    """The sheet ``name`` of the room, if ``member`` may roll as it or read it (its
    owner, or the GM); with ``aim``, a player's sheet that a roll only aims at (a
    stabilize's patient), whoever's it is.

    Raises:
        ApiError: 422 for no such sheet (for a player, a sheet of the GM's too: contract
            v1.3 keeps them from players), 403 for another player's."""
    if not SHEET_NAME.fullmatch(name):
        raise ApiError(422, f"'@{name}' names no sheet: @NAME, with a sheet's name")
    row = sheets.get(name)
    if row is None or (row.owner == "gm" and not member.is_gm):  # the GM's are the GM's
        known = ", ".join(sorted(k for k, r in sheets.items() if member.is_gm or r.owner != "gm"))
        raise ApiError(422, f"no sheet {name!r} in this room (sheets: {known or 'none yet'})")
    if row.owner != member.id and not member.is_gm and not aim:
        raise ApiError(403, f"the sheet {name!r} is another member's")
    return row


def resolve_as(
    command: str, sheet: Sheet | None, limits: CommandLimits, others: Mapping[str, Sheet]
) -> tuple[str, str]:
    """``(command normalised, as typed, resolved against sheet)``."""
    try:
        resolved = commands.resolve(command, sheet, limits=limits, others=others)
    except RefereeError as exc:
        raise ApiError(422, str(exc)) from None
    return _typed(command), resolved


def _typed(command: str) -> str:
    """The command as the log keeps it: ``roll `` before a bare dice expression."""
    try:
        meta = find(command.split())[0]
    except RefereeError:
        return command
    if meta.path == ("roll",) and not command.startswith("roll"):
        return "roll " + command
    return command
