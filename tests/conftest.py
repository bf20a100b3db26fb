"""Shared test helpers."""

from __future__ import annotations

import functools
import itertools
import json
import os
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import pytest
import typer.main
import typer.testing
from hypothesis import settings
from xdist.scheduler import LoadScopeScheduling

from schedule import measured, order, pick, scope_of

if TYPE_CHECKING:
    from rooms_server import Server, Table

pytest_plugins = ("browser",)  # the test process's one Chromium (issue 53)

# typer's CliRunner builds the click command of the app it is given at every invoke
# (0.16-0.19 s for the whole app here, with 700 invokes in the suite); the console script
# builds it once a run. So the tests build each app's once (issue 53).
assert typer.testing._get_command is typer.main.get_command  # type: ignore[attr-defined]
typer.testing._get_command = functools.cache(typer.main.get_command)  # type: ignore[attr-defined]

settings.register_profile("ci", deadline=None, max_examples=200)
# `make check`, the fast loop: fewer examples (`make test` runs the "ci" profile).
settings.register_profile("check", deadline=None, max_examples=20)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ALONE = frozenset(
    {
        "test_affine.py",  # workers' start and restart within deadlines
        "test_room_admin.py",  # a removal felt within 1 s; rate counts per second
        "test_scale.py",  # live updates across servers within 1 s
        "test_sheet_worst.py",  # the worst sheets read within their bound
        "test_stall.py",  # the quiet room's p99 beside a stalled socket
        "test_synced.py",  # the event loop never stalls 0.2 s; the chooser's ratios
    }
)
"""Test modules that assert a time or a load's latency: `make test` runs them in one
process after the rest has run on the workers (marker ``alone``), so that no other
worker shares the machine's two cores with them (issue 53: on two workers, test_hostile's
bystander p99 and the usual-flow browser test failed by chance). Where only a few of a
module's tests are timed, those carry ``@pytest.mark.alone`` themselves, and the rest
run on the workers (test_discord_hardening's download deadline, test_trust's removals
felt within a second, test_hostile's bystander p99 under attack and its rate's refill
counted per second). The usual-flow browser tests ran on the workers for a few hours
of 2026-11-29 (issue 74 §4, about a minute less of `make test`): two clean clones of
nine failed there, each on a read or a measure made before the page or the server had
caught up with a click (docs/speed.md). Since 2026-11-29's evening every such step
waits for what it checks (a box is checked with ``to_be_in_viewport``, retried; a
value read from the server after a click is waited for until the click has landed),
and the module runs on the workers again."""


class ByModuleAndBackend(LoadScopeScheduling):  # type: ignore[misc]
    """``--dist loadscope``, but a module's run on each backend and transport is a scope of
    its own (:func:`schedule.scope_of`): each goes to one worker, where its module-scoped
    server, database and stand-ins are made once, and the Discord modules' four runs go
    to whichever workers are free. The scopes are handed out in the collection's order,
    longest first (:mod:`schedule`), not xdist's default of the most tests first, which
    left the long modules of few tests (the simulator's oracle, the Discord fights) to
    the end, one worker busy for minutes while the others waited (issue 74 §4); and a
    module's scopes apart in time where another module's can run (:func:`schedule.pick`).
    (xdist's ``loadgroup`` would split the scopes with marks, but its marks are lost on
    pytest 9.2, which no longer reads the node ids xdist 3.8 writes.)"""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        config.option.loadscopereorder = False
        super().__init__(config, log)

    def _split_scope(self, nodeid: str) -> str:
        return scope_of(nodeid)

    def _assign_work_unit(self, node: Any) -> None:
        running = {
            scope
            for work in self.assigned_work.values()
            for scope, done in work.items()
            if not all(done.values())
        }
        chosen = pick(list(self.workqueue), running)
        if chosen is not None:  # (xdist hands out the queue's first)
            self.workqueue.move_to_end(chosen, last=False)
        super()._assign_work_unit(node)


@pytest.hookimpl(optionalhook=True)  # (a run without xdist: -p no:xdist)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    return ByModuleAndBackend(config, log) if config.getvalue("dist") == "loadscope" else None


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> Iterator[None]:
    """The timed modules are marked ``alone``; the longest scopes go first
    (:mod:`schedule`), once pytest has ordered each module's tests by their parameters
    (a stable sort: each scope's order stays as it was)."""
    for item in items:
        if item.path.name in ALONE:
            item.add_marker(pytest.mark.alone)
    yield
    seconds = measured()
    ordered = order([item.nodeid for item in items], seconds)
    items[:] = [items[i] for i in ordered]


