"""``referee serve --workers N`` serves each room in one worker
(:mod:`referee.rooms.serving.affine`).

The workers are real processes on a real PostgreSQL. Which worker serves a connection
is read from the kernel: the worker whose file descriptors hold the server's end of
the client's TCP connection (``/proc/net/tcp`` and ``/proc/PID/fd``).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest

from referee.rooms.serving.affine import MAX_HANDED, Group, owner
from rooms_server import Server, Table, Watcher, fresh_db, make_table, start_workers

pytestmark = pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="Linux /proc")


def test_owner_is_stable_and_spreads_rooms() -> None:
    rooms = [f"room-{i}".encode() for i in range(4000)]
    for n in (2, 3, 8):
        owners = [owner(r, n) for r in rooms]
        assert owners == [owner(r, n) for r in rooms]
        counts = [owners.count(i) for i in range(n)]
        assert min(counts) > 0.8 * len(rooms) / n, counts
    assert all(owner(r, 1) == 0 for r in rooms)


def test_only_a_room_request_of_another_worker_is_handed() -> None:
    group = Group(0, ["/nonexistent/0", "/nonexistent/1"], cast(Any, None))
    theirs = next(r for r in (f"r{i}" for i in range(100)) if owner(r.encode(), 2) == 1)
    mine = next(r for r in (f"r{i}" for i in range(100)) if owner(r.encode(), 2) == 0)
    line = f"POST /api/rooms/{theirs}/rolls HTTP/1.1\r\n".encode()
    assert group.target(line) == 1
    assert group.target(f"GET /api/rooms/{theirs}/live?after=3 HTTP/1.1\r\n".encode()) == 1
    assert group.target(f"POST /api/rooms/{mine}/rolls HTTP/1.1\r\n".encode()) is None
    assert group.target(b"GET /api/health HTTP/1.1\r\n") is None
    assert group.target(b"POST /api/rooms HTTP/1.1\r\n") is None
    assert group.target(b"POST /api/ro") is None  # the request line is not whole yet
    assert group.target(f"POST /api/rooms/{theirs}".encode()) is None  # nor the room's id
    assert group.target(f"GET /api/rooms/{theirs}?x=1 HTTP/1.1\r\n".encode()) == 1
    assert group.target(line + b"x" * MAX_HANDED) is None  # too much to carry
    group.inbox.close()
    group.outbox.close()


@dataclass
class Workers:
    server: Server
    process: subprocess.Popen[bytes]
    port: int

    def pids(self) -> list[int]:
        """The worker processes (the children of ``referee serve`` that serve)."""
        found = []
        for child in Path(f"/proc/{self.process.pid}/task").glob("*/children"):
            for pid in child.read_text().split():
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
                if b"resource_tracker" not in cmd:
                    found.append(int(pid))
        return sorted(found)

    def holder(self, client: socket.socket) -> int | None:
        """The worker holding the server's end of ``client``'s connection."""
        mine = client.getsockname()[1]
        inode = None
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            f = line.split()
            local, remote = int(f[1].split(":")[1], 16), int(f[2].split(":")[1], 16)
            if local == self.port and remote == mine:
                inode = f[9]
        wanted = f"socket:[{inode}]"
        for pid in self.pids():
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                try:
                    if os.readlink(fd) == wanted:
                        return pid
                except OSError:  # closed meanwhile
                    continue
        return None


def _start(postgres: str, tmp_path: Path, *extra: str) -> Workers:
    db = fresh_db(postgres, tmp_path)
    process, port = start_workers(db, *extra)
    workers = Workers(Server(f"http://127.0.0.1:{port}", db), process, port)
    deadline = time.monotonic() + 60
    while len(workers.pids()) != 2:
        assert time.monotonic() < deadline, "the workers did not start"
        time.sleep(0.2)
    return workers


def _inboxes() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("referee-workers-*"))


def _stop(workers: Workers, before: set[Path]) -> None:
    """SIGTERM to the process group (as Ctrl-C or a service manager would): every
    worker ends, the parent exits 0, and the inboxes' directory is gone."""
    os.killpg(workers.process.pid, signal.SIGTERM)
    assert workers.process.wait(timeout=40) == 0
    assert _inboxes() <= before


