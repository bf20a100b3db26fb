"""``POST /discord/interactions``: Discord's HTTP interactions, in the rooms' server.

Each request is checked (:mod:`.signature`: 401 for anything Discord did not sign just
now, or sent before), then answered: PING with PONG, a slash command with its reply,
an autocomplete with the caller's trait and weapon names. A reply not ready within
:data:`.config.DEFER_AFTER` seconds is deferred (type 5) and finished through the
follow-up webhook. Commands go through the rooms' command reader (worker threads, a
deadline, the shared table's caps), never the event loop; in a channel linked to a
room, through the room's own roll path and views (:mod:`.rolling`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

import orjson

from ...errors import RefereeError
from ..errors import ApiError
from ..rolling.plans import Plans
from ..rolling.reading import read_odds
from ..rolling.rollas import Lru, read_sheet_body
from . import fightpress, fightroom, rolling, setup
from .calls import Call, Done, Refusal
from .characters import complete
from .config import DiscordConfig
from .pacing import Pacer
from .replies import note
from .rest import Rest, RestError
from .signature import Unsigned, Verifier
from .simulating import AT_ONCE
from .store import DiscordStore

if TYPE_CHECKING:
    from ...sheets import Sheet
    from ..state import State

__all__ = ["Discord"]

log = logging.getLogger(__name__)

PING, COMMAND, COMPONENT, AUTOCOMPLETE = 1, 2, 3, 4
PONG, REPLY, DEFERRED, CHOICES = 1, 4, 5, 8


class Discord:
    """The Discord front end of one server: its checks, its state, its REST client."""

    def __init__(self, st: State, config: DiscordConfig) -> None:

        self.st = st
        self.config = config
        self.verifier = Verifier(config.public_key, config.max_age) if config.public_key else None
        """The HTTP endpoint's check; None on the gateway alone (no public key)."""
        self.rest = Rest(
            config.api,
            config.token,
            config.attachment_hosts,
            attachment_seconds=config.attachment_seconds,
        )
        self.store = DiscordStore(st.store)
        st.rotated.append(self.store.forget)  # a new GM token: the old one's links go
        self.odds = Plans(readers=int(st.limits.readers), reader=read_odds)
        self.sheets = Lru(256)
        """Sheets read, by sha256."""
        self.resolved = Lru(4096)
        """``(sha256, command) -> resolved command``."""
        self._later: set[asyncio.Task[None]] = set()
        self._unsigned = _Failures()
        self.joining: dict[tuple[str, str], tuple[asyncio.Lock, int]] = {}
        """A lock per (room, Discord user) while they are joined (one member each), and
        how many interactions use it."""
        self.pacer = Pacer(config.user_pace, config.channel_pace)
        """How fast each user and each channel may send commands (:mod:`.pacing`)."""
        self.fight_desk = fightroom.FightDesk()
        """Each channel's running fight: its status message and the prompts posted."""
        st.fight_watchers.append(self._fight_changed)
        self.fights = asyncio.Semaphore(AT_ONCE)
        """Simulations fought at once (:mod:`.simulating`)."""
        self.local_pages = False
        """The room pages are on this computer only (``referee discord run`` on a
        loopback address, with no ``REFEREE_PUBLIC_URL``): what players see carries no
        link to them, which none of them could open."""

    def _fight_changed(self, room: str) -> None:
        """A room's fight changed (on the page, say): each channel running it follows,
        once the change settles (:func:`.fightroom.follow`)."""
        for channel, desk in list(self.fight_desk.desks.items()):
            if desk.room != room:
                continue
            desk.behind = True  # a follow running now reads it after this change
            if desk.following is None or desk.following.done():
                desk.following = asyncio.ensure_future(fightroom.follow(self, channel, room))
                self._later.add(desk.following)
                desk.following.add_done_callback(self._later.discard)

    async def close(self) -> None:
        for task in list(self._later):
            task.cancel()
        await asyncio.gather(*self._later, return_exceptions=True)
        await self.rest.close()

    async def handle(
        self,
        body: bytes,
        signature: str | None,
        timestamp: str | None,
        base_url: str,
        address: str = "",
    ) -> tuple[int, dict[str, Any]]:
        """``(status, JSON)`` for one request to the interactions endpoint. An address
        whose requests keep failing the signature check gets 429 rather than 401 for
        the next that fail; a request that Discord signed is always taken."""
        if self.verifier is None:
            error = "Discord's HTTP interactions are not set up here (REFEREE_DISCORD_PUBLIC_KEY)"
            return 404, {"error": error}
        try:
            seen, until = self.verifier.check(signature, timestamp, body)
        except Unsigned as exc:
            if not self._unsigned.allowed(address):
                return 429, {"error": "too many unsigned requests from your address: slow down"}
            self._unsigned.charge(address)
            return 401, {"error": f"invalid request signature: {exc}"}
        # Every server and worker, before and after a restart, shares the record.
        if await self.store.seen(seen, until, time.time()):
            return 401, {"error": "invalid request signature: a replayed request"}

        try:
            interaction = orjson.loads(body)
        except orjson.JSONDecodeError:
            return 400, {"error": "the body is not JSON"}
        if not isinstance(interaction, dict):
            return 400, {"error": "an interaction is a JSON object"}
        return await self.respond(interaction, base_url, address)

    async def respond(
        self,
        interaction: dict[str, Any],
        base_url: str,
        address: str = "",
        *,
        defer_after: float | None = None,
    ) -> tuple[int, dict[str, Any]]:
        """``(status, JSON)``: the answer to one interaction, however it came (the HTTP
        endpoint, once its signature is checked, or the gateway, :mod:`.gateway`); 400
        for a shape Discord does not send. A reply not ready within ``defer_after``
        seconds (:attr:`.DiscordConfig.defer_after` by default) is deferred."""
        kind = interaction.get("type")
        if kind == PING:
            return 200, {"type": PONG}
        if kind == COMPONENT:  # a button or a select of the fight (issue 72 §2)
            try:  # a shape Discord does not send is a 400, as a command's
                call = Call.of({**interaction, "data": {"name": "~press"}}, base_url, address)
            except Exception as exc:  # noqa: BLE001 - any malformed shape is a 400
                return 400, {"error": f"a malformed interaction: {_shape(exc)}"}
            slow = self.pacer.take(call.user, call.channel)
            if slow is not None:
                return 200, {"type": REPLY, "data": note(f"⚠ {slow}")}
            url = self.config.public_url or base_url
            return 200, await fightpress.press(self, interaction, url)
        if kind not in (COMMAND, AUTOCOMPLETE):
            return 400, {"error": f"interaction type {str(kind)[:20]} is not one referee takes"}
        try:
            call = Call.of(interaction, self.config.public_url or base_url, address)
        except Exception as exc:  # noqa: BLE001 - any malformed shape is a 400
            return 400, {"error": f"a malformed interaction: {_shape(exc)}"}
        if kind == AUTOCOMPLETE:
            try:
                choices = await complete(self, call)
            except Exception as exc:  # noqa: BLE001 - no choices, never an error
                _why(exc)  # logged if unexpected
                choices = []
            return 200, {"type": CHOICES, "data": {"choices": choices}}
        wait = self.config.defer_after if defer_after is None else defer_after
        return 200, await self._answer(call, wait)

    async def _answer(self, call: Call, defer_after: float) -> dict[str, Any]:
        """The reply within ``defer_after`` seconds of the request, or a deferral
        (ephemeral if the reply will be) and the reply by webhook later."""
        name = call.data["name"]
        slow = self.pacer.take(call.user, call.channel)
        if slow is not None:  # before any work, in a linked channel or not
            return {"type": REPLY, "data": note(f"⚠ {slow}")}
        try:  # whether the reply is ephemeral: from the options alone, before any work
            found = setup.HANDLERS.get(name)
            handler, private = found if found else (rolling.roll, rolling.private)
            ephemeral = private(call)
        except Exception as exc:  # noqa: BLE001 - every refusal is an ephemeral answer
            return {"type": REPLY, "data": note(_why(exc))}
        task = asyncio.ensure_future(_guarded(handler(self, call)))
        finished: set[asyncio.Future[Done]] = (
            set()
        )  # no time left to wait (through the gateway, late): deferred now
        if defer_after > 0:
            finished, _ = await asyncio.wait((task,), timeout=defer_after)
        if not finished:  # the work goes on (asyncio.wait cancels nothing)
            self._spawn(self._finish(call, task, ephemeral))
            return {"type": DEFERRED, "data": {"flags": 64} if ephemeral else {}}
        done = task.result()
        self._run_after(done)
        return {"type": REPLY, "data": done.message}

    async def _finish(self, call: Call, task: asyncio.Future[Done], ephemeral: bool) -> None:
        """Finish a deferred reply. An error after a public deferral is not shown to the
        channel: the "thinking…" message goes, and the error follows, ephemeral."""
        done = await task
        self._run_after(done)  # the GM's copy goes whatever becomes of the reply
        if done.error and not ephemeral:
            await self.rest.delete_original(call.application, call.token)
            await self.rest.follow_up(call.application, call.token, done.message)
            return
        await self.rest.edit_original(call.application, call.token, done.message)

    def _run_after(self, done: Done) -> None:
        for step in done.after:
            self._spawn(step())

    def keep(self, task: asyncio.Future[None]) -> None:
        """Keep ``task`` until it ends (closing the bot cancels it)."""
        self._later.add(task)  # type: ignore[arg-type]
        task.add_done_callback(self._later.discard)

    def _spawn(self, work: Awaitable[None]) -> None:
        async def logged() -> None:
            try:
                await work
            except RestError as exc:
                log.warning("referee discord: %s", exc)
            except Exception:  # a follow-up's failure is logged, never the loop's
                log.exception("referee discord: a follow-up failed")

        task = asyncio.ensure_future(logged())
        self._later.add(task)
        task.add_done_callback(self._later.discard)

    async def sheet(self, sha: str, body: bytes) -> Sheet:
        """A sheet's bytes, read (once per version, in a worker thread)."""
        found: Sheet | None = self.sheets.get(sha)
        if found is None:
            found = await asyncio.to_thread(read_sheet_body, body)
            self.sheets.keep(sha, found)
        return found

    def room_url(self, call: Call, room: str, public: bool = False) -> str:
        """The room's page, or its id alone where no pages are served (the gateway
        with ``--no-serve`` and no ``REFEREE_PUBLIC_URL``), or where they are on this
        computer only and ``public`` (what players see, :attr:`local_pages`)."""
        if not call.base_url or (public and self.local_pages):
            return f"room {room}"
        return f"{call.base_url.rstrip('/')}/rooms/{room}"


