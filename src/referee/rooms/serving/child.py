"""The rooms' server in a child process, on a socket the parent bound: for tests and
benchmarks, with no port race (``running``), and for ``python -m referee.rooms.serving.child``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import httpx
import uvicorn

from ..app import create_app
from ..state import RoomsLimits
from . import onewrite

__all__ = ["Child", "Process", "end", "running", "wait_healthy"]


class Process(Protocol):
    """What :class:`Child` and :func:`end` use of a server's process: a
    :class:`subprocess.Popen`, or a stand-in of the same shape (the tests fork theirs
    from a warm parent: ``tests/zygote.py``)."""

    pid: int
    stdin: Any
    stdout: Any
    stderr: Any

    def poll(self) -> int | None: ...
    def wait(self, timeout: float | None = None) -> int: ...
    def terminate(self) -> None: ...
    def kill(self) -> None: ...


def end(process: Process, timeout: float = 15) -> None:
    """SIGTERM, then SIGKILL after ``timeout`` seconds; then its pipes are closed."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for pipe in (process.stdin, process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()


class Child:
    """A rooms server in a child process, on a loopback socket this process keeps:
    it may be killed (:meth:`kill`) and started again on the same port (:meth:`start`)."""

    def __init__(self, db_url: str, proxy: str | None = None, **limits: float) -> None:
        self.db_url = db_url
        self.proxy = proxy
        """Trusted proxies: X-Forwarded-For from these addresses names the client."""
        self.limits = limits
        """Overrides of :class:`.state.RoomsLimits` (``rate=1000``...)."""
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1024)
        self.base = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.process: Process | None = None

    def start(self, timeout: float = 60) -> None:
        """Start the server and wait until it answers ``/api/health``."""
        args = [self.db_url, json.dumps(self.limits), self.proxy or ""]
        self.process = child = self.launch(args)
        if not wait_healthy(self.base, child, timeout):
            self.kill()
            raise RuntimeError("the rooms server did not start")

    def launch(self, args: list[str]) -> Process:
        """A new process running :func:`main` on this socket and ``args`` (its
        arguments after the socket's descriptor): ``python -m`` this module."""
        return subprocess.Popen(
            [sys.executable, "-m", "referee.rooms.serving.child", str(self.sock.fileno()), *args],
            pass_fds=[self.sock.fileno()],
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush, no goodbye."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 15 seconds."""
        if self.process is not None:
            end(self.process)

    def close(self) -> None:
        self.stop()
        self.sock.close()


def wait_healthy(base: str, process: Process, timeout: float = 60) -> bool:
    """Wait until the server at ``base`` answers ``/api/health``: True; False if its
    ``process`` ended or ``timeout`` seconds passed first."""
    deadline = time.monotonic() + timeout
    # One client for every try: each new one reads certifi's bundle (30-80 ms of CPU,
    # taken from the server starting beside it).
    with httpx.Client(timeout=2) as client:
        while process.poll() is None and time.monotonic() < deadline:
            try:
                if client.get(base + "/api/health").status_code == 200:
                    return True
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
    return False


@contextmanager
def running(
    db_url: str, proxy: str | None = None, *, kind: type[Child] = Child, **limits: float
) -> Iterator[str]:
    """Serve the rooms' app on 127.0.0.1 (a free port) in a child process until the
    block ends; yields the base URL (``http://127.0.0.1:PORT``). ``proxy``: the trusted
    proxies' addresses (X-Forwarded-For from them names the client); ``kind``: the
    :class:`Child` (or a subclass that launches its process otherwise)."""
    server = kind(db_url, proxy, **limits)
    try:
        server.start()
        yield server.base
    finally:
        server.close()


def main(argv: list[str]) -> None:

    fd, url, overrides = int(argv[0]), argv[1], json.loads(argv[2])
    proxy = argv[3] if len(argv) > 3 and argv[3] else None

    class Limits(RoomsLimits):
        pass

    for name, value in overrides.items():
        if not hasattr(RoomsLimits, name):
            raise SystemExit(f"no such limit: {name}")
        setattr(Limits, name, value)
    config = uvicorn.Config(
        create_app(url, Limits),
        log_level="warning",
        http=onewrite.SPEC,  # as `referee serve` runs it
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        proxy_headers=proxy is not None,
        forwarded_allow_ips=proxy,
    )
    uvicorn.Server(config).run(sockets=[socket.socket(fileno=fd)])


if __name__ == "__main__":
    main(sys.argv[1:])
