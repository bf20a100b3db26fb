"""Characters at the table (contract v1.1, "Characters and room administration"): the
sheet calls.

* ``PUT /api/rooms/{room}/sheets/{sheet}`` stores a sheet (a GCS file, a TOML sheet, or
  a Foundry swnr export; the format is read from the bytes, whatever the content type)
  and appends its ``sheet`` entry. A player uploads and replaces their own sheets; the
  GM any (a new one is the GM's: an NPC; one the GM replaces keeps its owner). A sheet
  of another system than the room's gets 422.
* ``GET /api/rooms/{room}/sheets`` lists them; ``GET .../sheets/{sheet}`` gives one as
  ``referee sheet FILE --json`` prints it, to its owner and the GM only (403 for
  anyone else). The GM's sheets are the GM's (contract v1.3): a player's list leaves
  them out, and a player asking for one gets the 404 of a sheet that is not there.

Rolling as a sheet is :mod:`.rollas`.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

from fastapi import FastAPI, Request

from ..db.store import Member
from ..errors import ApiError
from ..log import view
from ..rolling.rollas import SHEET_NAME, read_sheet_body
from ..state import State
from .api import Caller, conflicts, state, writable
from .models import ERRORS

__all__ = ["install", "store_sheet"]


def _name(sheet: str) -> str:
    if not SHEET_NAME.fullmatch(sheet):
        raise ApiError(422, "a sheet's name is 1 to 40 characters of A-Z a-z 0-9 _ -")
    return sheet


async def store_sheet(
    st: State, room: str, member: Member, sheet: str, body: bytes
) -> dict[str, Any]:
    """Read and keep ``body`` as the sheet ``sheet`` of ``room``, uploaded by
    ``member``: its ``sheet`` entry (the API's PUT, and Discord's ``/sheet``).

    Raises:
        ApiError: 409 for an archived room; 422 for an empty or unreadable sheet, or
            one of another system than the room's; 403 for another member's sheet.
    """
    await writable(st, room)
    if not body:
        raise ApiError(422, "send the sheet file's bytes as the body")
    st.charge(member, len(body) / st.limits.body)
    read = await asyncio.to_thread(read_sheet_body, body)
    system = (await st.room(room) or {}).get("system")
    if system is not None and read.system != system:
        raise ApiError(422, f"{read.name}'s sheet is for {read.system}; this room plays {system}")
    sha = hashlib.sha256(body).hexdigest()
    st.sheets.read(sha, read)
    entry = await conflicts(
        st.store.put_sheet(room, member.id, sheet, read.name, read.system, sha, body)
    )
    st.published(room, entry)
    return entry


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
        return view(await store_sheet(st, room, member, sheet, body), member.id)

    @app.get("/api/rooms/{room}/sheets")
    async def list_sheets(room: str, member: Caller, request: Request) -> dict[str, Any]:
        st = state(request)
        rows = await st.sheets.of(st, room)
        # The GM's sheets are the GM's (contract v1.3): a player's list leaves them out.
        return {
            "sheets": [
                rows[name].listed()
                for name in sorted(rows)
                if member.is_gm or rows[name].owner != "gm"
            ]
        }

    @app.get("/api/rooms/{room}/sheets/{sheet}")
    async def get_sheet(room: str, sheet: str, member: Caller, request: Request) -> Any:
        from ...render.sheets import sheet_json

        _name(sheet)
        st = state(request)
        row = (await st.sheets.of(st, room)).get(sheet)
        if row is None or (row.owner == "gm" and not member.is_gm):  # as if it were not
            raise ApiError(404, f"no sheet {sheet!r} in this room")
        if row.owner != member.id and not member.is_gm:
            raise ApiError(403, f"the sheet {sheet!r} is another member's")
        read = await st.sheets.sheet(st, room, row)
        return await asyncio.to_thread(sheet_json, read)
