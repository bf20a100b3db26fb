"""PostgreSQL: a batch of appends in one statement, while the rooms' heads are known.

A server remembers each room's head after its own writes (:class:`Head`: the
next seq, the last link, the locked epoch). While the heads it remembers are
current, a batch is one statement, with no transaction around it
(:data:`_WRITE_IF_HEADS`): it locks the rooms' rows in id order, writes only the
rooms whose ``next_seq`` is still the one remembered, and announces what it
wrote. Every change to a room appends to its log, so an unchanged ``next_seq``
means an unchanged room. A room that another server wrote meanwhile is left
out; its appends are written again the usual way (:mod:`.appends`), their rolls
made again with their new seqs. A batch otherwise takes a transaction of four
statements and its BEGIN and COMMIT, each a round trip.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..log import Frames, encode, new_salt, now, seal
from ..signing import SIGNED_KINDS, Signer
from .epochs import Epoch
from .held import Held

__all__ = ["Batch", "Fields", "Head", "HeadWrites", "Results", "Rooms", "Sealer"]

Fields = Mapping[str, Any] | Callable[[int, Epoch], Mapping[str, Any]]
"""An entry's fields, or (for a roll) a function of its seq and epoch that makes them."""

Batch = list[tuple[str, str, Fields, asyncio.Future[dict[str, Any]]]]
"""Queued appends: (room, kind, fields or the function that makes them, the caller's future)."""
Rooms = list[tuple[str, list[int]]]
"""A batch's rooms, each with the indexes of its appends."""
Results = dict[int, dict[str, Any] | Exception]
"""Each append's sealed entry, or its error, by index."""

_WRITE_IF_HEADS = """
    WITH locked AS MATERIALIZED (
        SELECT r.id, r.next_seq FROM rooms AS r
        WHERE r.id = ANY(CAST($1 AS varchar[])) ORDER BY r.id FOR UPDATE
    ), heads AS (
        SELECT h.id, h.next, h.chain
        FROM unnest(
            CAST($1 AS varchar[]), CAST($2 AS bigint[]),
            CAST($3 AS bigint[]), CAST($4 AS varchar[])
        ) AS h(id, seen, next, chain)
        JOIN locked ON locked.id = h.id AND locked.next_seq = h.seen
    ), moved AS (
        UPDATE rooms SET next_seq = heads.next, last_chain = heads.chain
        FROM heads WHERE rooms.id = heads.id
        RETURNING rooms.id, rooms.next_seq
    ), added AS (
        INSERT INTO entries (room_id, seq, kind, ref, body)
        SELECT e.room, e.seq, e.kind, e.ref, e.body
        FROM unnest(
            CAST($5 AS varchar[]), CAST($6 AS bigint[]), CAST($7 AS varchar[]),
            CAST($8 AS bigint[]), CAST($9 AS text[])
        ) AS e(room, seq, kind, ref, body)
        WHERE e.room IN (SELECT id FROM heads)
    )
    SELECT m.id, pg_notify('referee_rooms', m.id || ':' || (m.next_seq - 1)) FROM moved AS m
"""
"""PostgreSQL: one batch of appends in one statement, for the rooms (``ids``) whose
``next_seq`` is still ``seen``: lock the rows in id order, move them on, insert
their entries, and announce each room's last one (:mod:`.notices`); one row back per
room written."""


@dataclass(frozen=True, slots=True)
class Head:
    """What a room's next append needs, as this server last wrote it: the next seq,
    the last chain link, and the current epoch (locked: its mix is known)."""

    seq: int
    chain: str
    epoch: Epoch


class HeadWrites:
    """The one-statement batch (mixed into :class:`.appends.Appends`, which provides
    the heads, the writer's held connection and the frames)."""

    heads: dict[str, Head]
    writer: Held
    frames: Frames
    signer: Signer | None

    async def _write_if_heads(
        self,
        batch: Batch,
        rooms_: Rooms,
        results: Results,
        written: list[dict[str, Any]],
        heads: dict[str, Head],
    ) -> Rooms:
        """PostgreSQL: write these rooms' appends after the heads this server knows, in
        one statement (:data:`_WRITE_IF_HEADS`); return the rooms it left out, because
        another server moved them on (they are written again, the usual way)."""
        sealed: list[dict[str, Any]] = []
        tried: list[tuple[str, list[int], list[dict[str, Any] | Exception], Head, Head]] = []
        ids, seen, nexts, chains = [], [], [], []
        for room, idx in rooms_:
            head = self.heads[room]
            log = Sealer(room, head.seq, head.chain, sealed, self.signer)
            got: list[dict[str, Any] | Exception] = []
            for i in idx:
                _room, kind, fields, _future = batch[i]
                got.append(log.make(kind, fields, head.epoch))
            tried.append((room, idx, got, head, Head(log.seq, log.chain, head.epoch)))
            if log.seq != head.seq:
                ids.append(room)
                seen.append(head.seq)
                nexts.append(log.seq)
                chains.append(log.chain)
        done: set[str] = set()
        bodies = [encode(e) for e in sealed]
        if sealed:
            rows = await self.writer.fetch(
                _WRITE_IF_HEADS,
                ids,
                seen,
                nexts,
                chains,
                [e["room"] for e in sealed],
                [e["seq"] for e in sealed],
                [e["kind"] for e in sealed],
                [e.get("of") if e["kind"] == "reveal" else None for e in sealed],
                bodies,
            )
            done = {row[0] for row in rows}
        for e, text in zip(sealed, bodies, strict=True):
            if e["room"] in done:
                written.append(e)
                self.frames.whole(e, text)
        left: Rooms = []
        for room, idx, got, before, after in tried:
            if room in done or after.seq == before.seq:  # written, or nothing to write
                results.update(zip(idx, got, strict=True))
                heads[room] = after
            else:  # another server wrote to it: its head is stale
                self.heads.pop(room, None)
                left.append((room, idx))
        return left


class Sealer:
    """Seals one room's new entries in turn: each gets the next seq and extends the chain.
    With the server's key (``signer``), each ``lock``, ``close`` and ``reveal`` is
    followed at once by its signed ``head`` entry (contract v1.5), in the same
    transaction."""

    __slots__ = ("chain", "room", "seq", "sealed", "signer")

    def __init__(
        self,
        room: str,
        seq: int,
        chain: str,
        sealed: list[dict[str, Any]],
        signer: Signer | None = None,
    ) -> None:
        self.room, self.seq, self.chain, self.sealed = room, seq, chain, sealed
        self.signer = signer

    def make(self, kind: str, fields: Fields, epoch: Epoch | None) -> dict[str, Any] | Exception:
        """Seal one append: its fields, or those its function makes on the next seq in
        ``epoch``; or the exception that function raised (that roll fails alone: its
        caller is told, and the seq goes to the next append)."""
        if not callable(fields):
            return self.add(kind, fields)
        assert epoch is not None, "a roll needs its room's epoch"
        try:
            made = fields(self.seq, epoch)
        except Exception as exc:
            return exc
        return self.add(kind, made)

    def add(self, kind: str, fields: Mapping[str, Any]) -> dict[str, Any]:
        entry = {
            "room": self.room,
            "seq": self.seq,
            "kind": kind,
            "time": now(),
            "salt": new_salt(),
        }
        entry.update(fields)
        sealed = seal(entry, self.chain)
        self.sealed.append(sealed)
        self.seq, self.chain = self.seq + 1, sealed["chain"]
        if kind in SIGNED_KINDS and self.signer is not None:
            self.add("head", self.signer.head(self.room, sealed["seq"], sealed["chain"]))
        return sealed
