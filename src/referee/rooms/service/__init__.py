"""The rooms' service layer (issue 53): every operation a member can do in a room,
once, with what a member may do decided in one place (:class:`.Guardian`, after
Discourse's). The HTTP routes (:mod:`..routes`), the live sockets and Discord
(:mod:`referee.rooms.discord`) call these; a front end reads its request and answers its own
way, and decides nothing about who may do what (Synapse's handlers, STYLE.md §15)."""

from .access import (
    LOGIN_SECONDS,
    ROOM_ID,
    authenticate,
    conflicts,
    gm_by_token,
    join,
    link_channel,
    writable,
)
from .guardian import Guardian
from .rolls import (
    SEED,
    VISIBILITIES,
    add_seed,
    close_epoch,
    declassify,
    normalise,
    reveal_roll,
    roll_entry,
    roll_maker,
)
from .sheets import listed_sheets, readable_sheet, sheet_name, store_sheet

__all__ = [
    "LOGIN_SECONDS",
    "ROOM_ID",
    "SEED",
    "VISIBILITIES",
    "Guardian",
    "add_seed",
    "authenticate",
    "close_epoch",
    "conflicts",
    "declassify",
    "gm_by_token",
    "join",
    "link_channel",
    "listed_sheets",
    "normalise",
    "readable_sheet",
    "reveal_roll",
    "roll_entry",
    "roll_maker",
    "sheet_name",
    "store_sheet",
    "writable",
]
