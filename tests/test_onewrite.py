"""An answer's head and body in one write (``referee.rooms.serving.onewrite``, issue 74
§3): a real uvicorn server on a loopback socket, its protocol :class:`OneWrite` with a
layer under it that records each write the transport is given (each one a system
call), and a real HTTP client. What the client reads is the same as without it."""

from __future__ import annotations

import asyncio
import http.client
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from referee.rooms.serving.onewrite import JOINED, OneWrite

WRITES: list[bytes] = []
"""Every write the server's transports were given, in order."""


class _Recording:
    """The server's transport, each write recorded."""

    def __init__(self, transport: asyncio.Transport) -> None:
        self._transport = transport

    def write(self, data: bytes) -> None:
        WRITES.append(bytes(data))
        self._transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class Recorded(OneWrite):
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(_Recording(transport))  # type: ignore[arg-type]


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    path = scope["path"]
    body = b'{"total": 11}' if path != "/big" else b"x" * (JOINED + 1)
    headers = [(b"content-type", b"application/json")]
    if path == "/stream":  # its head, then its body a while later (chunked)
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await asyncio.sleep(0.2)
        await send({"type": "http.response.body", "body": b"late", "more_body": True})
        await send({"type": "http.response.body", "body": b""})
        return
    headers.append((b"content-length", str(len(body)).encode()))
    if path == "/close":
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": 201, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, http=Recorded, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:
            thread.join(0.01)
            assert thread.is_alive()
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(10)


def _get(port: int, path: str) -> tuple[http.client.HTTPResponse, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    WRITES.clear()
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response, body


def test_an_answer_is_one_write_of_its_head_and_body(port: int) -> None:
    response, body = _get(port, "/roll")
    assert (response.status, body) == (201, b'{"total": 11}')
    assert response.getheader("content-length") == "13"
    (write,) = WRITES  # one system call: the head, then the body
    assert write.startswith(b"HTTP/1.1 201 Created\r\n")
    assert write.endswith(b'\r\n\r\n{"total": 11}')


def test_keep_alive_answers_are_one_write_each_in_order(port: int) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    WRITES.clear()
    for _ in range(3):
        conn.request("GET", "/roll")
        response = conn.getresponse()
        assert response.read() == b'{"total": 11}'
    conn.close()
    assert len(WRITES) == 3 and all(w.endswith(b'{"total": 11}') for w in WRITES)


def test_a_closing_answer_is_written_before_the_close(port: int) -> None:
    response, body = _get(port, "/close")
    assert (response.status, body) == (201, b'{"total": 11}')
    (write,) = WRITES
    assert b"connection: close\r\n" in write and write.endswith(b'{"total": 11}')


def test_a_long_body_goes_after_its_head_not_copied_into_it(port: int) -> None:
    response, body = _get(port, "/big")
    assert body == b"x" * (JOINED + 1)
    head, rest = WRITES
    assert head.endswith(b"\r\n\r\n") and rest == body


def test_a_head_whose_body_waits_is_written_at_once(port: int) -> None:
    """A streamed answer's head goes out at the end of its turn of the loop, before its
    body comes: the client reads the status while the body is still to come."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    WRITES.clear()
    conn.request("GET", "/stream")
    response = conn.getresponse()  # returns on the head, 0.2 s before the body
    assert response.status == 200 and WRITES[0].startswith(b"HTTP/1.1 200 OK")
    assert len(WRITES) == 1  # the head alone, so far
    assert response.read() == b"late"
    conn.close()
