"""What the rooms' routes share: limits, the error type, and the per-app state
(the store, the broker, the members' rate buckets)."""

from __future__ import annotations

import time
from typing import Any

from .broker import Broker
from .store import Fields, Member, Store

__all__ = ["MAX_BODY", "ApiError", "RoomsLimits", "State"]

MAX_BODY = 64 * 1024
"""Bodies over this many bytes get 413."""


class RoomsLimits:
    """Sizes and rates (the contract's minimums, adjustable for tests)."""

    body = MAX_BODY
    command = 1000
    ws_message = 4096
    rate = 40.0
    """Requests a second each member may make, sustained (the contract asks for at least 20)."""
    burst = 80.0


class ApiError(Exception):
    """An error the API answers with ``{"error": message}`` and ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class _Bucket:
    __slots__ = ("stamp", "tokens")

    def __init__(self, burst: float) -> None:
        self.tokens = burst
        self.stamp = time.monotonic()


class State:
    """What the routes share: the store, the broker, the rate buckets."""

    def __init__(self, store: Store, limits: type[RoomsLimits] = RoomsLimits) -> None:
        self.store = store
        self.broker = Broker()
        self.limits = limits
        self._buckets: dict[tuple[str, str], _Bucket] = {}
        # Caches of what never changes once written: a room's row (its name, system and
        # invite), a token's member, a room's revealed seqs (which only grow, and are
        # added here as this server appends them).
        self._rooms: dict[str, dict[str, Any]] = {}
        self._members: dict[str, Member] = {}
        self._revealed: dict[str, set[int]] = {}

    async def room(self, room: str) -> dict[str, Any] | None:
        row = self._rooms.get(room)
        if row is None:
            row = await self.store.room(room)
            if row is not None and len(self._rooms) < 100_000:
                self._rooms[room] = row
        return row

    async def member(self, token: str) -> Member | None:
        found = self._members.get(token)
        if found is None:
            found = await self.store.member(token)
            if found is not None and len(self._members) < 100_000:
                self._members[token] = found
        return found

    async def revealed(self, room: str) -> set[int]:
        """The seqs of ``room``'s revealed rolls (read once, then kept up to date)."""
        seqs = self._revealed.get(room)
        if seqs is None:
            seqs = self._revealed[room] = await self.store.revealed(room)
        return seqs

    def spend(self, member: Member) -> None:
        """Take one request from the member's bucket, or raise 429."""
        key = (member.room, member.id)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(self.limits.burst)
        now = time.monotonic()
        bucket.tokens = min(
            self.limits.burst, bucket.tokens + (now - bucket.stamp) * self.limits.rate
        )
        bucket.stamp = now
        if bucket.tokens < 1:
            raise ApiError(429, "too many requests: slow down")
        bucket.tokens -= 1

    async def append(self, room: str, kind: str, fields: Fields) -> dict[str, Any]:
        entry = await self.store.append(room, kind, fields)
        self.published(room, entry)
        return entry

    def published(self, room: str, entry: dict[str, Any]) -> None:
        """Tell this server's sockets (and caches) of a new entry."""
        if entry["kind"] == "reveal" and room in self._revealed:
            self._revealed[room].add(entry["of"])
        self.broker.publish(room, entry)
