"""Issue 49's findings, each through the API (contract v1.3, "the fight in the usual
flow"): one call id for every member (§2); SWN turns public after a hidden NPC's secret
initiative (§3); hidden NPCs anonymous, the GM's sheets the GM's, a call's roll made as
its combatant (§4); the fallen out of the turns and their calls closed (§6); a secret
seed's declassification as the docs now say (§8); the page's icon (§7)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx

from referee.rooms.audit.verify import verify
from rooms_server import LOOPBACK_TLS, Server, Table, live
from test_room_combat import ORC_WITH_DR
from test_room_fight import _event, _ok, _turn_to
from test_room_fight_swn import _swn_table
from test_room_sheets import DAI_TOML, put

DOCS = Path(__file__).parent.parent / "docs"
DATA = Path(__file__).parent / "data" / "rooms"


def _calls(table: Table, who: str) -> list[dict[str, Any]]:
    return list(table.fight(who)["calls"])


def _gurps(table: Table, *, hidden: bool = True) -> str:
    assert put(table, "alice", "dai", DAI_TOML.read_bytes(), "application/toml").status_code == 201
    assert put(table, "gm", "orc", ORC_WITH_DR, "application/toml").status_code == 201
    _ok(table, "gm", {"kind": "add", "sheet": "dai"})
    made = _ok(table, "gm", {"kind": "add", "sheet": "orc", **({"hidden": True} if hidden else {})})
    return str(made[0]["combatant"])


def test_a_call_has_one_id_for_every_member(table: Table) -> None:
    """§2: after the GM's secret damage, Alice's call is the GM's call: she answers it
    with the id she was given, and it closes for both."""
    _gurps(table)
    _ok(table, "gm", {"kind": "start"})
    hit = table.roll("gm", "gurps damage 4d+8 cr", "gm").json()
    _ok(table, "gm", {"kind": "damage", "combatant": "dai"}, int(hit["seq"]))
    first = table.roll("gm", "gurps damage 1d+8 cr", "gm").json()
    _ok(table, "gm", {"kind": "damage", "combatant": "dai"}, int(first["seq"]))
    mine, gms = _calls(table, "alice"), _calls(table, "gm")
    assert mine and [c["call"] for c in mine] == [c["call"] for c in gms if c["combatant"] == "dai"]
    while mine:  # one at a time: an answer may close the others (unconscious: rules 2)
        call = mine[0]
        got = _event(table, "alice", {"kind": "answer", "call": call["call"]}, None)
        assert got.status_code == 403  # a player answers with a roll
        with table.client("alice") as c:
            body = {"event": {"kind": "answer", "call": call["call"]}, "roll": "call"}
            answered = c.post(f"/api/rooms/{table.room}/fight", json=body)
        assert answered.status_code == 201, answered.text
        roll = answered.json()["roll"]
        assert roll["roller"] == table.ids["alice"] and roll["sheet"] == "dai"
        assert roll["command"] == call["command"] and roll["visibility"] == "public"
        mine = _calls(table, "alice")
        assert [c["call"] for c in mine] == [
            c["call"] for c in _calls(table, "gm") if c["combatant"] == "dai"
        ]
    assert _calls(table, "alice") == [] and not [
        c for c in _calls(table, "gm") if c["combatant"] == "dai"
    ]


def test_the_gms_roll_on_a_players_call_is_made_as_her_character(table: Table) -> None:
    """§4: the GM's only sheet is a hidden NPC's; the GM's Roll on Dai's call is made
    as Dai (its sheet), never as the orc, and public; the orc's own call is secret."""
    orc = _gurps(table)
    _ok(table, "gm", {"kind": "damage", "combatant": "dai", "amount": 9})
    _ok(table, "gm", {"kind": "damage", "combatant": orc, "amount": 9})
    for call in _calls(table, "gm"):
        with table.client("gm") as c:
            body = {"event": {"kind": "answer", "call": call["call"]}, "roll": "call"}
            got = c.post(f"/api/rooms/{table.room}/fight", json=body).json()
        roll = got["roll"]
        if call["combatant"] == "dai":
            assert roll["sheet"] == "dai" and roll["visibility"] == "public", roll
        else:
            assert roll["sheet"] == "orc" and roll["visibility"] == "gm", roll
    # A GM's plain roll, with the hidden orc her only sheet: made as no sheet at all.
    plain = table.roll("gm", "3d6").json()
    assert "sheet" not in plain and plain["visibility"] == "public"
    # A GM's roll named as the hidden orc: secret, whatever was asked.
    named = table.roll("gm", "@orc gurps check Broadsword").json()
    assert named["visibility"] == "gm"


