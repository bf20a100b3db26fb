"""Rolls through ``wrk`` into many rooms while their live sockets listen (issue 51).

The pattern of a proxy in front of many players: a few keep-alive connections, each
carrying every room's rolls. One ``referee serve`` on its SQLite default (a child
process in a fresh directory, no ``--db``), with the rate limits lifted through
:class:`~referee.rooms.limits.RoomsLimits` (``--limit``), on 127.0.0.1. ``ROOMS`` rooms
(20), each with its GM and ``PLAYERS`` players (4), and ``SUBSCRIBERS`` live sockets
(5) on ``/live``, held by this process with a minimal WebSocket client. Each room's
members roll once first (a room's first roll of an epoch writes its ``lock`` entry).
Then ``wrk`` (Debian's package; ``bench/wrk_rolls.lua``) posts ``3d6`` rolls
round-robin across the rooms, each with one of the room's members' tokens, on
``CONNECTIONS`` connections (50) from ``THREADS`` threads (2), for ``DURATION``
seconds (10).

With ``--against``, it also prints the server's CPU a roll against the reference's,
round by round (issue 74 §3 asks for half), and whether this tree's medians meet the
rooms' goal (1,000 rolls/s with a POST p99 of 50 ms at most, nothing lost).

Each run prints the acknowledged rolls/s (answers 201 over wrk's duration), wrk's
POST p50 and p99, the server's CPU a roll (``/proc``), the machine's load
(``/proc/loadavg``), and whether every subscriber got every roll: the server is
stopped, its database read, and every roll in it must have reached each of its
room's sockets.

``--against PATH_OR_REV`` runs the same load on another version of the project,
taking turns with this one (reference first, then this tree, ``ROUNDS`` times; 3):
a ``src`` directory (``/work/ae0daa9/src``), or a git revision of this repository
(``ae0daa9``: its ``src`` is extracted with ``git archive`` into a temporary
directory). Its server runs on this interpreter with that tree first on
``PYTHONPATH``. The verdict compares the medians: this tree must take at least as
many rolls/s as the reference, with a p99 no worse.

``PROFILE=DIR`` records each server with ``py-spy record`` over the measured seconds
(``PYSPY_ARGS``: more options, say ``--gil`` or ``--idle``) into
``DIR/<side>-<round>.txt`` (collapsed stacks).

``python bench/bench_wrk.py [--against ae0daa9]``; the whole run is bounded: each
server must start in 60 s, each wrk ends after ``DURATION`` (a 5 s timeout a request).
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from contextlib import closing
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Any

import httpx
import orjson
import uvloop

from _served import UNLIMITED, cpu_seconds
from _served import frame as _frame
from _served import masked as _masked
from referee.rooms.serving.child import wait_healthy

ROOMS = int(os.environ.get("ROOMS", "20"))
PLAYERS = int(os.environ.get("PLAYERS", "4"))
SUBSCRIBERS = int(os.environ.get("SUBSCRIBERS", "5"))
CONNECTIONS = int(os.environ.get("CONNECTIONS", "50"))
THREADS = int(os.environ.get("THREADS", "2"))
DURATION = int(os.environ.get("DURATION", "10"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))

GOAL_ROLLS, GOAL_P99 = 1000, 50.0
"""The rooms' goal on two cores: acknowledged rolls a second, and POST p99 (ms)."""
CPU_TARGET = 0.5
"""Issue 74 §3: the server's CPU a roll at most this share of the reference's."""

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
SCRIPT = HERE / "wrk_rolls.lua"
_SEQ = re.compile(rb'"seq":(\d+)')


@dataclass
class Run:
    side: str
    rolls: float
    p50: float
    p99: float
    cpu: float
    load: str
    complete: bool
    detail: str = ""
    wrk: dict[str, Any] = field(default_factory=dict)


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(src: Path, folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``referee serve`` from ``src`` on SQLite (its default file, in ``folder``)."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    env["PYTHONPATH"] = str(src)
    limits = [a for k, v in UNLIMITED.items() for a in ("--limit", f"{k}={v:.0f}")]
    process = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "serve", "--host", "127.0.0.1",
         "--port", str(port), *limits],
        cwd=folder, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    if not wait_healthy(base, process, 60):
        _stop(process)
        raise RuntimeError(f"the server from {src} did not start")
    return process, base


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


async def _rooms(base: str) -> list[tuple[str, list[str]]]:
    """``ROOMS`` rooms with their members' tokens (the GM's first), each member's
    first roll made."""
    out = []
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        for i in range(ROOMS):
            made = (await client.post("/api/rooms", json={"name": f"r{i}", "system": None})).json()
            tokens = [made["token"]]
            for p in range(PLAYERS):
                joined = await client.post(
                    f"/api/rooms/{made['room']}/members",
                    json={"name": f"p{p}", "invite": made["invite"]},
                )
                tokens.append(joined.json()["token"])
            for token in tokens:
                got = await client.post(
                    f"/api/rooms/{made['room']}/rolls",
                    json={"command": "3d6"},
                    headers={"Authorization": f"Bearer {token}"},
                )
                assert got.status_code == 201, got.text
            out.append((made["room"], tokens))
    return out


