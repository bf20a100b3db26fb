"""Characters at the table (contract v1.1, "Characters and room administration"): the
sheet calls, and rolling as a sheet.

* ``PUT /api/rooms/{room}/sheets/{sheet}`` stores a sheet (a GCS file, a TOML sheet, or
  a Foundry swnr export; the format is read from the bytes, whatever the content type)
  and appends its ``sheet`` entry. A player uploads and replaces their own sheets; the
  GM any (a new one is the GM's: an NPC; one the GM replaces keeps its owner). A sheet
  of another system than the room's gets 422.
* ``GET /api/rooms/{room}/sheets`` lists them; ``GET .../sheets/{sheet}`` gives one as
  ``referee sheet FILE --json`` prints it, to its owner and the GM only (403 for
  anyone else).
* A roll ``@NAME command`` is made as that sheet (a player's own only; the GM's any);
  without ``@``, a member who owns exactly one sheet rolls as it. The command is
  resolved against the sheet (:func:`referee.commands.resolve`): the room rolls the
  ``resolved`` command, so that it rolls the same with no sheet, and the entry keeps
  ``command`` as typed, with ``sheet`` and ``resolved`` beside it.

Each server keeps the rooms' sheet lists it has used (read once, then kept up to date
by the ``sheet`` entries it publishes, its own and, on PostgreSQL, the other servers'),
each sheet read once per version (by its sha256), and each command resolved once per
sheet version: a roll as a sheet costs about what any roll costs.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request

from .api import Caller, conflicts, room_limits, state
from .log import view
from .models import ERRORS
from .sheetstore import SheetRow
from .state import ApiError

if TYPE_CHECKING:
    from ..sheets import Sheet
    from .state import State
    from .store import Member

__all__ = ["SHEET_NAME", "RoomSheets", "as_sheet", "install"]

SHEET_NAME = re.compile(r"[A-Za-z0-9_-]{1,40}")
"""A sheet's name in a room (chosen by its uploader)."""

MAX_SHEET = 1024 * 1024
"""Largest sheet body (1 MiB); every other call keeps the 64 KiB limit."""


class _Lru(OrderedDict[Any, Any]):
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
        self._read: _Lru = _Lru(512)
        """Sheets read, by sha256."""
        self.resolved: _Lru = _Lru(8192)
        """``(sha256, command) -> (command as typed, resolved command)``."""

    async def of(self, st: State, room: str) -> dict[str, SheetRow]:
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

    async def sheet(self, st: State, room: str, row: SheetRow) -> Sheet:
        """The sheet ``row`` names, read (once per version)."""
        got: Sheet | None = self._read.get(row.sha256)
        if got is None:
            stored = await st.store.sheet_body(room, row.sheet)
            if stored is None:
                raise ApiError(404, f"no sheet {row.sheet!r} in this room")
            got = await asyncio.to_thread(_read_sheet, stored[1])
            self._read.keep(stored[0].sha256, got)
        return got

    def read(self, sha: str, sheet: Sheet) -> None:
        self._read.keep(sha, sheet)


def _read_sheet(body: bytes) -> Sheet:
    from ..errors import SheetError
    from ..sheets import read_sheet

    try:
        return read_sheet(body)
    except SheetError as exc:
        raise ApiError(422, f"this sheet cannot be read: {exc}") from None


