"""The rooms' server in a child process, on a socket the parent bound: for tests and
benchmarks, with no port race (``running``), and for ``python -m referee.rooms.child``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["running"]


@contextmanager
def running(db_url: str, rate: float | None = None, burst: float | None = None) -> Iterator[str]:
    """Serve the rooms' app on 127.0.0.1 (a free port) in a child process until the
    block ends; yields the base URL (``http://127.0.0.1:PORT``)."""
    import httpx

    from .state import RoomsLimits

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    port = sock.getsockname()[1]
    args = [
        str(sock.fileno()),
        db_url,
        str(RoomsLimits.rate if rate is None else rate),
        str(RoomsLimits.burst if burst is None else burst),
    ]
    child = subprocess.Popen(
        [sys.executable, "-m", "referee.rooms.child", *args],
        pass_fds=[sock.fileno()],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                if httpx.get(base + "/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if child.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the rooms server did not start")
            time.sleep(0.05)
        yield base
    finally:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(timeout=15)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        sock.close()


def main(argv: list[str]) -> None:
    import uvicorn

    from .app import create_app
    from .state import RoomsLimits

    fd, url, rate, burst = int(argv[0]), argv[1], float(argv[2]), float(argv[3])

    class Limits(RoomsLimits):
        pass

    Limits.rate, Limits.burst = rate, burst
    config = uvicorn.Config(
        create_app(url, Limits),
        log_level="warning",
        ws="websockets-sansio",
        ws_per_message_deflate=False,
    )
    uvicorn.Server(config).run(sockets=[socket.socket(fileno=fd)])


if __name__ == "__main__":
    main(sys.argv[1:])
