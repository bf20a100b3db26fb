"""Discord's two transports (issue 54): what a ``/roll 3d6`` interaction costs through
the gateway (``referee discord run``), beside the HTTP interactions endpoint
(``referee serve``), on the same machine, in one sitting.

- HTTP: a ``referee serve`` child on its own SQLite file, with a fresh Ed25519 key;
  each interaction signed in advance and posted on one kept-alive connection; the
  answer is the response.
- Gateway: a ``referee discord run --no-serve`` process on another SQLite file,
  connected to the tests' gateway stand-in (``tests/gateway_standin.py``); each
  interaction dispatched as ``INTERACTION_CREATE``; the answer is the process's
  ``POST /interactions/{id}/{token}/callback`` to the REST stand-in.

One at a time, the two taking turns in rounds of ``N`` (default 300) interactions;
reported: the wall time from sending to the answer (p50, p99) and the server
process's CPU time an interaction (from ``/proc``). The gateway's answer is a request
the server makes, where the HTTP endpoint's rides on Discord's own request: it costs
one outbound HTTP call more. Target: the gateway's p99 under 10 ms, as the HTTP
endpoint's (bench_discord.py).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from nacl.signing import SigningKey

from referee.rooms.db.store import sqlite_url
from referee.rooms.serving.child import Child

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from discord_standin import gateway_server, interaction, opts, stand_in  # noqa: E402

N = int(os.environ.get("N", "300"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
UNLIMITED: dict[str, float] = {"rate": 1e9, "burst": 1e9, "address_rate": 1e9, "address_burst": 1e9}


def cpu_seconds(pid: int) -> float:
    """The process's user and system CPU time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def over_http(base: str, key: SigningKey, pid: int, n: int) -> tuple[list[float], float]:
    bodies = []
    for _ in range(n):
        body = json.dumps(interaction("roll", opts(exprs="3d6"), channel="77")).encode()
        stamp = str(int(time.time()))
        signature = key.sign(stamp.encode() + body).signature.hex()
        bodies.append((body, {"content-type": "application/json",
                              "x-signature-ed25519": signature,
                              "x-signature-timestamp": stamp}))  # fmt: skip
    times = []
    with httpx.Client(base_url=base, timeout=30) as c:
        start = cpu_seconds(pid)
        for body, headers in bodies:
            sent = time.perf_counter()
            r = c.post("/discord/interactions", content=body, headers=headers)
            times.append(time.perf_counter() - sent)
            assert r.status_code == 200 and r.json()["type"] == 4, r.text
        used = cpu_seconds(pid) - start
    return times, used / n


def over_gateway(bot: object, rest: object, pid: int, n: int) -> tuple[list[float], float]:
    payloads = [interaction("roll", opts(exprs="3d6"), channel="77") for _ in range(n)]
    times = []
    start = cpu_seconds(pid)
    for payload in payloads:
        sent = time.perf_counter()
        answer = bot.send(payload)  # type: ignore[attr-defined]
        times.append(time.perf_counter() - sent)
        assert answer.json()["type"] == 4, answer.json()
    used = cpu_seconds(pid) - start
    return times, used / n


def p99(times: list[float]) -> float:
    return sorted(times)[max(0, int(0.99 * len(times)) - 1)]


def main() -> None:
    print(f"== Discord: /roll 3d6 through the gateway vs the HTTP endpoint, {ROUNDS} x {N} ==")
    key = SigningKey.generate()
    with tempfile.TemporaryDirectory() as tmp, stand_in() as rest:
        os.environ["REFEREE_DISCORD_PUBLIC_KEY"] = key.verify_key.encode().hex()
        os.environ["REFEREE_DISCORD_API"] = rest.base
        # A bench sends far faster than any table: the commands' pace is not what it measures.
        os.environ["REFEREE_DISCORD_USER_PACE"] = "1000000,1000000"
        os.environ["REFEREE_DISCORD_CHANNEL_PACE"] = "1000000,1000000"
        http = Child(sqlite_url(Path(tmp) / "http.sqlite3"), None, **UNLIMITED)
        http.start()
        os.environ.pop("REFEREE_DISCORD_PUBLIC_KEY")
        try:
            with gateway_server(sqlite_url(Path(tmp) / "gateway.sqlite3"), rest) as bot:
                assert http.process is not None
                over_http(http.base, key, http.process.pid, 50)  # warm up both
                over_gateway(bot, rest, bot.pid, 50)
                rows = []
                for turn in range(1, ROUNDS + 1):
                    h, h_cpu = over_http(http.base, key, http.process.pid, N)
                    g, g_cpu = over_gateway(bot, rest, bot.pid, N)
                    rows.append((turn, h, h_cpu, g, g_cpu))
        finally:
            http.close()
    print(f"{'round':<6} {'HTTP p50':>9} {'p99':>8} {'CPU':>8}   "
          f"{'gateway p50':>11} {'p99':>8} {'CPU':>8}   {'p50 ratio':>9}")  # fmt: skip
    worst = 0.0
    for turn, h, h_cpu, g, g_cpu in rows:
        worst = max(worst, p99(g))
        print(
            f"{turn:<6} {statistics.median(h) * 1e3:>7.2f}ms {p99(h) * 1e3:>6.2f}ms "
            f"{h_cpu * 1e3:>6.2f}ms   {statistics.median(g) * 1e3:>9.2f}ms "
            f"{p99(g) * 1e3:>6.2f}ms {g_cpu * 1e3:>6.2f}ms   "
            f"{statistics.median(g) / statistics.median(h):>8.2f}x"
        )
    print(f"gateway p99 {worst * 1e3:.2f} ms: target < 10 ms  {'PASS' if worst < 0.01 else 'MISS'}")


if __name__ == "__main__":
    main()
