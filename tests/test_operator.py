"""What an operator sets (issue 28): ``referee serve`` behind a proxy (uvicorn's
``--proxy-headers`` and ``--forwarded-allow-ips``), and every limit from the command
line or the environment."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from referee.cli.app import app
from referee.rooms.db.store import sqlite_url
from referee.rooms.limits import RoomsLimits, limit_names, limits_from
from rooms_server import LOOPBACK_TLS, running


class Tight(RoomsLimits):
    """Five requests from one client address, then 429 (refilling slowly)."""

    address_rate = 0.01
    address_burst = 5


def _statuses(base: str, forwarded: str, count: int) -> list[int]:
    with httpx.Client(base_url=base, verify=LOOPBACK_TLS) as c:
        return [
            c.get("/api/rooms/nowhere/log", headers={"X-Forwarded-For": forwarded}).status_code
            for _ in range(count)
        ]


@pytest.mark.parametrize("trusted", [True, False])
def test_clients_behind_one_proxy_each_get_their_own_rate(tmp_path: Path, trusted: bool) -> None:
    """Two players behind one proxy (127.0.0.1), told apart by X-Forwarded-For, each get
    the address limit's five requests. From a proxy that is not trusted, the header is
    ignored: both share the proxy's five."""
    proxy = "127.0.0.1" if trusted else "10.9.9.9"
    with running(sqlite_url(tmp_path / "r.sqlite3"), Tight, proxy=proxy) as server:
        first = _statuses(server.base, "203.0.113.7", 7)
        second = _statuses(server.base, "203.0.113.8", 7)
    assert first == [404] * 5 + [429] * 2  # an unknown room: the request got through
    if trusted:
        assert second == [404] * 5 + [429] * 2
    else:
        assert second == [429] * 7


def test_limits_from_the_environment_and_the_command_line() -> None:
    chosen = limits_from({"REFEREE_LIMIT_RATE": "60", "REFEREE_LIMIT_SOCKETS": "4"}, ["rate=70"])
    assert chosen.rate == 70.0 and chosen.sockets == 4 and chosen.burst == RoomsLimits.burst
    assert isinstance(chosen.sockets, int)
    assert RoomsLimits.rate == 40.0  # the defaults are untouched
    assert set(limit_names()) >= {"rate", "burst", "address_rate", "draws", "sheet", "body"}
    for bad, why in (
        (["nonsense=1"], "no limit 'nonsense'"),
        (["rate"], "NAME=VALUE"),
        (["rate=fast"], "not a number"),
        (["sockets=0"], "above 0"),
    ):
        with pytest.raises(ValueError, match=why):
            limits_from({}, bad)


def test_serve_lists_the_limits_and_refuses_bad_ones() -> None:
    helped = CliRunner().invoke(app, ["serve", "--help"], terminal_width=200)
    assert helped.exit_code == 0
    for flag in ("--proxy-headers", "--forwarded-allow-ips", "--limit"):
        assert flag in helped.output
    for name in limit_names():
        assert name in helped.output
    bad = CliRunner().invoke(app, ["serve", "--limit", "nonsense=1"])
    assert bad.exit_code == 2 and "no limit 'nonsense'" in bad.output


def test_several_workers_need_postgresql(tmp_path: Path) -> None:
    ran = CliRunner().invoke(app, ["serve", "--workers", "2", "--db", str(tmp_path / "r.sqlite3")])
    assert ran.exit_code == 2 and "several workers need PostgreSQL" in ran.output


def test_workers_share_the_port_on_postgresql(postgres: str, tmp_path: Path) -> None:
    """``referee serve --workers 2``: two server processes on one port and database, each
    with its own pool (``referee:PID`` in ``pg_stat_activity``): each room's rolls are
    in its own worker (:func:`referee.rooms.serving.affine.owner`), so two rooms, one each."""
    import os
    import signal

    from rooms_server import fresh_db, query, start_workers

    db = fresh_db(postgres, tmp_path)
    server, port = start_workers(db)
    base = f"http://127.0.0.1:{port}"
    try:
        from referee.rooms.serving.affine import owner

        rooms: dict[int, dict[str, str]] = {}
        while len(rooms) < 2:
            made = httpx.post(
                base + "/api/rooms", json={"name": "w", "system": None}, verify=LOOPBACK_TLS
            ).json()
            rooms.setdefault(owner(made["room"].encode(), 2), made)
        for made in rooms.values():
            with httpx.Client(base_url=base, verify=LOOPBACK_TLS) as c:
                r = c.post(f"/api/rooms/{made['room']}/rolls", json={"command": "3d6"},
                           headers={"Authorization": f"Bearer {made['token']}"})  # fmt: skip
                assert r.status_code == 201, r.text
        rows = query(db, "SELECT application_name FROM pg_stat_activity "
                         "WHERE application_name LIKE 'referee:%'")  # fmt: skip
        pids = {name for (name,) in rows}
        assert len(pids) >= 2, pids
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
