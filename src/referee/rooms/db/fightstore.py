"""The fight in the database (contract v1.2, "The fight's state"): an event becomes its
``combatant``, ``change`` and ``turn`` entries in one transaction, under the room's
row lock, on the fight as the log holds it then.

Each entry of one event carries ``part`` (``[i, n]``: the i-th of its n entries),
``by`` (the member), ``why`` (the seq of the roll it applies, or the GM's words, or
null), ``visibility`` and ``event``: the event itself, so that replaying the log's
events gives the fight again (:func:`..fightlog.events_of`; ``referee verify`` does the same).
Contract v1.3: a hidden combatant's entries are the GM's (``"visibility": "gm"``,
redacted for players); every other entry is public, a ``turn`` entry always. A public
entry of an event about a hidden combatant carries ``"event": null``; one of an event
that took its numbers from a roll players may not see carries the event without them
and ``"sealed": true`` (:func:`..fightlog.events_of` fills them from the roll for a
reader who sees it; anyone else takes the entry as logged).

Mixed into :class:`.store.Store` (see :class:`.epochs.StoreParts`).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from ...errors import RefereeError
from ...fight import Fight, begin, npcs, numbers, step
from ...fight.events import RULES
from ..fightlog import replay_seen
from ..log import FIGHT_KINDS, decode, view
from .epochs import Conflict, StoreParts
from .fightreplay import off_loop, replayed, rows_after, sealed_rolls, system_of
from .fightrolls import aimed, same_roll, stabilized_at
from .schema import entries

__all__ = ["FightWrites"]

T = TypeVar("T")

NOTHING = "that changes nothing in the fight"
"""What an event that changes nothing gets (422)."""

CACHED = 10_000
"""Fights kept in memory (each room's, and each player's view of it) before the caches
start again from the log."""


class FightWrites(StoreParts):
    """The fight's writes."""

    _fights: dict[str, tuple[int, Fight]]

    async def _append_many(
        self, conn: AsyncConnection, groups: list[tuple[str, list[tuple[str, Any]]]]
    ) -> list[list[dict[str, Any] | Exception]]:
        raise NotImplementedError

    async def fight(self, room: str) -> Fight:
        """The fight as the log holds it now (the GM's whole view)."""
        fight: Fight = await self._reading(self._fight, room)
        return fight

    async def _fight(self, conn: AsyncConnection, room: str, head: int | None = None) -> Fight:
        """The fight read on from the cache. Under the room's row lock, ``head`` is its
        next seq: every entry before it is committed, so what the cache has read up to
        it needs no query."""
        cache = self.__dict__.setdefault("_fights", {})
        if len(cache) > CACHED:
            cache.clear()  # read again from the log when next needed
        seen, fight = cache.get(room, (-1, None))
        if fight is not None and head is not None and seen >= head - 1:
            out_: Fight = fight
            return out_
        if fight is None:
            fight = begin(await system_of(conn, room))
        found = await rows_after(conn, room, seen)
        rolls = await sealed_rolls(conn, room, [e for _, e in found])
        fight = await off_loop(replayed, fight, [e for _, e in found], rolls, big=len(found))
        if found:
            seen = found[-1][0]
        if head is not None:
            seen = max(seen, head - 1)
        if cache.get(room, (-1, None))[0] < seen:  # a writer may have put a newer one since
            cache[room] = (seen, fight)
        out: Fight = fight
        return out

    async def hides_sheet(self, room: str, sheet: str) -> bool:
        """Whether a hidden combatant of ``room``'s fight plays ``sheet`` (a room with
        no fight, or no system, hides none)."""
        try:
            fight = await self.fight(room)
        except Conflict:
            return False
        return any(c.hidden and c.sheet == sheet for c in fight.combatants.values())

    async def seen_fight(self, room: str, member: str) -> Fight:
        """The fight as ``member`` sees the log: replayed from the entries as
        :func:`..log.view` gives them to that member (:func:`..fightlog.replay_seen`),
        so that no answer shows what the log hides from them (the HP a secret damage
        roll took). The GM sees :meth:`fight`. Kept per member, and read on from
        where it was."""
        if member == "gm":
            return await self.fight(room)
        cache = self.__dict__.setdefault("_seen", {})
        if len(cache) > CACHED:
            cache.clear()
        last, seen = cache.get((room, member), (-1, None))
        system, rows = await self._reading(_seen_rows, room, last)
        found = [(seq, view(e, member)) for seq, e in rows]
        if found or seen is None:
            seen = await off_loop(
                replay_seen, system, [e for _, e in found], start=seen, big=len(found)
            )
            cache[(room, member)] = (found[-1][0] if found else last, seen)
        out: Fight = seen.fight
        return out

    async def fight_event(
        self,
        room: str,
        by: str,
        event: Mapping[str, Any],
        roll: int | None,
        why: str | None,
        may: Any,
    ) -> list[dict[str, Any]]:
        """Apply ``event`` by member ``by``: its numbers from the roll at seq ``roll``
        when given (its roller must be ``by``, or ``by`` the GM), checked by ``may``
        (``may(fight, event, roll)`` raises for what ``by`` may not do), logged.

        Events that arrive together for one room are written in one transaction (group
        commit, as rolls are), each on the fight the ones before it left; each caller
        gets its own entries or its own error.

        Raises:
            Conflict: 422 for an event the fight refuses (the engine's message), 403
                for one this member may not make.
        """
        future: asyncio.Future[list[dict[str, Any]]] = asyncio.get_running_loop().create_future()
        queues = self.__dict__.setdefault("_fight_queues", {})
        queue = queues.get(room)
        if queue is None:
            queue = queues[room] = []
            task = asyncio.create_task(self._fight_flush(room))
            tasks = self.__dict__.setdefault("_fight_tasks", set())
            tasks.add(task)  # held until done: a task only the loop holds may vanish
            task.add_done_callback(tasks.discard)
        queue.append((by, dict(event), roll, why, may, future))
        return await future

    async def _fight_flush(self, room: str) -> None:
        queues = self.__dict__["_fight_queues"]
        try:
            while queues.get(room):
                batch, queues[room] = queues[room], []
                await self._fight_batch(room, batch)
        finally:
            for *_rest, future in queues.pop(room, None) or []:  # only if cut short
                if not future.done():
                    future.set_exception(
                        Conflict(409, "the fight's writer stopped: send the event again")
                    )

    async def _fight_batch(self, room: str, batch: list[tuple[Any, ...]]) -> None:
        """One transaction for these events of ``room``, in order; each future set."""
        try:
            fight, sealed, outcomes = await self._transaction(self._fight_write, room, batch)
        except Exception as exc:  # the transaction failed: every event waiting hears so
            for *_rest, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        if sealed:
            self.__dict__.setdefault("_fights", {})[room] = (sealed[-1]["seq"], fight)
        at = 0
        for (*_rest, future), outcome in zip(batch, outcomes, strict=True):
            if isinstance(outcome, Exception):
                if not future.done():
                    future.set_exception(outcome)
                continue
            if not future.done():  # its caller may have gone: the entries stand
                future.set_result(sealed[at : at + outcome])
            at += outcome

    async def _fight_write(
        self, conn: Any, room: str, batch: list[tuple[Any, ...]]
    ) -> tuple[Fight, list[dict[str, Any]], list[int | Exception]]:
        """The transaction of :meth:`_fight_batch` (in SQLite's writer thread, or on the
        loop): the fight after the batch, its entries sealed, and for each event the
        number of its entries or its refusal."""
        taken = await self._take(conn, room)
        fight = await self._fight(conn, room, taken.next_seq)
        items: list[tuple[str, Mapping[str, Any]]] = []
        outcomes: list[int | Exception] = []
        for by, ev, roll, why, may, _future in batch:
            try:
                made, fight = await self._prepare(conn, fight, room, by, ev, roll, why, may)
            except Exception as exc:  # noqa: BLE001 - this event only: the others go on
                outcomes.append(exc)
                continue
            items.extend(made)
            outcomes.append(len(made))
        made_all = (await self._append_many(conn, [(room, items)]))[0] if items else []
        sealed: list[dict[str, Any]] = []
        for s in made_all:
            if isinstance(s, Exception):
                raise s
            sealed.append(s)
        return fight, sealed, outcomes

    async def _prepare(
        self,
        conn: AsyncConnection,
        fight: Fight,
        room: str,
        by: str,
        ev: dict[str, Any],
        roll: int | None,
        why: str | None,
        may: Any,
    ) -> tuple[list[tuple[str, Mapping[str, Any]]], Fight]:
        """An event's entries to log, and the fight after it (raises :class:`Conflict`)."""
        try:
            may(fight, ev, roll)  # first: a refusal tells a player nothing more
        except RefereeError as exc:
            raise Conflict(422, str(exc)) from None
        ev["rules"] = RULES  # the rules it is applied by, logged with it
        if ev.get("kind") == "add" and ev.get("hidden") is True and "combatant" not in ev:
            ev["combatant"] = opaque_id(fight)
        secret = False
        taken: dict[str, Any] = {}
        if roll is not None:
            found = await conn.scalar(
                sa.select(entries.c.body).where(entries.c.room_id == room, entries.c.seq == roll)
            )
            e = None if found is None else decode(found)
            if e is None or e.get("kind") != "roll":
                raise Conflict(422, f"seq {roll} is not a roll in this room")
            if by != "gm" and e.get("roller") != by:
                raise Conflict(403, f"roll {roll} is another member's")
            secret = e.get("visibility") != "public"
            try:
                taken = numbers(str(ev.get("kind")), e.get("result") or {}, RULES)
            except RefereeError as exc:
                raise Conflict(422, f"roll {roll}: {exc}") from None
            ev.update(taken)
            if ev.get("kind") == "damage" or (
                ev.get("kind") == "result" and ev.get("of") == "stabilize"
            ):  # a roll aimed at a combatant goes to it (a stabilize too, issue 65 §7)
                aimed(fight, ev, e)
            if ev.get("kind") == "answer":
                same_roll(fight, ev, e)
            if ev.get("kind") == "result" and ev.get("of") == "stabilize":
                stabilized_at(fight, ev, e)
            used = await _applied(conn, room, roll)
            if used is not None:  # issue 71 §1.6: one roll, one combatant
                raise Conflict(409, f"roll {roll} was applied already (seq {used}): a roll "
                                    "is applied once")  # fmt: skip
        try:
            done = step(fight, ev)
        except RefereeError as exc:
            raise Conflict(422, str(exc)) from None
        n = len(done.records)
        if not n:
            raise Conflict(422, NOTHING)
        # A defense's outcome is what the whole table sees; its roll's numbers are not.
        sealed = {k: v for k, v in taken.items() if ev["kind"] != "defend"}
        shown = _shown_event(fight, done.fight, ev, sealed if secret else None)
        items: list[tuple[str, Mapping[str, Any]]] = []
        for i, r in enumerate(done.records):
            # Contract v1.3: a hidden combatant's entries are the GM's; every other one is
            # public, whatever roll it came from (a turn entry always is).
            gm = r.hidden and r.kind != "turn"
            fields = {**r.fields, "event": ev if gm else shown, "part": [i, n],
                      "why": roll if roll is not None else why, "by": by,
                      "visibility": "gm" if gm else "public"}  # fmt: skip
            if not gm and shown is not None and secret:
                fields["sealed"] = True
            items.append((r.kind, fields))
        return items, done.fight


