"""Rooms, members, the append-only log and one-time page links.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("system", sa.String(16)),
        sa.Column("invite_hash", sa.String(64), nullable=False),
        sa.Column("next_seq", sa.BigInteger, nullable=False),
        sa.Column("last_chain", sa.String(64), nullable=False),
        sa.Column("epoch", sa.Integer, nullable=False),
    )
    op.create_table(
        "members",
        sa.Column("room_id", sa.String(64), sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("member_id", sa.String(64), primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
    )
    op.create_table(
        "tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("room_id", sa.String(64), nullable=False),
        sa.Column("member_id", sa.String(64), nullable=False),
    )
    op.create_table(
        "entries",
        sa.Column("room_id", sa.String(64), sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("seq", sa.BigInteger, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("ref", sa.BigInteger),
        sa.Column("body", sa.Text, nullable=False),
    )
    op.create_index("entries_reveals", "entries", ["room_id", "kind"])
    op.create_table(
        "logins",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("room_id", sa.String(64), nullable=False),
        sa.Column("member_id", sa.String(64), nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("logins")
    op.drop_index("entries_reveals", "entries")
    op.drop_table("entries")
    op.drop_table("tokens")
    op.drop_table("members")
    op.drop_table("rooms")
