"""A throwaway PostgreSQL cluster, for tests and benchmarks (``throwaway``).

It uses Debian's PostgreSQL (``scripts/install-services.sh`` installs it when
missing): ``initdb`` into a fresh directory under ``/tmp``, then ``postgres``
on a free loopback port, until the block ends; then a fast shutdown and the
directory is removed. ``initdb`` and ``postgres`` refuse to run as root, so
when we are root they run as the ``postgres`` user; the server is started
directly (not through ``runuser``), so that this process owns its PID and its
signals.

``python -m referee.rooms.serving.pgtemp`` starts one and prints its URL, for trying
two servers against one database by hand.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["bindir", "throwaway"]


def bindir() -> Path:
    """The directory of PostgreSQL's server programs (the newest installed)."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4])
    )
    if not found:
        on_path = shutil.which("initdb")
        if on_path is None:
            raise RuntimeError(
                "PostgreSQL is not installed: run `bash scripts/install-services.sh` "
                "(apt-get install postgresql)"
            )
        return Path(on_path).resolve().parent
    return Path(found[-1]).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _runner() -> str | None:
    """The user to run PostgreSQL's programs as: ``postgres`` when we are root."""
    return "postgres" if os.geteuid() == 0 else None


@contextmanager
def throwaway(durable: bool = True, timeout: float = 30.0) -> Iterator[str]:
    """A fresh PostgreSQL cluster until the block ends; yields its SQLAlchemy URL
    (``postgresql+asyncpg://postgres@127.0.0.1:PORT/postgres``).

    ``durable=False`` turns off fsync and synchronous commit, for speed; crash
    tests must keep the default."""
    bin_ = bindir()
    top = Path(tempfile.mkdtemp(prefix="referee-pg-", dir="/tmp"))
    data = top / "data"
    if os.geteuid() == 0:
        shutil.chown(top, "postgres", "postgres")
    server: subprocess.Popen[bytes] | None = None
    try:
        subprocess.run(
            [
                str(bin_ / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                "-N",
                "--no-instructions",
            ],
            cwd=top,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            user=_runner(),
            group=_runner(),
        )
        port = _free_port()
        args = [
            str(bin_ / "postgres"),
            "-D",
            str(data),
            "-p",
            str(port),
            "-k",
            str(top),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "max_connections=200",
        ]
        if not durable:
            args += ["-c", "fsync=off", "-c", "synchronous_commit=off"]
        with open(top / "server.log", "wb") as log:  # the server keeps its own copy
            server = subprocess.Popen(
                args,
                cwd=top,
                stdout=log,
                stderr=subprocess.STDOUT,
                user=_runner(),
                group=_runner(),
            )
        deadline = time.monotonic() + timeout
        pid_file = data / "postmaster.pid"
        while True:
            if server.poll() is not None:
                raise RuntimeError(
                    "PostgreSQL did not start: " + (top / "server.log").read_text()[-2000:]
                )
            try:
                lines = pid_file.read_text().splitlines()
            except FileNotFoundError:
                lines = []
            if len(lines) >= 8 and lines[7].strip() == "ready":
                break
            if time.monotonic() > deadline:
                raise RuntimeError("PostgreSQL did not become ready in time")
            time.sleep(0.05)
        yield f"postgresql+asyncpg://postgres@127.0.0.1:{port}/postgres"
    finally:
        if server is not None:
            server.send_signal(signal.SIGINT)  # fast shutdown
            try:
                server.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        shutil.rmtree(top, ignore_errors=True)


def _stop(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    # Ctrl-C or SIGTERM (SIGINT is ignored by a job started in the background).
    signal.signal(signal.SIGTERM, _stop)
    with throwaway() as url:
        print(url, flush=True)
        try:
            signal.pause()
        except KeyboardInterrupt:
            pass
