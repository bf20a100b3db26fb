"""``referee serve --workers N``: N server processes on one port, each room in one.

uvicorn's own ``workers=`` runs N copies that know nothing of each other. These do:
each is started with its index and the paths of its siblings' inboxes, so that it can
hand a connection for a room it does not own to the worker that does
(:mod:`.affine`). The parent binds the port once, starts the workers, starts a new
one in the place of one that dies (with the same index, so rooms keep their
owner; after a quick death, with a growing delay), and on SIGINT or SIGTERM stops
them all and waits for them. A worker of the first start that cannot start stops
the server (every worker would fail alike: the port, the app); a replacement that
cannot (the database away for a while) is tried again.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import shutil
import signal
import socket
import tempfile
import time
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from typing import Any

import uvicorn

from .affine import Group

__all__ = ["run"]

STARTUP_FAILURE = 3
"""The exit code of a worker that could not start (the port, the app): at the first
start every worker would fail alike, so the parent stops."""
SETTLED = 60.0
"""A worker that ran this long is replaced at once when it dies; one that died sooner
after a delay that doubles with each quick death (:data:`BACKOFF`)."""
BACKOFF = (0.5, 30.0)
"""The first and the longest delay before replacing a worker that died quickly."""
STOP_SECONDS = 30.0
"""How long stopping workers may take to finish their requests before they are killed."""

_log = logging.getLogger("uvicorn.error")


def run(config: uvicorn.Config, workers: int, *, affinity: bool = True) -> int:
    """Serve ``config`` with ``workers`` processes until SIGINT or SIGTERM; with
    ``affinity``, each room's connections go to its worker. The exit code: 0, or 1 if
    a worker could not start."""
    multiprocessing.allow_connection_pickling()  # the listening socket, to each child
    spawn = multiprocessing.get_context("spawn")
    sock = config.bind_socket()
    folder = tempfile.mkdtemp(prefix="referee-workers-")  # 0700: this user's alone
    paths = [os.path.join(folder, str(i)) for i in range(workers)] if affinity else []
    stopping: list[int] = []
    previous = {
        sig: signal.signal(sig, lambda sig, _frame: stopping.append(sig))
        for sig in (signal.SIGINT, signal.SIGTERM)
    }

    def start(index: int) -> BaseProcess:
        process = spawn.Process(
            target=_worker, args=(config, sock, index, paths), name=f"referee-worker-{index}"
        )
        process.start()
        return process

    code = 0
    processes = [start(i) for i in range(workers)]
    first = [True] * workers  # still the first start's process
    began = [time.monotonic()] * workers
    quick = [0] * workers  # quick deaths in a row
    due: dict[int, float] = {}  # replacements waiting for their time
    try:
        while not stopping:
            wait([p.sentinel for p in processes if p.exitcode is None], timeout=0.5)
            now = time.monotonic()
            for index, process in enumerate(processes):
                if stopping or process.exitcode is None or index in due:
                    continue
                if first[index] and process.exitcode == STARTUP_FAILURE:
                    _log.error("worker %d could not start; stopping", index)
                    stopping.append(0)
                    code = 1
                    break
                quick[index] = quick[index] + 1 if now - began[index] < SETTLED else 0
                delay = min(BACKOFF[1], BACKOFF[0] * 2 ** (quick[index] - 1)) * (quick[index] > 0)
                _log.warning("worker %d ended (exit code %s); starting another in %.1f s",
                             index, process.exitcode, delay)  # fmt: skip
                due[index] = now + delay
            for index, at in list(due.items()):
                if not stopping and at <= now:
                    del due[index]
                    processes[index], first[index], began[index] = start(index), False, now
    finally:
        for process in processes:
            if process.exitcode is None and process.pid is not None:
                os.kill(process.pid, signal.SIGTERM)
        for process in processes:
            process.join(STOP_SECONDS)
            if process.exitcode is None:
                process.kill()
                process.join()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sock.close()
        shutil.rmtree(folder, ignore_errors=True)
    return code


def _worker(config: uvicorn.Config, sock: socket.socket, index: int, paths: list[str]) -> None:
    """One worker: uvicorn's server on the shared socket, in its own event loop, with its
    place in the group (:class:`.affine.Group`) when ``paths`` are given."""
    config.configure_logging()
    server = uvicorn.Server(config)

    async def serve() -> None:
        if paths:
            group = Group(index, paths, server)
            group.join()
            listening = asyncio.create_task(group.listen())
        await server.serve(sockets=[sock])
        if paths:
            listening.cancel()

    factory: Any = config.get_loop_factory()
    try:
        with asyncio.Runner(loop_factory=factory) as runner:
            runner.run(serve())
    except KeyboardInterrupt:  # the parent's Ctrl-C reached the whole group
        pass
    if not server.started:
        raise SystemExit(STARTUP_FAILURE)
