"""The server's instructions a roll, counted by Valgrind rather than timed (issue 51).

``bench_wrk.py`` times the rooms under an outside load, and on this shared 2-core
machine the same tree's runs spread by 5-15% within minutes, as much as the
difference it looks for. This bench counts instead: one ``referee serve`` on its
SQLite default (rate limits lifted, as in ``bench_wrk.py``) runs under ``valgrind
--tool=callgrind`` with counting off; 20 rooms of 5 members and their 100 live
sockets are set up, counting is turned on (``callgrind_control -i on``), ``ROLLS``
``3d6`` rolls are posted round-robin across the rooms, ``AT_ONCE`` at a time, and
counting stops once every socket has had every roll. What it prints is the
server's user-space instructions a roll (all its threads), for each pattern: one
roll at a time (1) and 50 at once. A count repeats within about 1% from run to
run; it leaves out the kernel's work (system calls, switches between threads) and
the cost of cache misses, which only a timed bench sees.

``--against PATH_OR_REV`` counts another version of the project the same way (a
``src`` directory, or a git revision of this repository) and prints the ratio.

``python bench/bench_instructions.py [--against ae0daa9]``; it needs Debian's
``valgrind`` (skipped without it). Under Valgrind the server runs some 50 times
slower: each side takes a minute or two.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import uvloop

from _served import UNLIMITED
from bench_wrk import PLAYERS, SRC, SUBSCRIBERS, _free_port, _listen, _reference, _rooms
from referee.rooms.serving.child import wait_healthy

ROLLS = {1: int(os.environ.get("ROLLS_ONE", "200")), 50: int(os.environ.get("ROLLS", "1000"))}
"""Rolls counted for each pattern (rolls at once: how many)."""


def _instructions(out: Path) -> int:
    for line in out.read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {out}")


async def _count(src: Path, at_once: int, rolls: int, folder: Path) -> int:
    """The server's instructions for ``rolls`` rolls, ``at_once`` at a time."""
    port = _free_port()
    out = folder / f"callgrind-{at_once}.out"
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    env["PYTHONPATH"] = str(src)
    limits = [a for k, v in UNLIMITED.items() for a in ("--limit", f"{k}={v:.0f}")]
    process = subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
         sys.executable, "-m", "referee.cli", "serve", "--host", "127.0.0.1",
         "--port", str(port), *limits],
        cwd=folder, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        if not wait_healthy(base, process, 600):
            raise RuntimeError(f"the server from {src} did not start under valgrind")
        tables = await _rooms(base)
        seen: list[set[int]] = []
        readies, listeners = [], []
        for room, tokens in tables:
            for i in range(SUBSCRIBERS):
                ready, got = asyncio.Event(), set[int]()
                seen.append(got)
                readies.append(ready)
                listeners.append(
                    asyncio.create_task(_listen(base, room, tokens[i % len(tokens)], got, ready))
                )
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 600)
        before = -1
        while (now := sum(map(len, seen))) != before:  # each socket's backlog
            before = now
            await asyncio.sleep(3.0)
        subprocess.run(["callgrind_control", "-i", "on", str(process.pid)], check=True,
                       capture_output=True)  # fmt: skip
        targets = [(room, tokens[m]) for m in range(PLAYERS + 1) for room, tokens in tables]
        refused: list[int] = []

        async def poster(first: int) -> None:
            async with httpx.AsyncClient(base_url=base, timeout=600) as client:
                for n in range(first, rolls, at_once):
                    room, token = targets[n % len(targets)]
                    got = await client.post(
                        f"/api/rooms/{room}/rolls",
                        json={"command": "3d6"},
                        headers={"Authorization": f"Bearer {token}"},
                    )
                    if got.status_code != 201:
                        refused.append(got.status_code)

        await asyncio.gather(*(poster(i) for i in range(at_once)))
        expected = before + rolls * SUBSCRIBERS
        until = time.monotonic() + 600
        while sum(map(len, seen)) < expected and time.monotonic() < until:
            await asyncio.sleep(0.5)
        subprocess.run(["callgrind_control", "-i", "off", str(process.pid)], check=True,
                       capture_output=True)  # fmt: skip
        if refused or sum(map(len, seen)) < expected:
            raise RuntimeError(
                f"{len(refused)} rolls refused; {sum(map(len, seen)) - before} of "
                f"{rolls * SUBSCRIBERS} frames reached the sockets"
            )
        for task in listeners:
            task.cancel()
        await asyncio.gather(*listeners, return_exceptions=True)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(300)
    return _instructions(out)


def main(argv: list[str]) -> int:
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("bench_instructions: no valgrind on PATH (Debian: apt-get install valgrind): SKIPPED")
        return 0
    against = argv[argv.index("--against") + 1] if "--against" in argv else None
    print("== the server's instructions a roll (callgrind), SQLite, 20 rooms, 100 sockets ==")
    with tempfile.TemporaryDirectory(prefix="bench-instr-") as scratch:
        sides = [("this tree", SRC)]
        if against is not None:
            ref, name = _reference(against, Path(scratch))
            sides.insert(0, (name, ref))
        counted: dict[tuple[str, int], float] = {}
        for at_once, rolls in ROLLS.items():
            for name, src in sides:
                with tempfile.TemporaryDirectory(prefix="bench-instr-run-") as folder:
                    total = uvloop.run(_count(src, at_once, rolls, Path(folder)))
                counted[name, at_once] = total / rolls
                print(
                    f"{name:<22} {at_once:>2} at once: {total / rolls:12,.0f} instructions a "
                    f"roll ({rolls} rolls)",
                    flush=True,
                )
            if against is not None:
                ratio = counted["this tree", at_once] / counted[sides[0][0], at_once]
                print(f"this tree / {sides[0][0]}, {at_once} at once: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