def test_hidden_npcs_are_anonymous_to_players(table: Table) -> None:
    """§4: the orc's sheet and its hidden combatant name nothing to a player: the sheet
    entry is the GM's, the sheet list leaves it out, the id is opaque, and the turn
    order shows only that id; a hidden add naming its own id is refused."""
    orc = _gurps(table)
    assert re.fullmatch(r"npc-[0-9a-f]{4}", orc)
    named = _event(
        table, "gm", {"kind": "add", "combatant": "orc2", "sheet": "orc", "hidden": True}
    )
    assert named.status_code == 422 and "leave out 'combatant'" in named.json()["error"]
    _ok(table, "gm", {"kind": "start"})
    _ok(table, "gm", {"kind": "next"})
    for who in ("alice", "bob"):
        with table.client(who) as c:
            sheets = c.get(f"/api/rooms/{table.room}/sheets").json()["sheets"]
        assert [s["sheet"] for s in sheets] == ["dai"]
        seen = [str(table.log(who)), str(table.export(who)), str(table.fight(who)), str(sheets)]
        seen.append(str(live(table, who, after=-1, count=len(table.log(who)))))
        for text in seen:
            assert "Orc" not in text and "'orc'" not in text and "@orc" not in text, text[:400]
        state = table.fight(who)
        assert orc in state["order"] and orc not in [c["combatant"] for c in state["combatants"]]
    gm = table.log("gm")
    sheet = next(e for e in gm if e["kind"] == "sheet" and e["sheet"] == "orc")
    assert sheet["visibility"] == "gm"


def test_swn_players_see_the_turns_after_a_hidden_npcs_secret_initiative(server: Server) -> None:
    """§3: the round-1 turn entry, moved by the hidden boss's secret initiative roll,
    is public: Alice's fight starts at round 1 with its order."""
    table = _swn_table(server)
    vex = {"hp_max": 8, "dex_mod": 1}
    _ok(table, "gm", {"kind": "add", "combatant": "vex", "values": vex, "pc": True,
                      "owner": table.ids["alice"]})  # fmt: skip
    boss = _ok(table, "gm", {"kind": "add", "values": {"hp_max": 8}, "hidden": True})
    boss_id = boss[0]["combatant"]
    _ok(table, "gm", {"kind": "start"})
    for call in _calls(table, "gm"):
        who = "alice" if call["combatant"] == "vex" else "gm"
        with table.client(who) as c:
            body = {"event": {"kind": "answer", "call": call["call"]}, "roll": "call"}
            got = c.post(f"/api/rooms/{table.room}/fight", json=body)
        assert got.status_code == 201, got.text
        if call["combatant"] == boss_id:
            assert got.json()["roll"]["visibility"] == "gm"  # a hidden combatant's roll
    state = table.fight("alice")
    assert state["round"] == 1 and sorted(state["order"]) == sorted(["vex", boss_id])
    turns = [e for e in table.log("alice") if e["kind"] == "turn"]
    assert turns and all(not e.get("redacted") for e in turns)


