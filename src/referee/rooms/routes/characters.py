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

Rolling as a sheet is :mod:`..rolling.rollas`; who may store, list and read a sheet
is the service's (:mod:`..service.sheets`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import FastAPI, Request

from ...render.sheets import sheet_json
from ..log import view
from ..service import listed_sheets, readable_sheet, sheet_name, store_sheet
from .api import Caller, state
from .models import ERRORS

__all__ = ["install"]


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
        sheet_name(sheet)  # after the token: a stranger learns nothing of the room
        st = state(request)
        body = await request.body()
        return view(await store_sheet(st, room, member, sheet, body), member.id)

    @app.get("/api/rooms/{room}/sheets")
    async def list_sheets(room: str, member: Caller, request: Request) -> dict[str, Any]:
        return {"sheets": await listed_sheets(state(request), room, member)}

    @app.get("/api/rooms/{room}/sheets/{sheet}")
    async def get_sheet(room: str, sheet: str, member: Caller, request: Request) -> Any:

        read = await readable_sheet(state(request), room, member, sheet_name(sheet))
        return await asyncio.to_thread(sheet_json, read)
