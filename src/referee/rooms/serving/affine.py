"""Room-affine workers: ``referee serve --workers N`` serves each room in one process.

The workers share one listening socket, and the kernel hands each new connection to
whichever worker accepts first. Any worker can serve any room (they share the
database, and :mod:`.notices` carries live updates between them), but a room served by
two workers costs more: each reads the other's entries back for its own sockets, and
a room the other wrote last takes the five-statement path (docs/rooms/scale.md).

So each room has an owner, ``crc32(room id) % N`` (:func:`owner`). When a request
starts on a connection that is idle (no request under way or half read, nothing
pipelined, no answer still unsent), and its request line names a room
(``/api/rooms/{room}/...``, the id whole) that another worker owns, the
connection itself is handed to that worker: the socket's file descriptor and the
bytes already read go over a Unix datagram socket (``SCM_RIGHTS``), the other worker
makes it a transport of its own and parses those bytes as if it had read them, and
this worker forgets the connection without closing it for the client. A live socket's
upgrade is its connection's first request, so a room's sockets and its rolls meet in
one process. A client that posts to many rooms over one keep-alive connection moves
with its requests.

When the hand-off cannot be made (the request line is not in the first read, the
bytes are over :data:`MAX_HANDED`, the owner is restarting or stopping, or its queue is
full), the request is served where it arrived, as any worker can. Once sent, a
connection is the owner's: if the owner dies before it adopts it, it is lost with the
owner's own connections.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import logging
import os
import re
import socket
import zlib
from typing import TYPE_CHECKING, Any

from .onewrite import OneWrite

if TYPE_CHECKING:
    from uvicorn import Config, Server
    from uvicorn.server import ServerState

__all__ = ["MAX_HANDED", "Group", "Routed", "owner"]

MAX_HANDED = 16 * 1024
"""The most bytes already read that a hand-off carries; a larger first read stays."""

_ROOM = re.compile(rb"[A-Z]{3,7} /api/rooms/([^/?# ]+)[/? ]")
_group: Group | None = None
_log = logging.getLogger("referee.rooms")


def owner(room: bytes, workers: int) -> int:
    """The worker (0 to ``workers - 1``) that serves ``room``, by its id as sent in the
    path: ``crc32 % workers``, the same in every worker and stable across restarts.

    >>> owner(b"r_abc", 1), owner(b"r_abc", 2) == owner(b"r_abc", 2)
    (0, True)
    """
    return zlib.crc32(room) % workers


class Group:
    """This worker's place among its siblings: its index, and one Unix datagram socket
    per worker (``paths``, in a directory only the server's user can enter), on which
    each receives the connections handed to it."""

    def __init__(self, index: int, paths: list[str], server: Server) -> None:
        self.index = index
        self.paths = paths
        self.server = server
        self.inbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.inbox.setblocking(False)
        self.outbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.outbox.setblocking(False)
        self._adopting: set[asyncio.Task[None]] = set()

    def join(self) -> None:
        """Make this the worker's group, for :class:`Routed` connections."""
        global _group
        _group = self

    async def listen(self) -> None:
        """While the server runs, take the connections handed to this worker: before it
        has started, and once it is stopping, its inbox is not there, and the others
        serve its rooms themselves."""
        server = self.server
        while not server.started:
            if server.should_exit:
                return
            await asyncio.sleep(0.05)
        path = self.paths[self.index]
        if os.path.exists(path):  # left by this worker's predecessor
            os.unlink(path)
        self.inbox.bind(path)
        loop = asyncio.get_running_loop()
        loop.add_reader(self.inbox.fileno(), self._receive)
        try:
            while not server.should_exit:
                await asyncio.sleep(0.05)
        finally:
            loop.remove_reader(self.inbox.fileno())
            with contextlib.suppress(OSError):
                os.unlink(path)
            self._receive()  # what was sent before the path went: served, then closed
            self.inbox.close()

    def target(self, data: bytes) -> int | None:
        """The worker that owns the room ``data``'s request line names, if not this one."""
        if len(data) > MAX_HANDED:
            return None
        found = _ROOM.match(data)
        if found is None:
            return None
        to = owner(found[1], len(self.paths))
        return None if to == self.index else to

    def hand_off(self, transport: asyncio.Transport, data: bytes, to: int) -> bool:
        """Send the connection under ``transport``, with the ``data`` read from it so far,
        to worker ``to``; False if it could not be sent (the caller keeps it)."""
        sock = transport.get_extra_info("socket")
        if sock is None:
            return False
        try:
            fds = array.array("i", [sock.fileno()])  # socket.send_fds drops the address
            rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)]
            self.outbox.sendmsg([data], rights, 0, self.paths[to])
        except OSError:  # not there (restarting), or its queue is full
            return False
        return True

    def _receive(self) -> None:
        loop = asyncio.get_running_loop()
        while self.inbox.fileno() != -1:
            try:
                data, fds, _, _ = socket.recv_fds(self.inbox, MAX_HANDED, 1)
            except BlockingIOError:
                return
            for fd in fds:
                conn = socket.socket(fileno=fd)
                task = loop.create_task(self._adopt(loop, conn, data))
                self._adopting.add(task)
                task.add_done_callback(self._adopting.discard)

    async def _adopt(
        self, loop: asyncio.AbstractEventLoop, conn: socket.socket, data: bytes
    ) -> None:
        server = self.server
        try:
            _, protocol = await loop.connect_accepted_socket(
                lambda: Routed(
                    server.config,
                    server.server_state,
                    server.lifespan.state,
                    handed=data,
                ),
                conn,
            )
        except OSError as exc:  # the client left meanwhile
            _log.debug("a handed connection was gone: %s", exc)
            conn.close()
            return
        if server.should_exit:  # after the server's own sweep: answer, then close
            protocol.shutdown()


class Routed(OneWrite):
    """uvicorn's HTTP protocol (httptools, each answer in one write: :mod:`.onewrite`),
    which hands a request for another worker's room to that worker (see the module);
    ``handed`` is what the sender had read."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
        *,
        handed: bytes = b"",
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._handed = handed
        self._in_message = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self._handed:  # before the transport's first read: the bytes stay in order
            data, self._handed = self._handed, b""
            super().data_received(data)
            if self.flow.read_paused:  # pausing before reading began did nothing
                self.loop.call_soon(self._pause_if_paused)

    def _pause_if_paused(self) -> None:
        """Pause the transport if the flow is still paused (a pipelined request in the
        handed bytes); an answer sent meanwhile resumed it."""
        if self.flow.read_paused and not self.transport.is_closing():
            self.transport.pause_reading()

    def on_message_begin(self) -> None:
        self._in_message = True
        super().on_message_begin()

    def on_message_complete(self) -> None:
        self._in_message = False
        super().on_message_complete()

    def data_received(self, data: bytes) -> None:
        group = _group
        if group is not None and self._idle():
            to = group.target(data)
            # No read comes between the hand-off and the abort: both are in this call.
            if to is not None and group.hand_off(self.transport, data, to):
                self.transport.abort()  # this process's descriptor only
                return
        super().data_received(data)

    def _idle(self) -> bool:
        """No request under way on this connection, none half read, and no answer still
        to send: new bytes start a new request, and the connection can go."""
        if self._in_message or self.transport.get_write_buffer_size():
            return False
        cycle = self.cycle
        if cycle is None:
            return True
        return cycle.response_complete and not cycle.more_body and not self.pipeline
