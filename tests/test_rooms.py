"""Game rooms (issue 11) against the contract, on a real server and a real SQLite file:
who sees what on every path, the log's digests and chain, concurrency, errors."""

from __future__ import annotations

import hashlib
import itertools
import json
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rooms.log import (
    GENESIS,
    Frames,
    canon,
    chain_link,
    check_digestible,
    decode,
    digest,
    encode,
    view,
)
from referee.rooms.state import RoomsLimits
from rooms_server import Loopback, Server, Table, fresh_db, live, make_table, query, running

WHOLE = {
    "room", "seq", "kind", "time", "salt", "roller", "visibility", "epoch",
    "command", "draws", "result", "text", "engine", "digest", "chain",
}  # fmt: skip
REDACTED = {"room", "seq", "kind", "time", "roller", "visibility", "digest", "chain", "redacted"}


def sees_whole(visibility: str, roller: str, viewer: str) -> bool:
    """The contract's table of who sees what, written out independently of view()."""
    if visibility == "public" or viewer == "gm":
        return True
    return visibility == "gm" and viewer == roller


# ----------------------------------------------------------------- the log, pure


def test_digest_and_chain_vectors() -> None:
    entry = {"kind": "note", "room": "room42", "salt": "0" * 32, "seq": 0, "text": "hello"}
    d = digest(entry)
    assert d == "bf66e71401bdff5b4a7af45dfcdedb458abca913100f56741c8b7360c1aa108a"
    assert chain_link(GENESIS, d) == (
        "336e5701582b0d0d4106b26eff7c2b9d647f073d46f44d14d1c4943dc283b292"
    )
    assert canon({"b": 1, "a": [1, "x"]}) == b'{"a":[1,"x"],"b":1}'


_ASCII_KEYS = st.text(st.characters(max_codepoint=127), max_size=8)
_DIGESTIBLE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53 - 1), 2**53 - 1)
    | st.text(st.characters(blacklist_categories=["Cs"])),  # no lone surrogates: not text
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_ASCII_KEYS, inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(_DIGESTIBLE)
def test_canon_is_the_standard_librarys_canonical_json(value: Any) -> None:
    """canon (orjson) is byte for byte the standard library's sorted, compact, UTF-8
    JSON for every value a digested entry may hold: control characters, quotes,
    backslashes, non-ASCII text and U+2028 included."""
    check_digestible(value)
    expected = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canon(value) == expected.encode()
    assert encode(value) == expected
    assert decode(encode(value)) == value


def test_frames_are_the_view_encoded_whether_primed_or_not() -> None:
    """The store primes an entry's whole frame with its stored text: every member
    still gets exactly encode(view(...)), whole or redacted, as the contract's rule says."""
    entry = {k: k for k in WHOLE} | {"room": "r", "seq": 5, "kind": "roll", "visibility": "gm"}
    entry["roller"] = "p:a"
    primed, fresh = Frames(), Frames()
    primed.whole(entry, encode(entry))
    for viewer, revealed in itertools.product(("gm", "p:a", "p:b"), ((), (5,))):
        expected = encode(view(entry, viewer, revealed))
        assert primed.text(entry, viewer, revealed) == expected
        assert fresh.text(entry, viewer, revealed) == expected
    assert decode(primed.text(entry, "p:b", ()))["redacted"] is True


def test_digestible_values_hold_no_floats_or_big_ints() -> None:
    check_digestible({"a": [1, "1/2", None, True, {"b": -(2**53 - 1)}]})
    for bad, word in (({"a": 0.5}, "float"), ({"a": [2**53]}, "2\\*\\*53"), ({"é": 1}, "ASCII")):
        with pytest.raises(ValueError, match=word):
            check_digestible(bad)


def test_view_matrix_is_the_contracts_table() -> None:
    for visibility, roller, viewer in itertools.product(
        ("public", "gm", "blind"), ("gm", "p:a"), ("gm", "p:a", "p:b")
    ):
        entry = {k: k for k in WHOLE} | {"seq": 5, "kind": "roll", "visibility": visibility}
        entry["roller"] = roller
        seen = view(entry, viewer)
        whole = sees_whole(visibility, roller, viewer)
        assert set(seen) == (WHOLE if whole else REDACTED), (visibility, roller, viewer)
        assert view(entry, viewer, revealed={5}) == entry
    other = {"room": "r", "seq": 1, "kind": "join", "member": "p:a", "name": "A"}
    assert view(other, "p:b") == other


