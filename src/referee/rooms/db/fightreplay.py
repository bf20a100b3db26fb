"""The fight read again from the log (:mod:`.fightstore`'s reads): the room's system,
its fight entries after a seq, and their events stepped through, a sealed answer with
the numbers of its roll put back, as ``referee verify`` does."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from ...errors import RefereeError
from ...fight import Fight, numbers, step
from ...fight.step import adopt
from ..fightlog import events_of
from ..log import FIGHT_KINDS, decode
from .epochs import Conflict
from .schema import entries, rooms

__all__ = ["OFF_LOOP", "off_loop", "replayed", "rows_after", "sealed_rolls", "system_of"]

T = TypeVar("T")


async def system_of(conn: AsyncConnection, room: str) -> str:
    """The room's system, which its fight follows (422 for a room with none)."""
    system = await conn.scalar(sa.select(rooms.c.system).where(rooms.c.id == room))
    if system is None:
        raise Conflict(422, "a fight needs a room with a system (gurps, swn or fudge)")
    return str(system)


async def rows_after(
    conn: AsyncConnection, room: str, after: int
) -> list[tuple[int, dict[str, Any]]]:
    """The room's fight entries after seq ``after``, in order, decoded."""
    rows = await conn.execute(
        sa.select(entries.c.seq, entries.c.body)
        .where(entries.c.room_id == room, entries.c.seq > after, entries.c.kind.in_(FIGHT_KINDS))
        .order_by(entries.c.seq)
    )
    return [(seq, decode(body)) for seq, body in rows]


async def sealed_rolls(
    conn: AsyncConnection, room: str, logged: list[dict[str, Any]]
) -> dict[int, dict[str, Any]]:
    """The rolls whose numbers sealed events of ``logged`` took (contract v1.3: the
    public entries of an event answered by a secret roll leave its numbers out), by seq,
    so that the server's own replay puts them back as ``referee verify`` does."""
    whys = {e["why"] for e in logged if e.get("sealed") and isinstance(e.get("why"), int)}
    if not whys:
        return {}
    rows = await conn.execute(
        sa.select(entries.c.seq, entries.c.body).where(
            entries.c.room_id == room, entries.c.seq.in_(sorted(whys))
        )
    )
    return {seq: decode(body) for seq, body in rows}


def _unsealed(
    group: list[Mapping[str, Any]], rolls: Mapping[int, Mapping[str, Any]]
) -> Mapping[str, Any] | None:
    """A sealed call's answer in ``group`` with the numbers it took from its roll put
    back, or None (no sealed answer, or its roll not found). Only an answer: what it
    does follows from its call and its numbers alone, while its entries may leave out
    what it changed (an NPC's initiative key); a sealed damage or result is replayed
    from its entries, which the server wrote after whatever the roll's target and
    checks made of the event."""
    e = next((x for x in group if x.get("sealed") and isinstance(x.get("event"), Mapping)), None)
    roll = None if e is None else rolls.get(e.get("why"))  # type: ignore[arg-type]
    if e is None or roll is None or roll.get("kind") != "roll":
        return None
    event = e["event"]
    if event.get("kind") != "answer":  # a call's answer: its numbers decide it whole
        return None  # (a damage's or a result's entries, as logged, hold what it did)
    try:
        return {**event, **numbers(str(event.get("kind")), roll.get("result") or {},
                                   int(event.get("rules", 1)))}  # fmt: skip
    except RefereeError:
        return None


def replayed(
    fight: Fight, logged: list[dict[str, Any]], rolls: Mapping[int, Mapping[str, Any]]
) -> Fight:
    """``fight`` with the logged entries' events stepped through (the whole view): a
    sealed answer with the numbers of its roll (``rolls``, :func:`sealed_rolls`, and
    :func:`_unsealed`), which the entries as logged do not hold (an NPC's initiative
    key among them)."""
    for event, group in events_of(logged):
        if event is None:
            event = _unsealed(group, rolls)
        if event is not None:
            fight = step(fight, event, rules=1).fight  # naming no rules: as then
        else:  # a hidden NPC's turn moved, logged public with no event: as logged
            for e in group:
                fight = adopt(fight, str(e["kind"]), e)
    return fight


OFF_LOOP = 256
"""Entries to replay at once beyond which the replay runs in a worker thread: a long
log's first read (10,000 events: about 150 ms) must not hold up the event loop."""


async def off_loop(fn: Callable[..., T], *args: Any, big: int, **kwargs: Any) -> T:
    if big > OFF_LOOP and _on_loop():  # (in SQLite's writer thread: there, at once)
        return await asyncio.to_thread(fn, *args, **kwargs)
    return fn(*args, **kwargs)


def _on_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