async def as_sheet(
    st: State, room: str, member: Member, command: str
) -> tuple[str, SheetRow, str] | None:
    """Whether ``command`` (normalised) is rolled as a sheet: ``(the command as the log
    keeps it, the sheet's row, the resolved command)``, or None.

    Raises:
        ApiError: 403 for a player naming another member's sheet; 422 for an unknown
            sheet, or a command that cannot be resolved against it (the engine's message).
    """
    named: str | None = None
    if command.startswith("@"):
        head, _, command = command.partition(" ")
        named = head[1:]
        if not SHEET_NAME.fullmatch(named):
            raise ApiError(422, f"{head!r} names no sheet: @NAME, with a sheet's name")
        if not command:
            raise ApiError(422, f"{head} needs a command to roll, such as {head} 3d6")
    sheets = await st.sheets.of(st, room)
    if named is not None:
        row = sheets.get(named)
        if row is None:
            known = ", ".join(sorted(sheets)) or "none yet"
            raise ApiError(422, f"no sheet {named!r} in this room (sheets: {known})")
        if row.owner != member.id and not member.is_gm:
            raise ApiError(403, f"the sheet {named!r} is another member's")
    else:
        own = [r for r in sheets.values() if r.owner == member.id]
        if len(own) != 1:
            return None
        row = own[0]
    key = (row.sha256, command)
    done: tuple[str, str] | None = st.sheets.resolved.get(key)
    if done is None:
        sheet = await st.sheets.sheet(st, room, row)
        done = await asyncio.to_thread(_resolve, command, sheet, st.limits.draws)
        st.sheets.resolved.keep(key, done)
    typed, resolved = done
    return (typed if named is None else f"@{named} {typed}"), row, resolved


def _resolve(command: str, sheet: Sheet, most_draws: int) -> tuple[str, str]:
    """``(command normalised, as typed, resolved against sheet)``."""
    from .. import commands
    from ..errors import RefereeError

    try:
        resolved = commands.resolve(command, sheet, limits=room_limits(most_draws))
    except RefereeError as exc:
        raise ApiError(422, str(exc)) from None
    return _typed(command), resolved


def _typed(command: str) -> str:
    """The command as the log keeps it: ``roll `` before a bare dice expression."""
    from ..commands.reader import find
    from ..errors import RefereeError

    try:
        meta = find(command.split())[0]
    except RefereeError:
        return command
    if meta.path == ("roll",) and not command.startswith("roll"):
        return "roll " + command
    return command


def _name(sheet: str) -> str:
    if not SHEET_NAME.fullmatch(sheet):
        raise ApiError(422, "a sheet's name is 1 to 40 characters of A-Z a-z 0-9 _ -")
    return sheet


def install(app: FastAPI) -> None:
    @app.put(
        "/api/rooms/{room}/sheets/{sheet}",
        status_code=201,
        openapi_extra={
            "requestBody": {
                "required": True,
                "description": "The sheet file's bytes (at most 1 MiB)",
                "content": {
                    "application/json": {"schema": {"type": "object"}},
                    "application/toml": {"schema": {"type": "string"}},
                },
            }
        },
        responses=ERRORS,
    )
    async def put_sheet(room: str, sheet: str, member: Caller, request: Request) -> dict[str, Any]:
        _name(sheet)  # after the token: a stranger learns nothing of the room
        st = state(request)
        body = await request.body()
        if not body:
            raise ApiError(422, "send the sheet file's bytes as the body")
        st.charge(member, len(body) / st.limits.body)
        read = await asyncio.to_thread(_read_sheet, body)
        system = (await st.room(room) or {}).get("system")
        if system is not None and read.system != system:
            raise ApiError(
                422, f"{read.name}'s sheet is for {read.system}; this room plays {system}"
            )
        sha = hashlib.sha256(body).hexdigest()
        st.sheets.read(sha, read)
        entry = await conflicts(
            st.store.put_sheet(room, member.id, sheet, read.name, read.system, sha, body)
        )
        st.published(room, entry)
        return view(entry, member.id)

    @app.get("/api/rooms/{room}/sheets")
    async def list_sheets(room: str, member: Caller, request: Request) -> dict[str, Any]:
        st = state(request)
        rows = await st.sheets.of(st, room)
        return {"sheets": [rows[name].listed() for name in sorted(rows)]}

    @app.get("/api/rooms/{room}/sheets/{sheet}")
    async def get_sheet(room: str, sheet: str, member: Caller, request: Request) -> Any:
        from ..render.sheets import sheet_json

        _name(sheet)
        st = state(request)
        row = (await st.sheets.of(st, room)).get(sheet)
        if row is None:
            raise ApiError(404, f"no sheet {sheet!r} in this room")
        if row.owner != member.id and not member.is_gm:
            raise ApiError(403, f"the sheet {sheet!r} is another member's")
        read = await st.sheets.sheet(st, room, row)
        return await asyncio.to_thread(sheet_json, read)
