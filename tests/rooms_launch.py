"""Run the rooms' server in a child process on a socket its parent bound (for tests).

Usage: python rooms_launch.py FD DB_URL RATE BURST
"""

from __future__ import annotations

import socket
import sys

import uvicorn

from referee.rooms.app import create_app
from referee.rooms.state import RoomsLimits


def main() -> None:
    fd, url, rate, burst = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), float(sys.argv[4])

    class Limits(RoomsLimits):
        pass

    Limits.rate, Limits.burst = rate, burst
    config = uvicorn.Config(create_app(url, Limits), log_level="warning", ws="websockets-sansio")
    uvicorn.Server(config).run(sockets=[socket.socket(fileno=fd)])


if __name__ == "__main__":
    main()
