"""Issue 71 §2 (contract v1.5): forged exports that ``referee verify`` must fail, written
as the forger's script, and honest ones it must pass, a pre-v1.5 export included.

1. A roll's ``text`` or ``margin`` edited (after the GM closed and declassified),
   every digest and link recomputed: verify re-renders each roll and fails it.
2. The server's answer to a call (contract v1.4) moved to Alice's own later roll of
   the same command, the chain recomputed: the heads the server signed no longer
   match, and with ``--key`` every way of hiding that fails.
3. An epoch never closed: the summary says why its rolls were not checked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from referee import commands
from referee.rng import RecordingSource
from referee.rooms.audit.replay import ROOM_CAPS
from referee.rooms.audit.verify import verify
from referee.rooms.log import GENESIS, outcome, seal
from referee.rooms.signing import Signer
from referee.stream import HmacStream, commitment, mix
from rooms_server import Table
from test_room_fight import _by_call
from test_room_fight_referee import _duel, _knockdown
from zygote import run as referee_cli

FORGER = Signer.from_seed(b"a forger's key: any one will do.")
"""A key of the forger's own: it can sign the heads of a re-chained log again."""


def _reseal(entries: list[dict[str, Any]], heads: str = "re-sign") -> list[dict[str, Any]]:
    """The forger's tool: recompute every digest and chain link. The heads are kept as
    they were (``keep``), signed again with the forger's key (``re-sign``), or dropped
    (``drop``, every seq after them moved down)."""
    if heads == "drop":
        entries = [e for e in entries if e["kind"] != "head"]
    out, previous = [], GENESIS
    for seq, e in enumerate(entries):
        body = {k: v for k, v in e.items() if k not in ("digest", "chain")}
        body["seq"] = seq
        if e["kind"] == "head" and heads == "re-sign":
            body.update(FORGER.head(e["room"], seq - 1, previous))
        if e.get("redacted"):
            sealed = {**e, "seq": seq}
        else:
            sealed = seal(body, previous)
        out.append(sealed)
        previous = sealed["chain"]
    return out


def _key(table: Table) -> str:
    with table.server.client() as c:
        return str(c.get("/api/key").json()["fingerprint"])


def _checks(entries: list[dict[str, Any]], key: str | None = None) -> set[tuple[int | None, str]]:
    return {(p.seq, p.check) for p in verify(entries, key).problems}


def _cli(entries: list[dict[str, Any]], path: Path, *args: str) -> Any:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return referee_cli(["verify", str(path), *args])


# ------------------------------------------------------------ 1. text and margin


def _closed_game(table: Table) -> dict[str, Any]:
    """Alice's seed, her GURPS check, the GM's close with declassify: her roll."""
    with table.client("alice") as alice, table.client("gm") as gm:
        room = f"/api/rooms/{table.room}"
        assert alice.post(f"{room}/seed", json={"seed": "a1b2c3d4e5f60718"}).status_code == 201
        roll = table.roll("alice", "gurps check 12").json()
        assert table.roll("gm", "gurps check 9", "gm").status_code == 201
        assert gm.post(f"{room}/close", json={"declassify": True}).status_code == 201
    return dict(roll)


def test_an_edited_text_fails(table: Table, tmp_path: Path) -> None:
    roll = _closed_game(table)
    honest = table.export("alice")
    assert verify(honest, _key(table)).ok
    forged = [dict(e) for e in honest]
    was = forged[roll["seq"]]["text"]
    forged[roll["seq"]]["text"] = was.replace("rolled", "ROLLED", 1) if "rolled" in was else "won"
    assert forged[roll["seq"]]["text"] != was
    for heads in ("re-sign", "keep"):  # even with no key: the text is not the roll's
        assert (roll["seq"], "text") in _checks(_reseal(forged, heads))
    done = _cli(_reseal(forged), tmp_path / "text.jsonl")
    assert done.returncode == 1 and f"seq {roll['seq']}: text:" in done.stdout, done.stdout


def test_an_edited_margin_fails(table: Table, tmp_path: Path) -> None:
    roll = _closed_game(table)
    forged = [json.loads(json.dumps(e)) for e in table.export("gm")]
    forged[roll["seq"]]["result"]["margin"] += 3
    report = verify(_reseal(forged))
    assert not report.ok
    (problem,) = [p for p in report.problems if p.seq == roll["seq"]]
    assert problem.check == "result" and "margin" in problem.detail, report.text()
    done = _cli(_reseal(forged), tmp_path / "margin.jsonl")
    assert done.returncode == 1 and "margin" in done.stdout


# ------------------------------------------------------------ 2. the call moved


