"""Issue 40 in a room: the exchange as one roll, the GM naming an NPC's sheet as the
target (``--vs @orc``), a player refused another member's sheet, and the log's
``resolved`` command carrying the target's numbers so that the export verifies."""

from __future__ import annotations

from referee.rooms.audit.verify import verify
from rooms_server import Table
from test_room_sheets import DAI_TOML, put

ORC_WITH_DR = b"""system = "gurps"
name = "Orc"
hp = 12
dr = 2
dodge = 8

[skills]
Broadsword = 14

[[attacks]]
name = "Broadsword"
usage = "Swung"
level = 14
damage = "2d+1 cut"
parry = "10"
"""


def _roll(table: Table, who: str, command: str, vis: str = "public") -> dict[str, object]:
    answer = table.roll(who, command, vis)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def test_the_gm_attacks_an_npc_and_the_export_verifies(table: Table) -> None:
    assert put(table, "gm", "dai", DAI_TOML.read_bytes(), "application/toml").status_code == 201
    assert put(table, "gm", "orc", ORC_WITH_DR, "application/toml").status_code == 201
    for _ in range(6):  # several exchanges: hits, misses and defenses alike
        entry = _roll(table, "gm", "@dai gurps attack 'Knife (Swung)' --vs @orc")
        assert entry["result"]["kind"] == "exchange", entry  # type: ignore[index]
        resolved = str(entry["resolved"])
        assert "@" not in resolved and "--target-name" in resolved and "--hp 12" in resolved
        assert "--dr 2" in resolved and entry["sheet"] == "dai"
    # A roll that names only a target, with no sheet of the roller's.
    bare = _roll(table, "gm", "gurps attack 14 --damage '2d cut' --vs @orc --defense none")
    assert "sheet" not in bare and "--target-name" in str(bare["resolved"])
    assert table.roll("gm", "@dai gurps check Parry").status_code == 201
    assert table.roll("gm", "@dai gurps defend dodge --retreat").status_code == 201
    gm = table.client("gm")
    with gm:
        assert (
            gm.post(f"/api/rooms/{table.room}/close", json={"declassify": True}).status_code == 201
        )
    report = verify(table.export("gm"))
    assert report.ok, report.text()
    assert (
        sum(e.verified for e in report.epochs.values()) == 9
    )  # six exchanges, the bare one, the parry and the dodge


def test_a_player_may_not_target_another_members_sheet(table: Table) -> None:
    assert put(table, "gm", "orc", ORC_WITH_DR, "application/toml").status_code == 201
    assert put(table, "alice", "dai", DAI_TOML.read_bytes(), "application/toml").status_code == 201
    # The GM's sheet is not there for a player (contract v1.3); another player's is hers.
    refused = table.roll("alice", "@dai gurps attack 'Knife (Swung)' --vs @orc")
    assert refused.status_code == 422
    assert refused.json()["error"] == "no sheet 'orc' in this room (sheets: dai)"
    # Bob's own character (another name: a name that reads as Dai's is refused, issue 71).
    vex = DAI_TOML.read_bytes().replace(b'name = "Dai Blackthorn"', b'name = "Vex Rook"')
    assert put(table, "bob", "vex", vex, "application/toml").status_code == 201
    theirs = table.roll("alice", "@dai gurps attack 'Knife (Swung)' --vs @vex")
    assert theirs.status_code == 403 and "another member's" in theirs.json()["error"]
    unknown = table.roll("alice", "@dai gurps attack 'Knife (Swung)' --vs @nobody")
    assert unknown.status_code == 422 and "no sheet 'nobody'" in unknown.json()["error"]
    own = table.roll("alice", "@dai gurps attack 'Knife (Swung)' --vs @dai")
    assert own.status_code == 201, own.text  # her own sheet: allowed (if odd)


def test_fudge_oppose_from_two_sheets_in_a_room(table: Table) -> None:
    with table.server.client() as c:  # a Fudge room of its own
        made = c.post("/api/rooms", json={"name": "Psi", "system": "fudge"}).json()
        alice = c.post(
            f"/api/rooms/{made['room']}/members", json={"name": "Alice", "invite": made["invite"]}
        ).json()
    table = Table(
        table.server,
        made["room"],
        made["invite"],
        {"gm": made["token"], "alice": alice["token"]},
        {"gm": "gm", "alice": alice["member"]},
    )
    examples = DAI_TOML.parent
    for name in ("ron", "bouncer"):
        body = (examples / f"{name}.toml").read_bytes()
        assert put(table, "gm", name, body, "application/toml").status_code == 201
    entry = _roll(table, "gm", "fudge oppose @ron @bouncer Notice")
    assert entry["command"] == "fudge oppose @ron @bouncer Notice"
    assert entry["resolved"] == "fudge oppose +0 +1 --names Ron,Bouncer"
    assert entry["sheet"] == "ron" and "Bouncer" in str(entry["text"])
    same = _roll(table, "gm", "@ron fudge oppose Notice Notice --sheet2 @bouncer")
    assert same["resolved"] == entry["resolved"]
    assert table.roll("alice", "fudge oppose @ron @bouncer Notice").status_code == 422
    two = _roll(table, "gm", "fudge oppose @ron @bouncer Focus Brawling --mod2 -1")
    assert two["resolved"] == "fudge oppose +2 +2 --mod2 -1 --names Ron,Bouncer"
    missing = table.roll("gm", "fudge oppose @ron @bouncer Focus Notice2")
    assert missing.status_code == 422 and "Notice2" in missing.json()["error"]
