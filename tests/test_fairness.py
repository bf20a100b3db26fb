"""Verifiable fairness (issue 12): the contract's test vectors, the HMAC stream's
fairness, a whole room session verified from its exports, and tampering caught."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from conftest import chi_square_ok
from referee import commands
from referee.rooms.audit.verify import Report, verify
from referee.rooms.log import GENESIS, chain_link, digest, seal
from referee.rooms.signing import Signer
from referee.stream import HmacStream, commitment, mix
from rooms_server import Table, make_table, running
from zygote import run as referee_cli

PUBLIC = bytes(range(32))
SECRET = bytes(range(32, 64))
SEEDS = {"p:alice": "a1b2c3d4e5f60718", "p:bob": "ffeeddccbbaa9988"}
MIX = "b9e1d8024216e7255d9d33559964a9977d9f23bf3b6b07ac20d9dc63d81ee0ca"


# ------------------------------------------------------------------ test vectors


def test_vector_commitments() -> None:
    assert commitment(PUBLIC) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    assert commitment(SECRET) == "72dbb7336c76780023f83da4c355f2eeea85733b13d3477697917790c1229084"


def test_vector_mix() -> None:
    assert mix(SEEDS) == MIX
    assert mix({}) == "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"


@pytest.mark.parametrize(
    ("seq", "roller", "command", "seed", "draws"),
    [
        (0, "p:alice", "3d6", PUBLIC, [(6, 4), (6, 2), (6, 4)]),
        (1, "p:bob", "4dF", PUBLIC, [(3, 1), (3, 2), (3, 1), (3, 2)]),
        (2, "gm", "1d20", SECRET, [(20, 16)]),
        (3, "p:alice", "d%", PUBLIC, [(100, 3)]),
    ],
)
def test_vector_draws(
    seq: int, roller: str, command: str, seed: bytes, draws: list[tuple[int, int]]
) -> None:
    result = commands.run(command, HmacStream(seed, "room42", 1, seq, roller, MIX))
    assert list(result.draws) == draws


def test_vector_dF_faces() -> None:
    result = commands.run("4dF", HmacStream(PUBLIC, "room42", 1, 1, "p:bob", MIX))
    assert [d["value"] for d in result.data["dice"]] == [-1, 0, -1, 0]


def test_vector_rejection_path() -> None:
    stream = HmacStream(PUBLIC, "room42", 1, 5, "p:alice", MIX)
    n = 2**63 + 1
    assert stream.randbelow(n) + 1 == 7409130753030472457
    assert stream.drawn == 1
    assert stream.randbelow(n) + 1 == 1421729210680797701
    assert stream.drawn == 5  # the 2nd, 3rd and 4th integers were rejected


def test_vector_digest_and_chain() -> None:
    entry = {"kind": "note", "room": "room42", "salt": "0" * 32, "seq": 0, "text": "hello"}
    d = digest(entry)
    assert d == "bf66e71401bdff5b4a7af45dfcdedb458abca913100f56741c8b7360c1aa108a"
    assert chain_link(GENESIS, d) == (
        "336e5701582b0d0d4106b26eff7c2b9d647f073d46f44d14d1c4943dc283b292"
    )


# ---------------------------------------------------------------- fair faces

N = 120_000


@pytest.mark.parametrize("sides", [2, 3, 6, 20, 100])
def test_stream_faces_are_uniform(sides: int) -> None:
    stream = HmacStream(PUBLIC, "fair", 1, sides, "p:x", MIX)
    seen = Counter(stream.randbelow(sides) + 1 for _ in range(N))
    assert chi_square_ok(seen, {f: Fraction(1, sides) for f in range(1, sides + 1)}, N)


@pytest.mark.parametrize("sides", [2, 3, 6, 20, 100])
def test_the_test_catches_a_one_percent_bias(sides: int) -> None:
    # The same number of rolls from a die whose first face comes up 1% more often
    # (its share taken evenly from the others) fails the same test.
    expected = {f: Fraction(1, sides) for f in range(1, sides + 1)}
    biased = {f: float(p) for f, p in expected.items()}
    biased[1] += 0.01
    for f in range(2, sides + 1):
        biased[f] -= 0.01 / (sides - 1)
    seen = Counter({f: round(p * N) for f, p in biased.items()})
    assert not chi_square_ok(seen, expected, N)


def test_streams_differ_by_every_input() -> None:
    def first(seed: bytes, room: str, epoch: int, seq: int, roller: str, the_mix: str) -> int:
        return HmacStream(seed, room, epoch, seq, roller, the_mix).randbelow(2**32)

    base = first(PUBLIC, "room42", 1, 0, "p:alice", MIX)
    assert first(SECRET, "room42", 1, 0, "p:alice", MIX) != base
    assert first(PUBLIC, "room43", 1, 0, "p:alice", MIX) != base
    assert first(PUBLIC, "room42", 2, 0, "p:alice", MIX) != base
    assert first(PUBLIC, "room42", 1, 1, "p:alice", MIX) != base
    assert first(PUBLIC, "room42", 1, 0, "p:bob", MIX) != base
    assert first(PUBLIC, "room42", 1, 0, "p:alice", mix({})) != base


# ------------------------------------------------------------ a whole session


@pytest.fixture(scope="module")
def session(db_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Table, Path]]:
    """A room played from creation to the close of its second epoch, declassified."""
    tmp = tmp_path_factory.mktemp("fair")
    with running(db_url) as server:
        t = make_table(server)
        with t.client("alice") as alice, t.client("bob") as bob, t.client("gm") as gm:
            room = f"/api/rooms/{t.room}"
            assert alice.post(f"{room}/seed", json={"seed": "a1b2c3d4e5f60718"}).status_code == 201
            assert alice.post(f"{room}/seed", json={"seed": "0123456789abcdef"}).status_code == 409
            assert gm.post(f"{room}/seed", json={"seed": "0123456789abcdef"}).status_code == 403
            assert bob.post(f"{room}/seed", json={"seed": "short"}).status_code == 422
            for who, command, vis in [
                ("alice", "3d6", "public"),
                ("gm", "gurps check 14-4", "gm"),
                ("bob", "4dF", "blind"),
                ("gm", "swn save physical --level 2", "blind"),
                ("alice", "roll 2d10!>=9", "gm"),
            ]:
                assert t.roll(who, command, vis).status_code == 201
            # Bob's seed comes after the lock: the server closes epoch 1 itself (its
            # public seed revealed, the secret kept) and the seed counts for epoch 2.
            late = bob.post(f"{room}/seed", json={"seed": "ffeeddccbbaa9988"})
            assert late.status_code == 201 and late.json()["epoch"] == 2
            auto = [e for e in t.log("bob") if e["kind"] == "close"]
            assert [(e["epoch"], e["by"], e["seeds"]["secret"]) for e in auto] == [
                (1, "server", None)
            ]
            assert bob.post(f"{room}/seed", json={"seed": "0011223344556677"}).status_code == 409
            seq = [e for e in t.log("gm") if e["kind"] == "roll"][1]["seq"]
            assert gm.post(f"{room}/reveal", json={"seq": seq}).status_code == 201
            closed = gm.post(f"{room}/close", json={"declassify": False})
            assert closed.status_code == 201 and closed.json()["seeds"]["secret"] is None
            assert bob.post(f"{room}/close", json={"declassify": True}).status_code == 403
            for who, command, vis in [("bob", "fudge roll Good", "public"), ("gm", "1d20", "gm")]:
                assert t.roll(who, command, vis).status_code == 201
            assert gm.post(f"{room}/declassify", json={"epoch": 3}).status_code == 422  # open
            assert gm.post(f"{room}/declassify", json={"epoch": 1}).status_code == 201
            assert gm.post(f"{room}/declassify", json={"epoch": 1}).status_code == 409
            assert gm.post(f"{room}/close", json={"declassify": True}).status_code == 201
            t.roll("alice", "1d6")  # epoch 4: its seed is not revealed
        for who in ("gm", "alice", "bob"):
            with t.client(who) as c:
                (tmp / f"{who}.jsonl").write_text(c.get(f"/api/rooms/{t.room}/export").text)
        yield t, tmp


def _report(path: Path) -> Report:
    return verify([json.loads(line) for line in path.read_text().splitlines()])


def test_the_session_verifies_as_the_gm(session: tuple[Table, Path]) -> None:
    report = _report(session[1] / "gm.jsonl")
    assert report.ok, report.text()
    e1, e2, e3, e4 = (report.epochs[n] for n in (1, 2, 3, 4))
    assert (e1.rolls, e1.verified, e1.redacted, e1.waiting) == (5, 5, 0, 0)
    assert e2.rolls == 0  # closed by GM before any roll (Bob's seed was for it)
    assert (e3.rolls, e3.verified) == (2, 2)
    assert (e4.rolls, e4.verified, e4.waiting) == (1, 0, 1)
    assert e1.unmixed == 0 and not e1.unseeded  # Alice's seed was in epoch 1's mix
    # Nobody sent a seed for epochs 3 and 4: their rolls are not provable, by roller.
    table = session[0]
    bob, alice = table.ids["bob"], table.ids["alice"]
    assert e3.unseeded == {bob: 1, "gm": 1} and e4.unseeded == {alice: 1}
    assert report.unprovable_players == 2
    assert "WARNING: 3 rolls had no player seed in the mix" in report.text()
    assert "Bob (" in report.text() and "the GM 1" in report.text()


def test_the_session_verifies_as_a_player(session: tuple[Table, Path]) -> None:
    report = _report(session[1] / "bob.jsonl")
    assert report.ok, report.text()
    e1 = report.epochs[1]
    # Bob sees the public roll, the revealed GM roll; his own blind roll, the GM's
    # blind roll and Alice's gm roll are redacted for him: their chain links are checked.
    assert (e1.rolls, e1.verified, e1.redacted) == (5, 2, 3)


def test_the_cli_verifies_and_reports(session: tuple[Table, Path]) -> None:
    path = session[1] / "alice.jsonl"
    done = referee_cli(["verify", str(path), "--json"])  # (forked)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["ok"] is True


# ------------------------------------------------------------------- tampering


def _entries(session: tuple[Table, Path]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (session[1] / "gm.jsonl").read_text().splitlines()]


FORGER = Signer.from_seed(b"forger's own key, not the server")
"""A key anyone may make: it signs the heads of a re-chained export (contract v1.5)."""


def _reseal(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a forger with the export could do: recompute every digest and chain link,
    and sign every head again with a key of their own (only ``--key`` tells it apart)."""
    out, previous = [], GENESIS
    for e in entries:
        body = {k: v for k, v in e.items() if k not in ("digest", "chain")}
        if e["kind"] == "head":
            body.update(FORGER.head(e["room"], e["over"], previous))
        sealed = seal(body, previous) if not e.get("redacted") else e
        out.append(sealed)
        previous = sealed["chain"]
    return out


