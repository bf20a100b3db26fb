"""The tests' zygote (``tests/zygote.py``, issue 53): what it forks is a process of its
own, serving as ``python -m`` would, on the test's environment and streams."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

import zygote
from referee.rooms.db.store import sqlite_url
from rooms_server import LOOPBACK_TLS


def _health(base: str) -> int:
    with httpx.Client(timeout=10, verify=LOOPBACK_TLS) as c:
        return c.get(base + "/api/health").status_code


def test_a_forked_server_serves_dies_and_starts_again(tmp_path: Path) -> None:
    server = zygote.ForkedChild(sqlite_url(tmp_path / "rooms.sqlite3"))
    try:
        server.start()
        first = server.process
        assert isinstance(first, zygote.Forked) and first.pid not in (os.getpid(), os.getppid())
        assert Path(f"/proc/{first.pid}/status").exists() and first.poll() is None
        assert _health(server.base) == 200
        server.kill()  # SIGKILL, as the crash tests do
        assert first.poll() == -signal.SIGKILL  # its status, as the zygote reaped it
        assert (
            not Path(f"/proc/{first.pid}/status").exists()
            or "zombie" in Path(f"/proc/{first.pid}/status").read_text()
        )
        server.start()  # again, on the socket this process kept
        assert server.process is not first and _health(server.base) == 200
        server.stop()
        assert server.process is not None and server.process.poll() is not None
    finally:
        server.close()


def test_a_forked_command_prints_what_the_console_script_prints(
    capfd: pytest.CaptureFixture[str],
) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    args = ["roll", "3d6", "--seed", "7"]
    forked = zygote.command(args, env)
    try:
        printed = forked.stdout.read()
        forked.wait(timeout=30)
    finally:
        forked.stdout.close()
    python = [sys.executable, "-m", "referee.cli", *args]
    expected = subprocess.run(python, env=env, capture_output=True, text=True, timeout=60)
    assert printed == expected.stdout and "3d6" in printed, (printed, expected)
    # Its errors go to the test's own standard error, as it is when the fork is made
    capfd.readouterr()
    bad = zygote.command(["roll", "3d6+"], env)
    try:
        assert bad.stdout.read() == ""
        bad.wait(timeout=30)
    finally:
        bad.stdout.close()
    assert "column" in capfd.readouterr().err


def test_a_wait_that_times_out_says_so(tmp_path: Path) -> None:
    server = zygote.ForkedChild(sqlite_url(tmp_path / "rooms.sqlite3"))
    try:
        server.start()
        assert server.process is not None
        with pytest.raises(subprocess.TimeoutExpired):
            server.process.wait(timeout=0.1)
    finally:
        server.close()


def test_a_forked_run_ends_as_the_console_script_does() -> None:
    """``zygote.run`` gives what ``subprocess.run`` gives: both streams and the exit
    status, for a command that succeeds and one that fails."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "NO_COLOR": "1"}
    codes = []
    for args in (["roll", "3d6", "--seed", "7"], ["roll", "3d6+"], ["gurps", "check", "x"]):
        got = zygote.run(args, env)
        python = [sys.executable, "-m", "referee.cli", *args]
        expected = subprocess.run(python, env=env, capture_output=True, text=True, timeout=60)
        assert (got.returncode, got.stdout, got.stderr) == (
            expected.returncode,
            expected.stdout,
            expected.stderr,
        ), args
        codes.append(got.returncode)
    assert codes[0] == 0 and codes[1] != 0 and codes[2] != 0, codes
