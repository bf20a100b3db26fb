"""referee.roll against d20.roll (avrae's d20), warm: each expression rolled many times.

d20 1.x pins ``lark-parser`` 0.9, and referee needs ``lark`` >= 1.2. Both
distributions install the same top-level package ``lark/``, so pip lets them
clobber each other: installed last, lark-parser breaks referee's parser;
installed first, d20 silently runs on lark 1.x instead of its pinned version.
One process cannot import both. So d20 is timed in a child process from
``bench/.venv-d20`` (same base interpreter, d20 and its pins only), with the
same timing function (``_timing.per_call``) run here for referee.

Usage: ``python bench/bench_roll.py`` (or ``--worker``: time d20 here, print JSON).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from _timing import fmt, per_call, row, verdict

EXPRESSIONS = ("1d20+5", "3d6", "4d6kh3")
TARGET = 2.0
ROUNDS = 3
D20_PYTHON = Path(__file__).resolve().parent / ".venv-d20" / "bin" / "python"


def time_all(roll: Callable[[str], object]) -> dict[str, float]:
    """Seconds per call of ``roll(expr)`` for each expression."""
    return {e: per_call(partial(roll, e)) for e in EXPRESSIONS}


def worker() -> None:
    """Time d20 in this process (bench/.venv-d20) and print the figures as JSON."""
    from importlib.metadata import version

    import d20
    import lark

    times = time_all(lambda e: d20.roll(e).total)
    info = f"d20 {version('d20')} on lark {lark.__version__} (from lark-parser)"
    print(json.dumps({"info": info, "times": times}))


def d20_times() -> tuple[str, dict[str, float]] | None:
    """Run the worker under bench/.venv-d20; None (with the reason printed) if that fails."""
    if not D20_PYTHON.exists():
        print(f"d20: SKIP, {D20_PYTHON} missing (bench/run.sh creates it)")
        return None
    cmd = [str(D20_PYTHON), __file__, "--worker"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"d20: SKIP, worker failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    data = json.loads(done.stdout)
    return str(data["info"]), {str(k): float(v) for k, v in data["times"].items()}


def main() -> None:
    import lark

    import referee

    print(f"== roll: referee.roll(e).total vs d20.roll(e).total, best of {ROUNDS}x7 loops ==")
    ours: list[dict[str, float]] = []
    theirs: list[dict[str, float]] = []
    info = ""
    for _ in range(ROUNDS):  # alternate, so both sides see the same machine load
        ours.append(time_all(lambda e: referee.roll(e).total))
        got = d20_times()
        if got is None:
            for e in EXPRESSIONS:
                row(e, fmt(ours[0][e]), "-", "-", "referee only")
            return
        info = got[0]
        theirs.append(got[1])
    print(f"referee: lark {lark.__version__}, this process (.venv), default rng (OS secure source)")
    print(f"d20:     {info}, in a child process from bench/.venv-d20, because")
    print("         lark-parser and lark both install `lark/`: one process cannot import both")
    row("case", "referee", "d20", "ratio", "target")
    for e in EXPRESSIONS:
        t_ref, t_d20 = min(r[e] for r in ours), min(r[e] for r in theirs)
        ratio = t_d20 / t_ref
        row(e, fmt(t_ref), fmt(t_d20), f"{ratio:.2f}x", verdict(ratio, TARGET))


if __name__ == "__main__":
    worker() if sys.argv[1:] == ["--worker"] else main()
