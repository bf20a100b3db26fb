"""What the rooms' routes share: the per-app state (the store, the broker, the
members' rate buckets, the caches), and the limits (:mod:`.limits`) and the error
type (:mod:`.errors`) they use."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from .db.store import Fields, Member, Store
from .errors import ApiError
from .fanout.broker import Broker, Stalls
from .limits import MAX_BODY, RoomsLimits, limit_names, limits_from
from .rolling.plans import Plans
from .rolling.rollas import RoomSheets

__all__ = [
    "MAX_BODY",
    "ApiError",
    "Plans",
    "RoomsLimits",
    "State",
    "limit_names",
    "limits_from",
]

log = logging.getLogger(__name__)


class _Bucket:
    __slots__ = ("stamp", "tokens")

    def __init__(self, burst: float) -> None:
        self.tokens = burst
        self.stamp = time.monotonic()


class _Followed:
    """What this server knows of one room's log: its revealed seqs, read through
    seq ``through``; ``target`` is the newest seq another server announced."""

    __slots__ = ("ready", "revealed", "target", "task", "through")

    def __init__(self) -> None:
        self.revealed: set[int] = set()
        self.through = -1
        self.target = -1
        self.ready = asyncio.Event()
        self.task: asyncio.Task[None] | None = None


class State:
    """What the routes share: the store, the broker, the rate buckets."""

    FOLLOWED = 10_000
    """Rooms followed at most; beyond this, rooms with no socket are forgotten."""

    def __init__(self, store: Store, limits: type[RoomsLimits] = RoomsLimits) -> None:
        self.store = store
        store.on_commit = self._committed
        self.broker = Broker()
        self.limits = limits
        self._buckets: dict[tuple[str, str], _Bucket] = {}
        self.sockets: Counter[tuple[str, str]] = Counter()
        """Open live sockets by (room, member)."""
        self._removal: dict[tuple[str, str], set[Callable[[], None]]] = {}
        """What to call when a member is removed, by (room, member): each of their live
        sockets on this server registers one (:meth:`on_removal`)."""
        self.rotated: list[Callable[[str], None]] = []
        self.fight_watchers: list[Callable[[str], None]] = []
        """Told of each room whose fight changed on this server, whatever front end
        changed it (Discord's status and prompts follow the page's clicks, issue 72 §2)."""
        """What to call with a room's id when its GM's token changes (a ``token`` entry
        this server writes or reads): a front end that caches what the old token proved
        (Discord's links) forgets it."""
        self.here: dict[str, set[str]] = {}
        """The members with a live socket open, by room (``GET .../present``)."""
        # Caches: a room's row (its name, system, invite and whether it is archived; read
        # afresh after an invite or archive entry), a token's member (dropped after a
        # leave entry).
        self._rooms: dict[str, dict[str, Any]] = {}
        self._members: dict[str, Member] = {}
        self._by_id: dict[tuple[str, str], Member] = {}
        """Members by (room, id), for front ends that hold ids (never a token's cache)."""
        # The rooms this server follows: their revealed seqs (which only grow), kept up
        # to date by this server's appends and, on PostgreSQL, by the other servers'
        # notices (:mod:`.notices`), read from the log.
        self._followed: dict[str, _Followed] = {}
        self._news: dict[str, _Followed] = {}
        """Followed rooms behind what other servers announced."""
        self._reader: asyncio.Task[None] | None = None
        self.stalls = Stalls(limits.send_wait)
        """Live sockets' sends under way (closes those that stall)."""
        self.frames = store.frames
        """Entries already encoded, as members see them (the store's)."""
        self.plans = Plans(readers=int(limits.readers))
        """Rolling commands already read (:func:`.api.read_command`)."""
        self.sheets = RoomSheets()
        """The rooms' sheets this server has used (:mod:`.characters`)."""

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
                # Follow the room before keeping its token: the member's leave entry,
                # written by any server, then drops it (:meth:`published`).
                await self.revealed(found.room)
                self._members[token] = found
        return found

    async def member_by_id(self, room: str, member: str) -> Member | None:
        """``member`` of ``room`` by id (a front end that speaks for members holds their
        ids, not their tokens), cached as tokens are: dropped after a leave entry."""
        found = self._by_id.get((room, member))
        if found is None:
            await self.revealed(room)  # follow the room first: its leave entries are heard
            found = await self.store.member_by_id(room, member)
            if found is not None and len(self._by_id) < 100_000:
                self._by_id[(room, member)] = found
        return found

    async def revealed(self, room: str) -> set[int]:
        """The seqs of ``room``'s revealed rolls (read once, then kept up to date)."""
        f = self._followed.get(room)
        if f is not None:
            if not f.ready.is_set():
                await f.ready.wait()
                if self._followed.get(room) is not f:  # its first read failed
                    return await self.revealed(room)
            return f.revealed
        if len(self._followed) >= self.FOLLOWED:
            self._forget()
        f = self._followed[room] = _Followed()
        try:
            seqs, f.through = await self.store.revealed_through(room)
        except BaseException:
            del self._followed[room]
            raise
        finally:
            f.ready.set()
        f.revealed |= seqs
        self._catch_up(room, f)
        return f.revealed

    def revealed_now(self, room: str) -> set[int] | None:
        """:meth:`revealed`, when it needs no wait (the room is followed and read);
        else None."""
        f = self._followed.get(room)
        return f.revealed if f is not None and f.ready.is_set() else None

    def follows(self, room: str) -> bool:
        """Whether this server follows ``room``'s log (so it hears of every new entry)."""
        return room in self._followed

    def _forget(self) -> None:
        for room in [r for r, f in self._followed.items() if f.task is None]:
            if not self.broker.subscribers(room):
                del self._followed[room]
                self.sheets.forget(room)
                self._drop_tokens(room)  # unfollowed: its leave entries go unheard

    def _drop_tokens(self, room: str, member: str | None = None) -> None:
        """Forget the cached tokens of ``room`` (of one ``member`` of it), and the
        members cached by id."""
        for token, m in list(self._members.items()):
            if m.room == room and (member is None or m.id == member):
                del self._members[token]
        for key in [k for k in self._by_id if k[0] == room and member in (None, k[1])]:
            del self._by_id[key]

    def noticed(self, room: str, seq: int, by: int | None = None) -> None:
        """The database process ``by`` wrote ``seq`` to ``room``: read it if followed,
        unless ``by`` is one of this server's connections (its writes are published
        once their commit returns, by the route or :meth:`_committed`)."""
        if by in self.store.own_pids:
            return
        f = self._followed.get(room)
        if f is not None and seq > f.target:
            f.target = seq
            self._catch_up(room, f)

    def reconnected(self) -> None:
        """Notices may have been missed: catch every followed room up from the log."""
        for room, f in self._followed.items():
            self._catch_up(room, f, force=True)

    def _catch_up(self, room: str, f: _Followed, force: bool = False) -> None:
        if not f.ready.is_set():
            return  # its first read is under way, and catches up when done
        if force:
            if f.task is None:
                f.task = asyncio.create_task(self._read_on(room, f))
        elif f.target > f.through:
            self._news[room] = f
            if self._reader is None:
                self._reader = asyncio.create_task(self._read_news())

    PAGE = 500
    """Most entries of one room read at once."""
    GATHER = 0.003
    """Seconds a read of other servers' entries waits for more notices to read with."""

    async def _read_news(self) -> None:
        """Read what other servers announced, for every room at once, until no room is
        behind: one query a round, however many rooms (under load notices come faster
        than reads, and each read gathers all of them). A round waits :attr:`GATHER`
        seconds first, for the notices of other rooms' batches."""
        stalled = 0
        try:
            while self._news and stalled < 1000:
                await asyncio.sleep(self.GATHER)
                behind = list(self._news.items())
                self._news.clear()
                try:
                    got = await self.store.spans(
                        [(r, f.through, min(f.target, f.through + self.PAGE)) for r, f in behind]
                    )
                except Exception as exc:  # the database is away: try again shortly
                    log.warning("referee rooms: could not read the rooms' news: %s", exc)
                    got = {}
                moved = False
                for room, f in behind:
                    moved |= self._read(room, f, got.get(room, []))
                    if f.target > f.through:
                        self._news[room] = f
                stalled = 0 if moved else stalled + 1
                if not moved:  # announced but not readable yet, or an error: shortly
                    await asyncio.sleep(0.01 if stalled < 100 else 0.1)
            if self._news:
                log.warning("referee rooms: news of %s announced, never read", list(self._news))
                self._news.clear()
        finally:
            self._reader = None

    def _read(self, room: str, f: _Followed, got: list[dict[str, Any]]) -> bool:
        """Publish the entries read from the log past ``f.through`` (in seq order);
        whether there were any."""
        fresh = [entry for entry in got if entry["seq"] > f.through]
        for entry in fresh:
            self.published(room, entry)
            f.through = max(f.through, entry["seq"])
        self.store.learned(fresh)  # another server's writes: this one's heads move on
        return bool(fresh)

    async def _read_on(self, room: str, f: _Followed) -> None:
        """Read ``room``'s entries after ``f.through`` and publish them, a page at a
        time, until a page comes back short (after a reconnect: notices may be lost)."""
        try:
            while True:
                got = await self.store.entries(room, f.through, self.PAGE)
                self._read(room, f, got)
                if len(got) < self.PAGE:
                    return
        except Exception as exc:  # the database is away: the reconnect catches up
            log.warning("referee rooms: could not read room %s: %s", room, exc)
        finally:
            f.task = None
            self._catch_up(room, f)

    def spend(self, member: Member) -> None:
        """Take one request from the member's bucket, or raise 429."""
        self._take((member.room, member.id), self.limits.rate, self.limits.burst)

    def knows_room(self, room: str) -> bool:
        return room in self._rooms

    def knows_token(self, token: str) -> bool:
        return token in self._members

    def guard(self, address: str) -> None:
        """Raise 429 if ``address`` has named too many unknown rooms or tokens lately."""
        bucket = self._buckets.get(("!", address))
        if bucket is not None:
            now = time.monotonic()
            tokens = bucket.tokens + (now - bucket.stamp) * self.limits.failures_rate
            if tokens < 1:
                raise ApiError(429, "too many unknown rooms or tokens: slow down")

    def failed(self, address: str) -> None:
        """``address`` named an unknown room or token."""
        with contextlib.suppress(ApiError):
            self._take(("!", address), self.limits.failures_rate, self.limits.failures_burst)

    def spend_anonymous(self, address: str) -> None:
        """Take one tokenless call (creating or joining a room) from the address's bucket,
        or raise 429."""
        if len(self._buckets) > 100_000:  # forget idle buckets (they refill anyway)
            self._buckets.clear()
        self._take(("", address), self.limits.anonymous_rate, self.limits.anonymous_burst)

    def _take(self, key: tuple[str, str], rate: float, burst: float) -> None:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(burst)
        now = time.monotonic()
        bucket.tokens = min(burst, bucket.tokens + (now - bucket.stamp) * rate)
        bucket.stamp = now
        if bucket.tokens < 1:
            raise ApiError(429, "too many requests: slow down")
        bucket.tokens -= 1

    def charge(self, member: Member, requests: float) -> None:
        """Charge costly work (a big roll's dice, a long replay) to the member's bucket,
        as so many more requests; it may go below zero, and the member then waits."""
        bucket = self._buckets.get((member.room, member.id))
        if bucket is not None:
            bucket.tokens -= requests

    async def pace(self, member: Member) -> None:
        """Wait until the member's bucket is above zero again (after costly work)."""
        bucket = self._buckets.get((member.room, member.id))
        while bucket is not None:
            now = time.monotonic()
            tokens = bucket.tokens + (now - bucket.stamp) * self.limits.rate
            if tokens > 0:
                return
            await asyncio.sleep(min(1.0, -tokens / self.limits.rate + 0.01))

    async def append(self, room: str, kind: str, fields: Fields) -> dict[str, Any]:
        """Append to ``room``'s log; the entry is published (with any ``lock`` entry
        written before it) as soon as its batch commits (:meth:`_committed`)."""
        return await self.store.append(room, kind, fields)

    def _committed(self, entries: list[dict[str, Any]]) -> None:
        with self.broker.batch():  # each socket's frames of the batch in one write
            for entry in entries:
                self.published(entry["room"], entry)

    def on_removal(self, room: str, member: str, call: Callable[[], None]) -> Callable[[], None]:
        """Call ``call`` when ``member`` is removed from ``room`` (a ``leave`` entry this
        server writes or reads); returns the function that cancels it."""
        key = (room, member)
        self._removal.setdefault(key, set()).add(call)

        def cancel() -> None:
            calls = self._removal.get(key)
            if calls is not None:
                calls.discard(call)
                if not calls:
                    del self._removal[key]

        return cancel

    def published(self, room: str, entry: dict[str, Any]) -> None:
        """Tell this server's sockets (and caches) of a new entry."""
        f = self._followed.get(room)
        if f is not None:
            if entry["kind"] == "reveal":
                f.revealed.add(entry["of"])
            elif entry["kind"] == "sheet":
                self.sheets.seen(entry)
            if entry["seq"] == f.through + 1 and f.ready.is_set():
                f.through += 1  # seen in order: its notice needs no read
        if entry["kind"] in ("leave", "token"):  # that member's tokens stop working at once
            self._drop_tokens(room, entry["member"])
            for call in list(self._removal.get((room, entry["member"]), ())):
                call()  # and their sockets close, whatever they were sent
            if entry["kind"] == "token":
                for forget in list(self.rotated):
                    forget(room)
        elif entry["kind"] in ("invite", "archive"):
            self._rooms.pop(room, None)  # read afresh: its invite, or that it is archived
        if entry["kind"] in ("combatant", "change", "turn"):
            for told in list(self.fight_watchers):
                told(room)
        self.broker.publish(room, entry)