def _first(entries: list[dict[str, Any]], kind: str, **where: Any) -> dict[str, Any]:
    return next(
        e for e in entries if e["kind"] == kind and all(e.get(k) == v for k, v in where.items())
    )


def _fails(entries: list[dict[str, Any]], seq: int | None, check: str, path: Path) -> None:
    report = verify(entries)
    assert not report.ok
    assert any(p.check == check and p.seq == seq for p in report.problems), report.text()
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    done = referee_cli(["verify", str(path)])
    assert done.returncode == 1 and f"seq {seq}" in done.stdout and check in done.stdout


def test_tampered_draw(session: tuple[Table, Path], tmp_path: Path) -> None:
    entries = _entries(session)
    roll = _first(entries, "roll", visibility="public")
    roll["draws"][0][1] = roll["draws"][0][1] % 6 + 1
    _fails(entries, roll["seq"], "digest", tmp_path / "a.jsonl")
    _fails(_reseal(entries), roll["seq"], "draws", tmp_path / "b.jsonl")


def test_tampered_result(session: tuple[Table, Path], tmp_path: Path) -> None:
    entries = _entries(session)
    roll = _first(entries, "roll", visibility="public")
    roll["result"]["total"] += 1
    _fails(entries, roll["seq"], "digest", tmp_path / "a.jsonl")
    _fails(_reseal(entries), roll["seq"], "result", tmp_path / "b.jsonl")


