"""How `make test` shares its workers' scopes (tests/schedule.py, issue 74 §4): every
test once, each scope whole, the longest first, and a module's scopes apart in time."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schedule import measured, order, pick, scope_of

MODULES = ["tests/test_a.py", "tests/test_b.py", "tests/test_c.py", "tests/test_d.py"]
PARAMS = ["", "[sqlite]", "[postgresql]", "[sqlite-http]", "[postgresql-gateway]"]


@given(
    st.lists(st.tuples(st.sampled_from(MODULES), st.sampled_from(PARAMS)), max_size=40),
    st.lists(st.floats(0, 100), min_size=20, max_size=20),
)
def test_every_test_once_each_scope_whole_the_longest_first(
    tests: list[tuple[str, str]], times: list[float]
) -> None:
    nodeids = [f"{m}::t{i}{p}" for i, (m, p) in enumerate(tests)]
    scopes = list(dict.fromkeys(scope_of(n) for n in nodeids))
    seconds = dict(zip(scopes, times, strict=False))
    got = order(nodeids, seconds)
    assert sorted(got) == list(range(len(nodeids)))
    placed = [scope_of(nodeids[i]) for i in got]
    runs = [s for k, s in enumerate(placed) if k == 0 or placed[k - 1] != s]
    assert len(runs) == len(set(runs)), runs  # a scope's tests together
    assert [seconds[s] for s in runs] == sorted((seconds[s] for s in runs), reverse=True)
    for s in runs:  # each scope's tests in their own order
        mine = [i for i in got if scope_of(nodeids[i]) == s]
        assert mine == sorted(mine)


@given(
    st.lists(st.tuples(st.sampled_from(MODULES), st.sampled_from(PARAMS)), unique=True),
    st.sets(st.tuples(st.sampled_from(MODULES), st.sampled_from(PARAMS))),
)
def test_a_free_worker_takes_another_modules_scope_first(
    queued: list[tuple[str, str]], busy: set[tuple[str, str]]
) -> None:
    queue = [scope_of(f"{m}::t{p}") for m, p in queued]
    running = {scope_of(f"{m}::t{p}") for m, p in busy}
    chosen = pick(queue, running)
    if not queue:
        assert chosen is None
        return
    assert chosen in queue
    free = [s for s in queue if s.split(".py")[0] not in {r.split(".py")[0] for r in running}]
    # The longest (first) of another module's scopes; only a running module's, else.
    assert chosen == (free[0] if free else queue[0])


def test_the_four_runs_of_a_discord_module_are_not_taken_together() -> None:
    queue = [
        "tests/test_discord_fight.py-sqlite-gateway",
        "tests/test_discord_fight.py-postgresql-gateway",
        "tests/test_fuzz.py-sqlite",
        "tests/test_discord_fight.py-sqlite-http",
        "tests/test_fuzz.py-postgresql",
        "tests/test_roller.py",
    ]
    running: set[str] = set()
    taken = []
    for _ in range(4):  # four workers, each free in turn, none done yet
        chosen = pick(queue, running)
        assert chosen is not None
        queue.remove(chosen)
        running.add(chosen)
        taken.append(chosen)
    assert taken == [
        "tests/test_discord_fight.py-sqlite-gateway",
        "tests/test_fuzz.py-sqlite",
        "tests/test_roller.py",
        "tests/test_discord_fight.py-postgresql-gateway",  # nothing else is left
    ]


def test_the_measured_times_name_modules_of_this_suite() -> None:
    from pathlib import Path

    here = {p.name for p in Path(__file__).parent.glob("test_*.py")}
    known = measured()
    assert len(known) > 100
    gone = [s for s in known if s.split(".py")[0].removeprefix("tests/") + ".py" not in here]
    assert not gone, gone  # a module renamed or removed: refresh tests/durations.json