# ------------------------------------------------------------- every path, live


def _check(entry: dict[str, Any], visibility: str, roller: str, viewer: str) -> None:
    whole = sees_whole(visibility, roller, viewer)
    assert set(entry) == (WHOLE if whole else REDACTED), (visibility, roller, viewer, entry)
    if not whole:
        assert entry["redacted"] is True


@pytest.mark.parametrize(
    ("visibility", "roller"), list(itertools.product(("public", "gm", "blind"), ("gm", "alice")))
)
def test_every_path_shows_each_viewer_what_the_contract_allows(
    table: Table, visibility: str, roller: str
) -> None:
    posted = table.roll(roller, "gurps check 14-4", visibility)
    assert posted.status_code == 201, posted.text
    answer = posted.json()
    seq = answer["seq"]
    rid = table.ids[roller]
    _check(answer, visibility, rid, rid)  # the POST answer, as the roller may see it
    secret_text = None
    for who in ("gm", "alice", "bob"):
        me = table.ids[who]
        (from_log,) = [e for e in table.log(who) if e["seq"] == seq]
        (from_export,) = [e for e in table.export(who) if e["seq"] == seq]
        (from_socket,) = live(table, who, after=seq - 1, count=1)
        for entry in (from_log, from_export, from_socket):
            _check(entry, visibility, rid, me)
        if who == "gm":
            secret_text = from_log["text"]
            whole = from_log
        else:
            # Redacted entries keep exactly what the GM's copy has for those keys.
            for entry in (from_log, from_export, from_socket):
                assert all(entry[k] == whole[k] for k in entry if k != "redacted")
    # The page holds no entry at all: its script reads them from the socket.
    assert secret_text is not None
    for who in ("alice", "bob"):
        page = _page(table, who)
        assert secret_text not in page and '"draws"' not in page


def _page(table: Table, who: str) -> str:
    """The room page as a browser gets it: through the one-time link and its cookie."""
    with table.server.client() as c:
        if who == "gm":
            pytest.skip("the GM's link comes with the room")  # pragma: no cover
        joined = c.post(
            f"/api/rooms/{table.room}/members", json={"name": who, "invite": table.invite}
        ).json()
        entered = c.get(joined["url"], follow_redirects=False)
        assert entered.status_code == 303
        cookie = entered.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
        page = c.get(f"/rooms/{table.room}")
        assert page.status_code == 200
        assert 'name="command"' in page.text and 'name="visibility"' in page.text
        assert c.get(joined["url"], follow_redirects=False).status_code == 403  # spent
        return page.text


def test_reveal_shows_the_entry_whole_to_everyone_from_then_on(table: Table) -> None:
    seq = table.roll("gm", "1d20", "blind").json()["seq"]
    (redacted,) = [e for e in table.log("alice") if e["seq"] == seq]
    assert redacted["redacted"] is True
    with table.client("alice") as c:
        assert c.post(f"/api/rooms/{table.room}/reveal", json={"seq": seq}).status_code == 403
    with table.client("gm") as c:
        done = c.post(f"/api/rooms/{table.room}/reveal", json={"seq": seq})
        assert done.status_code == 201 and done.json()["of"] == seq
        assert c.post(f"/api/rooms/{table.room}/reveal", json={"seq": seq}).status_code == 409
        public = table.roll("gm", "1d6").json()["seq"]
        assert c.post(f"/api/rooms/{table.room}/reveal", json={"seq": public}).status_code == 422
        assert c.post(f"/api/rooms/{table.room}/reveal", json={"seq": 0}).status_code == 422
    gm_copy = [e for e in table.log("gm") if e["seq"] == seq][0]
    for who in ("alice", "bob"):
        assert [e for e in table.log(who) if e["seq"] == seq][0] == gm_copy
        assert [e for e in table.export(who) if e["seq"] == seq][0] == gm_copy
        # The stream sends the reveal, then the revealed entry again, whole.
        frames = live(table, who, after=done.json()["seq"] - 1, count=2)
        assert frames[0]["kind"] == "reveal" and frames[1] == gm_copy


