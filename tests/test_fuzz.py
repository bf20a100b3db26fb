"""Fuzzing the rooms' API with schemathesis (issue 13), driven by the app's own
OpenAPI schema, against a real server on SQLite and on PostgreSQL: positive and
negative cases for every operation, a real room and a real member's token, and
every check schemathesis has (no 5xx, documented statuses, content types,
response schemas, auth that is not ignored...). Bounded and deterministic."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.config._checks import (
    NEGATIVE_DATA_REJECTION_EXPECTED_STATUSES,
    POSITIVE_DATA_ACCEPTANCE_EXPECTED_STATUSES,
    NegativeDataRejectionConfig,
    PositiveDataAcceptanceConfig,
)
from schemathesis.core.result import Ok

from rooms_server import Server, make_table, running

EXAMPLES = 30
"""Generated cases per operation (the coverage phase adds its own)."""


@pytest.fixture(scope="module")
def fuzzed(db_url: str) -> Iterator[Server]:
    with running(db_url) as server:
        yield server


def test_every_operation_holds_under_fuzzing(fuzzed: Server) -> None:
    table = make_table(fuzzed, "Fuzzed")
    assert table.roll("gm", "gurps check 12", "gm").status_code == 201  # a secret roll
    schema = schemathesis.openapi.from_url(f"{fuzzed.base}/api/openapi.json")
    schema.config.update(
        headers={"Authorization": f"Bearer {table.tokens['gm']}"},
        request_timeout=10,
    )
    checks = schema.config.checks
    # A body over 64 KiB is refused with 413 (the contract) before it is read: a rejection.
    checks.negative_data_rejection = NegativeDataRejectionConfig(
        expected_statuses=[*NEGATIVE_DATA_REJECTION_EXPECTED_STATUSES, "413"]
    )
    # A schema cannot say which commands, seeds, seqs and epochs are good: a well-formed
    # call may still get the contract's 422 (a bad dice expression), 413 or 409.
    # ... or 409: a second seed, and every write once the fuzzer has archived the room.
    checks.positive_data_acceptance = PositiveDataAcceptanceConfig(
        expected_statuses=[*POSITIVE_DATA_ACCEPTANCE_EXPECTED_STATUSES, "409", "413", "422"]
    )
    failures: list[str] = []
    tried: dict[str, int] = {}
    operations = []
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), result  # the schema is valid OpenAPI
        operations.append(result.ok())
    # Archiving ends every write to the room: the fuzzer archives it last. A new GM
    # token ends the one it fuzzes with: just before.
    operations.sort(key=lambda op: (op.path.endswith("/archive"), op.path.endswith("/token")))
    assert len(operations) >= 10  # every call of the contract but the socket
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            label = f"{operation.label} ({mode.value})"
            try:
                tried[label] = fuzz(operation, mode, table.room)
            except Unsatisfiable:  # no input of this operation can break its schema
                assert mode is GenerationMode.NEGATIVE, label
                tried[label] = -1
            except Exception as exc:  # gather every operation's failure, then report
                failures.append(f"{label}: {str(exc)[:3000]}")
    assert not failures, "\n\n".join(failures)
    assert all(n != 0 for n in tried.values()), tried
    # Every operation is fuzzed with good inputs; with bad ones, all but those whose
    # only inputs are free text in the path (any room id is well-formed).
    assert all(n > 0 for label, n in tried.items() if label.endswith("(positive)")), tried
    unbreakable = {label.rsplit(" (", 1)[0] for label, n in tried.items() if n < 0}
    assert unbreakable <= NO_BAD_INPUT, tried


NO_BAD_INPUT = {
    "GET /api/health",
    "GET /api/key",  # (no input: the server's public key, contract v1.5)
    "GET /api/rooms/{room}/export",
    "GET /api/rooms/{room}/sheets",
    "GET /api/rooms/{room}/sheets/{sheet}",
    "GET /api/rooms/{room}/present",
    "GET /api/rooms/{room}/fight",
    "DELETE /api/rooms/{room}/members/{member_id}",
    "POST /api/rooms/{room}/invite",
    "POST /api/rooms/{room}/archive",
    "POST /api/rooms/{room}/token",
}
"""Operations whose every input is well-formed: no negative case can be made of them."""


def fuzz(operation: Any, mode: GenerationMode, room: str) -> int:
    """Run the operation's generated cases with every check, half of them in the real
    ``room``; the number of cases."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    count = 0

    strategies = [operation.as_strategy(generation_mode=mode)]
    if "{room}" in operation.path:
        strategies.append(
            operation.as_strategy(generation_mode=mode, path_parameters={"room": room})
        )

    @given(case=st.one_of(strategies))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(case: Any) -> None:
        nonlocal count
        count += 1
        response = case.call_and_validate()
        assert response.status_code < 500
        assert "Traceback" not in response.text

    run()
    return count
