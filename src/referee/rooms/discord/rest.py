"""Discord's REST API, as the bot uses it (``httpx``): the follow-up webhook that
finishes a deferred reply, a message to the GM's channel, the commands' registration,
and a sheet's download from Discord's attachment hosts. The base URL is configurable:
the tests point it at a local stand-in that records the calls."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import threading
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from .token import API

if TYPE_CHECKING:
    import httpx

__all__ = ["API", "ATTACHMENT_HOSTS", "Rest", "RestError"]

ATTACHMENT_HOSTS = ("https://cdn.discordapp.com/", "https://media.discordapp.net/")
"""Where Discord keeps attachments: a sheet is fetched from these only."""


ATTACHMENT_SECONDS = 10.0
"""Seconds a sheet's whole download may take. Discord's CDN serves 1 MiB in well under
a second; 10 leaves room for a slow link, and a trickled file no longer holds ``/sheet``
(or outlasts the 15-minute webhook token)."""


class RestError(Exception):
    """A call to Discord that failed (its message says which and why: Discord's own
    error code and message, when it gave them)."""

    def __init__(self, message: str, status: int | None = None, code: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


def _httpx() -> ModuleType:
    """httpx, imported on the first call rather than at the top (0.13 s of the bot's
    start before it connects, which the gateway does not need: issue 74 §2), and
    without its command line (``httpx._main``, which imports click, rich and pygments:
    a third of its import, for a program the server never runs; httpx falls back to a
    stub when it cannot be imported)."""
    if "httpx" not in sys.modules:
        sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    import httpx

    return httpx


class Rest:
    """Calls to Discord's REST API at ``api``, as the bot ``token`` where one is needed."""

    def __init__(
        self,
        api: str = API,
        token: str | None = None,
        attachment_hosts: Sequence[str] = ATTACHMENT_HOSTS,
        timeout: float = 10.0,
        attachment_seconds: float = ATTACHMENT_SECONDS,
    ) -> None:
        self.api = api.rstrip("/")
        self.token = token
        self.attachment_hosts = tuple(attachment_hosts)
        self.timeout = timeout
        self.attachment_seconds = attachment_seconds
        self._client: httpx.AsyncClient | None = None
        self._making = threading.Lock()

    def _http(self) -> httpx.AsyncClient:
        httpx = _httpx()
        if self._client is None:
            with self._making:  # made once, here or in prepare's thread
                if self._client is None:
                    self._client = httpx.AsyncClient(
                        timeout=self.timeout,
                        follow_redirects=False,
                        headers={
                            "User-Agent": "DiscordBot (https://github.com/referee, 1) referee"
                        },
                    )
        return self._client

    def prepare(self) -> None:
        """Make the HTTP client now, in any thread: its TLS context takes 30-80 ms,
        which the first call would otherwise spend on the event loop."""
        self._http()

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def _call(self, method: str, path: str, payload: Any, bot: bool) -> Any:
        httpx = _httpx()

        headers = {}
        if bot:
            if not self.token:
                raise RestError("no bot token (REFEREE_DISCORD_TOKEN) to post with")
            headers["Authorization"] = f"Bot {self.token}"
        try:
            response = await self._http().request(
                method, self.api + path, json=payload, headers=headers
            )
        except httpx.HTTPError as exc:
            said = self._redacted(" ".join(str(exc).split()), path)[:200]
            raise RestError(
                f"{method} {_shown(path)}: could not reach Discord's API at {self.api} "
                f"({type(exc).__name__}{': ' + said if said else ''})"
            ) from None
        if response.status_code >= 300:
            code, why = discord_error(response.content)
            why = self._redacted(why, path)
            raise RestError(
                f"{method} {_shown(path)}: Discord answered {response.status_code}{why}",
                response.status_code,
                code,
            )
        return response.json() if response.content else None

    def _redacted(self, text: str, path: str) -> str:
        """``text`` (Discord's words for an error, which it may echo from the request)
        without the bot's token, the interaction's token in ``path``, or anything shaped
        like either."""
        secrets = [self.token or "", *_path_tokens(path)]
        for secret in sorted(filter(None, secrets), key=len, reverse=True):
            text = text.replace(secret, "…")
        return _TOKEN_SHAPED.sub("…", text)

    async def callback(self, interaction: str, token: str, answer: dict[str, Any]) -> None:
        """Answer an interaction that came through the gateway (over HTTP, the answer is
        the response to Discord's request): within 3 seconds of it."""
        await self._call("POST", f"/interactions/{interaction}/{token}/callback", answer, bot=False)

    async def edit_original(self, application: str, token: str, message: dict[str, Any]) -> None:
        """Finish a deferred reply (its interaction's token lasts 15 minutes)."""
        await self._call(
            "PATCH", f"/webhooks/{application}/{token}/messages/@original", message, bot=False
        )

    async def delete_original(self, application: str, token: str) -> None:
        """Take back a deferred reply's "thinking…" message."""
        await self._call(
            "DELETE", f"/webhooks/{application}/{token}/messages/@original", None, bot=False
        )

    async def follow_up(self, application: str, token: str, message: dict[str, Any]) -> None:
        """Another message in answer to an interaction (ephemeral if its flags say)."""
        await self._call("POST", f"/webhooks/{application}/{token}", message, bot=False)

    async def post(self, channel: str, message: dict[str, Any]) -> Any:
        """A message from the bot in ``channel`` (the GM's channel, a fight's status):
        the message Discord made (its ``id``)."""
        return await self._call("POST", f"/channels/{channel}/messages", message, bot=True)

    async def edit(self, channel: str, message_id: str, message: dict[str, Any]) -> None:
        """Edit one of the bot's messages (a fight's status)."""
        await self._call("PATCH", f"/channels/{channel}/messages/{message_id}", message, bot=True)

    async def register(
        self, application: str, commands: list[dict[str, Any]], guild: str | None = None
    ) -> Any:
        """Put every slash command (overwriting the old ones); in one guild, at once,
        or everywhere (which Discord may take a while to spread)."""
        where = f"/guilds/{guild}" if guild else ""
        return await self._call(
            "PUT", f"/applications/{application}{where}/commands", commands, bot=True
        )

    def allowed(self, url: str) -> bool:
        """Whether ``url`` is on one of Discord's attachment hosts: the same scheme,
        host and port as one of :attr:`attachment_hosts`, under its path.

        >>> Rest().allowed("https://cdn.discordapp.com/attachments/1/2/dai.toml")
        True
        >>> Rest(attachment_hosts=["https://cdn.discordapp.com"]).allowed(
        ...     "https://cdn.discordapp.com.evil.example/dai.toml")
        False
        """
        try:
            got = urlsplit(url)
            netloc = got.netloc.lower()
        except ValueError:
            return False
        if got.username or got.password:
            return False
        # A dot segment (``..``, ``%2e%2e``, ``.%2E``...) would climb out of the prefix
        # once the client or the host resolves it: refused, however it is encoded.
        path = got.path
        for _ in range(4):
            if any(part in (".", "..") for part in re.split(r"[/\\]", path)):
                return False
            path, before = unquote(path), path
            if path == before:
                break
        else:
            return False  # encoded over and over: no attachment's address
        for host in self.attachment_hosts:
            want = urlsplit(host)
            path = want.path if want.path.endswith("/") else want.path + "/"
            if (got.scheme, netloc) == (want.scheme, want.netloc.lower()) and (
                got.path.startswith(path)
            ):
                return True
        return False

    async def attachment(self, url: str, most: int) -> bytes:
        """An attachment's bytes, from Discord's hosts only, ``most`` bytes at most,
        within :attr:`attachment_seconds` for the whole download.

        Raises:
            RestError: another host, a failed or slow download, or a file over ``most``.
        """
        httpx = _httpx()

        if not self.allowed(url):
            raise RestError("the file is not on Discord's attachment hosts")
        got = bytearray()
        try:
            async with asyncio.timeout(self.attachment_seconds):
                async with self._http().stream("GET", url) as response:
                    if response.status_code != 200:
                        raise RestError(f"the file could not be fetched ({response.status_code})")
                    async for chunk in response.aiter_bytes():
                        got += chunk
                        if len(got) > most:
                            raise RestError(f"the file is over {_size(most)}")
        except TimeoutError:
            seconds = self.attachment_seconds
            raise RestError(
                f"the file could not be fetched within {seconds:g} "
                f"second{'' if seconds == 1 else 's'}: try again"
            ) from None
        except httpx.HTTPError as exc:
            raise RestError(f"the file could not be fetched ({type(exc).__name__})") from None
        return bytes(got)


