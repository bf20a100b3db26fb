"""A bot token's shape, checked before anything heavy is imported, so that
``referee discord run`` with no token, or with something else in its place, says so at
once rather than after seconds of start-up. Only Discord can say whether a well-made
token is the bot's: :func:`ask_discord` asks it (``GET /gateway/bot``) in a thread
while the rest is imported, and a refusal ends the bot as soon as Discord answers
(before, 3.8-5.4 s after start, once every import and the database were done); past
that, :mod:`.gateway` reports a refusal as hikari meets it."""

from __future__ import annotations

import base64
import binascii
import os
import re
import sys
import threading

__all__ = ["API", "MISSING", "OPENING", "REFUSED", "ask_discord", "token_problem"]

API = "https://discord.com/api/v10"
"""Discord's REST API (version 10)."""

REFUSED = (
    "Discord refused the bot's token ({why}): copy it again from the application's Bot "
    "page into REFEREE_DISCORD_TOKEN"
)
OPENING = threading.Event()
"""Set when ``referee discord run`` begins to open its database: from then on, a
refusal is left to the gateway's own report, and the process is not ended under it."""

MISSING = "set REFEREE_DISCORD_TOKEN to the bot's token (the application's Bot page)"
_PART = re.compile(r"[A-Za-z0-9_-]+")


def token_problem(token: str | None) -> str | None:
    """What is wrong with ``token`` as a bot token, or None for one of the right shape:
    three parts joined by dots, the first the bot's id in base64.

    >>> token_problem("MTEwMDAwMDAwMDAwMDAwMDAwMQ.GtEsT0.not-a-real-token") is None
    True
    >>> token_problem("not a token")
    "REFEREE_DISCORD_TOKEN is not a bot token (it has spaces): copy it again from the application's Bot page"
    >>> token_problem("abc.def.ghi")
    "REFEREE_DISCORD_TOKEN is not a bot token (its first part is not the bot's id in base64): copy it again from the application's Bot page"
    """  # noqa: E501
    token = (token or "").strip()
    if not token:
        return MISSING
    parts = token.split(".")
    if any(c.isspace() for c in token):
        why = "it has spaces"
    elif len(parts) != 3 or not all(_PART.fullmatch(p) for p in parts):
        why = "a bot token is three parts of letters, digits, - and _, joined by dots"
    else:
        try:
            head = base64.urlsafe_b64decode(parts[0] + "=" * (-len(parts[0]) % 4))
        except (binascii.Error, ValueError):
            head = b""
        why = "" if head.isdigit() else "its first part is not the bot's id in base64"
    if not why:
        return None
    return (
        f"REFEREE_DISCORD_TOKEN is not a bot token ({why}): copy it again from the "
        "application's Bot page"
    )


def refused(token: str, api: str, timeout: float = 10.0) -> str | None:
    """Discord's refusal of ``token`` (``GET {api}/gateway/bot`` answered 401), in the
    words ``referee discord run`` ends with; None for any other answer or none at all
    (the gateway then says what it meets)."""
    import urllib.error
    import urllib.request

    asked = urllib.request.Request(
        api.rstrip("/") + "/gateway/bot",
        headers={"Authorization": f"Bot {token}", "User-Agent": "DiscordBot (referee, 1)"},
    )
    try:
        with urllib.request.urlopen(asked, timeout=timeout):
            return None
    except urllib.error.HTTPError as exc:
        return REFUSED.format(why="401 Unauthorized") if exc.code == 401 else None
    except (OSError, ValueError):
        return None


def ask_discord(token: str, api: str, said: str = "referee discord run") -> threading.Thread:
    """Ask Discord whether it takes ``token``, in a thread of its own; if it refuses
    before :data:`OPENING` is set, say so on standard error and end the process (exit
    2) at once."""

    def ask() -> None:
        why = refused(token, api)
        if why is not None and not OPENING.is_set():
            sys.stderr.write(f"{said}: {why}\n")
            sys.stderr.flush()
            os._exit(2)

    thread = threading.Thread(target=ask, name="referee-token", daemon=True)
    thread.start()
    return thread