def test_the_fallen_get_no_turn_and_their_calls_close(table: Table) -> None:
    """§6: the orc dies (−5×HP, B419): its open calls close, and Next turn passes it by;
    Dai, unconscious at −1×HP, keeps her death check (B419) and is passed by too."""
    orc = _gurps(table, hidden=False)
    _ok(table, "gm", {"kind": "start", "order": ["dai", orc]})
    _ok(table, "gm", {"kind": "damage", "combatant": orc, "amount": 7})  # a knockdown call
    assert [c for c in _calls(table, "gm") if c["combatant"] == orc]
    _ok(table, "gm", {"kind": "damage", "combatant": orc, "amount": 80})  # past -5 x 12
    state = table.fight("gm")
    mine = next(c for c in state["combatants"] if c["combatant"] == orc)
    assert "dead" in mine["conditions"] and mine["down"] is True
    assert not [c for c in state["calls"] if c["combatant"] == orc]
    for _ in range(3):
        assert _ok(table, "gm", {"kind": "next"})[0]["current"] == "dai"
    # Dai falls unconscious: her survive roll stays, the rest close; nobody can act.
    _ok(table, "gm", {"kind": "set", "combatant": "dai", "add": ["unconscious"]})
    _ok(table, "gm", {"kind": "damage", "combatant": "dai", "amount": 30})
    kinds = {c["kind"] for c in _calls(table, "gm")}
    assert kinds <= {"survive"} and "survive" in kinds, kinds
    stuck = _event(table, "gm", {"kind": "next"})
    assert stuck.status_code == 422 and "out of the fight" in stuck.json()["error"]
    assert verify(table.export("gm")).ok and verify(table.export("alice")).ok


def test_declassifying_proves_the_gms_export_not_the_players(table: Table) -> None:
    """§8: the docs say what happens: after "also reveal the secret seed", the GM's
    export checks every secret roll; a player's keeps them redacted until revealed."""
    secret = [table.roll("gm", "3d6", "gm").json()["seq"] for _ in range(3)]
    with table.client("gm") as c:
        assert (
            c.post(f"/api/rooms/{table.room}/close", json={"declassify": True}).status_code == 201
        )
    gm, alice = verify(table.export("gm")), verify(table.export("alice"))
    assert gm.ok and alice.ok
    assert sum(e.redacted for e in alice.epochs.values()) == len(secret)
    assert sum(e.redacted for e in gm.epochs.values()) == 0
    start = (DOCS / "index.md").read_text()
    assert "to let players check the secret rolls" not in start
    assert "until you **Reveal** each one" in start


def test_the_pages_icon(server: Server) -> None:
    got = httpx.get(f"{server.base}/favicon.ico", verify=LOOPBACK_TLS)
    assert got.status_code == 200 and got.headers["content-type"].startswith("image/svg+xml")


def test_repeated_parries_are_counted_until_the_next_turn(table: Table) -> None:
    """§6 (B376): each parry since a combatant's own turn began is counted in the fight
    (``parried``): a player counts her own with her ``gurps defend`` roll, and the
    server's defense of an NPC rolls at --parried N; a new turn starts again at 0."""
    orc = _gurps(table, hidden=False)
    _ok(table, "gm", {"kind": "start", "order": [orc, "dai"]})
    for n in range(2):
        rolled = table.roll("alice", "@dai gurps defend parry" + (f" --parried {n}" if n else ""))
        assert rolled.status_code == 201, rolled.text
        # Issue 71 §1.9: her defense comes from her call; a roll she chose counts only
        # when the GM counts it.
        mine = _event(table, "alice", {"kind": "defend", "combatant": "dai", "defense": "parry"},
                      int(rolled.json()["seq"]))  # fmt: skip
        assert mine.status_code == 403 and "defense call" in mine.json()["error"]
        counted = _ok(table, "gm", {"kind": "defend", "combatant": "dai", "defense": "parry"},
                      int(rolled.json()["seq"]))  # fmt: skip
        assert counted[0]["values"]["parried"] == [n, n + 1]
    other = table.roll("alice", "3d6").json()
    wrong = _event(table, "gm", {"kind": "defend", "combatant": "dai", "defense": "parry"},
                   int(other["seq"]))  # fmt: skip
    assert wrong.status_code == 422 and "defense roll" in wrong.json()["error"]
    theirs = _event(table, "bob", {"kind": "defend", "combatant": "dai", "defense": "parry"}, None)
    assert theirs.status_code == 403
    _ok(table, "gm", {"kind": "next"})  # Dai's turn begins: her parries start again
    dai = next(c for c in table.fight("gm")["combatants"] if c["combatant"] == "dai")
    assert dai["values"]["parried"] == 0
    assert verify(table.export("gm")).ok


