"""How `make test` shares the tests among its pytest-xdist workers (issue 74 §4).

A *scope* is what one worker runs whole: a module's run on one backend and transport
(its module-scoped server, database and stand-ins are made once there), or a whole
module that has none. The scopes are handed out longest first, by the time each took in
a measured run (``tests/durations.json``), so that the long ones start at once and the
many short ones fill in round them; no worker is left with a long scope at the end while
the others wait. While a module's scope runs on one worker, a free worker takes the
longest scope of another module first (:func:`pick`). Refresh the times after a change
to the suite's shape::

    .venv/bin/pytest -n 4 --dist loadscope -m "not alone" --junitxml=run.xml
    .venv/bin/python tests/schedule.py run.xml

Only the run's time depends on this order.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

__all__ = ["BACKENDS", "DURATIONS", "UNKNOWN", "order", "pick", "scope_of"]

BACKENDS = frozenset({"sqlite", "postgresql", "http", "gateway"})
"""The ids of the parameters (``db_url``, ``transport``, ``crash_db``) that a module's
tests run once for each of: a module's run on each is a scope of its own."""

DURATIONS = Path(__file__).with_name("durations.json")
"""Each scope's seconds in a measured run of the workers' part."""

UNKNOWN = 10.0
"""Seconds assumed for a scope that the measured run did not have (a new module):
ahead of the many short ones, behind the long ones."""


def scope_of(nodeid: str) -> str:
    """The scope of a test: its module, and the backends among its parameters' ids.

    >>> scope_of("tests/test_discord_fight.py::test_x[sqlite-gateway]")
    'tests/test_discord_fight.py-sqlite-gateway'
    >>> scope_of("tests/test_roller.py::test_y[3d6-7]")
    'tests/test_roller.py'
    """
    module = nodeid.split("::", 1)[0]
    ids = nodeid.rsplit("[", 1)[1].rstrip("]").split("-") if nodeid.endswith("]") else []
    return "-".join([module, *(i for i in ids if i in BACKENDS)])


def order(nodeids: list[str], seconds: dict[str, float]) -> list[int]:
    """The positions of ``nodeids`` with the longest scopes first (a stable sort: each
    scope's tests keep their order).

    >>> order(["a.py::t", "b.py::t", "a.py::u"], {"b.py": 5.0, "a.py": 1.0})
    [1, 0, 2]
    """
    scopes = [scope_of(n) for n in nodeids]
    first = {s: i for i, s in reversed(list(enumerate(scopes)))}  # (ties: a scope whole)
    return sorted(
        range(len(nodeids)), key=lambda i: (-seconds.get(scopes[i], UNKNOWN), first[scopes[i]])
    )


def pick(queue: list[str], running: set[str]) -> str | None:
    """The scope a free worker takes next: the first of ``queue`` (longest first) whose
    module has no scope among the ``running`` ones, else the first (None when the queue
    is empty). A module's runs on each backend and transport then run beside other
    modules' work, not together: the four runs of a Discord fight wait on the bot more
    than they compute, and a run's ``vmstat`` showed the two cores 60% idle for a
    minute while the four ran at once.

    >>> pick(["d.py-sqlite", "d.py-postgresql", "e.py"], {"d.py-http"})
    'e.py'
    >>> pick(["d.py-sqlite", "d.py-postgresql"], {"d.py-http"})
    'd.py-sqlite'
    """
    busy = {_module(s) for s in running}
    return next((s for s in queue if _module(s) not in busy), queue[0] if queue else None)


def _module(scope: str) -> str:
    return scope.split(".py", 1)[0]


def measured() -> dict[str, float]:
    """The measured seconds of each scope (none when the file is missing)."""
    if not DURATIONS.exists():
        return {}
    found: dict[str, float] = json.loads(DURATIONS.read_text())
    return found


def _from_junit(path: Path) -> dict[str, float]:
    """Each scope's seconds in a JUnit report of a run of the workers' part."""
    totals: dict[str, float] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        module = case.get("classname", "").replace(".", "/") + ".py"
        key = scope_of(f"{module}::{case.get('name', '')}")
        totals[key] = totals.get(key, 0.0) + float(case.get("time", 0))
    return {scope: round(t, 1) for scope, t in sorted(totals.items(), key=lambda kv: -kv[1])}


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: tests/schedule.py JUNIT.xml (a report of the workers' part)")
    scopes = _from_junit(Path(sys.argv[1]))
    DURATIONS.write_text(json.dumps(scopes, indent=0) + "\n")
    print(f"{len(scopes)} scopes, {sum(scopes.values()):,.0f} s in all, into {DURATIONS}")
