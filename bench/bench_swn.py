"""The SWN encounter simulator: 100,000 fights of a 1-vs-3 encounter, vectorised with
numpy, against the plain Python loop over the same rules (the test oracle), in the
same process. Targets: 100,000 encounters in a few seconds (<= 3 s) on one core."""

from __future__ import annotations

import time
from pathlib import Path

from _timing import fmt, row, verdict
from referee import seeded
from referee.systems.swn.encounter import load_encounter
from referee.systems.swn.oracle import run_once
from referee.systems.swn.simulate import simulate

EXAMPLES = Path(__file__).parent.parent / "examples" / "swn"


def main() -> None:
    print("== swn simulate: vectorised vs plain loop (per encounter), one process ==")
    row("case", "vectorised", "plain loop", "ratio", "target")
    for name, runs, loop_runs in (("warrior_vs_3_thugs", 100_000, 5_000),
                                  ("medic_team", 100_000, 3_000)):  # fmt: skip
        enc = load_encounter(EXAMPLES / f"{name}.toml")
        simulate(enc, 1_000, seed=0)  # warm caches (damage tables, numpy)
        start = time.perf_counter()
        simulate(enc, runs, seed=1)
        vec = time.perf_counter() - start
        rng = seeded(1)
        start = time.perf_counter()
        for _ in range(loop_runs):
            run_once(enc, rng)
        loop = (time.perf_counter() - start) / loop_runs * runs
        label = name.replace("warrior_vs_", "1v")
        row(label, fmt(vec), fmt(loop), f"{loop / vec:.1f}x", verdict(3.0 / vec, 1.0))
    print("(plain loop timed on fewer runs and scaled; target: vectorised 100,000 runs <= 3 s)")


if __name__ == "__main__":
    main()
