"""What the Discord front end's handlers take and give: the interaction, checked for
shape (:class:`Call`), and the reply on its way (:class:`Pending`, :class:`Done`)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Call", "Done", "Pending", "Refusal"]

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

    @classmethod
    def of(cls, interaction: Mapping[str, Any], base_url: str) -> Call:
        """Raises ValueError naming the field that is missing or malformed."""
        member = interaction.get("member")
        user = (member or {}).get("user") if isinstance(member, dict) else None
        user = user or interaction.get("user")
        if not isinstance(user, dict):
            raise ValueError("no user")
        channel = interaction.get("channel_id") or (interaction.get("channel") or {}).get("id")
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
        )


@dataclass(slots=True)
class Done:
    """A finished reply, and what to send after it (the GM channel's copy)."""

    message: dict[str, Any]
    after: list[Callable[[], Awaitable[None]]] = field(default_factory=list)


@dataclass(slots=True)
class Pending:
    """A reply on its way: whether it is ephemeral (known before any work), and the work."""

    ephemeral: bool
    work: Awaitable[Done]