def _call_moved(table: Table) -> tuple[list[dict[str, Any]], int, int]:
    """The honest export, and the seqs of the server's roll for Alice's call and of her
    own later roll of the same command (closed and declassified: all verifiable)."""
    _duel(table)
    with table.client("alice") as alice:
        assert (
            alice.post(f"/api/rooms/{table.room}/seed", json={"seed": "0123456789abcdef"})
        ).status_code == 201
    call = _knockdown(table, "dai")
    answered = _by_call(table, "alice", call["call"])
    assert answered.status_code == 201, answered.text
    server = answered.json()["roll"]
    own = table.roll("alice", call["command"]).json()
    assert own["seq"] > server["seq"] and "call" not in own
    with table.client("gm") as gm:
        closed = gm.post(f"/api/rooms/{table.room}/close", json={"declassify": True})
        assert closed.status_code == 201
    return table.export("gm"), int(server["seq"]), int(own["seq"])


def test_a_rechained_call_move_fails_against_the_servers_key(table: Table, tmp_path: Path) -> None:
    honest, server, own = _call_moved(table)
    key = _key(table)
    report = verify(honest, key)
    assert report.ok and report.heads.checked, report.text()
    moved = [dict(e) for e in honest]
    call = moved[server].pop("call")
    moved[own] = {**moved[own], "call": call}

    # Heads kept: the chain no longer reaches the heads signed after the move.
    kept = _reseal(moved, "keep")
    assert any(check == "head" for _seq, check in _checks(kept))

    # Heads signed again with a key of the forger's: only the server's key tells.
    resigned = _reseal(moved, "re-sign")
    assert verify(resigned, key).heads.problems
    assert any(check == "signature" for _seq, check in _checks(resigned, key))
    done = _cli(resigned, tmp_path / "resigned.jsonl", "--key", key)
    assert done.returncode == 1 and f"not by key {key}" in done.stdout, done.stdout
    plain = verify(resigned)  # without a key, it must say it checked no signature
    assert "no signature checked" in plain.text()
    assert "every check holds" not in plain.text()

    # Heads dropped (every seq after them moves, and with it every stream): with the
    # key, an export that proves nothing of it fails, whatever else does.
    dropped = _reseal(moved, "drop")
    assert (None, "head") in _checks(dropped, key)
    done = _cli(dropped, tmp_path / "dropped.jsonl", "--key", key)
    assert done.returncode == 1 and "no head entry signed by key" in done.stdout

    # Only the heads after the move dropped: a lock or close with no head of its own.
    first = next(i for i, e in enumerate(moved) if e["kind"] == "head" and i > server)
    cut = _reseal([e for i, e in enumerate(moved) if not (e["kind"] == "head" and i >= first)])
    assert any(check == "head" for _seq, check in _checks(cut, key))


# ------------------------------------------------------------ 3. what was not checked


def test_an_open_epoch_is_named_in_the_summary(table: Table, tmp_path: Path) -> None:
    for command in ("3d6", "1d20", "gurps check 12"):
        assert table.roll("alice", command).status_code == 201
    report = verify(table.export("alice"))
    assert report.ok
    last = report.text().splitlines()[-1]
    assert "0 of 3 rolls verified" in last and "3 rolls: epoch 1 is not closed" in last, last
    assert "every check holds" not in report.text()
    assert report.as_json()["not_checked"][0] == "3 rolls: epoch 1 is not closed"
    done = _cli(table.export("alice"), tmp_path / "open.jsonl")
    assert done.returncode == 0 and "epoch 1 is not closed" in done.stdout


def test_a_secret_seed_kept_is_named_in_the_summary(table: Table) -> None:
    assert table.roll("gm", "1d20", "gm").status_code == 201
    with table.client("gm") as gm:
        gm.post(f"/api/rooms/{table.room}/close", json={"declassify": False}).raise_for_status()
    last = verify(table.export("gm")).text().splitlines()[-1]
    assert "1 roll: epoch 1's secret seed is not declassified" in last, last


# ------------------------------------------------------------ an export before v1.5


def _old_export() -> list[dict[str, Any]]:
    """A log as a server before v1.5 wrote it (no head entries), made by the contract's
    own rules: seq 0 the room, a join, the epoch's commitments, Alice's seed, the lock,
    two rolls, the close with both seeds."""
    public, secret = bytes(range(32)), bytes(range(32, 64))
    seeds = {"p:alice": "a1b2c3d4e5f60718"}
    the_mix = mix(seeds)
    fields: list[dict[str, Any]] = [
        {"kind": "room", "name": "Old", "system": "gurps"},
        {"kind": "join", "member": "p:alice", "name": "Alice"},
        {"kind": "epoch", "epoch": 1,
         "commitments": {"public": commitment(public), "secret": commitment(secret)}},
        {"kind": "seed", "member": "p:alice", "epoch": 1, "seed": seeds["p:alice"]},
        {"kind": "lock", "epoch": 1, "seeds": seeds, "mix": the_mix},
    ]  # fmt: skip
    for seq, (roller, command, vis) in enumerate(
        [("p:alice", "gurps check 12", "public"), ("gm", "roll 3d6", "gm")], start=5
    ):
        stream = HmacStream(public if vis == "public" else secret, "room42", 1, seq, roller,
                            the_mix)  # fmt: skip
        recorder = RecordingSource(stream)
        _, plan = commands.plan(command, only_rolls=True, limits=ROOM_CAPS)
        result, text, _refused = outcome(plan, recorder)  # as the server rolls it
        fields.append(
            {
                "kind": "roll",
                "roller": roller,
                "visibility": vis,
                "epoch": 1,
                "command": command,
                "draws": [list(d) for d in recorder.draws],
                "result": result,
                "text": text,
                "engine": "0.1.0",
            }  # fmt: skip
        )
    fields.append({"kind": "close", "epoch": 1, "seeds": {"public": public.hex(),
                                                          "secret": secret.hex()}})  # fmt: skip
    out, previous = [], GENESIS
    for seq, f in enumerate(fields):
        entry = {"room": "room42", "seq": seq, "time": "2026-01-01T00:00:00.000000Z",
                 "salt": f"{seq:032x}", **f}  # fmt: skip
        out.append(seal(entry, previous))
        previous = out[-1]["chain"]
    return out


