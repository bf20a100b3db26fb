"""The GM's controls (contract v1.1, "Characters and room administration"): remove a
member, rotate the invite, archive the room.

* ``DELETE /api/rooms/{room}/members/{member}`` logs ``leave``; the member's tokens
  and page links are deleted in the same transaction, so the next request with them
  gets 401 on every server, and every server that follows the room closes the
  member's live sockets with 4401 when it reads the entry (at once on this server;
  on PostgreSQL within the notice's delay on the others).
* ``POST /api/rooms/{room}/invite`` logs ``invite`` (never the invite itself) and
  answers the new one; the old one gets 403 from then on.
* ``POST /api/rooms/{room}/archive`` logs ``archive``; every write after it gets 409
  (:data:`.epochs.ARCHIVED`), while the log, the export and the page stay readable.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from pydantic import BaseModel

from ..log import view
from ..service.admin import archive as archive_room
from ..service.admin import new_invite, remove_member
from .api import Caller, state
from .models import Entry

__all__ = ["install"]


class NewInvite(BaseModel):
    invite: str


def install(app: FastAPI) -> None:
    @app.delete("/api/rooms/{room}/members/{member_id}", status_code=201, response_model=Entry)
    async def remove(room: str, member_id: str, member: Caller, request: Request) -> Any:
        return view(await remove_member(state(request), room, member, member_id), member.id)

    @app.post("/api/rooms/{room}/invite", status_code=201, response_model=NewInvite)
    async def invite(room: str, member: Caller, request: Request) -> dict[str, str]:
        return {"invite": await new_invite(state(request), room, member)}

    @app.post("/api/rooms/{room}/archive", status_code=201, response_model=Entry)
    async def archive(room: str, member: Caller, request: Request) -> Any:
        return view(await archive_room(state(request), room, member), member.id)
