"""The GM's controls (contract v1.1, "Characters and room administration"): remove a
member, rotate the invite, archive the room, and (beyond the contract) rotate the GM's
token; each the GM's alone (:class:`.guardian.Guardian`)."""

from __future__ import annotations

import time
from typing import Any

from ..db.store import Member
from ..state import State
from .access import LOGIN_SECONDS, conflicts, writable
from .guardian import Guardian

__all__ = ["archive", "new_gm_token", "new_invite", "remove_member"]


async def remove_member(st: State, room: str, member: Member, gone: str) -> dict[str, Any]:
    """The GM removes member ``gone``: its ``leave`` entry, published (its tokens and
    page links go in the same transaction)."""
    await writable(st, room)
    Guardian(member).ensure_gm("removes members")
    entry = await conflicts(st.store.leave(room, gone))
    st.published(room, entry)
    return entry


async def new_invite(st: State, room: str, member: Member) -> str:
    """The GM rotates the invite: the new one (its ``invite`` entry never holds it)."""
    await writable(st, room)
    Guardian(member).ensure_gm("changes the invite")
    new, entry = await conflicts(st.store.new_invite(room))
    st.published(room, entry)
    return new


async def new_gm_token(
    st: State, room: str, member: Member, keep: str | None = None
) -> tuple[str, str]:
    """The GM rotates her token: ``(the new token, a one-time page link's code)``. The
    old one stops working at once, on every path and every server, as a removed
    member's does (the ``token`` entry, published, drops it from every server's cache
    and closes its live sockets with 4401), and so do the GM's other page sessions and
    the Discord links made with it. ``keep``: the page session that asked, which goes
    on (a Bearer caller's own token is never kept: the link opens the page again)."""
    await writable(st, room)
    Guardian(member).ensure_gm("changes the GM's token")
    token, code, entry = await conflicts(
        st.store.new_gm_token(room, time.time() + LOGIN_SECONDS, keep)
    )
    st.published(room, entry)
    return token, code


async def archive(st: State, room: str, member: Member) -> dict[str, Any]:
    """The GM archives the room: every write after it gets 409."""
    await writable(st, room)
    Guardian(member).ensure_gm("archives the room")
    entry = await conflicts(st.store.archive(room))
    st.published(room, entry)
    return entry
