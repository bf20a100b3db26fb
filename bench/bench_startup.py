"""Whole-process start-up: ``referee roll 3d6`` against ``python -c "import random"``.

Both run on this interpreter (the venv's), alternately, best of 15 runs each.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from _timing import fmt, row, verdict

RUNS = 15
REFEREE = [str(Path(sys.executable).parent / "referee"), "roll", "3d6"]
BASELINE = [sys.executable, "-c", "import random"]


def run(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr.decode().strip()[-300:]}")
    return elapsed


def main() -> None:
    print(f"== startup: whole process, best of {RUNS} runs each ==")
    run(REFEREE), run(BASELINE)  # warm up: bytecode caches, file-system cache
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(RUNS):
        ours.append(run(REFEREE))
        theirs.append(run(BASELINE))
    ratio = min(theirs) / min(ours)
    row("case", "referee", "python", "ratio", "target")
    slower = f"(referee takes {1 / ratio:.1f}x as long; target at most 8x)"
    row("roll 3d6", fmt(min(ours)), fmt(min(theirs)), f"{ratio:.3f}x", verdict(ratio, 1 / 8))
    print(slower)


if __name__ == "__main__":
    main()
