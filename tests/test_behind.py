"""Issue 74 §3: past saturation, a live socket that cannot keep up is told so, with the
seq it has, and catches up from the log when it comes back; a socket that stays open
never silently misses a roll. On SQLite and on PostgreSQL.

The attacker's script: a member opens the live socket and stops reading while the GM
rolls about 8 MB of frames (more than the kernel's buffers hold). The server must close
that socket with 4408 and the reason ``not reading; after=SEQ``; every frame up to SEQ
must come before the close, with no gap; a socket opened again with ``?after=SEQ``
must get every entry after it; and a member who kept reading all along must have had
every entry.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

from referee.rooms.routes.live import BEHIND, TOO_SLOW
from rooms_server import Loopback, Watcher, fresh_db, make_table, running


class Saturated(Loopback):
    """A short send limit, and room for the GM to roll big and fast."""

    send_wait = 2.0
    rate = 1e6
    burst = 1e6
    address_rate = 1e6
    address_burst = 1e6


class Stops:
    """A live socket that reads nothing until :meth:`read_all` (a small receive buffer,
    so the server's writes back up)."""

    def __init__(self, base: str, room: str, token: str) -> None:
        host = urlsplit(base)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.connect((host.hostname or "", host.port or 0))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            f"GET /api/rooms/{room}/live HTTP/1.1\r\nHost: {host.netloc}\r\n"
            f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += self.sock.recv(1)
        assert answer.startswith(b"HTTP/1.1 101"), answer
        payload = json.dumps({"token": token}).encode()
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)

    def read_all(self, timeout: float) -> tuple[list[int], int | None, str]:
        """Read until the server closes: the seqs of its text frames, in order, and its
        close frame's code and reason (None, "" if none came)."""
        self.sock.settimeout(timeout)
        data = bytearray()
        try:
            while got := self.sock.recv(1 << 20):
                data += got
        except (ConnectionResetError, TimeoutError):
            pass
        finally:
            self.sock.close()
        seqs: list[int] = []
        at = 0
        while at + 2 <= len(data):
            op, n = data[at] & 0x0F, data[at + 1] & 0x7F
            at += 2
            if n == 126:
                n, at = int.from_bytes(data[at : at + 2], "big"), at + 2
            elif n == 127:
                n, at = int.from_bytes(data[at : at + 8], "big"), at + 8
            payload, at = bytes(data[at : at + n]), at + n
            if op == 1:
                seqs.append(json.loads(payload)["seq"])
            elif op == 8:
                return seqs, int.from_bytes(payload[:2], "big"), payload[2:].decode()
        return seqs, None, ""


def test_a_socket_that_falls_behind_is_told_its_seq_and_catches_up_from_the_log(
    db_url: str, tmp_path: Path
) -> None:
    with running(fresh_db(db_url, tmp_path), Saturated) as server:
        table = make_table(server, "Behind")
        slow = Stops(server.base, table.room, table.tokens["bob"])
        steady = Watcher(server, table.room, table.tokens["alice"])
        try:
            top = 0
            with table.client("gm") as gm:
                for _ in range(200):  # about 8 MB of frames
                    r = gm.post(f"/api/rooms/{table.room}/rolls", json={"command": "200d1000000"})
                    assert r.status_code == 201, r.text
                    top = r.json()["seq"]
            # The one who kept reading had every entry, in order, none missing.
            assert steady.wait_for(top, timeout=60)
            assert steady.seqs() == list(range(top + 1))
            time.sleep(Saturated.send_wait + 2)
            seqs, code, reason = slow.read_all(timeout=30)
            # Told so, with the seq it has: every frame up to it came, in order, and
            # nothing after it (it fell behind: not everything came).
            assert code == TOO_SLOW, (code, reason, seqs[-3:])
            assert reason.startswith(BEHIND), reason
            had = int(reason.removeprefix(BEHIND))
            assert seqs == list(range(had + 1))
            assert had < top
            # Back with ?after=SEQ: the rest from the log, with no gap.
            again = Watcher(server, table.room, table.tokens["bob"], after=had)
            try:
                assert again.wait_for(top, timeout=60)
                assert again.seqs() == list(range(had + 1, top + 1))
            finally:
                again.stop()
        finally:
            steady.stop()


def test_a_frame_written_straight_is_the_frame_websockets_would_write() -> None:
    """The live sockets write their frames to uvicorn's transport themselves
    (:func:`referee.rooms.routes.live._raw`): each must be byte for byte the frame
    websockets makes for the same text, at every length form (7, 16 and 64 bits)."""
    from websockets.frames import Frame, Opcode

    from referee.rooms.log import ws_frame

    for text in ("", "é" * 62, "x" * 125, "x" * 126, "x" * 65535, "x" * 65536):
        made = Frame(Opcode.TEXT, text.encode()).serialize(mask=False, extensions=[])
        assert ws_frame(text) == made, len(text)


def test_uvicorns_protocol_still_has_what_the_straight_path_reads() -> None:
    """The straight path reads uvicorn's ``websockets-sansio`` protocol's state, and
    falls back to ASGI when its class is another: an upgrade that renames what it reads
    would cost the speed silently, so this names each attribute."""
    import inspect

    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    source = inspect.getsource(WebSocketsSansIOProtocol)
    for name in ("conn", "close_sent", "writable", "transport", "queue", "loop",
                 "close_timer", "close_timeout", "read_paused"):  # fmt: skip
        assert f"self.{name} =" in source or f"self.{name}: " in source, name
