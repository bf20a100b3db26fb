"""Rules the test suite keeps about itself (issue 53: ``make test`` in 10 minutes)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent
MAKERS = {"Client", "AsyncClient", "HTTPTransport", "AsyncHTTPTransport", "get", "post"}


def unshared(source: str) -> list[int]:
    """Lines where an httpx client, transport or one-off request is made without the
    shared ``verify`` (a client given its own ``transport`` takes the transport's)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "httpx"
            and node.func.attr in MAKERS
        ):
            continue
        given = {k.arg for k in node.keywords}
        if "verify" not in given and not (
            node.func.attr.endswith("Client") and "transport" in given
        ):
            found.append(node.lineno)
    return found


def test_the_check_sees_a_client_without_the_shared_context() -> None:
    assert unshared("import httpx\nhttpx.Client(base_url='x')\n") == [2]
    assert unshared("httpx.get('u', timeout=2)\nhttpx.get('u', verify=V)\n") == [1]
    assert unshared("httpx.Client(transport=httpx.HTTPTransport())\n") == [1]
    assert unshared("httpx.Client(transport=httpx.HTTPTransport(verify=V))\n") == []


def test_every_test_client_shares_one_tls_context() -> None:
    """httpx builds a TLS context for each client that is not given one: 30-80 ms
    here, most of a request's time in the tests when they made a client a request."""
    found = {
        f"{path.name}:{line}"
        for path in sorted(TESTS.glob("*.py"))
        for line in unshared(path.read_text())
    }
    assert not found, f"give these verify=LOOPBACK_TLS (rooms_server): {sorted(found)}"
