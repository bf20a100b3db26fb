"""``referee serve --workers N`` (issue 29, :mod:`referee.rooms.workers`): each worker
listens on a socket of its own, so new connections are spread over them; a busy port
is a clear error; a worker that dies is replaced; SIGTERM stops them all."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from rooms_server import fresh_db


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _serving(db: str, port: int, settle: float = 10.0) -> Iterator[subprocess.Popen[bytes]]:
    """``serve(workers=2)`` in a process group of its own (``settle``: how soon after
    its start a worker's death stops the server rather than being replaced)."""
    code = (
        "import referee.rooms.workers as w; from referee.rooms import serve; "
        f"w.SETTLE_SECONDS = {settle}; serve(port={port}, db={db!r}, workers=2)"
    )
    server = subprocess.Popen(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        yield server
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=40)
        if server.stderr is not None:
            server.stderr.close()


def _healthy(base: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(base + "/api/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert server.poll() is None and time.monotonic() < deadline, "did not start"
        time.sleep(0.2)


def _workers(parent: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = stat.read_text().rsplit(")", 1)[1].split()[1]
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if ppid == str(parent) and b"spawn_main" in cmdline:
            found.append(int(stat.parent.name))
    return sorted(found)


def _sockets(pid: int) -> int:
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            count += os.readlink(fd).startswith("socket:")
        except OSError:
            continue
    return count


def test_new_connections_are_spread_over_the_workers(postgres: str, tmp_path: Path) -> None:
    db, port = fresh_db(postgres, tmp_path), _port()
    with _serving(db, port) as server:
        _healthy(f"http://127.0.0.1:{port}", server)
        workers = _workers(server.pid)
        assert len(workers) == 2
        before = {pid: _sockets(pid) for pid in workers}
        held = []
        for _ in range(40):  # all at once, as a load balancer's or many players' would
            s = socket.create_connection(("127.0.0.1", port))
            held.append(s)
        for s in held:  # each answered, so each is accepted by now
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
            assert s.recv(4096).startswith(b"HTTP/1.1 200")
        taken = {pid: _sockets(pid) - before[pid] for pid in workers}
        for s in held:
            s.close()
        assert sum(taken.values()) >= 40  # every one accepted by a worker
        assert min(taken.values()) >= 8, taken  # one shared socket gives one worker most


def test_a_busy_port_is_a_clear_error(postgres: str, tmp_path: Path) -> None:
    db = fresh_db(postgres, tmp_path)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with _serving(db, port) as server:
            assert server.wait(timeout=60) == 1
            assert server.stderr is not None
            said = server.stderr.read().decode()
            assert f"error: cannot listen on 127.0.0.1:{port}" in said, said
            assert "Traceback" not in said


def test_a_dead_worker_is_replaced_and_sigterm_stops_all(postgres: str, tmp_path: Path) -> None:
    db, port = fresh_db(postgres, tmp_path), _port()
    base = f"http://127.0.0.1:{port}"
    with _serving(db, port, settle=0.5) as server:
        _healthy(base, server)
        first = _workers(server.pid)
        assert len(first) == 2
        time.sleep(0.6)
        os.kill(first[0], signal.SIGKILL)
        deadline = time.monotonic() + 60
        while True:
            now = _workers(server.pid)
            if len(now) == 2 and first[0] not in now:
                break
            assert time.monotonic() < deadline, now
            time.sleep(0.2)
        for _ in range(20):  # new connections, on either worker, are answered
            assert httpx.get(base + "/api/health", timeout=10).status_code == 200
        server.send_signal(signal.SIGTERM)  # the parent alone: it stops the workers
        assert server.wait(timeout=40) == 0
        assert all(not Path(f"/proc/{pid}").exists() for pid in now)