def test_an_export_before_v1_5_still_verifies(tmp_path: Path) -> None:
    old = _old_export()
    report = verify(old)
    assert report.ok, report.text()
    assert report.epochs[1].verified == 2
    assert "no signature to check" in report.text()
    done = _cli(old, tmp_path / "old.jsonl")
    assert done.returncode == 0 and "no signature to check" in done.stdout, done.stdout
    # Its rolls are re-rendered too: an edited text fails it as any.
    old[5]["text"] += "!"
    assert (5, "text") in _checks(_reseal(old, "keep"))
    # And a key cannot be checked against it: it carries no signature.
    assert (None, "head") in _checks(_old_export(), "0" * 64)


# ------------------------------------------------------------ malformed exports

DATA = Path(__file__).parent / "data" / "rooms"
BAD: tuple[Any, ...] = (None, "x", -1, 10**9, 1.5, True, [], {}, [1, 2], {"a": 1})


def _paths(value: Any, path: tuple[Any, ...] = (), depth: int = 3) -> Any:
    """Every field's path in ``value``, to ``depth`` levels."""
    if not depth or not isinstance(value, dict | list):
        return
    for k, v in value.items() if isinstance(value, dict) else enumerate(value):
        yield (*path, k)
        yield from _paths(v, (*path, k), depth - 1)


def _mutated(entries: list[dict[str, Any]], rng: Any) -> tuple[list[dict[str, Any]], int]:
    """A copy of ``entries`` with one field of one entry set to a bad value or taken out."""
    out = json.loads(json.dumps(entries))
    at = rng.randrange(len(out))
    path = rng.choice(list(_paths(out[at])))
    parent = out[at]
    for k in path[:-1]:
        parent = parent[k]
    if isinstance(parent, dict) and rng.random() < 0.2:
        del parent[path[-1]]
    else:
        parent[path[-1]] = rng.choice(BAD)
    return out, at


def test_a_malformed_export_is_reported_never_a_traceback(table: Table, tmp_path: Path) -> None:
    """A forger writes the file: a field missing or of another type, in any entry (a
    roll's draws, a fight event's part, an epoch's number, a head), is a problem of the
    report, never an exception (an audit mutated two exports 6,000 times: 106 runs of
    verify ended in KeyError, TypeError or IndexError from the replay, the fight's
    replay or the stream). Each mutated export still fails, but for one whose mutated
    entry is redacted (its fields are not the digest's)."""
    import random

    _closed_game(table)
    exports = [
        table.export("gm"),  # signed heads, a declassified epoch: its rolls replayed
        _old_export(),
        *([json.loads(line) for line in (DATA / f"v1.2-fight-{who}.jsonl").read_text()
           .splitlines()] for who in ("gm", "alice")),  # a whole fight's events, replayed
    ]  # fmt: skip
    rng = random.Random(71)
    for entries in exports:
        for _ in range(250):
            bad, at = _mutated(entries, rng)
            report = verify(bad)  # no exception
            assert report.text() and json.dumps(report.as_json())
            same = bad[at] == entries[at]  # a field set to the value it had
            assert not report.ok or same or bad[at].get("redacted"), (at, bad[at])
    # and the command line: exit 1, the problem named, no traceback
    roll = next(i for i, e in enumerate(exports[1]) if e["kind"] == "roll")
    bad = json.loads(json.dumps(exports[1]))
    bad[roll]["draws"] = True
    done = _cli(_reseal(bad, "keep"), tmp_path / "bad.jsonl")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"seq {roll}" in done.stdout and "malformed" in done.stdout, done.stdout
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "\n")
    nested = referee_cli(["verify", str(deep)])
    assert nested.returncode == 2 and "Traceback" not in nested.stderr, nested.stderr
    assert "line 1 is nested too deeply" in nested.stderr, nested.stderr