async def _applied(conn: AsyncConnection, room: str, roll: int) -> int | None:
    """The seq of the first fight entry that applied the roll at seq ``roll`` (its
    ``why``), or None: a roll is applied to the fight once (issue 71 §1.6). The
    entries are stored canonical (:func:`..log.encode`: sorted keys, no spaces)."""
    found = await conn.scalar(
        sa.select(sa.func.min(entries.c.seq)).where(
            entries.c.room_id == room,
            entries.c.seq > roll,
            entries.c.kind.in_(tuple(FIGHT_KINDS)),
            sa.or_(
                entries.c.body.contains(f'"why":{int(roll)},'),
                entries.c.body.contains(f'"why":{int(roll)}}}'),
            ),
        )
    )
    return None if found is None else int(found)


async def _seen_rows(
    conn: AsyncConnection, room: str, last: int
) -> tuple[str, list[tuple[int, dict[str, Any]]]]:
    return await system_of(conn, room), await rows_after(conn, room, last)


def opaque_id(fight: Fight) -> str:
    """A new hidden combatant's id (contract v1.3): ``npc-`` and random hex, never taken
    from a sheet's or a name, and new in this fight."""
    while True:
        cid = "npc-" + secrets.token_hex(2)
        if cid not in fight.combatants:
            return cid


