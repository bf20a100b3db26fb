"""Signed heads (issue 71 §2, contract v1.5): the signature's test vector, the server's
key kept in its database (one for every server sharing it, made once however many start
at once), a ``head`` entry after each lock, close and reveal, ``GET /api/key``, the
fingerprint on the room's page, and ``referee verify --key`` / ``--server``."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from referee.rooms.audit.verify import verify
from referee.rooms.db.copy import copy_rooms
from referee.rooms.db.serverkey import server_signer
from referee.rooms.db.store import migrate
from referee.rooms.signing import SIGNED_KINDS, Signer, check_head, fingerprint, signed_bytes
from rooms_server import Server, Table, fresh_db, make_table, query, running
from zygote import run as referee_cli

# ------------------------------------------------------------------ the test vector
# docs/reference/rooms-contract.md, "Test vectors": the key whose private seed is the
# bytes 0x00...0x1f signs the head over seq 0 of room42, whose chain link is the
# contract's chain vector. Checked against OpenSSL too (openssl pkeyutl -sign -rawin).

SEED = bytes(range(32))
CHAIN = "336e5701582b0d0d4106b26eff7c2b9d647f073d46f44d14d1c4943dc283b292"
SIGNED = b"referee-head:v1:room42:0:" + CHAIN.encode()
PUBLIC = "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"
FINGERPRINT = "56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c"
SIGNATURE = (
    "efc2c1fce18aa87f57ad305bf277f7a92ffd6261f580293f3fb8af9b26ccfc6b"
    "b0b8f6aff02276c65c22c2591f90779fda08ef73e948b91b14dc85ef1dda6c0a"
)


def test_vector_signed_bytes_key_and_signature() -> None:
    key = Signer.from_seed(SEED)
    assert signed_bytes("room42", 0, CHAIN) == SIGNED
    assert key.public.hex() == PUBLIC
    assert key.fingerprint == FINGERPRINT == hashlib.sha256(bytes.fromhex(PUBLIC)).hexdigest()
    head = key.head("room42", 0, CHAIN)
    assert head == {"over": 0, "head": CHAIN, "key": PUBLIC, "signature": SIGNATURE}
    assert check_head({"room": "room42", **head})


@pytest.mark.parametrize(
    "change",
    [
        {"room": "room43"},  # replayed in another room
        {"over": 1},
        {"head": "0" * 64},
        {"signature": "00" + SIGNATURE[2:]},
        {"key": Signer.from_seed(bytes(32)).public.hex()},  # another key
        {"key": "not hex"},
        {"signature": "abc"},
        {"over": "zero"},
    ],
)
def test_a_changed_head_does_not_check(change: dict[str, Any]) -> None:
    head = {"room": "room42", "over": 0, "head": CHAIN, "key": PUBLIC, "signature": SIGNATURE}
    assert check_head(head)
    assert not check_head({**head, **change})


# ------------------------------------------------------------------ the server's key


def test_servers_starting_at_once_make_one_key(db_url: str, tmp_path: Path) -> None:
    """Six stores open one new database at once (as servers sharing a PostgreSQL
    database do, or processes on one SQLite file): each may make a key, one is kept,
    and every one signs with it; opening again reads the same key."""
    url = fresh_db(db_url, tmp_path)
    migrate(url)

    async def keys() -> list[Signer]:
        engines = [create_async_engine(url) for _ in range(6)]
        try:
            return list(await asyncio.gather(*(server_signer(e) for e in engines)))
        finally:
            for e in engines:
                await e.dispose()

    made = asyncio.run(keys())
    assert len({k.seed for k in made}) == 1
    assert asyncio.run(keys())[0] == made[0]


def test_two_servers_on_one_database_serve_one_key(db_url: str, tmp_path: Path) -> None:
    url = fresh_db(db_url, tmp_path)
    with running(url) as one, running(url) as two:
        with one.client() as a, two.client() as b:
            first, second = a.get("/api/key").json(), b.get("/api/key").json()
    assert first == second
    assert first["algorithm"] == "ed25519"
    assert first["fingerprint"] == fingerprint(bytes.fromhex(first["key"]))


def test_a_copied_campaign_takes_its_key_along(db_url: str, tmp_path: Path) -> None:
    """``referee rooms copy`` to a new database: the server there signs with the key
    that signed the copied heads, so one fingerprint checks the room's whole log."""
    source, target = fresh_db(db_url, tmp_path), fresh_db(db_url, tmp_path)
    with running(source) as server:
        table = make_table(server, "Moving")
        assert table.roll("alice", "3d6").status_code == 201  # a lock, and its head
        before = _key(server)
    copy_rooms(source, target)
    with running(target) as server:
        assert _key(server) == before
        table.server = server
        assert table.roll("alice", "3d6").status_code == 201
        with table.client("gm") as gm:
            gm.post(f"/api/rooms/{table.room}/close", json={"declassify": True}).raise_for_status()
        report = verify(table.export("gm"), before["fingerprint"])
    assert report.ok and report.heads.heads == 2, report.text()


