"""Discord's gateway: the bot connects outward, so a GM's own computer needs no public
address (``referee discord run``).

The gateway protocol (connect, identify, heartbeat, resume and reconnect, its rate
limits) is hikari's (:class:`hikari.GatewayBot`), pointed at ``REFEREE_DISCORD_API``
through its ``rest_url``: it asks that API for the gateway's address
(``GET /gateway/bot``), so a stand-in REST API brings a stand-in gateway with it.
Each ``INTERACTION_CREATE`` that arrives (hikari's raw :class:`hikari.ShardPayloadEvent`,
the interaction as Discord sent it) goes to the same handler as the HTTP endpoint's
(:meth:`.interactions.Discord.respond`), and its answer to the interaction callback
endpoint (``POST /interactions/{id}/{token}/callback``); a deferred answer is finished
by webhook, as over HTTP. An interaction that arrives twice (a RESUME replays what
the bot may not have seen) is answered once: its id goes into the database's record
of interactions seen, beside the HTTP endpoint's signatures, for every server and
restart.

An interaction that reaches the bot after Discord's answer window (3 seconds from when
Discord made it, which its id tells: :func:`made_at`) is not rolled or logged: its
answer would be refused (404, code 10062), and the player has been told it failed.
This happens after a RESUME, when the connection was down longer than the window;
the bot's log says so. One that arrives within the window is deferred in time for
its answer to be taken. A frame the bot cannot read is skipped (:mod:`.frames`).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import hikari

from .frames import Frames
from .token import REFUSED

if TYPE_CHECKING:
    from .interactions import Discord

__all__ = ["ENDS", "RECONNECTS", "Gateway", "GatewayRefused", "TOKEN_SECONDS", "ended", "made_at"]

log = logging.getLogger(__name__)

_ID = re.compile(r"[0-9]{1,20}")
_TOKEN = re.compile(r"[A-Za-z0-9_.\-]{1,500}")

TOKEN_SECONDS = 15 * 60
"""How long an interaction's token is good: its id is remembered as long."""


DISCORD_EPOCH_MS = 1_420_070_400_000
"""The first millisecond of 2015 (UTC), from which Discord's ids count time."""
TRIP = 0.5
"""Seconds left for an answer's own way to Discord: an interaction that arrives with
less than its window and this left is deferred at once."""


RECONNECTS = frozenset({4000, 4001, 4002, 4003, 4005, 4007, 4008, 4009})
"""The gateway's close codes after which a client connects again, as Discord's table
of them has it (https://discord.com/developers/docs/topics/opcodes-and-status-codes,
"Gateway Close Event Codes": unknown error, unknown opcode, decode error, not
authenticated, already authenticated, invalid seq, rate limited, session timed out).
hikari's own list leaves out 4001, 4003 and 4005, and ended the bot on them."""
ENDS = frozenset({4004, 4010, 4011, 4012, 4013, 4014})
"""The close codes that end the bot: the token refused (4004), and a shard, version
or intents Discord will not take (4010-4014); the table marks them not to reconnect."""


def reconnects(code: int) -> bool:
    """Whether the bot connects again after the gateway closes with ``code`` (below
    4000: the connection's own codes; from 4000: Discord's table).

    >>> [c for c in range(4000, 4015) if not reconnects(c)]
    [4004, 4006, 4010, 4011, 4012, 4013, 4014]
    """
    return code < 4000 or code in RECONNECTS


def _follow_the_table() -> None:
    """hikari's shard reads which close codes to reconnect after from one set: it is
    given Discord's (:data:`RECONNECTS`)."""
    import hikari.impl.shard as shard

    shard._RECONNECTABLE_CLOSE_CODES = frozenset(
        hikari.errors.ShardCloseCode(c) for c in sorted(RECONNECTS)
    )


def made_at(snowflake: str) -> float:
    """When Discord made the thing with id ``snowflake``, in seconds since 1970 (an id's
    top 42 bits are its milliseconds since :data:`DISCORD_EPOCH_MS`).

    >>> made_at("175928847299117063")  # Discord's own example: 2016-04-30 11:18:25.796
    1462015105.796
    """
    return ((int(snowflake) >> 22) + DISCORD_EPOCH_MS) / 1000


class GatewayRefused(Exception):
    """Discord refused the bot's token, or the gateway could not be reached."""


def ended(exc: BaseException) -> str:
    """Why the connection ended for good, in the words ``referee discord run`` ends with."""
    if isinstance(exc, hikari.GatewayServerClosedConnectionError):
        if exc.code == 4004:
            return REFUSED.format(why=f"4004 {exc.reason or 'Authentication failed'}")
        return f"Discord closed the connection for good (code {exc.code}: {exc.reason})"
    return f"the connection to Discord's gateway failed ({type(exc).__name__}: {exc})"