@pytest.fixture(scope="module")
def affine(postgres: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workers]:
    before = _inboxes()
    workers = _start(postgres, tmp_path_factory.mktemp("affine"))
    try:
        yield workers
    finally:
        _stop(workers, before)


def _request(table: Table, command: str = "3d6") -> bytes:
    body = json.dumps({"command": command}).encode()
    return (
        f"POST /api/rooms/{table.room}/rolls HTTP/1.1\r\nHost: t\r\n"
        f"Authorization: Bearer {table.tokens['gm']}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )


def _post(
    conn: socket.socket, table: Table, command: str = "3d6", split: int = 0
) -> dict[str, Any]:
    """A roll's POST on a raw keep-alive connection, and its answer; with ``split``, its
    first ``split`` bytes are sent alone first."""
    request = _request(table, command)
    if split:
        conn.sendall(request[:split])
        time.sleep(0.1)  # read alone by the server
    conn.sendall(request[split:])
    return _answer(conn)


_pending: dict[int, bytes] = {}
"""Bytes read past an answer on a connection (by its fileno): the next answer's."""


def _answer(conn: socket.socket) -> dict[str, Any]:
    """The next answer on ``conn``: a roll's entry."""
    got = _pending.pop(conn.fileno(), b"")
    while b"\r\n\r\n" not in got:
        got += _recv(conn)
    head, _, rest = got.partition(b"\r\n\r\n")
    length = next(int(h.split(b":")[1]) for h in head.split(b"\r\n")
                  if h.lower().startswith(b"content-length:"))  # fmt: skip
    while len(rest) < length:
        rest += _recv(conn)
    if len(rest) > length:
        _pending[conn.fileno()] = rest[length:]
    assert head.startswith(b"HTTP/1.1 201"), head
    return cast(dict[str, Any], json.loads(rest[:length]))


def _recv(conn: socket.socket) -> bytes:
    conn.settimeout(30)
    more = conn.recv(65536)
    if not more:
        raise ConnectionError("the server closed the connection without an answer")
    return more


def _tables(workers: Workers, each: int = 3) -> dict[int, list[Table]]:
    """``each`` tables owned by each worker index."""
    by: dict[int, list[Table]] = {0: [], 1: []}
    while min(map(len, by.values())) < each:
        table = make_table(workers.server)
        by[owner(table.room.encode(), 2)].append(table)
    return by


def test_a_connection_follows_its_requests_to_each_rooms_worker(affine: Workers) -> None:
    by = _tables(affine)
    seen: dict[int, set[int]] = {0: set(), 1: set()}
    with socket.create_connection(("127.0.0.1", affine.port)) as conn:
        for round_ in range(3):
            for index in (0, 1, 1, 0):
                table = by[index][round_]
                entry = _post(conn, table)
                assert entry["room"] == table.room
                holder = affine.holder(conn)
                assert holder is not None
                seen[index].add(holder)
    assert len(seen[0]) == len(seen[1]) == 1, seen  # each room's requests in one worker
    assert seen[0] != seen[1]  # and the rooms split over both
    assert seen[0] | seen[1] == set(affine.pids())


def test_a_request_in_pieces_is_answered_and_the_next_moves(affine: Workers) -> None:
    """A request whose first read cuts the room's id short is served where it arrived
    (it is half read: no hand-off mid-request); the connection's next request, whole,
    moves it to the room's worker."""
    by = _tables(affine, 1)
    with socket.create_connection(("127.0.0.1", affine.port)) as conn:
        _post(conn, by[0][0])
        zero = affine.holder(conn)
        _post(conn, by[1][0])
        one = affine.holder(conn)
        assert zero != one
        for index in (0, 1, 0):
            table, before = by[index][0], affine.holder(conn)
            _post(conn, table, split=len(f"POST /api/rooms/{table.room}") - 2)
            assert affine.holder(conn) == before  # served where it was
            _post(conn, table)
            assert affine.holder(conn) == (zero, one)[index]


def test_pipelined_requests_in_the_handed_bytes_are_all_answered(affine: Workers) -> None:
    """Two requests in a new connection's first read go to their room's worker together
    and are answered in order (the second waits, paused, for the first); then more."""
    by = _tables(affine, 1)
    for index in (0, 1, 0, 1):
        table = by[index][0]
        with socket.create_connection(("127.0.0.1", affine.port)) as conn:
            conn.sendall(_request(table, "1d6") + _request(table, "2d6"))
            first, second = _answer(conn), _answer(conn)
            assert (first["room"], second["room"]) == (table.room, table.room)
            assert second["seq"] > first["seq"]
            assert _post(conn, table)["seq"] > second["seq"]
            _pending.pop(conn.fileno(), None)


def test_a_rooms_live_sockets_are_in_its_worker_and_get_every_roll(affine: Workers) -> None:
    by = _tables(affine, 2)
    tables = by[0] + by[1]
    watchers = [Watcher(affine.server, t.room, t.tokens["alice"]) for t in tables]
    try:
        with socket.create_connection(("127.0.0.1", affine.port)) as conn:
            owners = {}
            for table in tables:  # the owner of each index, found by a POST
                _post(conn, table)
                owners[owner(table.room.encode(), 2)] = affine.holder(conn)
            last = {}
            for i in range(40):
                table = tables[i % len(tables)]
                last[table.room] = _post(conn, table)["seq"]
        held = {w._ws.socket.getsockname()[1]: w for w in watchers}  # noqa: SLF001
        for table, watcher in zip(tables, watchers, strict=True):
            watcher.wait_for(last[table.room])
            sock = watcher._ws.socket  # noqa: SLF001
            assert affine.holder(sock) == owners[owner(table.room.encode(), 2)]
            rolls = [f["seq"] for f in watcher.frames if f.get("kind") == "roll"]
            assert rolls == sorted(set(rolls)) and rolls[-1] == last[table.room]
        assert len(held) == len(watchers)
    finally:
        for w in watchers:
            w.stop()


def test_a_killed_worker_is_replaced_and_its_rooms_follow(affine: Workers) -> None:
    """SIGKILL the worker of index 1: its rooms are served by the other meanwhile (every
    roll answered), and then by its replacement (a new process, same index)."""
    by = _tables(affine, 1)

    def holder_of(table: Table) -> int | None:
        with socket.create_connection(("127.0.0.1", affine.port)) as conn:
            _post(conn, table)
            return affine.holder(conn)

    victim, survivor = holder_of(by[1][0]), holder_of(by[0][0])
    assert victim is not None and survivor is not None and victim != survivor
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 60
    # A connection handed to the victim while it dies is lost with it, as any connection
    # of a crashed worker is: wait until the parent has reaped it.
    while victim in affine.pids():
        assert time.monotonic() < deadline, "the killed worker was not reaped"
        time.sleep(0.05)
    while (now := holder_of(by[1][0])) in (victim, survivor, None):
        assert time.monotonic() < deadline, "no replacement took the rooms of index 1"
        time.sleep(0.2)
    assert holder_of(by[0][0]) == survivor
    assert set(affine.pids()) == {survivor, now}


def test_without_affinity_a_connection_stays_put(postgres: str, tmp_path: Path) -> None:
    before = _inboxes()
    workers = _start(postgres, tmp_path, "--no-room-affinity")
    try:
        by = _tables(workers, 2)
        with socket.create_connection(("127.0.0.1", workers.port)) as conn:
            holders = set()
            for table in by[0] + by[1]:
                _post(conn, table)
                holders.add(workers.holder(conn))
        assert len(holders) == 1 and None not in holders
    finally:
        _stop(workers, before)
