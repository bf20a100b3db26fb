"""Discord, as far as the tests need it: inbound interactions signed with a fresh
Ed25519 key exactly as Discord signs them (the timestamp, then the raw body), in the
shapes its documentation gives; and a local HTTP server standing in for its REST API
(and its attachment host), which records every call. Discord itself cannot be reached
from these machines: this is the one part of referee tested against a stand-in."""

from __future__ import annotations

import base64
import json
import os
import re
import sys
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

import zygote
from referee.rooms.serving.child import end
from rooms_server import LOOPBACK_TLS, Loopback, running

APPLICATION = "1100000000000000001"
TOKEN = base64.b64encode(APPLICATION.encode()).decode().rstrip("=") + ".GtEsT0.not-a-real-token"

PATIENT = {
    "REFEREE_DISCORD_DEFER_AFTER": "30",
    "REFEREE_DISCORD_ANSWER_WINDOW": "120",
    "REFEREE_DISCORD_USER_PACE": "100000,100000",
    "REFEREE_DISCORD_CHANNEL_PACE": "100000,100000",
}
"""The tests' servers' default: an answer is deferred only after 30 seconds, and an
interaction is answered through the gateway up to 120 seconds after it was made. The
stand-in has no 3-second deadline, and on a loaded machine an answer that the tests
expect at once took over the 2 s default and came deferred (issue 53: a link test
failed so). The tests of deferral, and of the answer window (issue 67), set
``REFEREE_DISCORD_DEFER_AFTER`` and ``REFEREE_DISCORD_ANSWER_WINDOW`` themselves; the
commands' pace is all but unbounded, but in the tests of pacing (issue 71)."""
"""A bot token in Discord's shape (its bot's id in base64, then two parts), as hikari
reads one."""
GUILD = "1200000000000000002"
_ids = count(1)
DISCORD_EPOCH_MS = 1_420_070_400_000


def snowflake(at: float | None = None) -> str:
    """A Discord id made at ``at`` (seconds since 1970; now by default), as Discord
    makes them: its milliseconds since 2015 in the top 42 bits, a count below."""
    ms = int((time.time() if at is None else at) * 1000) - DISCORD_EPOCH_MS
    return str((ms << 22) | (next(_ids) & 0x3FFFFF))


CALLBACK = re.compile(r"/interactions/\d+/[^/]+/callback")
MESSAGES = re.compile(r".*/channels/\d+/messages")


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
    gateway: str = ""
    """The gateway stand-in's URL, which ``GET /gateway/bot`` gives (tests/gateway_standin.py)."""
    token: str = TOKEN
    """The bot's token: ``GET /gateway/bot`` with any other is refused (401)."""
    callbacks: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Answers to interactions through the callback endpoint (the gateway's), by path;
    not those refused (a path in :attr:`answers` is refused with its error)."""
    answered: list[str] = field(default_factory=list)
    """Every callback's path, in order (an interaction answered twice shows twice)."""
    arrived: threading.Condition = field(default_factory=threading.Condition)
    """Notified at each callback."""
    gateway_standin: Any = None
    """The gateway stand-in itself (tests/gateway_standin.py), when there is one."""

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


class _Quiet(ThreadingHTTPServer):
    """The stand-in's server, which says nothing of a client that hung up (a bot that
    ended or reconnected resets its kept-alive connections): the tests read the output
    for tracebacks, and such a reset is none of referee's."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def stand_in() -> Iterator[StandIn]:
    """A local REST stand-in on a free loopback port, and a gateway stand-in beside it
    (tests/gateway_standin.py), which ``GET /gateway/bot`` names."""
    from gateway_standin import gateway_stand_in

    with _rest() as state, gateway_stand_in(state.token) as gateway:
        state.gateway, state.gateway_standin = gateway.url, gateway
        yield state


@contextmanager
def _rest() -> Iterator[StandIn]:
    state = StandIn("")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # connections kept alive, as Discord's are

        def log_message(self, *args: Any) -> None:
            pass

        def _record(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            if self.command == "POST" and CALLBACK.fullmatch(self.path):
                # An answer through the gateway: kept apart from the calls, which are
                # then the same on both transports (over HTTP, the answer is the response).
                refused = state.answers.get(self.path)
                if refused is not None:  # (Discord's 404, code 10062: too late)
                    with state.arrived:
                        state.answered.append(self.path)
                        state.arrived.notify_all()
                    self._json(*refused)
                    return
                with state.arrived:
                    state.callbacks[self.path] = json.loads(body)
                    state.answered.append(self.path)
                    state.arrived.notify_all()
                self.send_response(204)
                self.send_header("content-length", "0")
                self.end_headers()
                return
            state.calls.append(
                {
                    "method": self.command,
                    "path": self.path,
                    "authorization": self.headers.get("authorization"),
                    "json": json.loads(body) if body else None,
                }
            )
            made: dict[str, Any] = {}
            if self.command == "POST" and MESSAGES.fullmatch(self.path):  # as Discord answers
                made = {"id": snowflake(), "channel_id": self.path.split("/")[-2]}
            self._json(*state.answers.get(self.path, (200, made)))

        def _json(self, status: int, answer: Any) -> None:
            out = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        do_POST = do_PATCH = do_PUT = do_DELETE = _record

        def _gateway_bot(self) -> None:
            """Where the gateway is, as Discord answers a bot (401 for another token)."""
            if self.headers.get("authorization") != f"Bot {state.token}":
                status, answer = 401, {"message": "401: Unauthorized", "code": 0}
            else:
                limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
                status = 200
                answer = {"url": state.gateway, "shards": 1, "session_start_limit": limit}
            self._json(status, answer)

        def do_GET(self) -> None:
            state.gets.append(self.path)
            if self.path == "/gateway/bot":
                self._gateway_bot()
                return
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
                self.send_header("content-length", "0")
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

    server = _Quiet(("127.0.0.1", 0), Handler)
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
    at: float | None = None,
) -> dict[str, Any]:
    """An interaction in a guild's channel, as Discord's documentation shapes it, made
    by Discord at ``at`` (now by default: its id says when)."""
    data: dict[str, Any] = {"id": snowflake(at), "name": name, "type": 1}
    if options is not None:
        data["options"] = options
    if resolved is not None:
        data["resolved"] = resolved
    return {
        "id": snowflake(at),
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


def component(
    custom_id: str,
    values: list[str] | None = None,
    *,
    message: dict[str, Any] | None = None,
    user: str = "1400000000000000001",
    username: str = "dai",
    channel: str = "1500000000000000001",
) -> dict[str, Any]:
    """A press of a button (or, with ``values``, a choice in a select) on ``message``, as
    Discord sends a message component interaction (type 3)."""
    made = interaction("~", user=user, username=username, channel=channel, kind=3)
    made["data"] = {"custom_id": custom_id, "component_type": 3 if values is not None else 2}
    if values is not None:
        made["data"]["values"] = values
    made["message"] = {"id": snowflake(), "content": "", "components": [], "flags": 0,
                       **(message or {})}  # fmt: skip
    return made


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
    transport = "http"

    def send(self, payload: dict[str, Any] | bytes, **headers: str) -> Any:
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        with httpx.Client(base_url=self.base, timeout=30, verify=LOOPBACK_TLS) as c:
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


@dataclass
class Answer:
    """An answer through the interaction callback endpoint, read as the HTTP
    endpoint's response is (the gateway's answers always go out as 200s)."""

    body: dict[str, Any]
    status_code: int = 200

    def json(self) -> dict[str, Any]:
        return self.body

    @property
    def text(self) -> str:
        return json.dumps(self.body)


@dataclass
class GatewayBot(Bot):
    """A ``referee discord run`` process, as Discord's gateway reaches it: each
    interaction is dispatched in its gateway session, and its answer is what it posts to
    the interaction callback endpoint."""

    gateway: Any = None
    session: str = ""
    pid: int = 0
    """The ``referee discord run`` process's."""
    process: Any = None
    """The ``referee discord run`` process, its first line read from ``stdout``."""
    transport = "gateway"

    def send(self, payload: dict[str, Any] | bytes, **headers: str) -> Any:
        assert isinstance(payload, dict) and not headers, "the gateway has no raw bodies"
        path = f"/interactions/{payload['id']}/{payload['token']}/callback"
        self.gateway.dispatch(self.session, payload)
        with self.rest.arrived:
            done = self.rest.arrived.wait_for(lambda: path in self.rest.callbacks, 30)
        assert done, f"no answer to {payload['id']} through the gateway"
        return Answer(self.rest.callbacks[path])