def discord_error(body: bytes) -> tuple[int | None, str]:
    """Discord's error code, and its words for the answer, from an error's JSON body
    (``{"code": 50035, "message": "Invalid Form Body", "errors": {...}}``).

    >>> discord_error(b'{"code": 50035, "message": "Invalid Form Body", "errors": {"0":'
    ...     b' {"_errors": [{"code": "X", "message": "Command exceeds maximum size"}]}}}')
    (50035, ', code 50035: Invalid Form Body (0: Command exceeds maximum size)')
    >>> discord_error(b"<html>")
    (None, '')
    """
    try:
        found = json.loads(body)
    except ValueError:
        return None, ""
    if not isinstance(found, dict):
        return None, ""
    code = found.get("code")
    code = code if isinstance(code, int) and not isinstance(code, bool) else None
    words = " ".join(str(found.get("message") or "").split())[:200]
    details = "; ".join(list(_errors(found.get("errors"), ""))[:5])[:600]
    text = (f", code {code}" if code is not None else "") + (f": {words}" if words else "")
    return code, text + (f" ({details})" if details else "")


def _errors(tree: Any, where: str) -> Iterator[str]:
    """The messages of Discord's nested ``errors`` object, each with where it is."""
    if not isinstance(tree, dict):
        return
    for key, value in tree.items():
        if key == "_errors" and isinstance(value, list):
            for error in value:
                if isinstance(error, dict) and error.get("message"):
                    yield f"{where or 'the request'}: {' '.join(str(error['message']).split())}"
        else:
            yield from _errors(value, f"{where}.{key}" if where else str(key))


