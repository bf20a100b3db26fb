"""A whole Fudge action (4dF, reading, ladder name, cached exact odds) against a bare
``referee.roll("4dF")``, both with the default secure source. Target: at most 2x."""

from __future__ import annotations

from functools import partial

import referee
from _timing import fmt, per_call, row, verdict
from referee.systems import fudge


def main() -> None:
    print("== fudge action: whole action vs bare roll('4dF'), best of 7 loops ==")
    row("case", "action", "roll 4dF", "ratio", "target")
    bare = per_call(lambda: referee.roll("4dF"))
    cases = {
        "Good vs Fair": partial(fudge.action, "Good"),
        "Good+1 vs Great +1dF": partial(
            fudge.action, "Good", modifier=1, difficulty="Great", reroll=1
        ),
        "Great, -1dF": partial(fudge.action, "Great", reroll=-1),
    }
    for name, call in cases.items():
        whole = per_call(call)
        ratio = bare / whole
        row(name, fmt(whole), fmt(bare), f"{ratio:.2f}x", verdict(ratio, 0.5))
    print("(ratio = bare / action; >= 0.5 means an action costs at most 2x a bare roll)")


if __name__ == "__main__":
    main()
