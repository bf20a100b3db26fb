"""The rooms' HTTP API (JSON), as the contract's table lists it."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query, Request, Security
from fastapi.responses import Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ..db.store import Member
from ..errors import ApiError
from ..log import canon, view
from ..service import (
    LOGIN_SECONDS,
    add_seed,
    authenticate,
    close_epoch,
    reveal_roll,
    roll_entry,
)
from ..service import (
    declassify as declassify_epoch,
)
from ..service import (
    join as join_room,
)
from ..state import State
from .models import (
    MAX_SEQ,
    Close,
    Declassify,
    Entry,
    Health,
    Joined,
    Log,
    NewMember,
    NewRoll,
    NewRoom,
    NewSeed,
    Reveal,
    RoomCreated,
    ServerKey,
)

__all__ = ["Caller", "caller", "cookie_name", "install", "roll", "state"]

SYSTEMS = ("gurps", "fudge", "swn")


def state(request: Request) -> State:
    return request.app.state.rooms  # type: ignore[no-any-return]


def cookie_name(room: str) -> str:
    """The page's session cookie for one room."""
    return f"referee-{room}"


_BEARER = HTTPBearer(
    auto_error=False, description="A member's token (the room page sends a cookie instead)."
)


async def caller(
    request: Request,
    room: str,
    _declared: Annotated[HTTPAuthorizationCredentials | None, Security(_BEARER)] = None,
) -> Member:
    """The member making this request, by Bearer token or by the page's cookie. (The
    ``Security`` parameter only declares the scheme in the OpenAPI schema.)"""
    header = request.headers.get("authorization", "")
    token: str | None = None
    if header.lower().startswith("bearer "):
        token = header[7:].strip()
    elif header:
        raise ApiError(401, "use Authorization: Bearer TOKEN")
    else:
        token = request.cookies.get(cookie_name(room))
    st = state(request)
    member = await authenticate(st, room, token, _address(request))
    st.spend(member)
    return member


Caller = Annotated[Member, Depends(caller)]


def _page_url(request: Request, room: str, code: str) -> str:
    return str(request.url_for("enter", room=room).include_query_params(code=code))


async def roll(st: State, room: str, member: Member, body: NewRoll) -> Response:
    """``POST /api/rooms/{room}/rolls`` once its caller is known: roll, log, answer."""
    return _answer(await roll_text(st, room, member, body))


async def roll_text(st: State, room: str, member: Member, body: NewRoll) -> str:
    """Roll and log ``body`` as ``member``: the new entry as its roller may see it, as
    the text of the POST's answer (the frame its live sockets send, encoded once)."""
    entry = await roll_entry(st, room, member, body.command, body.visibility, bare=body.bare)
    return st.frames.text(entry, member.id, ())


def _answer(text: str) -> Response:
    """A new entry, as its roller may see it, as the answer to its POST (201): the
    frame its live sockets send (encoded once for both). The route's
    ``response_model`` documents it; re-validating the log's own dict would only
    cost time on the busiest path."""
    return Response(text, status_code=201, media_type="application/json")


def _address(request: Request) -> str:
    return request.client.host if request.client else ""


def install(app: FastAPI) -> None:
    @app.get("/api/health", response_model=Health)
    async def health() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/api/key", response_model=ServerKey)
    async def key(request: Request) -> dict[str, str]:
        """The server's public key and its fingerprint (contract v1.5, "Signed heads")."""
        signer = state(request).store.signer
        if signer is None:  # a store opened without its key: never a server's
            raise ApiError(503, "this server has no key yet")
        return signer.described()

    @app.post("/api/rooms", status_code=201, response_model=RoomCreated)
    async def create_room(body: NewRoom, request: Request) -> dict[str, Any]:
        st = state(request)
        st.spend_anonymous(_address(request))
        room, token, invite, made = await st.store.create_room(body.name, body.system)
        for entry in made:
            st.published(room, entry)
        code = await st.store.add_login(room, "gm", time.time() + LOGIN_SECONDS)
        return {
            "room": room,
            "member": "gm",
            "token": token,
            "invite": invite,
            "url": _page_url(request, room, code),
        }

    @app.post("/api/rooms/{room}/members", status_code=201, response_model=Joined)
    async def join(room: str, body: NewMember, request: Request) -> dict[str, Any]:
        st = state(request)
        st.spend_anonymous(_address(request))
        member, token, _entry = await join_room(st, room, body.name, body.invite)
        code = await st.store.add_login(room, member, time.time() + LOGIN_SECONDS)
        return {"member": member, "token": token, "url": _page_url(request, room, code)}

    @app.post("/api/rooms/{room}/rolls", status_code=201, response_model=Entry)
    async def make_roll(room: str, body: NewRoll, member: Caller, request: Request) -> Response:
        return await roll(state(request), room, member, body)

    @app.post("/api/rooms/{room}/seed", status_code=201, response_model=Entry)
    async def seed(room: str, body: NewSeed, member: Caller, request: Request) -> dict[str, Any]:
        made = await add_seed(state(request), room, member, body.seed)
        return view(made[-1], member.id)

    @app.post("/api/rooms/{room}/close", status_code=201, response_model=Entry)
    async def close(room: str, body: Close, member: Caller, request: Request) -> dict[str, Any]:
        made = await close_epoch(state(request), room, member, body.declassify)
        return view(made[0], member.id)

    @app.post("/api/rooms/{room}/declassify", status_code=201, response_model=Entry)
    async def declassify(
        room: str, body: Declassify, member: Caller, request: Request
    ) -> dict[str, Any]:
        entry = await declassify_epoch(state(request), room, member, body.epoch)
        return view(entry, member.id)

    @app.post("/api/rooms/{room}/reveal", status_code=201, response_model=Entry)
    async def reveal(room: str, body: Reveal, member: Caller, request: Request) -> dict[str, Any]:
        st = state(request)
        entry, _target = await reveal_roll(st, room, member, body.seq)
        return view(entry, member.id)

    @app.get("/api/rooms/{room}/log", response_model=Log)
    async def log(
        room: str,
        member: Caller,
        request: Request,
        after: Annotated[int, Query(ge=-1, le=MAX_SEQ)] = -1,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    ) -> dict[str, Any]:
        st = state(request)
        found = await st.store.entries(room, after, limit)
        revealed = await st.revealed(room)
        return {"entries": [view(e, member.id, revealed) for e in found]}

    @app.get(
        "/api/rooms/{room}/export",
        response_class=Response,
        responses={
            200: {
                "description": "The log, one entry per line, as the caller may see it",
                "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
            }
        },
    )
    async def export(room: str, member: Caller, request: Request) -> StreamingResponse:
        st = state(request)
        revealed = await st.revealed(room)

        async def lines() -> AsyncIterator[bytes]:
            after = -1
            while True:
                page = await st.store.entries(room, after, 1000)
                if not page:
                    return
                for e in page:
                    yield canon(view(e, member.id, revealed)) + b"\n"
                after = page[-1]["seq"]

        return StreamingResponse(
            lines(),
            media_type="application/x-ndjson",
            headers={"Content-Disposition": f'attachment; filename="room-{room}.jsonl"'},
        )
