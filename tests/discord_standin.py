"""Discord, as far as the tests need it: inbound interactions signed with a fresh
Ed25519 key exactly as Discord signs them (the timestamp, then the raw body), in the
shapes its documentation gives; and a local HTTP server standing in for its REST API
(and its attachment host), which records every call. Discord itself cannot be reached
from these machines: this is the one part of referee tested against a stand-in."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count
from typing import Any

import httpx
from nacl.signing import SigningKey

from rooms_server import running

APPLICATION = "1100000000000000001"
GUILD = "1200000000000000002"
_ids = count(1_300_000_000_000_000_000)


@dataclass(repr=False)
class StandIn:
    """The REST stand-in: its base URL, the calls it got, the files it serves."""

    base: str
    calls: list[dict[str, Any]] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    redirects: dict[str, str] = field(default_factory=dict)
    gets: list[str] = field(default_factory=list)
    """Every path fetched (the attachments asked for)."""
    answers: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    """Paths answered with an error, as Discord answers one: ``(status, its JSON)``."""
    trickled: set[str] = field(default_factory=set)
    """Paths whose file is sent a byte every 0.2 seconds."""

    def __repr__(self) -> str:  # not its calls: hypothesis prints its arguments
        return f"StandIn({self.base!r}, {len(self.calls)} calls)"

    def posted(self, channel: str) -> list[dict[str, Any]]:
        return [
            c["json"] for c in self.calls if c["path"].endswith(f"/channels/{channel}/messages")
        ]

    def wait_for(self, count: int, timeout: float = 10) -> None:
        end = time.monotonic() + timeout
        while len(self.calls) < count and time.monotonic() < end:
            time.sleep(0.01)
        assert len(self.calls) >= count, self.calls


@contextmanager
def stand_in() -> Iterator[StandIn]:
    """A local REST stand-in on a free loopback port."""
    state = StandIn("")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _record(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            state.calls.append(
                {
                    "method": self.command,
                    "path": self.path,
                    "authorization": self.headers.get("authorization"),
                    "json": json.loads(body) if body else None,
                }
            )
            status, answer = state.answers.get(self.path, (200, {}))
            out = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        do_POST = do_PATCH = do_PUT = do_DELETE = _record

        def do_GET(self) -> None:
            state.gets.append(self.path)
            elsewhere = state.redirects.get(self.path)
            if elsewhere is not None:
                self.send_response(302)
                self.send_header("location", elsewhere)
                self.send_header("content-length", "0")
                self.end_headers()
                return
            found = state.files.get(self.path)
            if found is None:
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("content-length", str(len(found)))
            self.end_headers()
            if self.path not in state.trickled:
                self.wfile.write(found)
                return
            for i in range(len(found)):
                self.wfile.write(found[i : i + 1])
                self.wfile.flush()
                time.sleep(0.2)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


class Signer:
    """An application's key pair: signs requests as Discord does."""

    def __init__(self) -> None:
        self.key = SigningKey.generate()
        self.public_hex = self.key.verify_key.encode().hex()

    def headers(self, body: bytes, at: float | None = None) -> dict[str, str]:
        timestamp = str(int(time.time() if at is None else at))
        signature = self.key.sign(timestamp.encode() + body).signature.hex()
        return {
            "content-type": "application/json",
            "x-signature-ed25519": signature,
            "x-signature-timestamp": timestamp,
        }


def interaction(
    name: str,
    options: list[dict[str, Any]] | None = None,
    *,
    user: str = "1400000000000000001",
    username: str = "dai",
    channel: str = "1500000000000000001",
    kind: int = 2,
    permissions: str = "0",
    resolved: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An interaction in a guild's channel, as Discord's documentation shapes it."""
    data: dict[str, Any] = {"id": str(next(_ids)), "name": name, "type": 1}
    if options is not None:
        data["options"] = options
    if resolved is not None:
        data["resolved"] = resolved
    return {
        "id": str(next(_ids)),
        "application_id": APPLICATION,
        "type": kind,
        "data": data,
        "guild_id": GUILD,
        "channel_id": channel,
        "channel": {"id": channel, "type": 0},
        "member": {
            "user": {"id": user, "username": username, "global_name": username.title()},
            "roles": [],
            "permissions": permissions,
            "nick": None,
        },
        "token": f"tok-{next(_ids)}",
        "version": 1,
        "app_permissions": "0",
        "locale": "en-US",
    }


def sub(name: str, **values: Any) -> list[dict[str, Any]]:
    """A subcommand with options (given by name: ``all_out=True`` is ``all-out``)."""
    return [{"type": 1, "name": name, "options": opts(**values)}]


def opts(**values: Any) -> list[dict[str, Any]]:
    kinds = {bool: 5, int: 4, float: 10, str: 3}
    return [
        {"name": k.replace("_", "-"), "type": kinds[type(v)], "value": v} for k, v in values.items()
    ]


@dataclass
class Bot:
    """The server's interactions endpoint, as Discord calls it."""

    base: str
    signer: Signer
    rest: StandIn

    def send(self, payload: dict[str, Any] | bytes, **headers: str) -> httpx.Response:
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        with httpx.Client(base_url=self.base, timeout=30) as c:
            return c.post(
                "/discord/interactions",
                content=body,
                headers={**self.signer.headers(body), **headers},
            )

    def ask(
        self, name: str, options: list[dict[str, Any]] | None = None, **kw: Any
    ) -> dict[str, Any]:
        r = self.send(interaction(name, options, **kw))
        assert r.status_code == 200, r.text
        got: dict[str, Any] = r.json()
        return got


@contextmanager
def another_server(
    db_url: str, rest: StandIn, signer: Signer | None = None, **env: str
) -> Iterator[Bot]:
    """A server on the database ``db_url`` (another one beside the tests' first, or
    the same one again after a restart), with ``signer``'s key (a fresh one by
    default) and settings of its own."""
    signer = signer or Signer()
    env = {
        "REFEREE_DISCORD_PUBLIC_KEY": signer.public_hex,
        "REFEREE_DISCORD_API": rest.base,
        "REFEREE_DISCORD_TOKEN": "bot-token",
        **env,
    }
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        with running(db_url) as server:
            yield Bot(server.base, signer, rest)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
