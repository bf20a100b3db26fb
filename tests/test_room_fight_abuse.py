"""A hostile player against the fight (issue 41): no answer tells of a hidden NPC's
calls, a call is answered only with a roll, Luck Points are only spent, a malformed
event gets its own refusal and spoils no one else's, and a second server reading the
same log rebuilds the fight the first one holds (a hidden NPC's turn moves included)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx

from referee.rooms.audit.fightcheck import check_fight
from rooms_server import LOOPBACK_TLS, Server, Table, running
from test_room_fight import _by_call, _event, _ok, _setup, _state


def test_a_player_learns_nothing_of_a_hidden_npcs_calls(table: Table) -> None:
    orc = _setup(table)  # Dai is Alice's; the orc is the GM's, hidden
    _ok(table, "gm", {"kind": "damage", "combatant": orc, "amount": 1, "location": "skull"})
    (call,) = [c for c in _state(table, "gm")["calls"] if c["combatant"] == orc]
    mine = table.roll("alice", "1d6").json()["seq"]
    refusals = {
        "the orc's call, a wrong roll": _event(
            table, "alice", {"kind": "answer", "call": call["call"]}, mine
        ),
        "a call that does not exist": _event(
            table, "alice", {"kind": "answer", "call": f"{orc}/99"}, mine
        ),
    }
    texts = {k: (r.status_code, r.json()["error"]) for k, r in refusals.items()}
    assert len(set(texts.values())) == 1, texts  # the same answer either way
    status, error = next(iter(texts.values()))
    assert status == 403 and "gurps check" not in error and "HT" not in error


def test_a_player_answers_a_call_with_a_roll_only(table: Table) -> None:
    _setup(table)
    _ok(table, "gm", {"kind": "damage", "combatant": "dai", "amount": 1, "location": "skull"})
    (call,) = [c for c in _state(table, "alice")["calls"] if c["combatant"] == "dai"]
    forged = {
        "kind": "answer",
        "call": call["call"],
        "success": True,
        "margin": 9,
        "critical": False,
        "total": 3,
    }
    got = _event(table, "alice", forged)
    assert got.status_code == 403 and "with their roll" in got.json()["error"]
    # verify refuses a player's answer with no roll (the GM may answer by hand).
    log = table.export("gm")
    fake = {"room": table.room, "seq": len(log), "kind": "change", "combatant": "dai", "values": {},
            "calls": [], "closed": [call["call"]], "event": forged, "part": [0, 1], "why": None,
            "by": table.ids["alice"], "visibility": "public"}  # fmt: skip
    _checked, _adopted, problems = check_fight([*log, fake])
    assert any("names no roll" in what for _seq, what in problems), problems


def test_luck_points_are_spent_never_gained(server: Server) -> None:
    with server.client() as c:
        made = c.post("/api/rooms", json={"name": "Psi", "system": "fudge"}).json()
        ann = c.post(
            f"/api/rooms/{made['room']}/members", json={"name": "Ann", "invite": made["invite"]}
        ).json()
    table = Table(server, made["room"], made["invite"], {"gm": made["token"], "ann": ann["token"]},
                  {"gm": "gm", "ann": ann["member"]})  # fmt: skip
    add = {"kind": "add", "combatant": "ron", "values": {"luck": 2}, "owner": ann["member"]}
    _ok(table, "gm", add)
    spend = {"kind": "set", "combatant": "ron", "values": {"luck": 1}}
    assert _event(table, "ann", spend).status_code == 201
    for luck in (50, 1):  # more, or the same: not a spend
        got = _event(table, "ann", {**spend, "values": {"luck": luck}})
        assert got.status_code == 403, got.text


def test_a_malformed_event_is_refused_alone(table: Table) -> None:
    _setup(table)
    bad = {"kind": "set", "combatant": ["x"], "values": {"luck": 1}}
    assert _event(table, "alice", bad).status_code == 403
    assert _event(table, "gm", bad).status_code == 422

    async def together() -> list[int]:  # the GM's event in the same batch still lands
        async with httpx.AsyncClient(
            base_url=table.server.base, timeout=30, verify=LOOPBACK_TLS
        ) as c:
            url = f"/api/rooms/{table.room}/fight"
            calls = [
                c.post(url, json={"event": bad}, headers=_auth(table, "alice")),
                c.post(
                    url,
                    json={"event": {"kind": "heal", "combatant": "dai", "amount": 0}},
                    headers=_auth(table, "gm"),
                ),  # fmt: skip
                c.post(
                    url,
                    json={"event": {"kind": "damage", "combatant": "dai", "amount": 1}},
                    headers=_auth(table, "gm"),
                ),  # fmt: skip
            ]
            return [r.status_code for r in await asyncio.gather(*calls)]

    statuses = asyncio.run(together())
    assert statuses[0] == 403 and statuses[2] == 201, statuses


def _auth(table: Table, who: str) -> dict[str, str]:
    return {"authorization": f"Bearer {table.tokens[who]}"}


def test_another_server_rebuilds_the_fight_from_the_log(table: Table, tmp_path: Path) -> None:
    """A hidden NPC delayed, then removed, logs only public ``turn`` entries with no
    event: a server that reads the log afresh takes them as logged."""
    orc = _setup(table)
    _ok(table, "gm", {"kind": "start"})
    _ok(table, "gm", {"kind": "delay", "combatant": orc})
    _ok(table, "gm", {"kind": "remove", "combatant": orc})
    held = _state(table, "gm")
    with running(table.server.db) as fresh:
        again: dict[str, Any] = httpx.get(
            f"{fresh.base}/api/rooms/{table.room}/fight",
            headers=_auth(table, "gm"),
            verify=LOOPBACK_TLS,
        ).json()
    assert again == held
    assert held["removed"] == [orc] and orc not in held["order"]


def test_a_long_fight_is_read_afresh_off_the_event_loop(table: Table) -> None:
    """Over ``OFF_LOOP`` entries, a fresh server replays the fight in a worker thread
    (the GM's whole view and a player's): the same state as the server that wrote it."""
    from referee.rooms.db.fightreplay import OFF_LOOP

    _setup(table)
    _ok(table, "gm", {"kind": "start"})

    def patiently(who: str, method: str, path: str, **kw: Any) -> httpx.Response:
        """A request that waits out the member's rate (429), as a page does: the GM's
        events use it up, and the reads after them share it."""
        with table.client(who) as c:
            while (
                r := c.request(method, f"/api/rooms/{table.room}/{path}", **kw)
            ).status_code == 429:
                time.sleep(0.2)
        return r

    for i in range(OFF_LOOP // 2 + 10):
        kind = "heal" if i % 2 else "damage"
        event = {"kind": kind, "combatant": "dai", "amount": 1}
        r = patiently("gm", "POST", "fight", json={"event": event})
        assert r.status_code == 201, r.text
    log = patiently("gm", "GET", "log", params={"after": -1, "limit": 1000}).json()["entries"]
    assert len([e for e in log if e["kind"] == "change"]) > OFF_LOOP // 2
    held = {who: patiently(who, "GET", "fight").json() for who in ("gm", "alice")}
    with running(table.server.db) as fresh:
        for who, state in held.items():
            got = httpx.get(
                f"{fresh.base}/api/rooms/{table.room}/fight",
                headers=_auth(table, who),
                verify=LOOPBACK_TLS,
            )
            assert got.json() == state, who


def test_verify_finds_an_answer_whose_numbers_are_not_its_rolls(table: Table) -> None:
    """The export's fight check (``referee verify``): an answer's numbers must be those
    of the roll it names, and that roll must be in the log; an export of a fight in a
    room with no system is named, not replayed."""
    _setup(table)
    _ok(table, "gm", {"kind": "damage", "combatant": "dai", "amount": 1, "location": "skull"})
    (call,) = [c for c in _state(table, "alice")["calls"] if c["combatant"] == "dai"]
    got = _by_call(table, "alice", call["call"])
    assert got.status_code == 201, got.text
    mine = got.json()["roll"]
    log = table.export("gm")
    assert check_fight(log)[2] == []
    (at,) = [i for i, e in enumerate(log) if (e.get("event") or {}).get("kind") == "answer"]
    answer = log[at]
    assert answer["why"] == mine["seq"]

    def problems(changed: dict[str, Any]) -> list[str]:
        return [what for _seq, what in check_fight([*log[:at], changed, *log[at + 1 :]])[2]]

    margin = answer["event"]["margin"]
    forged = {**answer, "event": {**answer["event"], "margin": margin + 3}}
    assert f"its numbers are not roll {mine['seq']}'s" in problems(forged)
    assert "its roll 999999 is not in the log" in problems({**answer, "why": 999999})
    room_seq = next(e["seq"] for e in log if e["kind"] == "room")  # an entry, not a roll
    assert f"its roll {room_seq} is not in the log" in problems({**answer, "why": room_seq})
    no_system = [{**e, "system": None} if e["kind"] == "room" else e for e in log]
    assert [w for _s, w in check_fight(no_system)[2]] == ["a fight in a room with no system"]


def test_an_armor_divisor_out_of_range_is_refused_by_name(table: Table) -> None:
    """B378's divisors are 0.1 to 100: a GM's damage event with a divisor of 0 (which no
    DR divides by) or 1000 is refused with its reason, and the fight goes on."""
    _setup(table)
    for divisor in ("0", "1000", "x", "1e99999999"):  # the last: read, minutes of work
        event = {"kind": "damage", "combatant": "dai", "basic": 9, "type": "cut",
                 "divisor": divisor}  # fmt: skip
        got = _event(table, "gm", event)
        assert got.status_code == 422, got.text
        assert (
            f"an armor divisor is a fraction from 0.1 to 100 such as 3/1, not {divisor!r}"
            in (got.json()["error"])
        )
    (change,) = _ok(table, "gm", {"kind": "damage", "combatant": "dai", "basic": 9,
                                  "type": "cut", "divisor": "2"})  # fmt: skip
    assert change["event"]["divisor"] == "2"


def test_an_event_takes_only_a_roll_of_the_room_and_a_player_only_her_own(table: Table) -> None:
    """A fight event that names a roll: the seq must be a roll of this room (422), a
    player's must be her own (403: not the GM's secret one); damage from a roll that
    names no target must name its combatant; the GM's answer to no call is refused by
    name."""
    orc = _setup(table)
    secret = table.roll("gm", "3d6", "gm").json()["seq"]
    mine = table.roll("alice", "2d6").json()["seq"]
    room = next(e["seq"] for e in table.export("gm") if e["kind"] == "room")
    _ok(table, "gm", {"kind": "damage", "combatant": "dai", "amount": 1, "location": "skull"})
    (call,) = [c for c in _state(table, "alice")["calls"] if c["combatant"] == "dai"]
    hers = {"kind": "answer", "call": call["call"]}
    hit = {"kind": "damage", "combatant": "dai"}
    cases = [
        ("alice", hers, secret, 403, f"roll {secret} is another member's"),
        ("gm", hit, room, 422, f"seq {room} is not a roll in this room"),
        ("gm", hit, 10**6, 422, f"seq {10**6} is not a roll in this room"),
        (
            "gm",
            {"kind": "damage"},
            mine,
            422,
            "name the combatant to apply this roll to ('combatant')",
        ),
        (
            "gm",
            {"kind": "answer", "call": f"{orc}/77"},
            mine,
            422,
            f"no call '{orc}/77' is open in this fight",
        ),
    ]
    for who, event, roll, status, error in cases:
        got = _event(table, who, event, roll)
        assert (got.status_code, got.json()["error"]) == (status, error), (event, got.text)
    hp = _state(table, "gm")["combatants"][0]["values"]["hp"]
    (change,) = _ok(table, "gm", hit, mine)  # the GM may apply a player's roll
    assert change["values"]["hp"][0] == hp and change["why"] == mine
