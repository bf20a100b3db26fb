"""Live updates within one server: each room's new entries, to each connected socket task.

A subscriber gets the sealed entries this server appended, in the order of
their seqs, and sends each as its member may see it
(:func:`referee.rooms.log.view`). If it ever sees a gap (a seq it was not
given: another server wrote it, or it fell behind), it reads the missing
entries from the store, which is the source of truth: nothing is lost.

:class:`Stalls` lets go of the sockets whose client stopped taking frames.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["Broker", "Stalls", "Subscription", "Watch"]

log = logging.getLogger(__name__)


class Subscription:
    """One socket's interest in one room."""

    MAX_PENDING = 1000
    """Beyond this many unsent entries the subscription keeps only the newest seq,
    and the socket reads the rest from the store."""

    def __init__(self) -> None:
        self.latest = -1
        self.pending: list[dict[str, Any]] = []
        self.closed = False
        self._event = asyncio.Event()
        self.direct: Callable[[dict[str, Any]], bool] | None = None
        """Set by the socket's task while it waits with nothing pending: sends an entry
        at once, without waking the task, and says whether it did (else the entry is
        queued and the task woken, as without it)."""

    def close(self) -> None:
        """Its socket went: wake the waiter, which then sees :attr:`closed`."""
        self.closed = True
        self._event.set()

    def notify(self, entry: dict[str, Any]) -> None:
        self.latest = max(self.latest, entry["seq"])
        if self.direct is not None and not self.pending and self.direct(entry):
            return
        if len(self.pending) < self.MAX_PENDING:
            self.pending.append(entry)
        self._event.set()

    async def wait(self) -> list[dict[str, Any]]:
        """Wait for news; return the entries announced since the last call (by seq)."""
        await self._event.wait()
        self._event.clear()
        got, self.pending = self.pending, []
        got.sort(key=lambda e: e["seq"])
        return got


class Broker:
    """Per-room fan-out of new seqs to the subscriptions of this process."""

    def __init__(self) -> None:
        self._rooms: dict[str, set[Subscription]] = defaultdict(set)
        self._held: dict[Any, list[bytes]] | None = None

    def write(self, transport: Any, frame: bytes) -> None:
        """Write ``frame`` to a socket's ``transport`` (a subscription's
        :attr:`~Subscription.direct` send): at once, or, while a batch's entries are
        published (:meth:`batch`), with the batch's other frames for that socket, in one
        write (one system call a socket a batch, rather than one a frame)."""
        if self._held is None:
            transport.write(frame)
        else:
            self._held.setdefault(transport, []).append(frame)

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Publish a batch of entries inside this: each socket's frames are written
        together at its end (:meth:`write`), in the order they were published."""
        if self._held is not None:  # already in one: its end writes them
            yield
            return
        self._held = {}
        try:
            yield
        finally:
            held, self._held = self._held, None
            for transport, frames in held.items():
                try:
                    transport.write(frames[0] if len(frames) == 1 else b"".join(frames))
                except Exception:  # that socket is going: its task ends it
                    log.warning("referee rooms: a live socket's frames were not written")

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

    def publish(self, room: str, entry: dict[str, Any]) -> None:
        for sub in self._rooms.get(room, ()):
            sub.notify(entry)

    def subscribers(self, room: str) -> int:
        return len(self._rooms.get(room, ()))


class Watch:
    """One socket's send under way (``since``: the loop's time when it began), and the
    last seq it sent (``sent``: -1 before any)."""

    __slots__ = ("late", "sent", "since", "task")

    def __init__(self, task: asyncio.Task[Any]) -> None:
        self.task = task
        self.since: float | None = None
        self.late = False
        self.sent = -1


class Stalls:
    """Closes the live sockets that leave a frame unread for ``wait`` seconds: one
    check a second for every socket of the server, rather than a timer per frame
    (which cost a few percent of a roll). A stalled socket's task is cancelled,
    marked ``late``; :func:`.live._follow` then closes it with 4408."""

    def __init__(self, wait: float) -> None:
        self.wait = wait
        self._watches: set[Watch] = set()
        self._task: asyncio.Task[None] | None = None

    def watch(self) -> Watch:
        found = Watch(asyncio.current_task())  # type: ignore[arg-type]
        self._watches.add(found)
        if self._task is None:
            self._task = asyncio.create_task(self._check())
        return found

    def forget(self, watch: Watch) -> None:
        self._watches.discard(watch)

    async def _check(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._watches:
                await asyncio.sleep(min(1.0, self.wait / 4))
                now = loop.time()
                for w in list(self._watches):
                    if w.since is not None and now - w.since > self.wait and not w.late:
                        w.late = True
                        w.task.cancel()
        finally:
            self._task = None