def test_a_log_written_before_v1_3_replays_by_its_own_rules() -> None:
    """A room's export from referee 0.1 (before contract v1.3; made by 01410d3 and kept
    in tests/data/rooms): its events name no rules, so they replay by rules 1, as
    written: the dead guard's turns, the orc's injury at the roll's own DR 0, the GM's
    secret damage to Dai redacted for Alice. Every event still follows for the GM."""
    for who in ("gm", "alice"):
        lines = (DATA / f"v1.2-fight-{who}.jsonl").read_text().splitlines()
        entries = [json.loads(line) for line in lines]
        assert not any("rules" in (e.get("event") or {}) for e in entries)
        report = verify(entries)
        assert report.ok, (who, report.text())
        assert "no signature to check" in report.text().splitlines()[-1], report.text()
        if who == "gm":
            assert report.fight_checked == 12 and report.fight_adopted == 0
        else:
            assert report.fight_adopted >= 1  # the secret damage, hidden from her then


def test_an_exchange_reads_the_trackers_values(table: Table) -> None:
    """§5: the GM's exchange against Dai, who is in the fight, reads her HP now from
    the tracker (not her sheet's full HP), and her parries since her turn began."""
    orc = _gurps(table, hidden=False)
    assert orc == "orc"
    _ok(table, "gm", {"kind": "start"})
    _ok(table, "gm", {"kind": "damage", "combatant": "dai", "amount": 9})
    rolled = table.roll("alice", "@dai gurps defend parry").json()
    _ok(table, "gm", {"kind": "defend", "combatant": "dai", "defense": "parry"},
        int(rolled["seq"]))  # fmt: skip
    hp = next(c for c in table.fight("gm")["combatants"] if c["combatant"] == "dai")["values"]["hp"]
    full = next(c for c in table.fight("gm")["combatants"] if c["combatant"] == "dai")
    # Contract v1.4: her player rolls her own defense; a typed exchange that would choose
    # it for her is refused before any die, unless the GM names it (--defense).
    size = len(table.log("gm"))
    refused = table.roll("gm", "@orc gurps attack Broadsword --vs @dai")
    assert refused.status_code == 422 and "rolls her own defense" in refused.json()["error"]
    assert len(table.log("gm")) == size
    for _ in range(30):
        made = table.roll("gm", "@orc gurps attack Broadsword --vs @dai --defense best").json()
        tail = f"--hp-now {hp} --hp {full['values']['hp_max']} --parried 1"
        assert made["resolved"].endswith(tail), made["resolved"]
        assert "Dodge 5" in made["text"] or "Dodge" not in made["text"]  # reeling: 10 / 2
        if (made["result"].get("damage") or {}).get("injury"):
            assert f"Dai Blackthorn {hp} →" in made["text"], made["text"]  # from her HP now
            break
    else:
        raise AssertionError("thirty attacks and no injury")
    own = table.roll(
        "gm", "@orc gurps attack Broadsword --vs @dai --hp-now 3 --defense dodge"
    ).json()
    assert own["resolved"].count("--hp-now") == 1  # the roller's own figure stands


BRUTE = ORC_WITH_DR.replace(b"[skills]", b"[attributes]\nST = 14\nDX = 11\nHT = 13\n\n[skills]")
"""The orc with attributes of its own: HT 13 and DX 11, which no default gives."""

SHEET_KEYS = ("st", "dx", "iq", "ht", "will", "speed", "dr", "hpt", "lpt")