async def _listen(base: str, room: str, token: str, seen: set[int], ready: asyncio.Event) -> None:
    """A live socket of ``room``: the seqs of the rolls it had, into ``seen``."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(
        f"GET /api/rooms/{room}/live HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    if b" 101 " not in head.split(b"\r\n", 1)[0]:
        raise RuntimeError(head.decode(errors="replace"))
    writer.write(_masked(1, orjson.dumps({"token": token})))
    ready.set()
    buffer = bytearray()
    try:
        while chunk := await reader.read(1 << 16):
            buffer += chunk
            at = 0
            while (frame := _frame(buffer, at)) is not None:
                b0, payload, at = frame
                if b0 & 0x0F == 9:
                    writer.write(_masked(10, payload))
                elif b0 & 0x0F == 8:
                    raise RuntimeError(f"the server closed a live socket: {payload[:2]!r}")
                elif b'"kind":"roll"' in payload and (found := _SEQ.search(payload)):
                    seen.add(int(found[1]))
            del buffer[:at]
    finally:
        writer.close()


def _wrk(base: str, targets: Path) -> list[str]:
    return [
        "wrk", "-t", str(THREADS), "-c", str(CONNECTIONS), "-d", f"{DURATION}s",
        "--timeout", "5s", "-s", str(SCRIPT), base, "--", str(targets),
    ]  # fmt: skip


async def _measure(side: str, src: Path, label: str) -> Run:
    with tempfile.TemporaryDirectory(prefix="bench-wrk-") as tmp:
        folder = Path(tmp)
        process, base = _serve(src, folder)
        try:
            tables = await _rooms(base)
            seen: dict[str, list[set[int]]] = {room: [] for room, _ in tables}
            readies, listeners = [], []
            for room, tokens in tables:
                for i in range(SUBSCRIBERS):
                    ready, got = asyncio.Event(), set[int]()
                    seen[room].append(got)
                    readies.append(ready)
                    listeners.append(
                        asyncio.create_task(
                            _listen(base, room, tokens[i % len(tokens)], got, ready)
                        )
                    )
            await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 60)
            await asyncio.sleep(0.5)  # each socket's backlog
            targets = folder / "targets.txt"
            targets.write_text(
                "".join(
                    f"{room} {tokens[m]}\n" for m in range(PLAYERS + 1) for room, tokens in tables
                )
            )
            profiler = None
            if os.environ.get("PROFILE"):
                out = Path(os.environ["PROFILE"]) / f"{label}.txt"
                out.parent.mkdir(parents=True, exist_ok=True)
                spy = Path(sys.executable).with_name("py-spy")
                profiler = await asyncio.create_subprocess_exec(
                    str(spy) if spy.exists() else "py-spy", "record", "--pid", str(process.pid),
                    "--duration", str(max(1, DURATION - 2)), "--rate", "200", "--format", "raw",
                    "--threads", "--output", str(out), "--nonblocking",
                    *os.environ.get("PYSPY_ARGS", "").split(),
                    stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
                )  # fmt: skip
            load = _load()
            cpu = cpu_seconds(process.pid)
            wrk = await asyncio.create_subprocess_exec(
                *_wrk(base, targets), stdout=asyncio.subprocess.PIPE
            )
            output, _ = await asyncio.wait_for(wrk.communicate(), DURATION + 60)
            cpu = cpu_seconds(process.pid) - cpu
            if profiler is not None:
                await asyncio.wait_for(profiler.wait(), 30)
            line = next(
                (ln for ln in output.decode().splitlines() if ln.startswith("WRKJSON ")), None
            )
            if line is None:
                raise RuntimeError(f"wrk gave no summary: {output.decode()}")
            got_wrk = orjson.loads(line.removeprefix("WRKJSON "))
            # Frames in flight: until no socket has had one for a second (30 s at most).
            had, still = -1, time.monotonic() + 30
            while time.monotonic() < still:
                now = sum(len(got) for sets in seen.values() for got in sets)
                if now == had:
                    break
                had = now
                await asyncio.sleep(1.0)
            for task in listeners:
                task.cancel()
            for ended in await asyncio.gather(*listeners, return_exceptions=True):
                if not isinstance(ended, asyncio.CancelledError):
                    raise RuntimeError(f"a live socket ended early: {ended!r}")
        finally:
            _stop(process)
        acknowledged = got_wrk["requests"] - got_wrk["status"]
        seconds = got_wrk["duration_us"] / 1e6
        with closing(sqlite3.connect(folder / "referee-rooms.sqlite3")) as db:
            logged = db.execute("SELECT room_id, seq FROM entries WHERE kind = 'roll'").fetchall()
    missed = sum(1 for room, seq in logged for got in seen[room] if seq not in got)
    made = len(logged) - ROOMS * (PLAYERS + 1)
    detail = ""
    if missed:
        detail += f"; {missed} frames missed"
    if made < acknowledged:
        detail += f"; only {made} rolls logged of {acknowledged} acknowledged"
    errors = {k: got_wrk[k] for k in ("connect", "read", "write", "status", "timeout")}
    if any(errors.values()):
        detail += f"; wrk errors {errors}"
    return Run(
        side=side,
        rolls=acknowledged / seconds,
        p50=got_wrk["p50_us"] / 1e3,
        p99=got_wrk["p99_us"] / 1e3,
        cpu=cpu / max(1, made) * 1e3,
        load=load,
        complete=not missed and made >= acknowledged,
        detail=detail,
        wrk=got_wrk,
    )


def _show(run: Run, label: str) -> None:
    print(
        f"{label:<22} {run.rolls:7,.0f} rolls/s  p50 {run.p50:6.1f} ms  p99 {run.p99:6.1f} ms  "
        f"server CPU {run.cpu:.3f} ms a roll  load {run.load}  every subscriber had every roll: "
        f"{'yes' if run.complete else 'NO'}{run.detail}",
        flush=True,
    )


def _reference(given: str, scratch: Path) -> tuple[Path, str]:
    """The ``src`` directory of ``given`` (a directory, or a git revision), and its name."""
    path = Path(given)
    if path.is_dir():
        src = path if (path / "referee").is_dir() else path / "src"
        return src, str(path)
    archive = subprocess.run(
        ["git", "-C", str(HERE.parent), "archive", "--format=tar", given, "src"],
        check=True, capture_output=True,
    ).stdout  # fmt: skip
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(scratch, filter="data")
    return scratch / "src", given


def main(argv: list[str]) -> int:
    if shutil.which("wrk") is None:
        print("bench_wrk: no wrk on PATH (Debian: apt-get install wrk): SKIPPED")
        return 0
    against = argv[argv.index("--against") + 1] if "--against" in argv else None
    print(
        f"== wrk: {ROOMS} rooms, {PLAYERS + 1} members and {SUBSCRIBERS} live sockets each, "
        f"{CONNECTIONS} connections ({THREADS} threads), {DURATION} s a run, SQLite =="
    )
    with tempfile.TemporaryDirectory(prefix="bench-wrk-ref-") as scratch:
        sides = [("this tree", SRC)]
        if against is not None:
            ref, name = _reference(against, Path(scratch))
            sides.insert(0, (name, ref))
        runs: dict[str, list[Run]] = {name: [] for name, _ in sides}
        for n in range(ROUNDS if against else 1):
            for name, src in sides:
                label = f"{'ref' if src != SRC else 'new'}-{n + 1}"
                run = uvloop.run(_measure(name, src, label))
                runs[name].append(run)
                _show(run, f"{name} #{n + 1}")
                time.sleep(1.0)
    ok = all(r.complete for rs in runs.values() for r in rs)
    for name, rs in runs.items():
        rates, p99s, cpus = [r.rolls for r in rs], [r.p99 for r in rs], [r.cpu for r in rs]
        print(
            f"{name}: median {statistics.median(rates):,.0f} rolls/s "
            f"({min(rates):,.0f}-{max(rates):,.0f}), p99 {statistics.median(p99s):.1f} ms "
            f"({min(p99s):.1f}-{max(p99s):.1f}), server CPU "
            f"{statistics.median(cpus):.3f} ms a roll ({min(cpus):.3f}-{max(cpus):.3f})"
        )
    new_runs = runs["this tree"]
    goal = (
        statistics.median(r.rolls for r in new_runs) >= GOAL_ROLLS
        and statistics.median(r.p99 for r in new_runs) <= GOAL_P99
    )
    print(
        f"the rooms' goal, {GOAL_ROLLS:,} rolls/s with p99 at most {GOAL_P99:.0f} ms, nothing "
        f"lost (this tree's medians): {'PASS' if goal and ok else 'MISS'}"
    )
    if against is not None:
        old, new = runs[sides[0][0]], runs["this tree"]
        ratios = [b.rolls / a.rolls for a, b in zip(old, new, strict=True)]
        faster = statistics.median(r.rolls for r in new) >= statistics.median(r.rolls for r in old)
        p99 = statistics.median(r.p99 for r in new) <= statistics.median(r.p99 for r in old)
        print(
            f"this tree / {sides[0][0]}, round by round: "
            f"{', '.join(f'{r:.2f}x' for r in ratios)}  (target: rolls/s at least the "
            f"reference's and p99 no worse: {'PASS' if faster and p99 and ok else 'MISS'})"
        )
        cpu = [b.cpu / a.cpu for a, b in zip(old, new, strict=True)]
        halved = statistics.median(cpu) <= CPU_TARGET
        print(
            f"server CPU a roll, this tree / {sides[0][0]}, round by round: "
            f"{', '.join(f'{r:.2f}x' for r in cpu)}  (issue 74's target, at most "
            f"{CPU_TARGET}x, the median: {'PASS' if halved else 'MISS'})"
        )
    else:
        print(f"every subscriber had every roll: {'PASS' if ok else 'MISS'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
