"""The server side of ``bench_tables.py``: ``referee serve --workers N`` as a child
process, and its CPU time and resident memory read from ``/proc`` (its workers
counted with it)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from referee.rooms.child import wait_healthy

UNLIMITED = {"rate": 1e9, "burst": 1e9, "address_rate": 1e9, "address_burst": 1e9,
             "anonymous_rate": 1e9, "anonymous_burst": 1e9}  # fmt: skip


def _family(pid: int) -> list[list[str]]:
    """The ``/proc/PID/stat`` fields (after the name) of a process and its children."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if stat.parent.name == str(pid) or fields[1] == str(pid):
            found.append(fields)
    return found


def cpu_seconds(pid: int) -> float:
    """CPU seconds so far (user + system) of a process and its children (the workers of
    ``referee serve --workers``)."""
    tick = os.sysconf("SC_CLK_TCK")
    return sum((int(f[11]) + int(f[12])) / tick for f in _family(pid))


def resident_bytes(pid: int) -> int:
    """Resident bytes of a process and its children (the workers)."""
    return sum(int(f[21]) * os.sysconf("SC_PAGE_SIZE") for f in _family(pid))


class Served:
    """``referee serve --workers N`` on PostgreSQL, in a process group of its own."""

    def __init__(self, db: str, workers: int) -> None:
        import socket
        import subprocess

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        limits = [a for k, v in UNLIMITED.items() for a in ("--limit", f"{k}={v:.0f}")]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "serve", "--workers", str(workers), "--db", db,
             "--port", str(port), *limits],
            start_new_session=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        self.base = f"http://127.0.0.1:{port}"
        if not wait_healthy(self.base, self.process):
            raise RuntimeError("the server did not start")

    def close(self) -> None:
        import signal

        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=30)
