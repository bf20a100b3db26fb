"""The GM's new token (``POST /api/rooms/{room}/token``, beyond the contract): the old
one stops working at once on every path, written as the attacker's script. Mallory
holds the GM's old token (it leaked through Discord, say): after the GM asks for a new
one, Mallory's HTTP calls get 401, her open socket is closed with 4401, her page
session is over, and the Discord channel she linked with it rolls into the room no
more; the GM's own page goes on. On SQLite and PostgreSQL, and across two servers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from discord_standin import Bot, StandIn, another_server, opts, sub
from referee.rooms.audit.verify import verify
from referee.rooms.routes.api import cookie_name
from rooms_server import LOOPBACK_TLS, Server, Table, fresh_db, running
from test_room_admin import call, closes_within_a_second, every_path

TOKEN_KEYS = {"room", "seq", "kind", "time", "salt", "digest", "chain", "member"}
GM, MALLORY = "1400000000000000901", "1400000000000000902"
GAME, MALLORYS = "1500000000000000901", "1500000000000000902"
NOTES, MAL_NOTES = "1500000000000000911", "1500000000000000912"
CAN_MANAGE = str(1 << 4)


def made_table(server: Server) -> tuple[Table, str]:
    """A room with Alice, and the GM's one-time page link."""
    with server.client() as c:
        made = c.post("/api/rooms", json={"name": "Leaky", "system": "gurps"}).json()
        alice = c.post(
            f"/api/rooms/{made['room']}/members", json={"name": "Alice", "invite": made["invite"]}
        ).json()
    tokens = {"gm": made["token"], "alice": alice["token"]}
    ids = {"gm": "gm", "alice": alice["member"]}
    return Table(server, made["room"], made["invite"], tokens, ids), made["url"]


def page(url: str) -> httpx.Client:
    """A browser's session: the one-time link spent, its cookie kept."""
    c = httpx.Client(verify=LOOPBACK_TLS, timeout=30)
    assert c.get(url, follow_redirects=True).status_code == 200
    return c


@contextmanager
def socket(table: Table, token: str) -> Iterator[Any]:
    """A live socket of ``token``, following the room."""
    from websockets.sync.client import connect

    with connect(f"{table.server.ws_base}/api/rooms/{table.room}/live", open_timeout=10) as ws:
        ws.send(json.dumps({"token": token}))
        assert json.loads(ws.recv(timeout=10))["seq"] == 0
        yield ws


