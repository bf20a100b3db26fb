"""The server side of ``bench_tables.py``: ``referee serve --workers N`` as a child
process, and its CPU time and resident memory read from ``/proc`` (its workers
counted with it)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import zlib
from pathlib import Path

from referee.rooms.serving.child import wait_healthy

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


def machine_busy() -> float:
    """CPU seconds this machine has been busy so far, over all its cores (``/proc/stat``:
    all but idle and I/O wait)."""
    ticks = [int(t) for t in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(ticks[:8]) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


_LENGTH = re.compile(rb"(?i)\r\ncontent-length: *(\d+)")


async def read_answer(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One HTTP/1.1 answer from a raw keep-alive connection: its status and its body
    (the benches speak HTTP by hand, to time the server rather than a client)."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = _LENGTH.search(head)
    if length is None:
        raise RuntimeError(f"no Content-Length: {head[:200]!r}")
    return int(head.split(b" ", 2)[1]), await reader.readexactly(int(length[1]))


def address(url: str) -> tuple[str, int]:
    """The host and port of one server's ``http://HOST:PORT``."""
    host, port = url.removeprefix("http://").split(":")
    return host, int(port)


def route(base: str, room: str) -> tuple[str, int]:
    """The host and port of ``room``'s server among ``base``'s comma-separated servers:
    the same in every process (crc32 of the room), as a balancer's hash of the room
    (nginx ``hash $room``) sends each room's calls to one server."""
    bases = base.split(",")
    return address(bases[zlib.crc32(room.encode()) % len(bases)])


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


class Affine:
    """``count`` servers of ``referee serve`` (one process each) on one PostgreSQL, each
    room's calls and sockets on one of them (:func:`route`). ``base`` names them all;
    ``pids`` are what to count CPU and memory over."""

    def __init__(self, db: str, count: int) -> None:
        self.servers: list[Served] = []
        try:
            for _ in range(count):
                self.servers.append(Served(db, 1))
        except BaseException:
            self.close()
            raise
        self.base = ",".join(s.base for s in self.servers)
        self.pids = [s.process.pid for s in self.servers]

    def close(self) -> None:
        for s in self.servers:
            s.close()


class Proxied:
    """``inner`` (one ``referee serve``, ``--workers N``, or room-affine servers) behind
    nginx as referee recommends it (:mod:`referee.rooms.serving.nginx`: a consistent
    hash of the room, keep-alive upstreams shared by every room). ``base`` is nginx;
    ``pids`` the servers' (nginx's own CPU is in the ``machine`` column)."""

    def __init__(self, inner: Served | Affine, prefix: Path) -> None:
        from referee.rooms.serving.nginx import nginx

        self.inner = inner
        upstreams = [b.removeprefix("http://") for b in inner.base.split(",")]
        self._proxy = nginx(upstreams, prefix)
        self.base = self._proxy.__enter__()
        self.pids = inner.pids if isinstance(inner, Affine) else [inner.process.pid]

    def close(self) -> None:
        try:
            self._proxy.__exit__(None, None, None)
        finally:
            self.inner.close()


def frame(buffer: bytearray, at: int) -> tuple[int, bytes, int] | None:
    """The server frame at ``at`` in ``buffer`` (unmasked, as RFC 6455 has servers
    send): its first byte, its payload, and where the next one starts; or None if it
    has not all arrived yet. Each read of the socket takes every frame that came."""
    if len(buffer) < at + 2:
        return None
    size, start = buffer[at + 1] & 0x7F, at + 2
    if size >= 126:
        width = 2 if size == 126 else 8
        if len(buffer) < start + width:
            return None
        size, start = int.from_bytes(buffer[start : start + width]), start + width
    if len(buffer) < start + size:
        return None
    return buffer[at], bytes(buffer[start : start + size]), start + size


def masked(opcode: int, payload: bytes) -> bytes:
    """One client frame (masked, as RFC 6455 asks of clients), under 64 KiB."""
    mask = os.urandom(4)
    size = len(payload)
    head = bytes([0x80 | opcode])
    head += bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + size.to_bytes(2)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
