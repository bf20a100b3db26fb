"""Who is asking, and whether the room takes writes: the first checks of every
operation, whichever front end it came through."""

from __future__ import annotations

import re
from collections.abc import Awaitable
from typing import Any, TypeVar

from ..db.epochs import ARCHIVED
from ..db.store import Conflict, Member
from ..errors import ApiError
from ..log import hash_token
from ..state import State

__all__ = [
    "LOGIN_SECONDS",
    "ROOM_ID",
    "authenticate",
    "conflicts",
    "gm_by_token",
    "join",
    "link_channel",
    "writable",
]

LOGIN_SECONDS = 600
"""How long a one-time page link stays good."""

ROOM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,128}")

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


async def authenticate(st: State, room: str, token: str | None, address: str = "") -> Member:
    """The member ``token`` names in ``room``: 404 for an unknown room, 401 for a
    missing or unknown token, 403 for a token of another room. A client ``address``
    that keeps naming unknown rooms or tokens gets 429 before the database is asked."""
    if not ROOM_ID.fullmatch(room):
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


async def join(
    st: State, room: str, name: str, invite: str | None = None
) -> tuple[str, str, dict[str, Any]]:
    """A new player in ``room``: ``(member id, token, join entry)``, the entry published.
    The API's join brings the room's ``invite`` (403 when it is not the room's); a
    Discord user joins through the channel its GM linked, which is the invitation.

    Raises:
        ApiError: 404 for no such room, 409 for an archived one, 403 for a bad invite.
    """
    # The row from the database, not the cache: the GM may have changed the invite
    # through another server.
    if not ROOM_ID.fullmatch(room) or (row := await st.store.room(room)) is None:
        raise ApiError(404, f"no room {room!r}")
    if row["archived"]:
        raise ApiError(409, ARCHIVED)
    if invite is not None and hash_token(invite) != row["invite_hash"]:
        raise ApiError(403, "this invite is not good for this room")
    member, token, entry = await st.store.join(room, name)
    st.published(room, entry)
    return member, token, entry


async def gm_by_token(st: State, room: str, token: object, address: str = "") -> Member | None:
    """The GM member of ``room`` that ``token`` names, or None for anything that does not
    prove its GM (no token, another room's, a player's, an invite). Unknown tokens count
    against ``address`` as the API's do."""
    if not isinstance(token, str) or not token:
        return None
    try:
        member = await authenticate(st, room, token, address)
    except ApiError:
        return None
    return member if member.is_gm else None


async def link_channel(st: State, room: str, token: object, address: str = "") -> Member:
    """The room's side of linking a chat channel to it (a Discord channel, whose own
    rules of who may change it are the front end's): only the room's GM token links it,
    and never to an archived room. The GM member linked.

    Raises:
        ApiError: 403 when ``token`` is not ``room``'s GM token, 409 for an archived room.
    """
    member = await gm_by_token(st, room, token, address)
    if member is None:
        raise ApiError(403, f"that is not the GM's token of room {room[:64]!r}")
    await writable(st, room)
    return member
