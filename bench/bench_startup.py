"""Whole-process start-up: ``referee roll 3d6`` against ``python -c "import random"``,
and a command of every group beside ``referee roll`` (issue 53: each within 0.3 s).

All run on this interpreter (the venv's), taking turns, best of ``RUNS`` runs each.
A system's commands are loaded only when that system is asked for
(``referee.commands.reader.load``), so ``referee gurps check 12`` imports neither
Fudge's nor SWN's commands; any command but ``roll`` (and a bare expression) still
pays for typer. Of a system's commands, typer is given only the one the line names
(``referee.cli.app.build``), and ``referee --help`` lists the systems' groups without
loading their commands.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from _timing import fmt, row, verdict

RUNS = int(os.environ.get("RUNS", "15"))
REFEREE = str(Path(sys.executable).parent / "referee")
BASELINE = [sys.executable, "-c", "import random"]
GROUPS = {
    "roll 3d6": ["roll", "3d6"],
    "3d6+2 (a bare expression)": ["3d6+2"],
    "gurps check 12": ["gurps", "check", "12"],
    "gurps attack (a weapon)": [
        "gurps",
        "attack",
        "14",
        "--damage",
        "2d+1 cut",
        "--dr",
        "2",
        "--hp",
        "12",
        "--dodge",
        "9",
    ],
    "fudge roll Good": ["fudge", "roll", "Good"],
    "swn save physical": ["swn", "save", "physical", "--level", "3"],
    "odds 3d6": ["odds", "3d6"],
    "sheet (a GCS sheet)": ["sheet", "example:dai.gcs"],
    "--help": ["--help"],
}
LIMIT = 0.3
"""Seconds: issue 53's bound on a command's start-up on this machine."""


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The runs' environment: Python writes its bytecode cache, as it does by default, so
the warm-up run leaves each module compiled, as a user's first command does (with
``PYTHONDONTWRITEBYTECODE`` set, every run would compile the project's modules anew,
70-80 ms of ``gurps check``'s start-up on this machine)."""


def run(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False, env=ENV
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr.decode().strip()[-300:]}")
    return elapsed


def main() -> None:
    print(f"== startup: whole process, best of {RUNS} runs each ==")
    cmds = {name: [REFEREE, *args] for name, args in GROUPS.items()}
    for cmd in [BASELINE, *cmds.values()]:
        run(cmd)  # warm up: bytecode caches, file-system cache
    theirs: list[float] = []
    ours: dict[str, list[float]] = {name: [] for name in cmds}
    for _ in range(RUNS):
        theirs.append(run(BASELINE))
        for name, cmd in cmds.items():
            ours[name].append(run(cmd))
    roll = min(ours["roll 3d6"])
    ratio = min(theirs) / roll
    row("case", "referee", "python", "ratio", "target")
    row("roll 3d6", fmt(roll), fmt(min(theirs)), f"{ratio:.3f}x", verdict(ratio, 1 / 8))
    print(f"(referee roll takes {1 / ratio:.1f}x as long as python; target at most 8x)")
    print()
    row("command", "referee", "beside roll", "target")
    for name, times in ours.items():
        best = min(times)
        ok = "PASS" if best <= LIMIT else "MISS"
        row(name, fmt(best), f"{best / roll:.2f}x", f"<= {LIMIT:g} s  {ok}")


if __name__ == "__main__":
    main()