def _shown_event(
    before: Fight, after: Fight, ev: Mapping[str, Any], sealed: Mapping[str, Any] | None
) -> Mapping[str, Any] | None:
    """The event as a public entry carries it (contract v1.3): None when it is about a
    hidden combatant (players may not know what was done to it); without the numbers
    it took from its roll (``sealed``: what it took) when that roll is not public, so
    that the change shows what changed and never the roll's dice or total; None too
    when it names a GM's NPC's sheet numbers (:mod:`...fight.npcs`); else whole.
    """
    subject = _subject(before, ev)
    if subject is not None:
        c = after.combatants.get(subject) or before.combatants.get(subject)
        if c is not None and c.hidden:
            return None
    if ev.get("rules", 1) >= npcs.FROM_RULES and npcs.carries_numbers(before, ev):
        return None  # a GM's NPC's sheet numbers: in the GM's copies only (rules 3)
    if sealed is not None:
        return {k: v for k, v in ev.items() if k not in sealed}
    return ev


def _subject(fight: Fight, ev: Mapping[str, Any]) -> str | None:
    """The combatant an event is about: its ``combatant``, or its call's."""
    if ev.get("kind") in ("answer", "dismiss"):
        call = next((c for c in fight.calls if c.id == ev.get("call")), None)
        return None if call is None else call.combatant
    cid = ev.get("combatant")
    return cid if isinstance(cid, str) else None
