"""Whole-process start-up: ``referee roll 3d6`` against ``python -c "import random"``,
and a command of every group beside ``referee roll`` (issue 74: each within 1.4x as
long, by medians; issue 53: each within 0.3 s).

All run on this interpreter (the venv's), taking turns, ``RUNS`` runs each; the
figures are medians. With ``BEFORE=DIR`` (the ``src`` folder of another checkout, a
``git worktree`` of the commit before a change), each command also runs from there
(``PYTHONPATH``), in the same turns, and both versions are printed side by side.

A system's commands are loaded only when that system is asked for, and of its
modules only the one that declares the command the line names
(``referee.commands.reader.load``), so ``referee gurps check 12`` imports neither
GURPS's exchange nor Fudge's or SWN's commands; any command but ``roll`` (and a bare
expression) still pays for typer. Of a system's commands, typer is given only the one
the line names (``referee.cli.app.build``), ``referee --help`` lists the systems'
groups without loading their commands, and ``verify``, ``serve``, ``rooms`` and
``discord`` load none. ``tests/test_startup_imports.py`` holds the modules each path
imports.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _timing import fmt, row, verdict


def line(*cells: str) -> None:
    """A row of the commands' table: its first column wide enough for their names."""
    print(f"{cells[0]:<27}" + "".join(f"{c:>12}" for c in cells[1:-1]) + f"   {cells[-1]}")


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
    "verify --help": ["verify", "--help"],
    "--help": ["--help"],
}
LIMIT = 0.3
"""Seconds: issue 53's bound on a command's start-up on this machine."""
RATIO = 1.4
"""Issue 74's bound on a command's start-up: at most this many times ``referee roll``'s."""
BEFORE = os.environ.get("BEFORE")


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The runs' environment: Python writes its bytecode cache, as it does by default, so
the warm-up run leaves each module compiled, as a user's first command does (with
``PYTHONDONTWRITEBYTECODE`` set, every run would compile the project's modules anew,
70-80 ms of ``gurps check``'s start-up on this machine)."""


def run(cmd: list[str], src: str | None = None) -> float:
    env = ENV if src is None else {**ENV, "PYTHONPATH": src}
    start = time.perf_counter()
    done = subprocess.run(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False, env=env
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr.decode().strip()[-300:]}")
    return elapsed


def main() -> None:
    print(f"== startup: whole process, median of {RUNS} runs each ==")
    cmds = {name: [REFEREE, *args] for name, args in GROUPS.items()}
    trees: list[str | None] = [None] if BEFORE is None else [BEFORE, None]
    for cmd in [BASELINE, *cmds.values()]:
        for src in trees:
            run(cmd, src)  # warm up: bytecode caches, file-system cache
    theirs: list[float] = []
    ours: dict[tuple[str | None, str], list[float]] = {
        (src, name): [] for src in trees for name in cmds
    }
    for _ in range(RUNS):
        theirs.append(run(BASELINE))
        for name, cmd in cmds.items():
            for src in trees:
                ours[src, name].append(run(cmd, src))
    median = {key: statistics.median(times) for key, times in ours.items()}
    roll = median[None, "roll 3d6"]
    ratio = statistics.median(theirs) / roll
    row("case", "referee", "python", "ratio", "target")
    row(
        "roll 3d6",
        fmt(roll),
        fmt(statistics.median(theirs)),
        f"{ratio:.3f}x",
        verdict(ratio, 1 / 8),
    )
    print(f"(referee roll takes {1 / ratio:.1f}x as long as python; target at most 8x)")
    print()
    if BEFORE is not None:
        before_roll = median[BEFORE, "roll 3d6"]
        line("command", "before", "beside roll", "after", "beside roll", "target")
        for name in cmds:
            was, now = median[BEFORE, name], median[None, name]
            line(
                name,
                fmt(was),
                f"{was / before_roll:.2f}x",
                fmt(now),
                f"{now / roll:.2f}x",
                _target(now, now / roll),
            )
        return
    line("command", "referee", "beside roll", "target")
    for name in cmds:
        now = median[None, name]
        line(name, fmt(now), f"{now / roll:.2f}x", _target(now, now / roll))


def _target(seconds: float, beside_roll: float) -> str:
    within = "PASS" if beside_roll <= RATIO else "MISS"
    quick = "PASS" if seconds <= LIMIT else "MISS"
    return f"<= {RATIO:g}x roll {within}; <= {LIMIT:g} s {quick}"


if __name__ == "__main__":
    main()
