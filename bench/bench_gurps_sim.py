"""The GURPS encounter simulator (issue 68 §3): 100,000 fights of 3 adventurers vs 4
orcs from the shipped sheets, vectorised with numpy, against the oracle's plain loop
(one fight at a time through the exchange engine) on the same encounter, and beside
``swn simulate``'s 100,000 fights, in one process. Targets: at most 10 s, at least
30x the oracle's loop, and the process's peak memory under 1 GiB (batches of
:data:`referee.systems.gurps.simulate.CHUNK`)."""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

from _timing import fmt, row, verdict
from referee import seeded
from referee.commands.gurps_simulate import load_encounter
from referee.systems import swn
from referee.systems.gurps.sim_oracle import run_once
from referee.systems.gurps.simulate import CHUNK, simulate

ROOT = Path(__file__).parent.parent / "examples"
RUNS = 100_000
LOOP_RUNS = 60


def _peak_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def main() -> None:
    print("== gurps simulate: vectorised vs the oracle's loop, and swn simulate ==")
    row("case", "vectorised", "plain loop", "ratio", "target")
    enc = load_encounter(str(ROOT / "gurps" / "party_vs_4_orcs.toml"))
    simulate(enc, 1_000, seed=0)  # warm numpy and the caches
    start = time.perf_counter()
    simulate(enc, RUNS, seed=1)
    vec = time.perf_counter() - start
    peak = _peak_mib()
    rng = seeded(1)
    start = time.perf_counter()
    for _ in range(LOOP_RUNS):
        run_once(enc, rng)
    loop = (time.perf_counter() - start) / LOOP_RUNS * RUNS
    row("3v4 orcs", fmt(vec), fmt(loop), f"{loop / vec:.1f}x", verdict(loop / vec, 30.0))
    row("3v4, <= 10 s", fmt(vec), "10.00 s", f"{10.0 / vec:.2f}x", verdict(10.0 / vec, 1.0))
    thugs = swn.load_encounter(ROOT / "swn" / "warrior_vs_3_thugs.toml")
    from referee.systems.swn.simulate import simulate as swn_simulate

    swn_simulate(thugs, 1_000, seed=0)
    start = time.perf_counter()
    swn_simulate(thugs, RUNS, seed=1)
    other = time.perf_counter() - start
    row("swn 1v3 thugs", fmt(other), "", f"{vec / other:.1f}x", "(GURPS time / SWN time)")
    print(f"peak memory of the process after the vectorised run: {peak:.0f} MiB "
          f"(target < 1024 MiB; batches of {CHUNK:,})")  # fmt: skip
    print(f"(the oracle's loop timed on {LOOP_RUNS} fights and scaled to {RUNS:,})")


if __name__ == "__main__":
    main()