def test_removed_entry(session: tuple[Table, Path], tmp_path: Path) -> None:
    entries = _entries(session)
    del entries[6]
    _fails(entries, 7, "seq", tmp_path / "a.jsonl")


def test_reordered_entries(session: tuple[Table, Path], tmp_path: Path) -> None:
    entries = _entries(session)
    entries[6], entries[7] = entries[7], entries[6]
    _fails(entries, 7, "seq", tmp_path / "a.jsonl")


def test_changed_chain_link(session: tuple[Table, Path], tmp_path: Path) -> None:
    entries = _entries(session)
    entries[5]["chain"] = "0" * 64
    _fails(entries, 5, "chain", tmp_path / "a.jsonl")


def test_wrong_revealed_seed(session: tuple[Table, Path], tmp_path: Path) -> None:
    entries = _entries(session)
    close = _first(entries, "close", epoch=1)
    close["seeds"]["public"] = "11" * 32
    _fails(_reseal(entries), close["seq"], "commitment", tmp_path / "a.jsonl")


def test_changed_client_seed(session: tuple[Table, Path], tmp_path: Path) -> None:
    entries = _entries(session)
    lock = _first(entries, "lock", epoch=1)
    (member,) = lock["seeds"]
    lock["seeds"][member] = "0000000000000000"
    _fails(_reseal(entries), lock["seq"], "mix", tmp_path / "a.jsonl")
    # A forger who also fixes the mix changes every stream of the epoch. The first
    # public roll's dice (3d6) come out the same on another stream once in 216, and
    # this test failed so (issue 53): the forger tries other seeds until they differ.
    roll = _first(entries, "roll", visibility="public")
    for forged in ("0000000000000000", "1111111111111111", "2222222222222222"):
        lock["seeds"][member] = forged
        lock["mix"] = mix(lock["seeds"])
        problems = verify(_reseal(entries)).problems
        if any(p.check == "draws" and p.seq == roll["seq"] for p in problems):
            break
    _fails(_reseal(entries), roll["seq"], "draws", tmp_path / "b.jsonl")