def _numbers_in(entry: dict[str, Any]) -> list[str]:
    """What an entry about the orc shows of its sheet: values, initiative, commands."""
    found = [k for k in entry.get("values") or {} if k in SHEET_KEYS or k.startswith("dr_")]
    found += ["initiative"] if "initiative" in entry else []
    found += [f"call {c['call']}" for c in entry.get("calls") or [] if "command" in c]
    if entry.get("event") and "values" in entry["event"]:
        found += [f"event {k}" for k in entry["event"]["values"] if k in SHEET_KEYS]
    return found


def test_a_visible_npcs_sheet_numbers_stay_the_gms(table: Table) -> None:
    """§5, "the NPC's sheet numbers stay the GM's; players see the outcome": a visible
    orc from the GM's sheet (HT 13, DX 11, DR 2) goes through a fight: added, in the
    order, wounded, called to roll, attacked by Alice, given HT 14 by the GM's hand.
    Every entry about it that Alice receives (the log, the socket, the export) and her
    ``GET /fight`` show its HP, FP and conditions, never those numbers, its
    initiative or its calls' commands; the GM's show them all, and both exports
    verify, the GM's checking every event."""
    assert put(table, "alice", "dai", DAI_TOML.read_bytes(), "application/toml").status_code == 201
    assert put(table, "gm", "orc", BRUTE, "application/toml").status_code == 201
    _ok(table, "gm", {"kind": "add", "sheet": "dai"})
    made = _ok(table, "gm", {"kind": "add", "sheet": "orc"})
    assert [e["visibility"] for e in made] == ["public", "gm"]  # and the GM's copy
    assert made[1]["values"]["ht"] == 13 and made[1]["values"]["dr"] == 2
    _ok(table, "gm", {"kind": "start"})
    _ok(table, "gm", {"kind": "damage", "combatant": "orc", "amount": 7})  # a major wound
    _ok(table, "gm", {"kind": "set", "combatant": "orc", "values": {"ht": 14}})
    body = {"attacker": "dai", "target": "orc", "weapon": "Knife (Swung)"}
    for _ in range(3):  # each on Dai's own turn (contract v1.4)
        _turn_to(table, "dai")
        with table.client("alice") as c:
            assert c.post(f"/api/rooms/{table.room}/fight/attack", json=body).status_code == 201
    gm = next(c for c in table.fight("gm")["combatants"] if c["combatant"] == "orc")
    assert gm["values"]["ht"] == 14 and gm["values"]["dx"] == 11 and gm["values"]["dr"] == 2
    knockdown = [c for c in table.fight("gm")["calls"] if c["combatant"] == "orc"]
    assert knockdown and "check 13 " in knockdown[0]["command"]  # its HT then
    mine = table.fight("alice")
    orc = next(c for c in mine["combatants"] if c["combatant"] == "orc")
    assert orc["values"]["hp"] == gm["values"]["hp"] and orc["values"]["hp_max"] == 12
    assert not [k for k in orc["values"] if k in SHEET_KEYS], orc["values"]
    assert orc["conditions"] == gm["conditions"]
    theirs = [c for c in mine["calls"] if c["combatant"] == "orc"]
    assert [c["call"] for c in theirs] == [c["call"] for c in knockdown]
    assert all("command" not in c for c in theirs)
    log = table.log("alice")
    frames = live(table, "alice", after=-1, count=len(log))
    for entries in (log, table.export("alice"), frames):
        about = [e for e in entries if e.get("combatant") == "orc" and not e.get("redacted")]
        assert about and not [(e["seq"], _numbers_in(e)) for e in about if _numbers_in(e)]
    assert [e for e in table.log("gm") if e.get("combatant") == "orc" and _numbers_in(e)]
    gm_report, hers = verify(table.export("gm")), verify(table.export("alice"))
    assert gm_report.ok and hers.ok, (gm_report.text(), hers.text())
    assert gm_report.fight_adopted == 0 and hers.fight_adopted > 0
