"""A roll's POST is served before the app's middleware (issue 74 §3:
``referee.rooms.guards.RoomsApp``), which must do for it what those layers do for every
other request: one address's allowance, shared with the routes; the body limit, by its
declared length and by what is read; the security headers on every answer, refusals
included, and once; and a body the model refuses answered by its route, its address
charged once. A real server on SQLite, clients from addresses of their own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from referee.rooms.db.store import sqlite_url
from referee.rooms.guards import SECURITY_HEADERS
from referee.rooms.limits import RoomsLimits
from rooms_server import LOOPBACK_TLS, Server, Table, make_table, running

BURST = 10
ROLL = b'{"command": "3d6"}'


class Tight(RoomsLimits):
    """An address may make ten requests, and then about one a minute and a half."""

    address_rate = 0.01
    address_burst = float(BURST)


@pytest.fixture(scope="module")
def tight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = sqlite_url(tmp_path_factory.mktemp("front") / "rooms.sqlite3")
    with running(db, Tight) as server:
        yield server


def _from(server: Server, address: str, token: str) -> httpx.Client:
    """A client of ``server`` from ``address`` (another household: its own allowance)."""
    return httpx.Client(
        base_url=server.base,
        headers={"authorization": f"Bearer {token}"},
        transport=httpx.HTTPTransport(local_address=address, verify=LOOPBACK_TLS),
        timeout=30,
    )


def _guarded(answer: httpx.Response) -> None:
    """Each security header, once."""
    for name, value in SECURITY_HEADERS:
        assert answer.headers.get_list(name.decode()) == [value.decode()], (name, answer)


def _roll(
    client: httpx.Client, table: Table, body: bytes = b'{"command": "3d6"}'
) -> httpx.Response:
    return client.post(
        f"/api/rooms/{table.room}/rolls", content=body, headers={"content-type": "application/json"}
    )


def test_the_rolls_and_the_routes_share_an_address_allowance(tight: Server) -> None:
    table = make_table(tight, "Front")
    with _from(tight, "127.0.0.2", table.tokens["alice"]) as alice:
        log = f"/api/rooms/{table.room}/log"
        answers = []
        for i in range(BURST):  # the front's rolls and the routes' reads, in turn
            answers.append(_roll(alice, table) if i % 2 else alice.get(log))
        assert [a.status_code for a in answers] == [200, 201] * (BURST // 2)
        for answer in answers:
            _guarded(answer)
        for refused in (_roll(alice, table), alice.get(log)):
            assert refused.status_code == 429, refused.text
            assert refused.json() == {"error": "too many requests from your address: slow down"}
            _guarded(refused)
    with _from(tight, "127.0.0.3", table.tokens["bob"]) as bob:  # another address: its own
        assert _roll(bob, table).status_code == 201


def test_a_body_the_model_refuses_goes_to_its_route_and_is_charged_once(tight: Server) -> None:
    table = make_table(tight, "Front bodies")
    with _from(tight, "127.0.0.4", table.tokens["alice"]) as alice:
        bad = [_roll(alice, table, b'{"visibility": "gm"}') for _ in range(BURST // 2)]
        good = [_roll(alice, table) for _ in range(BURST // 2)]
        for answer in bad:  # the route's answer: a 400 naming the field
            assert answer.status_code == 400 and "command" in answer.json()["error"], answer.text
            _guarded(answer)
        assert [a.status_code for a in good] == [201] * (BURST // 2)  # ten in all, not fifteen
        assert _roll(alice, table).status_code == 429


def test_a_roll_over_the_body_limit_is_refused_before_it_is_read(tight: Server) -> None:
    table = make_table(tight, "Front limits")
    over = b'{"command": "3d6", "x": "' + b"x" * RoomsLimits.body + b'"}'

    def chunks() -> Iterator[bytes]:  # no declared length: counted as it is read
        yield over[:1000]
        yield over[1000:]

    with _from(tight, "127.0.0.5", table.tokens["alice"]) as alice:
        rolls = f"/api/rooms/{table.room}/rolls"
        declared = _roll(alice, table, over)
        streamed = alice.post(rolls, content=chunks(), headers={"content-type": "application/json"})
        for answer in (declared, streamed):
            assert answer.status_code == 413, answer.text
            assert answer.json() == {"error": "the body is over 64 KiB"}
            _guarded(answer)
    assert not [e for e in table.log("gm") if e["kind"] == "roll"]  # nothing rolled


def test_the_app_has_its_front_with_its_limits(tmp_path: Path) -> None:
    """The app every server runs is :class:`RoomsApp`, its front set with the limits'
    body size and address allowance (the tests above pass through the middleware too)."""
    from referee.rooms.app import create_app
    from referee.rooms.guards import RoomsApp

    app = create_app(sqlite_url(tmp_path / "rooms.sqlite3"), Tight)
    assert isinstance(app, RoomsApp) and app.front is not None
    buckets, body = app.front
    assert (body, buckets.rate, buckets.burst) == (Tight.body, Tight.address_rate, BURST)