def test_unreadable_export(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("{not json\n")
    done = referee_cli(["verify", str(path)])
    assert done.returncode == 2


def test_every_roll_names_the_engine_that_made_it(session: tuple[Table, Path]) -> None:
    """Issue 27 (contract v1.1): each roll entry carries ``engine``, referee's version."""
    from importlib.metadata import version

    rolls = [e for e in _entries(session) if e["kind"] == "roll"]
    assert rolls and all(e["engine"] == version("referee") for e in rolls)
    bob = [json.loads(x) for x in (session[1] / "bob.jsonl").read_text().splitlines()]
    assert all("engine" not in e for e in bob if e.get("redacted"))  # not in a redacted entry


def test_another_versions_result_is_reported_apart_from_tampering(
    session: tuple[Table, Path], tmp_path: Path
) -> None:
    """A roll whose draws are the stream's, made by another version of referee that
    wrote its result otherwise, is a change of version: reported as such, naming both."""
    from referee.rooms.audit.verify import engine

    entries = _entries(session)
    roll = _first(entries, "roll", visibility="public")
    roll["result"]["text"] = "as an older referee wrote it"
    roll["engine"] = "0.0.1"
    report = verify(_reseal(entries))
    assert report.ok, report.text()
    assert [p.seq for p in report.versions] == [roll["seq"]]
    assert "referee 0.0.1" in report.versions[0].detail
    assert f"referee {engine()}" in report.versions[0].detail
    assert report.as_json()["other_versions"][0]["seq"] == roll["seq"]
    assert f"NOTE seq {roll['seq']}" in report.text()
    assert f"rolled by referee 0.0.1, replayed by {engine()}: 1 result differs" in report.text()
    # A tampered draw in the same log is still caught.
    other = next(e for e in entries if e["kind"] == "roll" and e is not roll and e.get("draws"))
    n, value = other["draws"][0]
    other["draws"][0] = [n, value % n + 1]
    tampered = verify(_reseal(entries))
    assert not tampered.ok and any(p.check == "draws" for p in tampered.problems)
    other["draws"][0] = [n, value]
    # the same change with this version's name is tampering
    roll["engine"] = engine()
    _fails(_reseal(entries), roll["seq"], "result", tmp_path / "c.jsonl")
