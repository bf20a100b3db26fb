"""The rooms' HTTP API (JSON), as the contract's table lists it."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from fastapi import Depends, FastAPI, Query, Request, Security
from fastapi.responses import Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ..db.epochs import ARCHIVED
from ..db.store import Conflict, Epoch, Member
from ..errors import ApiError
from ..log import canon, outcome, view
from ..rolling.reading import read_command, room_limits
from ..rolling.tracked import made_as_sheet
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
)

if TYPE_CHECKING:
    from ...commands import Plan

__all__ = [
    "LOGIN_SECONDS",
    "Caller",
    "authenticate",
    "caller",
    "conflicts",
    "writable",
    "roll",
    "roll_entry",
    "reveal_roll",
    "install",
    "read_command",
    "roll_maker",
    "room_limits",
]

LOGIN_SECONDS = 600
"""How long a one-time page link stays good."""

SYSTEMS = ("gurps", "fudge", "swn")

_T = TypeVar("_T")


async def conflicts(pending: Awaitable[_T]) -> _T:
    """A store write whose Conflict becomes the API's error (409, 403, 404 or 422)."""
    try:
        return await pending
    except Conflict as exc:
        raise ApiError(exc.status, str(exc)) from None


async def writable(st: State, room: str) -> None:
    """Raise 409 if ``room`` is archived: every write to it is refused, before any other
    check (the append itself refuses too, whatever a server's cache says)."""
    row = await st.room(room)
    if row is not None and row.get("archived"):
        raise ApiError(409, ARCHIVED)


def state(request: Request) -> State:
    return request.app.state.rooms  # type: ignore[no-any-return]


def cookie_name(room: str) -> str:
    """The page's session cookie for one room."""
    return f"referee-{room}"


_ROOM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,128}")


async def authenticate(st: State, room: str, token: str | None, address: str = "") -> Member:
    """The member ``token`` names in ``room``: 404 for an unknown room, 401 for a
    missing or unknown token, 403 for a token of another room. A client ``address``
    that keeps naming unknown rooms or tokens gets 429 before the database is asked."""
    if not _ROOM_ID.fullmatch(room):
        raise ApiError(404, f"no room {room!r}")
    if not st.knows_room(room):
        st.guard(address)
        if await st.room(room) is None:
            st.failed(address)
            raise ApiError(404, f"no room {room!r}")
    if not token:
        raise ApiError(401, "this call needs your token (Authorization: Bearer TOKEN)")
    if not _TOKEN.fullmatch(token):  # tokens are URL-safe base64: nothing else is looked up
        st.guard(address)
        st.failed(address)
        raise ApiError(401, "unknown token")
    if not st.knows_token(token):
        st.guard(address)
    member = await st.member(token)
    if member is None:
        st.failed(address)
        raise ApiError(401, "unknown token")
    if member.room != room:
        raise ApiError(403, "this token belongs to another room")
    return member


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


def normalise(command: str) -> str:
    return " ".join(command.split())


def roll_maker(
    member: Member,
    read: tuple[str, Plan],
    visibility: str,
    as_sheet: tuple[str, str | None] | None = None,
) -> Callable[[int, Epoch], dict[str, Any]]:
    """The function that rolls a command :func:`read_command` read, once its seq and
    epoch are known, on the epoch's stream for its visibility, and makes the fields
    of its ``roll`` entry. The plan keeps the room's caps. A roll that fails once
    its dice are drawn (it reaches the cap, say) is logged as a refused roll, its
    seq used up (:func:`.log.outcome`): its answer is a 201 like any roll's, so the
    status never tells of dice the log does not hold. It never raises.

    A roll made as a sheet gives ``as_sheet``: ``(the command as typed, the sheet's
    name)``; the plan is then its ``resolved`` command's, and the entry has both.
    """
    from ...rng import RecordingSource
    from ...stream import HmacStream
    from ..audit.verify import engine

    shown, plan = read
    version = engine()

    def make(seq: int, epoch: Epoch) -> dict[str, Any]:
        assert epoch.mix is not None
        stream = HmacStream(
            epoch.seed(visibility), member.room, epoch.number, seq, member.id, epoch.mix
        )
        recorder = RecordingSource(stream)
        # Once a die is drawn the roll is logged, refused or not (contract v1.2):
        # never an error that would tell the roller of dice the log does not hold.
        result, text, refused = outcome(plan, recorder)
        fields = {
            "roller": member.id,
            "visibility": visibility,
            "epoch": epoch.number,
            "command": shown if as_sheet is None else as_sheet[0],
            "draws": [[n, v] for n, v in recorder.draws],
            "result": result,
            "text": text,
            "engine": version,
        }
        if refused is not None:
            fields["refused"] = refused
        if as_sheet is not None:  # a sheet's name; None for a roll naming only a target
            fields["resolved"] = shown
            if as_sheet[1] is not None:
                fields["sheet"] = as_sheet[1]
        return fields

    return make


async def roll(st: State, room: str, member: Member, body: NewRoll) -> Response:
    """``POST /api/rooms/{room}/rolls`` once its caller is known: roll, log, answer."""
    entry = await roll_entry(st, room, member, body)
    return _answer(st.frames.text(entry, member.id, ()))