# ---------------------------------------------------------------- log integrity


def _verify_chain(entries: list[dict[str, Any]]) -> None:
    previous = GENESIS
    for i, e in enumerate(entries):
        assert e["seq"] == i
        assert e["digest"] == digest(e)
        assert e["chain"] == chain_link(previous, e["digest"])
        previous = e["chain"]


def test_eight_clients_rolling_at_once_leave_a_gapless_valid_chain(table: Table) -> None:
    start = threading.Barrier(8)
    errors: list[str] = []

    def player(i: int) -> None:
        who = ("gm", "alice", "bob")[i % 3]
        start.wait()
        for _ in range(12):
            r = table.roll(who, "3d6", ("public", "gm", "blind")[i % 3])
            if r.status_code != 201:
                errors.append(r.text)

    threads = [threading.Thread(target=player, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    entries = table.log("gm")
    # room, epoch, 2 joins, the lock and its signed head (contract v1.5), the rolls
    assert len(entries) == 2 + 2 + 2 + 8 * 12
    _verify_chain(entries)
    assert len({e["salt"] for e in entries}) == len(entries)


def test_rolls_are_made_on_the_server_and_replay_from_their_draws(table: Table) -> None:
    from referee import commands
    from referee.rng import ReplaySource

    entry = table.roll("alice", "  swn   save  physical --level 3 ").json()
    assert entry["command"] == "swn save physical --level 3"
    again = commands.run(entry["command"], ReplaySource([tuple(d) for d in entry["draws"]]))
    assert again.data == {**entry["result"], "secret": False}  # run() says whether it is secret
    bare = table.roll("alice", "3d6+2").json()
    assert bare["command"] == "roll 3d6+2"
    assert sum(v for _, v in bare["draws"]) + 2 == bare["result"]["total"]


def test_the_log_is_stored_as_written(table: Table) -> None:
    table.roll("bob", "4dF", "gm")
    rows = query(
        table.server.db, "SELECT seq, body FROM entries WHERE room_id = ? ORDER BY seq", table.room
    )
    tokens = [r[0] for r in query(table.server.db, "SELECT token_hash FROM tokens")]
    stored = [json.loads(b) for _, b in rows]
    assert stored == table.log("gm")
    for token in table.tokens.values():  # only hashes are stored
        assert token not in tokens
        assert hashlib.sha256(token.encode()).hexdigest() in tokens


# ----------------------------------------------------------------------- errors


def test_errors_are_json_with_the_contracts_codes(table: Table, server: Server) -> None:
    room = table.room
    with server.client() as anon, table.client("alice") as alice, server.client("nope") as bad:
        rolls, js = f"/api/rooms/{room}/rolls", {"content-type": "application/json"}
        cases: list[tuple[httpx.Response, int, str]] = [
            (alice.post(rolls, content=b"{", headers=js), 400, "malformed"),
            (anon.post(rolls, json={"command": "3d6"}), 401, "token"),
            (bad.post(rolls, json={"command": "3d6"}), 401, "unknown token"),
            (
                anon.post(f"/api/rooms/{room}/members", json={"name": "x", "invite": "no"}),
                403,
                "invite",
            ),
            (alice.get("/api/rooms/nosuchroom/log"), 404, "no room"),
            (alice.post(rolls, content=b"x" * 70_000, headers=js), 413, "KiB"),
            (alice.post(rolls, json={"command": "3d6x"}), 422, "column 4"),
            (alice.post(rolls, json={"command": "1d6+" * 300}), 422, "1,000 characters"),
            (alice.post(rolls, json={"command": "odds 3d6"}), 422, "does not roll"),
            (alice.post(rolls, json={"command": "roll 3d6 --seed 4"}), 422, "--seed"),
            (alice.post(rolls, json={"command": "3d6", "visibility": "x"}), 400, "visibility"),
            (alice.post(f"/api/rooms/{room}/reveal", json={"seq": 1}), 403, "GM"),
        ]
        other = make_table(server, "Other")
        with other.client("gm") as stranger:
            cases.append((stranger.get(f"/api/rooms/{room}/log"), 403, "another room"))
    for response, status, words in cases:
        assert response.status_code == status, (status, response.text)
        body = response.json()
        assert set(body) == {"error"} and words in body["error"], body
        assert "Traceback" not in response.text


def test_each_member_is_rate_limited(db_url: str, tmp_path: Path) -> None:
    class Tight(Loopback):
        rate = 2.0
        burst = 5.0

    with running(fresh_db(db_url, tmp_path), Tight) as s:
        t = make_table(s)
        with t.client("alice") as c:
            codes = [c.get(f"/api/rooms/{t.room}/log").status_code for _ in range(12)]
        assert codes[:5] == [200] * 5 and 429 in codes
        with t.client("bob") as c:  # another member has a bucket of their own
            assert c.get(f"/api/rooms/{t.room}/log").status_code == 200


def test_the_default_rate_allows_twenty_requests_a_second(table: Table) -> None:
    assert RoomsLimits.rate >= 20
    with table.client("bob") as c:
        codes = [c.get(f"/api/rooms/{table.room}/log").status_code for _ in range(40)]
    assert codes == [200] * 40


def test_the_socket_refuses_foreign_origins_and_bad_tokens(table: Table) -> None:
    from websockets.exceptions import ConnectionClosed, InvalidStatus
    from websockets.sync.client import connect
    from websockets.typing import Origin

    url = f"{table.server.ws_base}/api/rooms/{table.room}/live"
    with pytest.raises(InvalidStatus) as refused:
        connect(url, origin=Origin("http://evil.example"))
    assert refused.value.response.status_code == 403
    with connect(url) as ws:
        ws.send(json.dumps({"token": "wrong"}))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401


def test_a_client_that_reconnects_with_after_loses_nothing(table: Table) -> None:
    first = live(table, "bob", count=4)  # room, epoch, join, join
    assert [e["kind"] for e in first] == ["room", "epoch", "join", "join"]
    for i in range(5):
        table.roll("alice", f"1d{6 + i}")
    rest = live(table, "bob", after=first[-1]["seq"], count=7)  # the lock, its head, 5 rolls
    assert [e["seq"] for e in rest] == [4, 5, 6, 7, 8, 9, 10]
    assert [e["kind"] for e in rest] == ["lock", "head"] + ["roll"] * 5


def test_health_and_pages(server: Server) -> None:
    with server.client() as c:
        assert c.get("/api/health").json() == {"ok": True}
        home = c.get("/")
        assert home.status_code == 200 and "Create the room" in home.text
        assert c.get("/rooms/nosuchroom").status_code == 404
        t = make_table(server)
        assert c.get(f"/rooms/{t.room}").status_code == 401  # no cookie
        join = c.get(f"/rooms/{t.room}/join")
        assert join.status_code == 200 and "Join the table" in join.text


# ------------------------------------------------------- the fast paths, the caches


def test_the_fast_paths_answer_as_the_routes_do(table: Table) -> None:
    """A roll's POST and the live socket are served straight from ASGI in the common
    case (referee.rooms.routes.hot); anything else goes to the routes. Both answer alike."""
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    room, body = table.room, json.dumps({"command": "3d6"}).encode()
    with table.client("alice") as alice:
        rolls = f"/api/rooms/{room}/rolls"
        fast = alice.post(rolls, content=body, headers={"content-type": "application/json"})
        charset = alice.post(
            rolls, content=body, headers={"content-type": "Application/JSON; charset=utf-8"}
        )
        routed = alice.post(  # not plain JSON: the route reads it
            rolls, content=body, headers={"content-type": "application/vnd.referee+json"}
        )
        untyped = alice.post(rolls, content=body)  # the route wants a content type
        plain = alice.post(rolls, content=body, headers={"content-type": "text/plain"})
        missing = alice.post(rolls, json={"visibility": "gm"})
    for answer in (fast, charset, routed):
        assert answer.status_code == 201, answer.text
        assert set(answer.json()) == WHOLE
    assert [fast.json()["seq"] + i for i in (1, 2)] == [
        charset.json()["seq"],
        routed.json()["seq"],
    ]
    for answer in (untyped, plain):
        assert answer.status_code == 400 and set(answer.json()) == {"error"}
    assert missing.status_code == 400 and "command" in missing.json()["error"]
    # The live socket: a plain `after` is served fast; another query goes to the route.
    base = f"{table.server.ws_base}/api/rooms/{room}/live"
    last = routed.json()["seq"]
    for asked in (f"?after={last - 1}", f"?after={last - 1}&x=1"):
        with connect(base + asked, open_timeout=10) as ws:
            ws.send(json.dumps({"token": table.tokens["bob"]}))
            frame = json.loads(ws.recv(timeout=10))
        assert frame["seq"] == last and set(frame) == WHOLE, asked
    with pytest.raises(InvalidStatus) as refused:  # the route refuses a bad `after`
        connect(base + "?after=soon", open_timeout=10)
    assert refused.value.response.status_code == 403


ROOM_COMMANDS = (
    "3d6+2",
    "4d6kh3",
    "2d10!",
    "gurps check 14-4",
    "gurps reaction +2",
    "fudge roll Good --vs Great",
    "swn save physical --level 3 --con 14",
)


@pytest.mark.parametrize("command", ROOM_COMMANDS)
def test_a_kept_plan_rolls_as_a_freshly_read_one(command: str) -> None:
    """A room keeps each command's plan and rolls it again and again: it must roll
    exactly as the command read anew would, on the same draws."""
    from referee import commands, seeded
    from referee.rooms.rolling.reading import read_command

    _shown, kept = read_command(command)
    for seed in range(25):
        again = kept(seeded(seed))
        _, fresh = commands.plan(command, only_rolls=True)
        reply = fresh(seeded(seed))
        assert (again.data, again.text) == (reply.data, reply.text), seed


def test_the_plan_cache_keeps_the_newest_commands() -> None:
    from referee.rooms.rolling.reading import read_command
    from referee.rooms.state import Plans

    plans = Plans(most=2)
    for command in ("1d4", "1d6", "1d8"):
        plans.put(command, 200, read_command(command))
    assert plans.get("1d4", 200) is None  # the oldest went
    assert plans.get("1d6", 200) is not None and plans.get("1d6", 100) is None
    plans.put("1d10", 200, read_command("1d10"))  # 1d6 was used last: 1d8 goes
    assert plans.get("1d8", 200) is None and plans.get("1d6", 200) is not None


def test_every_response_carries_the_security_headers(table: Table, server: Server) -> None:
    """Issue 27: pages, static files, the API, its errors and the roll's fast path are
    all served with the CSP, nosniff and no-referrer (the GM's page must not be framed)."""
    from referee.rooms.app import SECURITY_HEADERS

    with table.client("gm") as gm, server.client() as anyone:
        responses = [
            anyone.get("/"),
            anyone.get(f"/rooms/{table.room}/join"),
            anyone.get("/static/room.js"),
            anyone.get("/api/health"),
            anyone.get(f"/api/rooms/{table.room}/log"),  # 401: no token
            gm.get(f"/rooms/{table.room}"),
            gm.get(f"/api/rooms/{table.room}/log"),
            table.roll("gm", "3d6"),  # the hot path
            anyone.post("/api/rooms", content=b"x" * (70 * 1024)),  # refused by the limit
        ]
    for r in responses:
        for name, value in SECURITY_HEADERS:
            assert r.headers.get(name.decode()) == value.decode(), (r.request.url, name)
    csp = dict(SECURITY_HEADERS)[b"content-security-policy"].decode()
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp


def test_who_is_connected_now(table: Table) -> None:
    """Issue 27: ``GET /api/rooms/{room}/present`` names the members with a live socket
    open (on this server), and needs a member's token like every room call."""
    from websockets.sync.client import connect

    url = f"{table.server.ws_base}/api/rooms/{table.room}/live"

    def present() -> list[str]:
        with table.client("bob") as c:
            got = c.get(f"/api/rooms/{table.room}/present")
        assert got.status_code == 200, got.text
        return got.json()["members"]  # type: ignore[no-any-return]

    assert present() == []
    with connect(url) as ws:
        ws.send(json.dumps({"token": table.tokens["alice"]}))
        ws.recv(timeout=10)  # following the room
        assert present() == [table.ids["alice"]]
    for _ in range(100):  # the server notices the close
        if not present():
            break
        threading.Event().wait(0.05)
    assert present() == []
    with table.server.client() as anyone:
        assert anyone.get(f"/api/rooms/{table.room}/present").status_code == 401