class Gateway:
    """One gateway connection for the Discord front end ``bot``."""

    def __init__(
        self,
        bot: Discord,
        token: str,
        base_url: str,
        *,
        clock: Callable[[], float] = time.time,
        window: float | None = None,
    ) -> None:
        self.bot = bot
        self.clock = clock
        """Seconds since 1970, now (an interaction's age is read against it)."""
        self.window = bot.config.answer_window if window is None else window
        """Seconds Discord waits for an interaction's answer (:data:`.config.ANSWER_WINDOW`)."""
        self.token = token
        self.base_url = base_url
        """Where the room pages are, for links in answers (``REFEREE_PUBLIC_URL`` first)."""
        self.client: hikari.GatewayBot | None = None
        self._work: set[asyncio.Task[None]] = set()
        self.answered = 0
        """Interactions answered through this connection (not counting repeats)."""
        self.repeats = 0
        """Interactions that arrived again and were not answered again."""
        self.late = 0
        """Interactions that arrived past their answer window, not rolled."""
        self.frames: Frames | None = None

    async def start(self) -> None:
        """Connect, identify and wait for READY.

        Raises:
            GatewayRefused: a token Discord refuses (or that is not a token at all), or
                no gateway to reach.
        """
        _follow_the_table()
        try:
            client = hikari.GatewayBot(
                self.token,
                banner=None,
                logs=None,
                suppress_optimization_warning=True,
                intents=hikari.Intents.NONE,
                cache_settings=hikari.impl.CacheSettings(
                    components=hikari.api.CacheComponents.NONE
                ),
                auto_chunk_members=False,
                rest_url=self.bot.config.api,
            )
        except ValueError as exc:
            raise GatewayRefused(f"REFEREE_DISCORD_TOKEN is not a bot token ({exc})") from None
        # The shard reads its frames with this decoder (hikari's REST client keeps the
        # one it was made with): a frame it cannot read is skipped, never fatal.
        self.frames = client._loads = Frames(client._loads)
        client.subscribe(hikari.ShardPayloadEvent, self._payload)
        self.client = client
        try:
            await client.start()
        except hikari.UnauthorizedError:
            await self._stop_quietly()
            raise GatewayRefused(REFUSED.format(why="401 Unauthorized")) from None
        except hikari.GatewayServerClosedConnectionError as exc:
            await self._stop_quietly()
            raise GatewayRefused(ended(exc)) from None
        except (hikari.HikariError, OSError) as exc:
            await self._stop_quietly()
            raise GatewayRefused(f"could not reach Discord's gateway: {exc}") from None

    async def _stop_quietly(self) -> None:
        try:
            if self.client is not None:
                await self.client.close()
        except Exception:  # noqa: BLE001 - it never fully started
            pass

    async def join(self) -> None:
        """Until the connection ends for good (a token revoked, or :meth:`close`)."""
        if self.client is not None:
            await self.client.join()

    async def close(self) -> None:
        if self.client is not None and self.client.is_alive:
            await self.client.close()
        for task in list(self._work):
            task.cancel()
        await asyncio.gather(*self._work, return_exceptions=True)

    async def _payload(self, event: hikari.ShardPayloadEvent) -> None:
        if event.name != "INTERACTION_CREATE":
            return
        task = asyncio.ensure_future(self.deliver(dict(event.payload)))
        self._work.add(task)
        task.add_done_callback(self._work.discard)

    async def deliver(self, interaction: dict[str, Any]) -> None:
        """Answer one interaction as it came through the gateway: once, whatever the
        number of times it comes."""
        key, token = interaction.get("id"), interaction.get("token")
        if not (
            isinstance(key, str)
            and isinstance(token, str)
            and _ID.fullmatch(key)
            and _TOKEN.fullmatch(token)
        ):  # (both go into the callback's path)
            log.warning("referee discord: an interaction with no good id or token, ignored")
            return
        left = self.window - (self.clock() - made_at(key))
        if left < 0:
            self.late += 1
            log.warning(
                "referee discord: interaction %s (%s) came %.2f s after Discord made it, "
                "past the %g s Discord waits for an answer: not rolled, not logged "
                "(Discord has told them it failed; they may send it again). If every "
                "interaction comes late, set this computer's clock right.",
                key, _what(interaction), self.window - left, self.window,
            )  # fmt: skip
            return
        now = time.time()
        if await self.bot.store.seen(f"gateway:{key}", now + TOKEN_SECONDS, now):
            self.repeats += 1
            return
        defer = min(self.bot.config.defer_after, max(0.0, left - TRIP))
        status, answer = await self.bot.respond(interaction, self.base_url, defer_after=defer)
        if status != 200:  # a shape Discord does not send: nothing to answer it with
            log.warning("referee discord: interaction %s refused: %s", key, answer)
            return
        try:
            await self.bot.rest.callback(key, token, answer)
        except Exception as exc:  # noqa: BLE001 - logged; the bot goes on
            log.warning("referee discord: the answer to %s was not taken: %s", key, exc)
            return
        self.answered += 1


def _what(interaction: dict[str, Any]) -> str:
    """``/roll by dai``: which command an interaction was, and whose, for the log.

    >>> _what({"data": {"name": "roll"}, "member": {"user": {"username": "dai"}}})
    '/roll by dai'
    >>> _what({"data": None})
    'an interaction'
    """
    data, member = interaction.get("data"), interaction.get("member")
    name = data.get("name") if isinstance(data, dict) else None
    user = member.get("user") if isinstance(member, dict) else interaction.get("user")
    who = user.get("username") if isinstance(user, dict) else None
    if not isinstance(name, str):
        return "an interaction"
    return f"/{name[:32]}" + (f" by {str(who)[:40]}" if who else "")
