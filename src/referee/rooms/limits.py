"""The rooms' limits (:class:`RoomsLimits`), and an operator's settings of them
(``referee serve --limit NAME=VALUE``, ``REFEREE_LIMIT_NAME``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["MAX_BODY", "RoomsLimits", "limit_names", "limits_from"]

MAX_BODY = 64 * 1024
"""Bodies over this many bytes get 413."""


class RoomsLimits:
    """Sizes and rates (the contract's minimums, adjustable for tests)."""

    body = MAX_BODY
    command = 1000
    ws_message = 4096
    rate = 40.0
    """Requests a second each member may make, sustained (the contract asks for at least 20)."""
    burst = 80.0
    sheet = 1024 * 1024
    """Largest sheet a ``PUT .../sheets/{sheet}`` may send (every other body: :attr:`body`)."""
    draws = 200
    """Most dice one roll in a room may draw (rerolls and explosions count): far below
    the engine's 20,000, since a roll is made while its room's log is locked, and each
    die adds about 180 bytes to the entry that every member receives."""
    read_seconds = 2.0
    """Most seconds reading a new command (parsing it, its exact odds, a dry run, in a
    worker thread) may take; a slower one gets 422, so one roll never holds up a table."""
    readers = 2
    """New commands read at once (each in a worker thread); more wait their turn."""
    draws_per_request = 20
    """Each this many dice a roll draws cost its member one more request."""
    replay_per_request = 64 * 1024
    """Each this many characters of the log read for a live socket cost its member one
    more request (opening a socket costs one)."""
    sockets = 16
    """Most live sockets one member may hold open (more close with 4429)."""
    send_wait = 30.0
    """Seconds a live socket may leave a frame unread before it is closed (4408)."""
    anonymous_rate = 20.0
    """Calls a second that need no token (creating and joining rooms), per client address."""
    anonymous_burst = 200.0
    address_rate = 100.0
    """Requests and socket handshakes a second from one client address, of every kind
    (more get 429 before any work): a table behind one address rolls far less."""
    address_burst = 200.0
    failures_rate = 10.0
    """Unknown rooms and tokens a second per client address before it gets 429 (the
    database is not asked for them then)."""
    failures_burst = 100.0


def limit_names() -> dict[str, float]:
    """Every limit an operator may set (:class:`RoomsLimits`), with its default."""
    return {
        k: v
        for k, v in vars(RoomsLimits).items()
        if not k.startswith("_") and isinstance(v, (int, float)) and not isinstance(v, bool)
    }


def limits_from(environ: Mapping[str, str], given: Sequence[str] = ()) -> type[RoomsLimits]:
    """:class:`RoomsLimits` with an operator's settings: ``REFEREE_LIMIT_RATE=60`` in the
    environment, then ``rate=60`` given on the command line (``--limit``), which wins.

    Raises:
        ValueError: an unknown limit, or a value that is not a positive number.
    """
    known = limit_names()
    settings: dict[str, str] = {}
    for key, value in environ.items():
        if key.startswith("REFEREE_LIMIT_"):
            settings[key.removeprefix("REFEREE_LIMIT_").lower()] = value
    for item in given:
        name, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"--limit {item!r}: write NAME=VALUE, like rate=60")
        settings[name.strip().lower().replace("-", "_")] = value
    out: dict[str, float] = {}
    for name, value in settings.items():
        if name not in known:
            raise ValueError(f"no limit {name!r}: the limits are {', '.join(sorted(known))}")
        try:
            number = type(known[name])(value.strip())
        except ValueError:
            raise ValueError(f"limit {name}: {value!r} is not a number") from None
        if number <= 0:
            raise ValueError(f"limit {name}: {value!r} must be above 0")
        out[name] = number
    return type("Limits", (RoomsLimits,), out)
