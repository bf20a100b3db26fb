"""A hostile client, as a process of its own (``python tests/attacker.py CONFIG``):
every attack of issue 13 at once against one room, from 127.0.0.1, for a while;
until its stdin closes; then it prints the count of each answer's status as one
JSON line.

CONFIG is JSON: ``base`` (the server), ``room`` and its ``tokens`` (gm, alice, bob),
``stranger`` (a token of another room), ``seconds`` (the longest it runs).
"""

from __future__ import annotations

import base64
import json
import os
import socket
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx

from abuse import ABUSE
from rooms_server import LOOPBACK_TLS


def close_code(base: str, room: str, token: str, origin: str | None = None) -> int | None:
    """Open the live socket with ``token``; the close code it ends with (None if it
    stayed open and sent a frame)."""
    from websockets.exceptions import ConnectionClosed, InvalidStatus
    from websockets.sync.client import connect
    from websockets.typing import Origin

    try:
        with connect(
            "ws" + base[len("http") :] + f"/api/rooms/{room}/live",
            origin=Origin(origin) if origin else None,
            open_timeout=10,
        ) as ws:
            ws.send(json.dumps({"token": token}))
            ws.recv(timeout=10)
            return None
    except InvalidStatus as refused:
        return refused.response.status_code
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else -1


class NeverReads:
    """A live socket that sends its token and then never reads a byte (a tiny receive
    buffer, so the server's writes back up)."""

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
        self.tail = b""

    def closed_by_server(self, timeout: float) -> bool:
        """Read everything now: True if the server ended the connection (its last
        bytes are kept in ``tail``)."""
        self.sock.settimeout(timeout)
        self.tail = b""
        try:
            while got := self.sock.recv(65536):
                self.tail = (self.tail + got)[-256:]
            return True
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False
        finally:
            self.sock.close()


def attack(config: dict[str, Any]) -> Counter[int]:
    base, room, tokens = config["base"], config["room"], config["tokens"]
    stop = threading.Event()
    codes: Counter[int] = Counter()
    lock = threading.Lock()
    js = {"content-type": "application/json"}
    rolls = f"/api/rooms/{room}/rolls"

    def auth(who: str) -> dict[str, str]:
        return {"authorization": f"Bearer {tokens[who]}", **js}

    def chunks() -> Iterator[bytes]:
        for _ in range(100):
            yield b"x" * 10_000

    def looping(one: Callable[[httpx.Client], int | None]) -> Callable[[], None]:
        def run() -> None:
            with httpx.Client(base_url=base, timeout=10, verify=LOOPBACK_TLS) as c:
                while not stop.is_set():
                    try:
                        code = one(c)
                    except httpx.HTTPError:
                        code = -1
                    if code is not None:
                        with lock:
                            codes[code] += 1

        return run

    mb = b"x" * 1_000_000
    deep = b"[" * 60_000
    abuse = iter(ABUSE * 1_000_000)
    stranger = {"authorization": f"Bearer {config['stranger']}"}
    attacks: list[Callable[[httpx.Client], int | None]] = [
        lambda c: c.post(rolls, content=mb, headers=auth("alice")).status_code,  # huge
        lambda c: c.post(rolls, content=chunks(), headers=auth("bob")).status_code,  # chunked
        lambda c: c.post(rolls, content=deep, headers=auth("gm")).status_code,  # deep JSON
        lambda c: (
            c.get(  # bad tokens
                f"/api/rooms/{room}/log", headers={"authorization": "Bearer " + os.urandom(8).hex()}
            ).status_code
        ),
        lambda c: c.get(f"/api/rooms/{room}/log", headers=stranger).status_code,  # other room
        lambda c: (
            c.post(  # the abuse list
                rolls, json={"command": "roll -- " + next(abuse)[0]}, headers=auth("alice")
            ).status_code
        ),
        lambda c: c.post(rolls, json={"command": "200d1000000"}, headers=auth("gm")).status_code,
        lambda c: c.post("/api/rooms", json={"name": "spam"}).status_code,  # room creation
        lambda _c: close_code(base, room, tokens["bob"], "http://evil.example"),  # foreign Origin
        lambda _c: close_code(base, room, tokens["bob"]),  # a flood of one member's sockets
    ]
    skip = config.get("skip", "")  # for finding which attack costs what: indexes, s, n
    attacks = [a for i, a in enumerate(attacks) if str(i) not in skip]
    where = urlsplit(base)
    slowloris = []
    for _ in range(0 if "s" in skip else 20):  # HTTP requests that never finish their headers
        s = socket.create_connection((where.hostname or "", where.port or 0))
        s.sendall(b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Le")
        slowloris.append(s)
    never = [NeverReads(base, room, tokens["alice"]) for _ in range(0 if "n" in skip else 4)]
    threads = [threading.Thread(target=looping(a)) for a in attacks]
    for t in threads:
        t.start()
    # Until the test closes our stdin (or for at most ``seconds``).
    reader = threading.Thread(target=sys.stdin.read, daemon=True)
    reader.start()
    reader.join(config["seconds"])
    stop.set()
    for t in threads:
        t.join()
    for s in slowloris:
        s.close()
    for n in never:
        n.sock.close()
    return codes


if __name__ == "__main__":
    print(json.dumps(attack(json.loads(sys.argv[1]))), flush=True)
