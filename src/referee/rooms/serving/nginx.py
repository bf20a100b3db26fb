"""A throwaway nginx in front of the rooms' servers, configured as referee recommends
(``nginx.conf`` beside this module, which docs/rooms/scale.md shows), for tests and
benchmarks: Debian's nginx (``scripts/install-services.sh``), started in a prefix of
its own and stopped with its block (issue 43)."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .child import end

__all__ = ["RECOMMENDED", "config", "nginx", "routed"]

RECOMMENDED = Path(__file__).with_name("nginx.conf")
"""The configuration referee recommends: the docs include this very file."""
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def config(upstreams: list[str], port: int, prefix: Path) -> str:
    """The recommended configuration, its example servers replaced by ``upstreams``
    (``HOST:PORT``) and its port by ``port``, in a whole ``nginx.conf`` that keeps
    its files in ``prefix`` and logs which upstream served each room."""
    body = RECOMMENDED.read_text()
    servers = "".join(f"    server {u};\n" for u in upstreams)
    body, n = re.subn(r"(?m)^    server 127\.0\.0\.1:\d+;\n", "", body)
    assert n == 2, "the recommended upstream names two example servers"
    body = body.replace(
        "    hash $referee_room consistent;\n", "    hash $referee_room consistent;\n" + servers
    )
    body = body.replace("listen 8080;", f"listen 127.0.0.1:{port};")
    temp = "".join(
        f"    {kind}_temp_path {prefix}/{kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"daemon off;\nworker_processes 1;\nuser root;\npid {prefix}/nginx.pid;\n"
        f"error_log {prefix}/error.log warn;\n"
        "worker_rlimit_nofile 65536;\n"
        "events { worker_connections 32768; }\n"
        "http {\n"
        "    log_format routed '$referee_room $upstream_addr $status';\n"
        f"    access_log {prefix}/access.log routed;\n{temp}{body}\n}}\n"
    )


@contextmanager
def nginx(upstreams: list[str], prefix: Path) -> Iterator[str]:
    """nginx on a free loopback port in front of ``upstreams``; yields its base URL."""
    prefix.mkdir(parents=True, exist_ok=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    conf = prefix / "nginx.conf"
    conf.write_text(config(upstreams, port, prefix))
    process = subprocess.Popen(
        [NGINX, "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "error.log")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    err = process.stderr.read().decode() if process.stderr else ""
                    raise RuntimeError(f"nginx did not start: {err}") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        end(process, 10)


def routed(prefix: Path) -> dict[str, set[str]]:
    """From nginx's access log: for each room, the upstreams that served its calls."""
    out: dict[str, set[str]] = {}
    for line in (prefix / "access.log").read_text().splitlines():
        room, upstream, _status = line.split(" ")
        if room not in ("", "-"):
            out.setdefault(room, set()).add(upstream)
    return out
