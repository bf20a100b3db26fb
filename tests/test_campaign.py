"""Campaigns that move (issue 28): ``referee rooms copy`` from SQLite to PostgreSQL and
back, with every export identical and every old token still good; ``referee rooms
backup`` of a SQLite database while rolls go on."""

from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli.app import app
from referee.rooms.audit.verify import verify
from referee.rooms.db.copy import CopyError, backup_sqlite, copy_rooms
from referee.rooms.db.store import sqlite_url
from rooms_server import Loopback, Table, fresh_db, make_table, running

DAI = Path(__file__).parent / "data" / "gcs" / "Dai Blackthorn.gcs"


def _play(table: Table) -> None:
    """A little of everything a campaign logs: seeds, rolls of each visibility, a sheet
    and a roll as it, a reveal, a closed epoch, a member who left."""
    with table.client("alice") as c:
        assert c.post(f"/api/rooms/{table.room}/seed", json={"seed": "a" * 20}).status_code == 201
        sheet = c.put(f"/api/rooms/{table.room}/sheets/dai", content=DAI.read_bytes())
        assert sheet.status_code == 201
    for who, command, visibility in (
        ("alice", "gurps check Stealth -2", "public"),
        ("bob", "3d6", "gm"),
        ("gm", "gurps check 12", "blind"),
        ("gm", "4dF", "public"),
    ):
        assert table.roll(who, command, visibility).status_code == 201
    with table.client("gm") as c:
        secret = [e for e in table.log("gm") if e.get("visibility") == "blind"][0]
        assert (
            c.post(f"/api/rooms/{table.room}/reveal", json={"seq": secret["seq"]}).status_code
            == 201
        )
        assert (
            c.post(f"/api/rooms/{table.room}/close", json={"declassify": True}).status_code == 201
        )
    assert table.roll("bob", "2d6").status_code == 201
    with table.client("gm") as c:
        assert c.delete(f"/api/rooms/{table.room}/members/{table.ids['bob']}").status_code == 201


def _exports(table: Table) -> dict[str, bytes]:
    out = {}
    for who in ("gm", "alice"):
        with table.client(who) as c:
            got = c.get(f"/api/rooms/{table.room}/export")
            assert got.status_code == 200
            out[who] = got.content
    return out


def test_copy_to_postgresql_and_back(postgres: str, tmp_path: Path) -> None:
    first = sqlite_url(tmp_path / "first.sqlite3")
    with running(first) as server:
        tables = [make_table(server, f"Campaign {i}") for i in range(2)]
        for t in tables:
            _play(t)
        before = {t.room: _exports(t) for t in tables}
    pg = fresh_db(postgres, tmp_path)
    back = sqlite_url(tmp_path / "back.sqlite3")
    seen: list[tuple[int, int]] = []
    done = copy_rooms(first, pg, lambda n, total: seen.append((n, total)))
    assert done.rooms == 2 and seen and seen[-1][0] == seen[-1][1] == done.rows
    ran = CliRunner().invoke(app, ["rooms", "copy", "--from", pg, "--to", back])
    assert ran.exit_code == 0, ran.output
    assert "copied 2 rooms" in ran.output and "chain checked" in ran.output
    for url in (pg, back):
        with running(url) as server:
            for t in tables:
                moved = Table(server, t.room, t.invite, t.tokens, t.ids)
                assert _exports(moved) == before[t.room]  # byte for byte, as each sees it
                assert verify(moved.export("gm")).ok
                assert moved.roll("alice", "@dai gurps check Stealth").status_code == 201
                assert moved.roll("bob", "3d6").status_code == 401  # still removed
    # A target that holds any of the rooms is refused, and left as it was.
    with pytest.raises(CopyError, match="already holds 2 of these rooms"):
        copy_rooms(first, back)
    refused = CliRunner().invoke(app, ["rooms", "copy", "--from", first, "--to", back])
    assert refused.exit_code == 1 and "already holds" in refused.output


class Unpaced(Loopback):
    """Eight clients of three members roll as fast as they are answered."""

    rate = 1e6
    burst = 1e6


