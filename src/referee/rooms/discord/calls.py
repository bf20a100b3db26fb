"""What the Discord front end's handlers take and give: the interaction, checked for
shape (:class:`Call`), and the reply (:class:`Done`)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Call", "Done", "Refusal"]

_SNOWFLAKE = re.compile(r"[0-9]{1,20}")
_TOKEN = re.compile(r"[A-Za-z0-9._-]{1,500}")


class Refusal(Exception):
    """A request that cannot be done as asked: its message goes back, ephemeral."""


@dataclass(frozen=True, slots=True)
class Call:
    """One application-command or autocomplete interaction, checked for shape."""

    application: str
    token: str
    channel: str
    user: str
    name: str
    """The user's name in the guild (nickname, global name or username)."""
    permissions: int
    data: Mapping[str, Any]
    base_url: str
    address: str = ""
    """The client's address (Discord's, or the proxy's with ``--proxy-headers``)."""

    @classmethod
    def of(cls, interaction: Mapping[str, Any], base_url: str, address: str = "") -> Call:
        """Raises ValueError naming the field that is missing or malformed."""
        member = interaction.get("member")
        if member is not None and not isinstance(member, dict):
            raise ValueError("member is not an object")
        user = (member or {}).get("user") or interaction.get("user")
        if not isinstance(user, dict):
            raise ValueError("no user")
        channel = interaction.get("channel_id")
        if channel is None and isinstance(interaction.get("channel"), dict):
            channel = interaction["channel"].get("id")
        fields = {
            "application_id": interaction.get("application_id"),
            "channel_id": channel,
            "user.id": user.get("id"),
        }
        for key, value in fields.items():
            if not isinstance(value, str) or not _SNOWFLAKE.fullmatch(value):
                raise ValueError(f"no {key}")
        token = interaction.get("token")
        if not isinstance(token, str) or not _TOKEN.fullmatch(token):
            raise ValueError("no token")
        data = interaction.get("data")
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise ValueError("no data.name")
        _check_options(data.get("options"), "data.options")
        if not isinstance(data.get("resolved", {}), dict):
            raise ValueError("data.resolved is not an object")
        nick = member.get("nick") if isinstance(member, dict) else None
        name = nick or user.get("global_name") or user.get("username") or "player"
        try:
            permissions = int((member or {}).get("permissions") or 0)
        except (TypeError, ValueError):
            raise ValueError("member.permissions is not a number") from None
        return cls(
            str(fields["application_id"]),
            token,
            str(channel),
            str(user["id"]),
            " ".join(str(name).split())[:40] or "player",
            permissions,
            data,
            base_url,
            address,
        )


@dataclass(slots=True)
class Done:
    """A finished reply, and what to send after it (the GM channel's copy)."""

    message: dict[str, Any]
    after: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    error: bool = False
    """The message is an error (which is never shown to the channel)."""


def _check_options(options: Any, where: str, depth: int = 0) -> None:
    """Options are a list of objects, each with a name, nested at most three deep (a
    group, a subcommand, its options): ValueError naming where they are not."""
    if options is None:
        return
    if not isinstance(options, list) or len(options) > 25 or depth > 2:
        raise ValueError(f"{where} is not a list of at most 25 options")
    for option in options:
        if not isinstance(option, dict) or not isinstance(option.get("name"), str):
            raise ValueError(f"{where} holds an option with no name")
        _check_options(option.get("options"), where, depth + 1)