def _why(exc: BaseException) -> str:
    """What an ephemeral error says; never a traceback."""
    if isinstance(exc, ApiError):
        return f"⚠ {exc.message}"
    if isinstance(exc, Refusal | RefereeError | ValueError | RestError):
        return f"⚠ {exc}"
    log.exception("referee discord: an interaction failed", exc_info=exc)
    return "⚠ referee failed on this command (an internal error, logged on the server)"


async def _guarded(work: Awaitable[Done]) -> Done:
    try:
        return await work
    except Exception as exc:  # noqa: BLE001 - an error is the reply
        return Done(note(_why(exc)), error=True)


def _shape(exc: Exception) -> str:
    return str(exc) if isinstance(exc, ValueError) else "fields of the wrong types"


class _Failures:
    """Unsigned requests by address: ``burst`` at once, then ``rate`` a second."""

    def __init__(self, rate: float = 2.0, burst: float = 30.0) -> None:
        self.rate, self.burst = rate, burst
        self._left: dict[str, tuple[float, float]] = {}

    def allowed(self, address: str) -> bool:
        found = self._left.get(address)
        if found is None:
            return True
        left, at = found
        return min(self.burst, left + (time.monotonic() - at) * self.rate) >= 1

    def charge(self, address: str) -> None:
        now = time.monotonic()
        left, at = self._left.get(address, (self.burst, now))
        if len(self._left) > 100_000:
            self._left.clear()
        self._left[address] = (min(self.burst, left + (now - at) * self.rate) - 1, now)
