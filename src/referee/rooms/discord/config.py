"""How the Discord front end is set up: from ``referee serve``'s environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from .pacing import CHANNEL, USER, Pace, pace_from
from .rest import API, ATTACHMENT_HOSTS, ATTACHMENT_SECONDS
from .signature import MAX_AGE

__all__ = ["ANSWER_WINDOW", "DEFER_AFTER", "DiscordConfig"]

DEFER_AFTER = 2.0
"""Seconds an answer may take before it is deferred (Discord waits 3 at most)."""
ANSWER_WINDOW = 3.0
"""Seconds Discord waits for an interaction's answer, from when it made the
interaction: through the gateway, one that arrives later is not rolled."""


@dataclass(frozen=True, slots=True)
class DiscordConfig:
    """The application's public key (which checks each interaction), and the rest."""

    public_key: str
    """``REFEREE_DISCORD_PUBLIC_KEY``: 64 hex digits, from the application's page; empty
    on the gateway alone (``referee discord run``), which takes no HTTP interactions."""
    token: str | None = None
    """``REFEREE_DISCORD_TOKEN``: the bot's token, for messages to the GM's channel."""
    api: str = API
    """``REFEREE_DISCORD_API``: Discord's REST API (a local stand-in in tests)."""
    attachment_hosts: tuple[str, ...] = ATTACHMENT_HOSTS
    """``REFEREE_DISCORD_ATTACHMENT_HOSTS`` (comma-separated URL prefixes): where a
    sheet may be fetched from."""
    attachment_seconds: float = ATTACHMENT_SECONDS
    """``REFEREE_DISCORD_ATTACHMENT_SECONDS``: seconds a sheet's whole download may take."""
    max_age: float = MAX_AGE
    """Seconds a signed interaction stays good."""
    defer_after: float = DEFER_AFTER
    """``REFEREE_DISCORD_DEFER_AFTER``: seconds before a slow answer is deferred."""
    answer_window: float = ANSWER_WINDOW
    """``REFEREE_DISCORD_ANSWER_WINDOW``: seconds Discord waits for an answer (3, its
    own limit; a stand-in's tests, which have none, set more)."""
    user_pace: Pace = USER
    """``REFEREE_DISCORD_USER_PACE`` (``BURST,RATE``): one Discord user's commands."""
    channel_pace: Pace = CHANNEL
    """``REFEREE_DISCORD_CHANNEL_PACE`` (``BURST,RATE``): one channel's commands."""
    public_url: str | None = None
    """``REFEREE_PUBLIC_URL``: the server's address as players reach it, for links to
    a room's log (else the address the request came to, which ``--proxy-headers``
    makes the proxy's)."""

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None) -> DiscordConfig | None:
        """The set-up the environment gives, or None without a public key (the route
        then answers 404: Discord is not set up on this server)."""
        env = os.environ if env is None else env
        key = env.get("REFEREE_DISCORD_PUBLIC_KEY", "").strip()
        if not key:
            return None
        return cls._from(env, key)

    @classmethod
    def for_gateway(cls, env: Mapping[str, str] | None = None) -> DiscordConfig | None:
        """``referee discord run``'s set-up: the bot's token is all it needs (None
        without one); a public key, if one is set too, also opens the HTTP endpoint on
        the pages it serves."""
        env = os.environ if env is None else env
        if not env.get("REFEREE_DISCORD_TOKEN", "").strip():
            return None
        return cls._from(env, env.get("REFEREE_DISCORD_PUBLIC_KEY", "").strip())

    @classmethod
    def _from(cls, env: Mapping[str, str], key: str) -> DiscordConfig:
        hosts = env.get("REFEREE_DISCORD_ATTACHMENT_HOSTS")
        return cls(
            public_key=key,
            token=env.get("REFEREE_DISCORD_TOKEN", "").strip() or None,
            api=env.get("REFEREE_DISCORD_API") or API,
            attachment_hosts=tuple(h.strip() for h in hosts.split(",") if h.strip())
            if hosts
            else ATTACHMENT_HOSTS,
            public_url=env.get("REFEREE_PUBLIC_URL") or None,
            defer_after=float(env.get("REFEREE_DISCORD_DEFER_AFTER") or DEFER_AFTER),
            answer_window=float(env.get("REFEREE_DISCORD_ANSWER_WINDOW") or ANSWER_WINDOW),
            attachment_seconds=float(
                env.get("REFEREE_DISCORD_ATTACHMENT_SECONDS") or ATTACHMENT_SECONDS
            ),
            user_pace=pace_from(env.get("REFEREE_DISCORD_USER_PACE"), USER),
            channel_pace=pace_from(env.get("REFEREE_DISCORD_CHANNEL_PACE"), CHANNEL),
        )
