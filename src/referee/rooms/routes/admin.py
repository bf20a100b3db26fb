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
* ``POST /api/rooms/{room}/token`` (beyond the contract) logs ``token`` (never the
  token) and answers a new GM token; every other token and page session of the GM
  stops working, as a removed member's does, and the Discord links made with the old
  one go. Called from the room page (its cookie, no ``Authorization``), that page's
  session goes on; a Bearer caller's own token never does. The answer carries a
  one-time page link too, as the creation's does.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from pydantic import BaseModel

from ..log import view
from ..service.admin import archive as archive_room
from ..service.admin import new_gm_token, new_invite, remove_member
from .api import Caller, cookie_name, state
from .models import Entry

__all__ = ["install"]


class NewInvite(BaseModel):
    invite: str


class NewToken(BaseModel):
    token: str
    """The GM's new token; the old one no longer works anywhere."""
    url: str
    """A one-time link (10 minutes) that opens the room page as the GM."""


def install(app: FastAPI) -> None:
    @app.delete("/api/rooms/{room}/members/{member_id}", status_code=201, response_model=Entry)
    async def remove(room: str, member_id: str, member: Caller, request: Request) -> Any:
        return view(await remove_member(state(request), room, member, member_id), member.id)

    @app.post("/api/rooms/{room}/invite", status_code=201, response_model=NewInvite)
    async def invite(room: str, member: Caller, request: Request) -> dict[str, str]:
        return {"invite": await new_invite(state(request), room, member)}

    @app.post("/api/rooms/{room}/token", status_code=201, response_model=NewToken)
    async def token(room: str, member: Caller, request: Request) -> dict[str, str]:
        # The page's own session (the cookie :func:`.api.caller` read) goes on.
        bearer = request.headers.get("authorization")
        page = None if bearer else request.cookies.get(cookie_name(room))
        token, code = await new_gm_token(state(request), room, member, page)
        url = request.url_for("enter", room=room).include_query_params(code=code)
        return {"token": token, "url": str(url)}

    @app.post("/api/rooms/{room}/archive", status_code=201, response_model=Entry)
    async def archive(room: str, member: Caller, request: Request) -> Any:
        return view(await archive_room(state(request), room, member), member.id)
