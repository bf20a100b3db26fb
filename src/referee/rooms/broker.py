"""Live updates within one server: each room's new seqs, to each connected socket task.

A subscriber is told only "the room's log reached seq N"; it then reads the
entries it has not sent from the store and sends each as its member may see
it (:func:`referee.rooms.log.view`). Notices coalesce, so a slow socket never
holds a queue of entries, and nothing is lost: the store is the source.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict

__all__ = ["Broker", "Subscription"]


class Subscription:
    """One socket's interest in one room."""

    def __init__(self) -> None:
        self.latest = -1
        self._event = asyncio.Event()

    def notify(self, seq: int) -> None:
        if seq > self.latest:
            self.latest = seq
        self._event.set()

    async def wait(self) -> int:
        """Wait for news; return the newest seq announced."""
        await self._event.wait()
        self._event.clear()
        return self.latest


class Broker:
    """Per-room fan-out of new seqs to the subscriptions of this process."""

    def __init__(self) -> None:
        self._rooms: dict[str, set[Subscription]] = defaultdict(set)

    def subscribe(self, room: str) -> Subscription:
        sub = Subscription()
        self._rooms[room].add(sub)
        return sub

    def unsubscribe(self, room: str, sub: Subscription) -> None:
        subs = self._rooms.get(room)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._rooms[room]

    def publish(self, room: str, seq: int) -> None:
        for sub in self._rooms.get(room, ()):
            sub.notify(seq)

    def subscribers(self, room: str) -> int:
        return len(self._rooms.get(room, ()))