async def roll_entry(
    st: State, room: str, member: Member, body: NewRoll, *, call_sheet: str | None = None
) -> dict[str, Any]:
    """Roll ``body``'s command in ``room`` as ``member`` and log it: the new entry, as
    the log holds it (every front end shows it through :func:`.log.view`).

    The sheet it is made as, and what that changes, are
    :func:`..rolling.tracked.made_as_sheet`'s (``call_sheet``: a fight call's)."""
    await writable(st, room)
    command = normalise(body.command)
    if len(command) > st.limits.command:
        raise ApiError(422, f"the command is over {st.limits.command:,} characters")
    if not command:
        raise ApiError(422, "the command is empty: type a roll such as 3d6+2")
    made_as, command, visibility = await made_as_sheet(
        st, room, member, command, body.visibility, call_sheet, room_limits(st.limits.draws)
    )
    read = await st.plans.read(command, st.limits.draws, st.limits.read_seconds)
    make = roll_maker(member, read, visibility, made_as)
    entry = await st.append(room, "roll", make)
    st.charge(member, len(entry["draws"]) / st.limits.draws_per_request)
    return entry


async def reveal_roll(
    st: State, room: str, member: Member, seq: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The GM reveals the secret roll ``seq``: ``(the reveal entry, the roll's entry)``.

    Raises:
        ApiError: 409 for an archived room or a roll revealed already, 403 for a
            player, 422 for a seq that is no secret roll.
    """
    await writable(st, room)
    if not member.is_gm:
        raise ApiError(403, "only the GM reveals")
    target = await st.store.entry(room, seq)
    if target is None or target["kind"] != "roll" or target["visibility"] == "public":
        raise ApiError(422, f"seq {seq} is not a secret roll")
    if seq in await st.revealed(room):
        raise ApiError(409, f"seq {seq} is revealed already")
    return await st.append(room, "reveal", {"of": seq}), target


def _answer(text: str) -> Response:
    """A new entry, as its roller may see it, as the answer to its POST (201): the
    frame its live sockets send (encoded once for both). The route's
    ``response_model`` documents it; re-validating the log's own dict would only
    cost time on the busiest path."""
    return Response(text, status_code=201, media_type="application/json")


def _address(request: Request) -> str:
    return request.client.host if request.client else ""


SEED = re.compile(r"[\x20-\x7e]{16,128}")


def install(app: FastAPI) -> None:
    @app.get("/api/health", response_model=Health)
    async def health() -> dict[str, bool]:
        return {"ok": True}

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
        # The row from the database, not the cache: the GM may have changed the invite
        # through another server.
        if not _ROOM_ID.fullmatch(room) or (row := await st.store.room(room)) is None:
            raise ApiError(404, f"no room {room!r}")
        if row["archived"]:
            raise ApiError(409, ARCHIVED)
        from ..log import hash_token

        if hash_token(body.invite) != row["invite_hash"]:
            raise ApiError(403, "this invite is not good for this room")
        member, token, entry = await st.store.join(room, body.name)
        st.published(room, entry)
        code = await st.store.add_login(room, member, time.time() + LOGIN_SECONDS)
        return {"member": member, "token": token, "url": _page_url(request, room, code)}

    @app.post("/api/rooms/{room}/rolls", status_code=201, response_model=Entry)
    async def make_roll(room: str, body: NewRoll, member: Caller, request: Request) -> Response:
        return await roll(state(request), room, member, body)

    @app.post("/api/rooms/{room}/seed", status_code=201, response_model=Entry)
    async def seed(room: str, body: NewSeed, member: Caller, request: Request) -> dict[str, Any]:
        st = state(request)
        await writable(st, room)
        if member.is_gm:
            raise ApiError(403, "only players send client seeds")
        if not SEED.fullmatch(body.seed):
            raise ApiError(422, "a client seed is 16 to 128 printable ASCII characters")
        made = await conflicts(st.store.add_seed(room, member.id, body.seed))
        for entry in made:  # an automatic close and a new epoch may come first (v1.2)
            st.published(room, entry)
        return view(made[-1], member.id)

    @app.post("/api/rooms/{room}/close", status_code=201, response_model=Entry)
    async def close(room: str, body: Close, member: Caller, request: Request) -> dict[str, Any]:
        st = state(request)
        await writable(st, room)
        if not member.is_gm:
            raise ApiError(403, "only the GM closes an epoch")
        made = await st.store.close_epoch(room, body.declassify)
        for entry in made:
            st.published(room, entry)
        return view(made[0], member.id)

    @app.post("/api/rooms/{room}/declassify", status_code=201, response_model=Entry)
    async def declassify(
        room: str, body: Declassify, member: Caller, request: Request
    ) -> dict[str, Any]:
        st = state(request)
        await writable(st, room)
        if not member.is_gm:
            raise ApiError(403, "only the GM declassifies")
        entry = await conflicts(st.store.declassify(room, body.epoch))
        st.published(room, entry)
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
