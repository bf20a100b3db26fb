"""Characters at the table (contract v1.1 and v1.3): storing a sheet, and which sheets
a member may list and read (:class:`.guardian.Guardian`)."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

from ..db.store import Member
from ..errors import ApiError
from ..rolling.rollas import SHEET_NAME, read_sheet_body
from ..state import State
from .access import conflicts, writable
from .guardian import Guardian
from .lookalike import confusable

__all__ = ["listed_sheets", "readable_sheet", "sheet_name", "store_sheet"]


def sheet_name(sheet: str) -> str:
    """``sheet`` if it is a sheet's name (422 otherwise)."""
    if not SHEET_NAME.fullmatch(sheet):
        raise ApiError(422, "a sheet's name is 1 to 40 characters of A-Z a-z 0-9 _ -")
    return sheet


async def store_sheet(
    st: State, room: str, member: Member, sheet: str, body: bytes
) -> dict[str, Any]:
    """Read and keep ``body`` as the sheet ``sheet`` of ``room``, uploaded by
    ``member``: its ``sheet`` entry (the API's PUT, and Discord's ``/sheet``).

    Raises:
        ApiError: 409 for an archived room; 422 for an empty or unreadable sheet, one
            of another system than the room's, or a character whose name reads as
            another's in the room that the uploader may know of (:mod:`.lookalike`;
            the same name is taken again only from the same member; a player's is
            never compared with the GM's, which she may not know of); 403 for another
            member's sheet.
    """
    await writable(st, room)
    if not body:
        raise ApiError(422, "send the sheet file's bytes as the body")
    st.charge(member, len(body) / st.limits.body)
    read = await asyncio.to_thread(read_sheet_body, body)
    system = (await st.room(room) or {}).get("system")
    if system is not None and read.system != system:
        raise ApiError(422, f"{read.name}'s sheet is for {read.system}; this room plays {system}")
    rows = await st.sheets.of(st, room)
    # only the characters the uploader may know of: a refusal naming a GM's sheet to a
    # player would tell her its name and id (contract v1.3), and one naming nothing would
    # still answer her probe of a hidden NPC's name
    may = Guardian(member)
    others = [r for r in rows.values() if r.sheet != sheet and may.sees_sheet(r.owner)]
    twin = await asyncio.to_thread(confusable, read.name, [r.name for r in others])
    if twin is not None:
        row = next(r for r in others if r.name == twin)
        if twin != read.name or row.owner != member.id:
            raise ApiError(
                422,
                f"{read.name!r} reads the same as {twin!r} (@{row.sheet}), another character "
                "in this room: rename your character to load it",
            )
    sha = hashlib.sha256(body).hexdigest()
    st.sheets.read(sha, read)
    entry = await conflicts(
        st.store.put_sheet(room, member.id, sheet, read.name, read.system, sha, body)
    )
    st.published(room, entry)
    return entry


async def listed_sheets(st: State, room: str, member: Member) -> list[dict[str, Any]]:
    """The room's sheets as ``member`` may list them (a player's list leaves out the
    GM's, contract v1.3)."""
    rows = await st.sheets.of(st, room)
    may = Guardian(member)
    return [rows[n].listed() for n in sorted(rows) if may.sees_sheet(rows[n].owner)]


async def readable_sheet(st: State, room: str, member: Member, sheet: str) -> Any:
    """The sheet ``sheet`` read, for a member who may read it (404 or 403 otherwise)."""
    row = (await st.sheets.of(st, room)).get(sheet)
    Guardian(member).ensure_reads_sheet(None if row is None else row.owner, sheet)
    assert row is not None
    return await st.sheets.sheet(st, room, row)
