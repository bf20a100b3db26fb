"""``referee serve --workers N``: N server processes on one port, each listening on a
socket of its own (``SO_REUSEPORT``), so that the kernel spreads new connections
evenly over them.

uvicorn's own workers share one listening socket, and the worker that wakes first
takes every connection waiting: at 1,000 tables, one of two workers took five rolls
in six, and two workers took fewer rolls than one (``bench/bench_tables.py``, issue
29). With a socket each, the kernel picks a worker for each new connection by its
addresses. Where ``SO_REUSEPORT`` is missing (Windows), uvicorn's workers are used.

The parent holds the port (a bound socket that does not listen: the port is checked,
and port 0 is chosen, before any worker starts), restarts a worker that dies after
it has served a while, and on SIGINT or SIGTERM asks each worker to finish (uvicorn's
graceful shutdown) and waits for them.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
import time
from typing import Any

log = logging.getLogger("referee.rooms")

APP = "referee.rooms.app:from_environment"
"""Each worker makes its app from the environment the parent set."""
BACKLOG = 2048
"""Connections waiting to be accepted, a worker (uvicorn's default)."""
SETTLE_SECONDS = 10.0
"""A worker that dies sooner after its start is not restarted: the server stops."""
STOP_SECONDS = 30.0
"""How long the workers have to finish before they are killed."""


def _socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def _worker(settings: dict[str, Any]) -> None:
    """One worker: its own listening socket on the shared port, and uvicorn on it."""
    import uvicorn

    sock = _socket(settings["host"], settings["port"])
    sock.listen(BACKLOG)
    uvicorn.Server(uvicorn.Config(APP, factory=True, **settings)).run(sockets=[sock])


def run(workers: int, settings: dict[str, Any]) -> None:
    """Serve with ``workers`` processes until SIGINT or SIGTERM."""
    if not hasattr(socket, "SO_REUSEPORT"):
        import uvicorn

        uvicorn.run(APP, factory=True, workers=workers, **settings)
        return
    import multiprocessing
    from multiprocessing.connection import wait

    try:
        held = _socket(settings["host"], settings["port"])
    except OSError as exc:
        sys.exit(f"error: cannot listen on {settings['host']}:{settings['port']}: {exc.strerror}")
    settings = {**settings, "port": held.getsockname()[1]}
    context = multiprocessing.get_context("spawn")
    stopping: list[int] = []

    def stop(signum: int, _frame: object) -> None:
        stopping.append(signum)

    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}

    def start() -> tuple[Any, float]:
        process = context.Process(target=_worker, args=(settings,), name="referee-worker")
        process.start()
        return process, time.monotonic()

    running = [start() for _ in range(workers)]
    failed = ""
    try:
        while not stopping and not failed:
            wait([p.sentinel for p, _ in running], timeout=0.5)
            for i, (process, began) in enumerate(running):
                if process.is_alive() or stopping:
                    continue
                if time.monotonic() - began < SETTLE_SECONDS:
                    failed = f"a worker exited at start (exit code {process.exitcode})"
                    break
                log.warning("referee serve: worker %s exited (%s); starting another",
                            process.pid, process.exitcode)  # fmt: skip
                running[i] = start()
    finally:
        for process, _ in running:
            if process.is_alive():
                process.terminate()  # SIGTERM: uvicorn finishes what it is serving
        deadline = time.monotonic() + STOP_SECONDS
        for process, _ in running:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()
        held.close()
        for s, handler in old.items():
            signal.signal(s, handler)
    if failed:
        sys.exit(f"error: {failed}")
