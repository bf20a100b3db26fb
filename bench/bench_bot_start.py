"""``referee discord run``'s start-up (issue 74 §2): from the process's start to its
first answer, through the tests' gateway and REST stand-ins (``tests/discord_standin.py``,
``tests/gateway_standin.py``), as a GM starts it: a fresh process (the console script,
not the tests' forked one), its own SQLite file, the room pages served on a free port.

Each run reports: when it says it is connected (its first line), when its answer to a
``/roll 3d6`` dispatched at that moment reaches the REST stand-in, and the CPU it has
used by then (from ``/proc``); and for a token Discord refuses (401 from the REST
stand-in), when the process has said so and ended. Each run starts the bot twice on
its SQLite file: first on a new one (made and migrated), then again, as a GM starts it
before each session, on the database it left (at the newest schema: no migration, and
no Alembic imported). ``RUNS`` runs (default 5), medians.
With ``BEFORE=DIR`` (the ``src`` folder of another checkout), each run is made from
there too, in turns. Target: answering within 2 s of the start; a refusal said within
1 s of Discord's answer (here, the whole process within 1 s of its start).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from referee.rooms.db.store import sqlite_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from discord_standin import PATIENT, TOKEN, interaction, opts, stand_in  # noqa: E402

RUNS = int(os.environ.get("RUNS", "5"))
BEFORE = os.environ.get("BEFORE")
REFEREE = str(Path(sys.executable).parent / "referee")
READY = 2.0
"""Seconds: issue 74's bound from the process's start to its first answer."""
REFUSED = 1.0
"""Seconds: issue 74's bound on saying a refused token."""


def cpu_seconds(pid: int) -> float:
    """The process's user and system CPU time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def env_for(rest: Any, token: str, src: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PATIENT, REFEREE_DISCORD_API=rest.base, REFEREE_DISCORD_TOKEN=token)
    env.pop("REFEREE_DISCORD_PUBLIC_KEY", None)
    if src is not None:
        env["PYTHONPATH"] = src
    return env


def ready(rest: Any, db: Path, src: str | None) -> tuple[float, float, float]:
    """Seconds from the start to the connected line and to the first answer, and the
    CPU seconds used by the answer."""
    gateway = rest.gateway_standin
    before = set(gateway.sessions)
    args = [REFEREE, "discord", "run", "--db", sqlite_url(db), "--port", "0"]
    start = time.perf_counter()
    process = subprocess.Popen(
        args, env=env_for(rest, TOKEN, src), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        connected = time.perf_counter() - start
        assert "connected" in line, (line, process.poll())
        (session,) = set(gateway.sessions) - before
        payload = interaction("roll", opts(exprs="3d6"), channel="77")
        path = f"/interactions/{payload['id']}/{payload['token']}/callback"
        gateway.dispatch(session, payload)
        with rest.arrived:
            assert rest.arrived.wait_for(lambda: path in rest.callbacks, 30)
        answered = time.perf_counter() - start
        cpu = cpu_seconds(process.pid)
        assert rest.callbacks[path]["type"] == 4
        return connected, answered, cpu
    finally:
        process.terminate()
        process.wait(20)


def refused(rest: Any, db: Path, src: str | None) -> float:
    """Seconds from the start until the process has said Discord refused its token and
    ended."""
    args = [REFEREE, "discord", "run", "--db", sqlite_url(db), "--no-serve"]
    start = time.perf_counter()
    done = subprocess.run(
        args, env=env_for(rest, TOKEN[:-3] + "xyz", src), capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    took = time.perf_counter() - start
    assert "Discord refused the bot's token (401" in done.stderr, done.stderr
    return took


def main() -> None:
    print(f"== referee discord run: start to first answer, median of {RUNS} ==")
    trees: list[str | None] = [None] if BEFORE is None else [BEFORE, None]
    got: dict[str | None, list[tuple[float, ...]]] = {t: [] for t in trees}
    with tempfile.TemporaryDirectory() as tmp, stand_in() as rest:
        for turn in range(RUNS + 1):  # the first: a warm-up (bytecode, file cache)
            for src in trees:
                name = "before" if src else "after"
                db = Path(tmp) / f"{name}-{turn}.sqlite3"
                timed = ready(rest, db, src)
                again = ready(rest, db, src)  # a later start: the database is there
                said = refused(rest, Path(tmp) / f"{name}-refused-{turn}.sqlite3", src)
                if turn:
                    got[src].append((*timed, said, *again))
    print(f"{'version':<8} {'start':<11} {'connected':>10} {'answered':>10} {'CPU':>8} "
          f"{'refused':>9}   target")  # fmt: skip
    for src in trees:
        rows = got[src]
        med = [statistics.median(r[i] for r in rows) for i in range(7)]
        no = "PASS" if med[3] <= REFUSED else "MISS"
        for start, (c, a, cpu) in (("new db", med[0:3]), ("later", med[4:7])):
            ok = "PASS" if a <= READY else "MISS"
            print(
                f"{'before' if src else 'after':<8} {start:<11} {c:>9.2f}s {a:>9.2f}s "
                f"{cpu:>7.2f}s {med[3]:>8.2f}s   answered <= {READY:g} s {ok}; "
                f"refusal <= {REFUSED:g} s {no}"
            )
        for start, at in (("new db", 1), ("later", 5)):
            spread = [f"{r[at]:.2f}" for r in rows]
            print(f"         answered ({start}), each run: {', '.join(spread)} s")


if __name__ == "__main__":
    main()
