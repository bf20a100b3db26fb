"""The rooms' tables (SQLAlchemy Core). A new database is made from them at the newest
schema; the Alembic migrations in ``migrations/`` bring an older one there, to the same
tables (``tests/test_schema_head.py`` holds the two equal). :mod:`.store` reads and
writes them."""

from __future__ import annotations

import sqlalchemy as sa

__all__ = [
    "client_seeds",
    "discord_channels",
    "discord_members",
    "discord_missed",
    "discord_secrets",
    "discord_seen",
    "discord_sheets",
    "entries",
    "epochs",
    "logins",
    "members",
    "metadata",
    "rooms",
    "server_key",
    "sheets",
    "tokens",
]

metadata = sa.MetaData()

rooms = sa.Table(
    "rooms",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("system", sa.String(16)),
    sa.Column("invite_hash", sa.String(64), nullable=False),
    sa.Column("next_seq", sa.BigInteger, nullable=False),
    sa.Column("last_chain", sa.String(64), nullable=False),
    sa.Column("epoch", sa.Integer, nullable=False),
    sa.Column("archived", sa.Boolean, nullable=False, server_default=sa.false()),
)

members = sa.Table(
    "members",
    metadata,
    sa.Column("room_id", sa.String(64), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("member_id", sa.String(64), primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("left", sa.Boolean, nullable=False, server_default=sa.false()),
)

tokens = sa.Table(  # a member's tokens: the API's, and each page session's
    "tokens",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("room_id", sa.String(64), nullable=False),
    sa.Column("member_id", sa.String(64), nullable=False),
)

entries = sa.Table(
    "entries",
    metadata,
    sa.Column("room_id", sa.String(64), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("seq", sa.BigInteger, primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("ref", sa.BigInteger),  # a reveal's "of"
    sa.Column("body", sa.Text, nullable=False),  # the sealed entry, as JSON
)
sa.Index("entries_reveals", entries.c.room_id, entries.c.kind)  # a room's reveals, by kind

logins = sa.Table(  # one-time links that open the page as a member
    "logins",
    metadata,
    sa.Column("code_hash", sa.String(64), primary_key=True),
    sa.Column("room_id", sa.String(64), nullable=False),
    sa.Column("member_id", sa.String(64), nullable=False),
    sa.Column("expires", sa.Float, nullable=False),
)

epochs = sa.Table(  # each epoch's server seeds: kept here, out of every view, until revealed
    "epochs",
    metadata,
    sa.Column("room_id", sa.String(64), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("epoch", sa.Integer, primary_key=True),
    sa.Column("public_seed", sa.String(64), nullable=False),
    sa.Column("secret_seed", sa.String(64), nullable=False),
    sa.Column("mix", sa.String(64)),  # set by the lock
    sa.Column("closed", sa.Boolean, nullable=False),
    sa.Column("declassified", sa.Boolean, nullable=False),
)

client_seeds = sa.Table(  # one per player per epoch
    "client_seeds",
    metadata,
    sa.Column("room_id", sa.String(64), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("epoch", sa.Integer, primary_key=True),
    sa.Column("member_id", sa.String(64), primary_key=True),
    sa.Column("seed", sa.Text, nullable=False),
)

sheets = sa.Table(  # characters uploaded to a room: the bytes, beside the log (contract v1.1)
    "sheets",
    metadata,
    sa.Column("room_id", sa.String(64), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("sheet", sa.String(40), primary_key=True),  # the name the uploader chose
    sa.Column("owner", sa.String(64), nullable=False),
    sa.Column("name", sa.Text, nullable=False),  # the character's
    sa.Column("system", sa.String(16), nullable=False),
    sa.Column("sha256", sa.String(64), nullable=False),
    sa.Column("seq", sa.BigInteger, nullable=False),  # of the sheet entry that set it
    sa.Column("body", sa.LargeBinary, nullable=False),
)

# Discord (issue 42): which room a channel rolls into, its GM, and the members, sheets
# and secret rolls the bot keeps for it (:mod:`referee.rooms.discord.store`).
discord_channels = sa.Table(
    "discord_channels",
    metadata,
    sa.Column("channel_id", sa.String(32), primary_key=True),
    sa.Column("gm_user", sa.String(32), nullable=True),
    sa.Column("gm_channel", sa.String(32), nullable=True),
    sa.Column("room_id", sa.String(64), nullable=True),
)

discord_members = sa.Table(  # the room's member each Discord user rolls as
    "discord_members",
    metadata,
    sa.Column("room_id", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.String(32), primary_key=True),
    sa.Column("member_id", sa.String(64), nullable=False),
)

discord_sheets = sa.Table(  # a player's character in a channel with no room
    "discord_sheets",
    metadata,
    sa.Column("channel_id", sa.String(32), primary_key=True),
    sa.Column("user_id", sa.String(32), primary_key=True),
    sa.Column("sha256", sa.String(64), nullable=False),
    sa.Column("body", sa.LargeBinary, nullable=False),
)

discord_secrets = sa.Table(  # a secret roll in a channel with no room, until revealed
    "discord_secrets",
    metadata,
    sa.Column("number", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("channel_id", sa.String(32), nullable=False),
    sa.Column("gm_user", sa.String(32), nullable=False),
    sa.Column("reply", sa.Text, nullable=False),  # the message to post, as JSON
)

discord_seen = sa.Table(  # the interactions taken within their 5 minutes: replays
    "discord_seen",
    metadata,
    sa.Column("signature", sa.String(128), primary_key=True),
    sa.Column("until", sa.Float, nullable=False, index=True),
)

discord_missed = sa.Table(  # players' rolls that did not reach the GM's channel
    "discord_missed",
    metadata,
    sa.Column("channel_id", sa.String(32), primary_key=True),
    sa.Column("gm_user", sa.String(32), primary_key=True),
    sa.Column("count", sa.Integer, nullable=False),
    sa.Column("why", sa.Text, nullable=False),
)

server_key = sa.Table(  # the server's Ed25519 key (contract v1.5): one row, id 1, never logged
    "server_key",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("algorithm", sa.String(16), nullable=False),
    sa.Column("private_seed", sa.String(64), nullable=False),  # hex
    sa.Column("public_key", sa.String(64), nullable=False),  # hex
    sa.Column("created", sa.String(32), nullable=False),
)
