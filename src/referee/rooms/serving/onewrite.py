"""An answer's head and body in one write: uvicorn's HTTP protocol (httptools), whose
answers go to the socket in one system call, not two.

uvicorn writes an answer's status line and headers when the app sends
``http.response.start``, and its body when the app sends ``http.response.body``: two
``write`` calls on the transport, so two system calls, and on loopback two deliveries
to the client. Under a proxy's load of rolls they were about a sixth of the server's CPU
(issue 74 §3, ``bench/bench_wrk.py`` under ``py-spy``). ASGI gives an app no way to
send both at once, so the protocol does it: each request's cycle writes through
:class:`HeldHead`, which holds a head until the next write (the body, which Starlette
sends in the same turn of the event loop) and writes both together. A head with no
write after it in that turn (a streamed answer that waits for its first chunk, a
``100 Continue``) is written at the end of the turn, as it was before, one turn later
at most; a close writes what is held first. What reaches the client, byte for byte and
in order, is unchanged.

A live socket's upgrade is not a request's cycle: its handshake is written as before.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["SPEC", "HeldHead", "OneWrite"]

JOINED = 65_536
"""Bytes: a body up to this size is joined to its head and written in one call; a
longer one is written after the head, in its own call, rather than copied."""


class HeldHead:
    """A transport that holds an answer's head until the next write, and writes both in
    one call (see the module); every other use goes to ``transport``."""

    __slots__ = ("_held", "_loop", "transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self.transport = transport
        self._loop = loop
        self._held: bytes | None = None

    def write(self, data: bytes) -> None:
        held = self._held
        if held is not None:
            self._held = None
            if len(data) <= JOINED:
                self.transport.write(held + data)
                return
            self.transport.write(held)
        if data[:5] == b"HTTP/" and data[-4:] == b"\r\n\r\n":  # a head, whole
            self._held = data
            self._loop.call_soon(self.flush)
            return
        self.transport.write(data)

    def flush(self) -> None:
        """Write the head held, if any (the end of the turn it was written in)."""
        held, self._held = self._held, None
        if held is not None and not self.transport.is_closing():
            self.transport.write(held)

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class OneWrite(HttpToolsProtocol):
    """uvicorn's HTTP protocol, each request's answer written in one call (see the
    module). ``referee serve`` runs it; its workers' :class:`.affine.Routed` too."""

    def on_headers_complete(self) -> None:
        before = self.cycle
        super().on_headers_complete()
        cycle = self.cycle
        if cycle is not None and cycle is not before:  # a request's (not an upgrade)
            cycle.transport = HeldHead(self.transport, self.loop)  # type: ignore[assignment]


SPEC = f"{__name__}:OneWrite"
""":class:`OneWrite` as uvicorn's ``http`` setting names it: every server of the rooms
runs it (``referee serve`` and its workers, the bot's pages, the tests' servers)."""