def test_the_old_token_stops_everywhere_and_the_page_goes_on(server: Server) -> None:
    table, url = made_table(server)
    old = table.tokens["gm"]
    assert call(table, "alice", "POST", "/token", json={}).status_code == 403
    gm_page = page(url)
    room = f"{server.base}/api/rooms/{table.room}"
    mallory_page = httpx.Client(verify=LOOPBACK_TLS, base_url=server.base)
    mallory_page.cookies.set(cookie_name(table.room), old)  # the old token as a session
    assert mallory_page.get(f"/rooms/{table.room}").status_code == 200
    secret = table.roll("gm", "gurps check 12", "gm").json()
    from websockets.sync.client import connect

    cookie = f"{cookie_name(table.room)}={gm_page.cookies[cookie_name(table.room)]}"
    with (
        socket(table, old) as mallory,
        connect(
            f"{server.ws_base}/api/rooms/{table.room}/live",
            additional_headers={"Cookie": cookie},
            open_timeout=10,
        ) as own,
    ):
        assert json.loads(own.recv(timeout=10))["seq"] == 0
        answer = gm_page.post(f"{room}/token", json={})  # from the GM's page
        assert answer.status_code == 201, answer.text
        new = answer.json()["token"]
        assert set(answer.json()) == {"token", "url"} and new != old
        closes_within_a_second(mallory)
        # The page's own socket still works: it closes normally, and opens again.
        with pytest.raises(Exception):  # noqa: B017 - the close ends the socket
            while True:
                own.recv(timeout=5)
        assert own.close_code == 1000
    # Mallory: every path, the page, the socket, and asking for a new token herself.
    table.tokens["mallory"] = old
    assert set(every_path(table, "mallory")) == {401}
    assert call(table, "mallory", "POST", "/token", json={}).status_code == 401
    assert call(table, "mallory", "POST", "/reveal", json={"seq": secret["seq"]}).status_code == 401
    assert mallory_page.get(f"/rooms/{table.room}").status_code == 401
    from attacker import close_code

    assert close_code(server.base, table.room, old) == 4401
    # The GM: the new token works; her page session goes on, socket and all.
    table.tokens["gm"] = new
    assert table.roll("gm", "3d6").status_code == 201
    assert gm_page.get(f"{room}/log").status_code == 200
    assert gm_page.get(f"{server.base}/rooms/{table.room}").status_code == 200
    with connect(
        f"{server.ws_base}/api/rooms/{table.room}/live",
        additional_headers={"Cookie": cookie},
        open_timeout=10,
    ) as again:
        assert json.loads(again.recv(timeout=10))["seq"] == 0
    # The log says that the token changed, to everyone, and never the token.
    entry = next(e for e in table.log("alice") if e["kind"] == "token")
    assert set(entry) == TOKEN_KEYS and entry["member"] == "gm"
    export = table.export("gm")
    assert not any(t in json.dumps(export) for t in (old, new))
    report = verify(export)
    assert report.ok, report.text()
    # A Bearer caller keeps nothing: the token that asked stops, and so do the GM's page
    # sessions; the answer's one-time link opens the page again.
    newer = call(table, "gm", "POST", "/token", json={})
    assert newer.status_code == 201
    assert set(every_path(table, "gm")) == {401}
    assert gm_page.get(f"{room}/log").status_code == 401
    assert gm_page.get(url).status_code == 403  # the creation's link: spent, and gone
    again_page = page(newer.json()["url"])
    assert again_page.get(f"{room}/log").status_code == 200
    again_page.close()
    table.tokens["gm"] = newer.json()["token"]
    assert table.roll("gm", "3d6").status_code == 201
    assert table.roll("alice", "3d6").status_code == 201  # players are untouched
    assert call(table, "gm", "POST", "/archive", json={}).status_code == 201
    assert call(table, "gm", "POST", "/token", json={}).status_code == 409
    gm_page.close()
    mallory_page.close()