def test_a_backup_taken_while_rolls_go_on(tmp_path: Path) -> None:
    db = tmp_path / "live.sqlite3"
    with running(sqlite_url(db), Unpaced) as server:
        table = make_table(server)
        acked: list[tuple[float, int]] = []
        stop = threading.Event()

        def roll(who: str) -> None:
            with table.client(who) as c:
                while not stop.is_set():
                    r = c.post(f"/api/rooms/{table.room}/rolls", json={"command": "3d6"})
                    assert r.status_code == 201, r.text
                    acked.append((time.monotonic(), r.json()["seq"]))

        threads = [threading.Thread(target=roll, args=(w,)) for w in ["gm", "alice", "bob"] * 3][:8]
        for t in threads:
            t.start()
        # rolls under way before the backup: 21 or more acknowledged (a busy machine's
        # first second acknowledged 18 in one CI run, so the test waits for the count)
        deadline = time.monotonic() + 30
        while len(acked) <= 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)  # and still going
        began = time.monotonic()
        before = {seq for at, seq in list(acked) if at < began}
        pages = backup_sqlite(db, tmp_path / "backup.sqlite3")
        time.sleep(0.3)
        stop.set()
        for t in threads:
            t.join()
    assert pages > 0 and len(before) > 20
    with closing(sqlite3.connect(tmp_path / "backup.sqlite3")) as copy:
        stored = {
            seq
            for (seq,) in copy.execute("SELECT seq FROM entries WHERE room_id = ?", (table.room,))
        }
        assert before <= stored  # every roll acknowledged before the backup began is in it
        assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with pytest.raises(CopyError, match="exists"):
        backup_sqlite(db, tmp_path / "backup.sqlite3")
    ran = CliRunner().invoke(
        app, ["rooms", "backup", str(tmp_path / "b2.sqlite3"), "--db", str(db)]
    )
    assert ran.exit_code == 0 and "integrity checked" in ran.output
    # The backup opens as a room database: its log verifies.
    with running(sqlite_url(tmp_path / "b2.sqlite3")) as server:
        assert verify(
            Table(server, table.room, table.invite, table.tokens, table.ids).export("gm")
        ).ok


@pytest.mark.parametrize(
    ("tamper", "error"),
    [
        (  # an entry's body changed, its digest kept
            "UPDATE entries SET body = replace(body, '\"4dF\"', '\"3dF\"') WHERE seq = {seq}",
            "seq {seq} does not hold its digest or chain",
        ),
        ("DELETE FROM entries WHERE seq = {seq}", "seq {seq} is missing on the target"),
        ("UPDATE rooms SET next_seq = next_seq + 1", "the log ends at seq {last}, not where"),
    ],
)
def test_a_copy_of_a_log_that_does_not_hold_is_refused_and_nothing_is_copied(
    tmp_path: Path, tamper: str, error: str
) -> None:
    """``copy_rooms`` checks every room's chain on the target before it commits: a
    source whose log was changed (an entry's body, a missing entry, a room row that
    says the log goes on) is refused with the room and the seq, and the target is
    left empty."""
    source = tmp_path / "source.sqlite3"
    with running(sqlite_url(source)) as server:
        table = make_table(server, "Tampered")
        for command in ("3d6", "4dF", "2d6"):
            assert table.roll("gm", command).status_code == 201
    with closing(sqlite3.connect(source)) as db:
        rows = db.execute("SELECT seq, body FROM entries ORDER BY seq").fetchall()
        seq = next(s for s, body in rows if '"4dF"' in str(body))
        db.execute(tamper.format(seq=seq))
        db.commit()
    target = tmp_path / "target.sqlite3"
    expected = error.format(seq=seq, last=rows[-1][0])
    with pytest.raises(CopyError, match=f"room {table.room}: {expected}"):
        copy_rooms(sqlite_url(source), sqlite_url(target))
    with closing(sqlite3.connect(target)) as db:
        assert db.execute("SELECT count(*) FROM rooms").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM entries").fetchone() == (0,)
