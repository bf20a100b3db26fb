"""``referee serve`` and ``referee verify``: the game rooms' server and the check of a
room's export, the two commands of the command line that are not the command layer's
(:mod:`.app` adds them beside the registered commands)."""

from __future__ import annotations

import json
import sys
from typing import Annotated, NoReturn

import typer

from ..rooms import serve as run
from ..rooms.limits import limit_names

__all__ = ["SERVE_EXAMPLES", "VERIFY_EXAMPLES", "serve", "verify"]


VERIFY_EXAMPLES = """Exit status: 0 when every check that could be made holds, 1 on any mismatch
(the entry and the check are named), 2 when the file cannot be read. A roll whose
draws are the stream's but whose result another version of referee (its engine)
wrote otherwise is a change of version, not tampering: listed apart, exit 0.
Rolls whose epoch was locked with no player seed are not provable: the report counts
them and names their rollers; with --require-seeds, any such roll by a player exits 1.
With --key (the fingerprint the room's page shows) or --server, every signed head must
be that server key's, over this very chain: a log rewritten and re-chained fails.
Without either, the report says that it checked no signature.

Examples:

  referee verify room-export.jsonl

  referee verify room-export.jsonl --key FINGERPRINT

  referee verify room-export.jsonl --server https://dice.example.org

  referee verify room-export.jsonl --require-seeds

  referee verify room-export.jsonl --json"""


def verify(
    export: Annotated[str, typer.Argument(metavar="EXPORT", help="A room's export (NDJSON).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    require_seeds: Annotated[
        bool,
        typer.Option(
            "--require-seeds",
            help="Exit 1 if any player's roll had no player seed in its mix (not provable).",
        ),
    ] = False,
    key: Annotated[
        str | None,
        typer.Option(
            "--key",
            metavar="FINGERPRINT",
            help="The server key's fingerprint (the room's page shows it): every signed "
            "head must be that key's.",
        ),
    ] = None,
    server: Annotated[
        str | None,
        typer.Option(
            "--server",
            metavar="URL",
            help="Ask the room's server for its key (GET URL/api/key) and check as --key.",
        ),
    ] = None,
) -> None:
    """Check a game room's exported log: the chain, the seeds, every roll's dice and text,
    and the server's signatures."""

    # here, not at the top: each import costs 113-118 ms of start-up otherwise (issue 53)
    from ..rooms.audit.verify import read_export
    from ..rooms.audit.verify import verify as check

    fingerprint = _trusted_key(key, server)
    try:
        entries = read_export(export)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        print(f"error: cannot read {export}: {exc}", file=sys.stderr)
        raise typer.Exit(2) from None
    report = check(entries, fingerprint)
    print(json.dumps(report.as_json()) if as_json else report.text())
    if require_seeds and report.unprovable_players:
        n = report.unprovable_players
        print(
            f"error: --require-seeds: {n} roll{'s' if n != 1 else ''} by players had no "
            "player seed in the mix",
            file=sys.stderr,
        )
        raise typer.Exit(1)
    raise typer.Exit(0 if report.ok else 1)


def _trusted_key(key: str | None, server: str | None) -> str | None:
    """The fingerprint to check the heads against: ``--key``'s, or the one the server at
    ``--server`` serves (its key's sha256, checked here). Exits 2 on a malformed
    fingerprint, both options at once, or a server that does not answer with a key."""
    from ..rooms.signing import FINGERPRINT, fingerprint

    if key is not None and server is not None:
        _fail("give --key or --server, not both")
    if key is not None:
        key = key.strip().lower()
        if not FINGERPRINT.fullmatch(key):
            _fail(f"--key {key[:80]!r} is not a fingerprint: 64 hex digits, as the page shows")
        return key
    if server is None:
        return None
    import httpx

    url = server.rstrip("/") + "/api/key"
    try:
        got = httpx.get(url, timeout=10, follow_redirects=True).raise_for_status().json()
        public, said = bytes.fromhex(got["key"]), str(got["fingerprint"])
    except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
        _fail(f"cannot read the server's key from {url}: {exc}")
    if fingerprint(public) != said or got.get("algorithm") != "ed25519":
        _fail(f"{url} serves a key whose fingerprint is not its own")
    return said


def _fail(message: str) -> NoReturn:
    print(f"error: {message}", file=sys.stderr)
    raise typer.Exit(2)


SERVE_EXAMPLES = """Examples:

  referee serve

  referee serve --port 8080 --db rooms.sqlite3

  REFEREE_DB=postgresql+asyncpg://user@localhost/referee referee serve

  referee serve --db postgresql+asyncpg://user@localhost/referee --workers 2

  REFEREE_DISCORD_PUBLIC_KEY=... referee serve --proxy-headers   # and Discord's interactions"""


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.", min=1, max=65535)] = 8000,
    db: Annotated[
        str | None,
        typer.Option(
            help="Database URL or SQLite file (default: $REFEREE_DB, else referee-rooms.sqlite3)."
        ),
    ] = None,
    telemetry: Annotated[
        bool,
        typer.Option(
            help="Send FastAPI's OpenTelemetry spans, metrics and logs to the providers "
            "the process sets up (for example under opentelemetry-instrument)."
        ),
    ] = False,
    proxy_headers: Annotated[
        bool,
        typer.Option(
            "--proxy-headers",
            help="Behind a proxy: take each client's address from X-Forwarded-For "
            "(from the addresses of --forwarded-allow-ips only).",
        ),
    ] = False,
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            "--forwarded-allow-ips",
            metavar="IPS",
            help="The proxies trusted for X-Forwarded-For: comma-separated addresses or "
            "networks, or * (uvicorn's default: 127.0.0.1).",
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=1,
            max=64,
            help="Server processes sharing the port, to use every core (PostgreSQL only).",
        ),
    ] = 1,
    room_affinity: Annotated[
        bool,
        typer.Option(
            help="With --workers: serve each room in one worker, handing each connection "
            "to the worker that owns its room (the default; cheaper than sharing rooms).",
        ),
    ] = True,
    limit: Annotated[
        list[str] | None,
        typer.Option(
            "--limit",
            metavar="NAME=VALUE",
            help="Set a limit (repeat; also $REFEREE_LIMIT_NAME): " + _limits_help(),
        ),
    ] = None,
) -> None:
    """Run the game rooms' web server: a shared table with secret GM rolls."""

    try:
        run(
            host, port, db, telemetry, proxy_headers=proxy_headers,
            forwarded_allow_ips=forwarded_allow_ips, limits=limit or [], workers=workers,
            affinity=room_affinity,
        )  # fmt: skip
    except ValueError as exc:
        typer.echo(f"referee serve: {exc}", err=True)
        raise typer.Exit(2) from None


def _limits_help() -> str:
    return ", ".join(f"{k}={v}" for k, v in limit_names().items()) + "."