def test_the_rotation_reaches_the_other_server(
    postgres: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Two servers on one PostgreSQL: B knows the old token (it served it) and holds its
    socket; the GM asks A for a new one: B closes the socket with 4401 within a second,
    and the old token gets 401 on both."""
    db = fresh_db(postgres, tmp_path_factory.mktemp("token-pair"))
    with running(db) as a, running(db) as b:
        table, _url = made_table(a)
        on_b = Table(b, table.room, table.invite, dict(table.tokens), table.ids)
        assert on_b.roll("gm", "3d6").status_code == 201  # B has the old token cached
        with socket(on_b, table.tokens["gm"]) as ws:
            made = call(table, "gm", "POST", "/token", json={})
            assert made.status_code == 201
            closes_within_a_second(ws)
        assert set(every_path(table, "gm")) == {401}
        assert set(every_path(on_b, "gm")) == {401}
        on_b.tokens["gm"] = made.json()["token"]
        assert on_b.roll("gm", "3d6").status_code == 201


# ---------------------------------------------------------------- Discord


@pytest.fixture(scope="module")
def bots(db_url: str, rest: StandIn) -> Iterator[tuple[Bot, Bot]]:
    """Two servers on PostgreSQL (Mallory's interactions through the second); one on
    SQLite (one file, one server)."""
    with another_server(db_url, rest) as first:
        if not db_url.startswith("postgresql"):
            yield first, first
            return
        with another_server(db_url, rest) as second:
            yield first, second


def said(reply: dict[str, Any]) -> str:
    return str(reply["data"].get("content", "")) + json.dumps(reply["data"].get("embeds", []))


def link_in(reply: dict[str, Any]) -> str:
    """The one-time page link that ``/referee page`` answered."""
    url = str(reply["data"].get("content", "")).rsplit(" ", 1)[1]
    assert "/enter?code=" in url, reply
    return url


def rolls(table: Table) -> int:
    return sum(e["kind"] == "roll" for e in table.log("gm"))


def test_discord_links_made_with_the_old_token_stop(bots: tuple[Bot, Bot]) -> None:
    bot, other = bots
    table, _url = made_table(Server(bot.base, ""))
    old = table.tokens["gm"]
    # The GM links her game channel; Mallory, with the leaked token, links her own
    # channel (in a server of hers, where she manages channels) and gets a GM page link.
    for user, channel, notes in ((GM, GAME, NOTES), (MALLORY, MALLORYS, MAL_NOTES)):
        got = bot.ask("referee", sub("gm-channel", channel=notes), user=user, channel=channel,
                      permissions=CAN_MANAGE)  # fmt: skip
        assert "You are this channel's GM" in said(got), got
        got = bot.ask("referee", sub("link", room=table.room, token=old), user=user,
                      channel=channel)  # fmt: skip
        assert f"rolls into room {table.room}" in said(got), got
    before = rolls(table)
    got = other.ask("roll", opts(exprs="3d6"), user=MALLORY, channel=MALLORYS)
    assert "not logged" not in said(got) and rolls(table) == before + 1  # as the GM
    assert [e for e in table.log("gm") if e["kind"] == "roll"][-1]["roller"] == "gm"
    gm_link = link_in(other.ask("referee", sub("page"), user=MALLORY, channel=MALLORYS))
    # The GM asks for a new token. On the second server, once it has heard (its socket
    # of the old token closes), Mallory is out at once: her channel's set-up, read two
    # seconds ago, is not used again.
    with socket(Table(Server(other.base, ""), table.room, "", {}, {}), old) as ws:
        made = call(table, "gm", "POST", "/token", json={})
        assert made.status_code == 201, made.text
        closes_within_a_second(ws)
    new = table.tokens["gm"] = made.json()["token"]
    got = other.ask("roll", opts(exprs="3d6"), user=MALLORY, channel=MALLORYS)
    assert "not logged" in said(got), got
    assert rolls(table) == before + 1
    got = other.ask("referee", sub("page"), user=MALLORY, channel=MALLORYS)
    assert "this channel has no room" in said(got), got
    got = other.ask("referee", sub("link", room=table.room, token=old), user=MALLORY,
                    channel=MALLORYS)  # fmt: skip
    assert said(got).startswith("⚠") and "not the GM's token" in said(got), got
    with httpx.Client(verify=LOOPBACK_TLS) as c:  # her GM page link, unused, is spent too
        assert c.get(gm_link).status_code == 403
    # The GM's own channel went too; she links it again with the new token.
    got = bot.ask("roll", opts(exprs="3d6"), user=GM, channel=GAME)
    assert "not logged" in said(got), got
    got = bot.ask("referee", sub("link", room=table.room, token=new), user=GM, channel=GAME)
    assert f"rolls into room {table.room}" in said(got), got
    got = other.ask("roll", opts(exprs="3d6"), user=GM, channel=GAME)
    assert "not logged" not in said(got) and rolls(table) == before + 2
    assert [e for e in table.log("gm") if e["kind"] == "roll"][-1]["roller"] == "gm"
    # Mallory's Discord account is the GM of nothing in the room: in the GM's channel
    # she would be a new player, no more.
    url = link_in(other.ask("referee", sub("page"), user=MALLORY, channel=GAME))
    with httpx.Client(verify=LOOPBACK_TLS) as c:
        entered = c.get(url, follow_redirects=True)
        assert entered.status_code == 200 and 'data-gm="no"' in entered.text
