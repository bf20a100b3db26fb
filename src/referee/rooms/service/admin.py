"""The GM's controls (contract v1.1, "Characters and room administration"): remove a
member, rotate the invite, archive the room; each the GM's alone
(:class:`.guardian.Guardian`)."""

from __future__ import annotations

from typing import Any

from ..db.store import Member
from ..state import State
from .access import conflicts, writable
from .guardian import Guardian

__all__ = ["archive", "new_invite", "remove_member"]


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


async def archive(st: State, room: str, member: Member) -> dict[str, Any]:
    """The GM archives the room: every write after it gets 409."""
    await writable(st, room)
    Guardian(member).ensure_gm("archives the room")
    entry = await conflicts(st.store.archive(room))
    st.published(room, entry)
    return entry
