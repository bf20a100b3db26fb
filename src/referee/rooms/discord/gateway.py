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
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import TYPE_CHECKING, Any

import hikari

if TYPE_CHECKING:
    from .interactions import Discord

__all__ = ["Gateway", "GatewayRefused", "TOKEN_SECONDS"]

log = logging.getLogger(__name__)

_ID = re.compile(r"[0-9]{1,20}")
_TOKEN = re.compile(r"[A-Za-z0-9_.\-]{1,500}")

TOKEN_SECONDS = 15 * 60
"""How long an interaction's token is good: its id is remembered as long."""


class GatewayRefused(Exception):
    """Discord refused the bot's token, or the gateway could not be reached."""


class Gateway:
    """One gateway connection for the Discord front end ``bot``."""

    def __init__(self, bot: Discord, token: str, base_url: str) -> None:
        self.bot = bot
        self.token = token
        self.base_url = base_url
        """Where the room pages are, for links in answers (``REFEREE_PUBLIC_URL`` first)."""
        self.client: hikari.GatewayBot | None = None
        self._work: set[asyncio.Task[None]] = set()
        self.answered = 0
        """Interactions answered through this connection (not counting repeats)."""
        self.repeats = 0
        """Interactions that arrived again and were not answered again."""

    async def start(self) -> None:
        """Connect, identify and wait for READY.

        Raises:
            GatewayRefused: a token Discord refuses (or that is not a token at all), or
                no gateway to reach.
        """
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
        client.subscribe(hikari.ShardPayloadEvent, self._payload)
        self.client = client
        try:
            await client.start()
        except hikari.UnauthorizedError:
            await self._stop_quietly()
            raise GatewayRefused(
                "Discord refused the bot's token (401 Unauthorized): copy it again from "
                "the application's Bot page into REFEREE_DISCORD_TOKEN"
            ) from None
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
        now = time.time()
        if await self.bot.store.seen(f"gateway:{key}", now + TOKEN_SECONDS, now):
            self.repeats += 1
            return
        status, answer = await self.bot.respond(interaction, self.base_url)
        if status != 200:  # a shape Discord does not send: nothing to answer it with
            log.warning("referee discord: interaction %s refused: %s", key, answer)
            return
        try:
            await self.bot.rest.callback(key, token, answer)
        except Exception as exc:  # noqa: BLE001 - logged; the bot goes on
            log.warning("referee discord: the answer to %s was not taken: %s", key, exc)
            return
        self.answered += 1
