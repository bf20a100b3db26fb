"""Crash tests (issue 13): a server taking concurrent rolls is killed with SIGKILL at
a random moment and started again. Every roll that was answered 201 is in the log,
with the same digest, and the seqs and the chain are intact. On SQLite and on a
durable PostgreSQL cluster (fsync and synchronous commit on), several times each."""

from __future__ import annotations

import random
import select
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from referee.rooms.db.store import sqlite_url
from referee.rooms.log import GENESIS, chain_link, digest
from rooms_server import LOOPBACK_TLS, Server, fresh_db, make_table
from zygote import ForkedChild

ROUNDS = 3
CLIENTS = 6


@pytest.fixture(scope="module")
def durable_postgres() -> Iterator[str]:
    from referee.rooms.serving.pgtemp import throwaway

    with throwaway(durable=True) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def crash_db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return sqlite_url(tmp_path / "crash.sqlite3")
    cluster: str = request.getfixturevalue("durable_postgres")
    return fresh_db(cluster, tmp_path)


def check_log(entries: list[dict[str, Any]]) -> None:
    """Seqs from 0 with no gap, each digest its entry's, each chain link the last's."""
    chain = GENESIS
    for seq, entry in enumerate(entries):
        assert entry["seq"] == seq
        body = {k: v for k, v in entry.items() if k not in ("digest", "chain")}
        assert entry["digest"] == digest(body), seq
        chain = chain_link(chain, entry["digest"])
        assert entry["chain"] == chain, seq


class Load:
    """Clients rolling as fast as they can, each recording what was answered 201."""

    def __init__(self, base: str, room: str, tokens: list[str], listening: socket.socket) -> None:
        self.base, self.room, self.tokens = base, room, tokens
        self.listening = listening
        """The server's socket (:attr:`referee.rooms.serving.child.Child.sock`)."""
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.acknowledged: dict[int, str] = {}  # seq -> digest, as answered
        self.ok = self.failed = 0
        self.threads = [threading.Thread(target=self._client, args=(i,)) for i in range(CLIENTS)]

    def _client(self, i: int) -> None:
        token = self.tokens[i % len(self.tokens)]
        with httpx.Client(
            base_url=self.base,
            headers={"authorization": f"Bearer {token}"},
            timeout=5,
            verify=LOOPBACK_TLS,
        ) as c:
            while not self.stop.is_set():
                try:
                    r = c.post(
                        f"/api/rooms/{self.room}/rolls",
                        json={"command": "3d6+1", "visibility": ("public", "gm")[i % 2]},
                    )
                except httpx.HTTPError:
                    with self.lock:
                        self.failed += 1
                    time.sleep(0.01)
                    continue
                if r.status_code == 201:
                    entry = r.json()
                    with self.lock:
                        self.acknowledged[entry["seq"]] = entry["digest"]
                        self.ok += 1

    def __enter__(self) -> Load:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            while t.is_alive():
                self._refuse_queued()
                t.join(0.05)

    def _refuse_queued(self) -> None:
        """Close the connections queued on the killed server's socket, which this process
        keeps for the next server: their clients see at once that no server answers,
        rather than at their read timeout (issue 53: 5 s a round)."""
        while select.select([self.listening], [], [], 0)[0]:
            connection, _ = self.listening.accept()
            connection.close()


def test_acknowledged_rolls_survive_sigkill(crash_db: str) -> None:
    # Forked from the zygote, a new process each time, which has never opened the database.
    server = ForkedChild(crash_db, rate=1000, burst=1000, address_rate=1e6, address_burst=1e6)
    chance = random.Random(f"crash:{crash_db.split(':')[0]}")  # reproducible moments
    acknowledged: dict[int, str] = {}
    try:
        server.start()
        table = make_table(Server(server.base, crash_db), "Crash")
        tokens = [table.tokens[who] for who in ("gm", "alice", "bob")]
        for round_ in range(ROUNDS):
            assert table.roll("alice", "1d6").status_code == 201  # warm: the engine is loaded
            with Load(server.base, table.room, tokens, server.sock) as load:
                time.sleep(chance.uniform(0.5, 2.0))  # mid-load, at a random moment
                server.kill()
                time.sleep(0.2)  # the clients see the dead server
            assert load.ok > 0, (round_, load.ok, load.failed)
            print(f"round {round_}: {load.ok} answered 201, {load.failed} cut off")
            acknowledged.update(load.acknowledged)
            server.start()
            log = table.export("gm")
            check_log(log)
            by_seq = {e["seq"]: e for e in log}
            lost = [s for s in acknowledged if s not in by_seq]
            assert not lost, f"round {round_}: acknowledged rolls lost: {lost[:10]}"
            changed = [s for s, d in acknowledged.items() if by_seq[s]["digest"] != d]
            assert not changed, f"round {round_}: digests changed: {changed[:10]}"
        # The room goes on after the crashes: the chain continues.
        assert table.roll("alice", "1d6").status_code == 201
        check_log(table.export("gm"))
        assert len(acknowledged) > ROUNDS * 10
    finally:
        server.close()
