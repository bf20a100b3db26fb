"""A whole GURPS success roll (roll, outcome, margin, cached odds) against a bare
``referee.roll("3d6")``, both with the default secure source. Target: at most 2x."""

from __future__ import annotations

from functools import partial

import referee
from _timing import fmt, per_call, row, verdict
from referee.systems import gurps


def main() -> None:
    print("== gurps check: whole success roll vs bare roll('3d6'), best of 7 loops ==")
    row("case", "check", "roll 3d6", "ratio", "target")
    bare = per_call(lambda: referee.roll("3d6"))
    for skill in ("12", "9-5+10"):
        whole = per_call(partial(gurps.check, skill))
        ratio = bare / whole
        row(f"check {skill}", fmt(whole), fmt(bare), f"{ratio:.2f}x", verdict(ratio, 0.5))
    print("(ratio = bare / check; >= 0.5 means a check costs at most 2x a bare roll)")


if __name__ == "__main__":
    main()
