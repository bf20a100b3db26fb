"""The front end's own slash commands (``/sheet``, ``/seed``, ``/referee``), which the
command registry does not hold; :mod:`.setup` answers them. The option types are
Discord's."""

from __future__ import annotations

from typing import Any

__all__ = ["OWN"]

SUB_COMMAND, STRING, INTEGER, BOOLEAN, CHANNEL, NUMBER, ATTACHMENT = 1, 3, 4, 5, 7, 10, 11

OWN: list[dict[str, Any]] = [
    {
        "name": "sheet",
        "description": "Load your character: attach a GCS (.gcs) or TOML sheet, 1 MiB at most.",
        "options": [
            {
                "type": ATTACHMENT,
                "name": "file",
                "description": "The sheet file (GCS, TOML or a Foundry SWN export).",
                "required": True,
            }
        ],
    },
    {
        "name": "seed",
        "description": "Send your client seed to this channel's room: your rolls mix it in.",
        "options": [
            {
                "type": STRING,
                "name": "seed",
                "description": "16 to 128 printable characters that only you chose.",
                "required": True,
                "min_length": 16,
                "max_length": 128,
            }
        ],
    },
    {
        "name": "referee",
        "description": "Set up referee in this channel: its room, the GM's channel, reveals.",
        "options": [
            {
                "type": SUB_COMMAND,
                "name": "link",
                "description": "Bind this channel to a room (the GM, with the room's token).",
                "options": [
                    {"type": STRING, "name": "room", "description": "The room's id.",
                     "required": True},
                    {"type": STRING, "name": "token", "description": "The room's GM token.",
                     "required": True},
                ],
            },
            {
                "type": SUB_COMMAND,
                "name": "unlink",
                "description": "Stop logging this channel's rolls to its room (the GM).",
                "options": [
                    {"type": STRING, "name": "token",
                     "description": "The room's GM token, if you are not the GM who linked it."},
                ],
            },
            {
                "type": SUB_COMMAND,
                "name": "gm-channel",
                "description": "Be this channel's GM, and send blind rolls to a channel of yours.",
                "options": [
                    {"type": CHANNEL, "name": "channel",
                     "description": "Where blind and secret results go.", "required": True},
                    {"type": STRING, "name": "token",
                     "description": "The linked room's GM token, if you are not the GM who "
                     "linked it."},
                ],
            },
            {
                "type": SUB_COMMAND,
                "name": "reveal",
                "description": "Post one of your secret rolls to this channel (the GM).",
                "options": [
                    {"type": INTEGER, "name": "roll",
                     "description": "The number its secret reply gave (#12).", "required": True,
                     "min_value": 0},
                ],
            },
            {
                "type": SUB_COMMAND,
                "name": "page",
                "description": "A link to this channel's room page, as you (once, 10 minutes).",
            },
            {
                "type": SUB_COMMAND,
                "name": "status",
                "description": "This channel's room, GM and GM channel, and your character.",
            },
        ],
    },
]  # fmt: skip