# ------------------------------------------------------------------ heads in a room


def _key(server: Server) -> dict[str, str]:
    with server.client() as c:
        got = c.get("/api/key")
    assert got.status_code == 200
    return dict(got.json())


def _played(table: Table) -> None:
    """Alice's seed, rolls (the first locks epoch 1), a revealed secret roll, and the
    GM's close, declassified."""
    room = f"/api/rooms/{table.room}"
    with table.client("alice") as alice, table.client("gm") as gm:
        assert alice.post(f"{room}/seed", json={"seed": "a1b2c3d4e5f60718"}).status_code == 201
        assert table.roll("alice", "3d6").status_code == 201
        secret = table.roll("gm", "gurps check 12", "gm").json()
        assert gm.post(f"{room}/reveal", json={"seq": secret["seq"]}).status_code == 201
        closed = gm.post(f"{room}/close", json={"declassify": True})
        assert closed.status_code == 201 and closed.json()["kind"] == "close"  # not its head
    assert table.roll("bob", "1d20").status_code == 201  # epoch 2's lock


def test_each_lock_close_and_reveal_is_followed_by_its_signed_head(table: Table) -> None:
    _played(table)
    key = _key(table.server)
    log = table.export("bob")
    signed = [e for e in log if e["kind"] in SIGNED_KINDS]
    assert [e["kind"] for e in signed] == ["lock", "reveal", "close", "lock"]
    for e in signed:
        head = log[e["seq"] + 1]
        assert head["kind"] == "head" and head["over"] == e["seq"] and head["head"] == e["chain"]
        assert head["key"] == key["key"] and check_head(head)
        assert set(head) >= {"salt", "time", "digest", "chain"}  # digested, chained, public
    # Every member sees the heads whole, as every entry but a roll.
    assert [e for e in table.export("alice") if e["kind"] == "head"] == [
        e for e in log if e["kind"] == "head"
    ]
    report = verify(table.export("gm"), key["fingerprint"])
    assert report.ok and report.heads.checked, report.text()
    assert f"4 heads signed by key {key['fingerprint']}" in report.text()


def test_the_private_key_is_in_no_entry(table: Table) -> None:
    _played(table)
    with table.server.client() as c:
        public = c.get("/api/key").json()["key"]
    ((seed,),) = query(table.server.db, "SELECT private_seed FROM server_key")
    assert Signer.from_seed(bytes.fromhex(seed)).public.hex() == public
    assert seed not in json.dumps(table.export("gm"))


def test_the_page_shows_the_fingerprint(server: Server) -> None:
    key = _key(server)
    with server.client() as c:
        made = c.post("/api/rooms", json={"name": "Keys", "system": None}).json()
        assert c.get(made["url"], follow_redirects=False).status_code in (302, 303, 307)
        page = c.get(f"/rooms/{made['room']}")
    assert page.status_code == 200
    assert f'<code id="key-fingerprint">{key["fingerprint"]}</code>' in page.text
    assert f"--key {key['fingerprint']}" in page.text


# ------------------------------------------------------------------ referee verify


def test_the_cli_checks_the_heads_against_the_key(table: Table, tmp_path: Path) -> None:
    _played(table)
    key = _key(table.server)
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in table.export("alice")))

    plain = referee_cli(["verify", str(path)])
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "no signature checked" in plain.stdout and "--key FINGERPRINT" in plain.stdout
    assert "every check holds" not in plain.stdout

    given = referee_cli(["verify", str(path), "--key", key["fingerprint"].upper()])
    assert given.returncode == 0, given.stdout + given.stderr
    assert f"signed by key {key['fingerprint']}" in given.stdout

    asked = referee_cli(["verify", str(path), "--server", table.server.base, "--json"])
    assert asked.returncode == 0, asked.stdout + asked.stderr
    got = json.loads(asked.stdout)["signatures"]
    assert got["checked"] is True and got["key_given"] == key["fingerprint"]

    other = referee_cli(["verify", str(path), "--key", FINGERPRINT])  # the vector's key
    assert other.returncode == 1
    assert f"not by key {FINGERPRINT}" in other.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--key", "abc"], "is not a fingerprint"),
        (["--key", FINGERPRINT, "--server", "http://127.0.0.1:9"], "not both"),
        (["--server", "http://127.0.0.1:9"], "cannot read the server's key"),
    ],
)
def test_a_bad_key_option_is_a_clear_error(args: list[str], said: str, tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    done = referee_cli(["verify", str(path), *args])
    assert done.returncode == 2 and said in done.stderr, done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_a_fresh_table_makes_no_head_before_its_first_lock(server: Server) -> None:
    table = make_table(server, "Quiet")
    assert not [e for e in table.export("gm") if e["kind"] == "head"]
    report = verify(table.export("gm"))
    assert report.ok and "no signature to check" in report.text()