_TOKEN_SHAPED = re.compile(
    r"[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}"  # a bot token
    r"|(?<![A-Za-z0-9_-])aW50ZXJhY3Rpb246[A-Za-z0-9_.-]+"  # "interaction:" in base64
    r"|[A-Za-z0-9_-]{60,}"  # any long secret-like run
)
"""What a token looks like, redacted from Discord's words wherever it is echoed."""


def _path_tokens(path: str) -> list[str]:
    """The interaction tokens in a callback's or a webhook's path.

    >>> _path_tokens("/interactions/1300000000000000001/tok-abc.DEF/callback")
    ['tok-abc.DEF']
    >>> _path_tokens("/channels/1/messages")
    []
    """
    found = re.match(r"^/(?:interactions|webhooks)/\d+/([^/]+)", path)
    return [found[1]] if found else []


def _shown(path: str) -> str:
    """``path`` as logged: an interaction's token (good for 15 minutes, for its
    webhook and its callback) is not.

    >>> _shown("/interactions/1300000000000000001/tok-abc.DEF/callback")
    '/interactions/1300000000000000001/…/callback'
    >>> _shown("/webhooks/1100000000000000001/tok-abc/messages/@original")
    '/webhooks/1100000000000000001/…/messages/@original'
    """
    path = re.sub(r"^(/interactions/\d+/)[^/]+", r"\1…", path)
    return re.sub(r"^(/webhooks/\d+/)[^/]+", r"\1…", path)


def _size(most: int) -> str:
    return f"{most // 2**20} MiB" if most % 2**20 == 0 else f"{most // 1024} KiB"