@contextmanager
def another_server(
    db_url: str,
    rest: StandIn,
    signer: Signer | None = None,
    transport: str = "http",
    **env: str,
) -> Iterator[Bot]:
    """A server on the database ``db_url`` (another one beside the tests' first, or
    the same one again after a restart), with ``signer``'s key (a fresh one by
    default) and settings of its own; with ``transport="gateway"``, a ``referee
    discord run`` process reached through the gateway stand-in (``rest.gateway``)."""
    if transport == "gateway":
        with gateway_server(db_url, rest, True, **env) as made:
            yield made
        return
    signer = signer or Signer()
    env = {
        **PATIENT,
        "REFEREE_DISCORD_PUBLIC_KEY": signer.public_hex,
        "REFEREE_DISCORD_API": rest.base,
        "REFEREE_DISCORD_TOKEN": TOKEN,
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


@contextmanager
def gateway_server(
    db_url: str, rest: StandIn, serve: bool = True, **env: str
) -> Iterator[GatewayBot]:
    """``referee discord run --port 0`` on ``db_url`` with the tests' limits
    (:class:`rooms_server.Loopback`), connected to the gateway stand-in that
    ``rest.gateway`` names; its room pages on the port it prints."""
    gateway = rest.gateway_standin
    assert gateway is not None, "the REST stand-in has no gateway stand-in"
    before = set(gateway.sessions)
    args = ["discord", "run", "--db", db_url]
    args += ["--port", "0"] if serve else ["--no-serve"]
    for name in ("address_rate", "address_burst"):
        args += ["--limit", f"{name}={getattr(Loopback, name):g}"]
    full = {
        **os.environ,
        "REFEREE_DISCORD_API": rest.base,
        "REFEREE_DISCORD_TOKEN": TOKEN,
        **PATIENT,
        **env,
    }
    full.pop("REFEREE_DISCORD_PUBLIC_KEY", None)
    process = zygote.command(args, full)  # ``python -m referee.cli ...``, forked
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"room pages at (http://\S+?)/?$", line.strip())
        assert found or (not serve and "no room pages" in line), (line, process.poll())
        base = found[1] if found else ""
        new = set(gateway.sessions) - before
        assert len(new) == 1, (new, gateway)
        yield GatewayBot(base, Signer(), rest, gateway=gateway, session=new.pop(), pid=process.pid,
                         process=process)  # fmt: skip
    finally:
        end(process, 20)