@pytest.fixture(scope="session")
def postgres() -> Iterator[str]:
    """A throwaway PostgreSQL cluster for the whole run (fsync off: the crash tests
    start durable clusters of their own). Yields its URL."""
    from referee.rooms.serving.pgtemp import throwaway

    with throwaway(durable=False) as url:
        yield url


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A fresh database for one test module, on each backend in turn: the rooms'
    suite runs on SQLite and on PostgreSQL."""
    from referee.rooms.db.store import sqlite_url

    if request.param == "sqlite":
        return sqlite_url(tmp_path_factory.mktemp("rooms") / "rooms.sqlite3")
    from rooms_server import fresh_db

    cluster: str = request.getfixturevalue("postgres")
    return fresh_db(cluster, tmp_path_factory.mktemp("rooms"))


def chi_square_ok(observed: Counter[int], expected: dict[int, Fraction], n: int) -> bool:
    """Pearson chi-square at p ~ 0.001, merging thin outcomes into their neighbours."""
    from scipy.stats import chi2

    bins: list[tuple[float, float]] = []
    acc_o = 0.0
    acc_e = 0.0
    for k in sorted(set(expected) | set(observed)):
        acc_o += observed.get(k, 0)
        acc_e += float(expected.get(k, 0)) * n
        if acc_e >= 5:
            bins.append((acc_o, acc_e))
            acc_o = acc_e = 0.0
    if acc_e or acc_o:
        if bins:
            o, e = bins.pop()
            bins.append((o + acc_o, e + acc_e))
        else:
            bins.append((acc_o, acc_e))
    if any(e == 0 and o > 0 for o, e in bins):
        return False
    stat = sum((o - e) ** 2 / e for o, e in bins if e > 0)
    dof = max(1, len(bins) - 1)
    return bool(stat < chi2.ppf(0.999, dof))


def brute_force(faces: list[int], count: int) -> list[tuple[int, ...]]:
    """Every ordered sequence of ``count`` faces."""
    return list(itertools.product(faces, repeat=count))


class Fixed:
    """A source that returns scripted values (to pin down what the roller does with them)."""

    def __init__(self, values: list[int]) -> None:
        self.values = iter(values)

    def randbelow(self, n: int) -> int:
        value = next(self.values)
        assert 0 <= value < n, (value, n)
        return value


def cli_json(*args: str) -> dict[str, Any]:
    """Run ``referee ARGS --json`` in-process; assert it succeeded and printed a JSON object."""
    from typer.testing import CliRunner

    from referee.cli.app import app

    res = CliRunner().invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def server(db_url: str) -> Iterator[Server]:
    """A rooms server in a child process, for one test module, on each backend."""
    from rooms_server import running

    with running(db_url) as s:
        yield s


@pytest.fixture
def table(server: Server) -> Table:
    """A new room on ``server``: its GM, Alice and Bob."""
    from rooms_server import make_table

    return make_table(server)


# The Discord tests' REST stand-in and the server that talks to it, one each a module
# (tests/discord_standin.py); a module may make its own ``bot`` (test_discord_link).
@pytest.fixture(scope="module")
def rest() -> Iterator[Any]:
    from discord_standin import stand_in

    with stand_in() as s:
        yield s


# Every Discord test that takes ``bot`` runs on both transports (issue 54): the HTTP
# interactions endpoint of ``referee serve``, and ``referee discord run`` through the
# gateway stand-in. ``http_bot`` is for the tests of the HTTP endpoint itself (its
# signatures, bodies and status codes), which the gateway does not have.
@pytest.fixture(scope="module", params=["http", "gateway"])
def transport(request: pytest.FixtureRequest) -> str:
    """How Discord reaches referee: ``http`` or ``gateway``."""
    return str(request.param)


@pytest.fixture(scope="module")
def discord_db(
    db_url: str,
    transport: str,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> str:
    """The Discord tests' database: ``db_url`` over HTTP, a fresh one on the same backend
    through the gateway (the tests' channels and GMs start from nothing on each)."""
    if transport == "http":
        return db_url
    if db_url.startswith("sqlite"):
        from referee.rooms.db.store import sqlite_url

        return sqlite_url(tmp_path_factory.mktemp("gateway") / "rooms.sqlite3")
    from rooms_server import fresh_db

    return fresh_db(request.getfixturevalue("postgres"), tmp_path_factory.mktemp("gateway"))


@pytest.fixture(scope="module")
def bot(discord_db: str, transport: str, rest: Any) -> Iterator[Any]:
    from discord_standin import another_server

    with another_server(
        discord_db,
        rest,
        transport=transport,
        REFEREE_DISCORD_ATTACHMENT_HOSTS=rest.base + "/attachments/",
    ) as made:
        yield made


@pytest.fixture(scope="module")
def http_bot(db_url: str, rest: Any) -> Iterator[Any]:
    from discord_standin import another_server

    with another_server(
        db_url, rest, REFEREE_DISCORD_ATTACHMENT_HOSTS=rest.base + "/attachments/"
    ) as made:
        yield made
