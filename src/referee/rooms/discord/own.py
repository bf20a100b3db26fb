"""The front end's own slash commands (``/sheet``, ``/seed``, ``/referee``), which the
command registry does not hold; :mod:`.setup` answers them. The option types are
Discord's."""

from __future__ import annotations

from typing import Any

__all__ = ["OWN"]

SUB_COMMAND, STRING, INTEGER, BOOLEAN, CHANNEL, NUMBER, ATTACHMENT = 1, 3, 4, 5, 7, 10, 11

WHO = {"type": STRING, "name": "who", "description": "The combatant: its name or id.",
       "required": True}  # fmt: skip
"""A ``/fight`` option that names a combatant."""

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
    {
        "name": "fight",
        "description": "Run the room's fight here: turns, defenses and calls as buttons.",
        "options": [
            {"type": SUB_COMMAND, "name": "start",
             "description": "Start the fight: the order by the rules (the GM).",
             "options": [{"type": BOOLEAN, "name": "sides",
                          "description": "SWN: one initiative roll a side (003 gives none)."}]},
            {"type": SUB_COMMAND, "name": "add",
             "description": "Add a character by @sheet, or the GM's NPCs with a count (the GM).",
             "options": [
                 {"type": STRING, "name": "sheet", "description": "The sheet: @dai, @orc.",
                  "required": True, "max_length": 41},
                 {"type": INTEGER, "name": "count", "description": "How many (Orc 1, Orc 2...).",
                  "min_value": 1, "max_value": 20},
                 {"type": BOOLEAN, "name": "hidden",
                  "description": "Hidden from the players until revealed."},
             ]},
            {"type": SUB_COMMAND, "name": "reveal", "description": "Reveal a hidden NPC (the GM).",
             "options": [WHO]},
            {"type": SUB_COMMAND, "name": "remove",
             "description": "Take a combatant out of the fight (the GM).",
             "options": [WHO]},
            {"type": SUB_COMMAND, "name": "next", "description": "The next turn (the GM)."},
            {"type": SUB_COMMAND, "name": "end",
             "description": "Stop running the fight in this channel (the GM; the log keeps it)."},
            {"type": SUB_COMMAND, "name": "odds",
             "description": "The odds of the fight from here (the GM's alone)."},
            {"type": SUB_COMMAND, "name": "settings",
             "description": "Whether your NPCs roll in secret, and who rolls the PCs' defenses.",
             "options": [
                 {"type": BOOLEAN, "name": "secret", "description": "My NPCs roll in secret."},
                 {"type": BOOLEAN, "name": "gm-defends",
                  "description": "I roll every PC's defenses (not their players)."},
             ]},
            {"type": SUB_COMMAND, "name": "status",
             "description": "Post the fight's status here again."},
        ],
    },
]  # fmt: skip
