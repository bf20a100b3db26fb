"""A bot token's shape, checked before anything heavy is imported, so that
``referee discord run`` with no token, or with something else in its place, says so at
once rather than after seconds of start-up. Only Discord can say whether a well-made
token is the bot's (:mod:`.gateway` reports its refusal)."""

from __future__ import annotations

import base64
import binascii
import re

__all__ = ["MISSING", "token_problem"]

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
