"""Discord (issue 42): channels, the members the bot speaks for, sheets and secrets.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "discord_channels",
        sa.Column("channel_id", sa.String(32), primary_key=True),
        sa.Column("gm_user", sa.String(32), nullable=True),
        sa.Column("gm_channel", sa.String(32), nullable=True),
        sa.Column("room_id", sa.String(64), nullable=True),
    )
    op.create_table(
        "discord_members",
        sa.Column("room_id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(32), primary_key=True),
        sa.Column("member_id", sa.String(64), nullable=False),
    )
    op.create_table(
        "discord_sheets",
        sa.Column("channel_id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.String(32), primary_key=True),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("body", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "discord_secrets",
        sa.Column("number", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("channel_id", sa.String(32), nullable=False),
        sa.Column("gm_user", sa.String(32), nullable=False),
        sa.Column("reply", sa.Text, nullable=False),
    )


def downgrade() -> None:
    for table in ("discord_secrets", "discord_sheets", "discord_members", "discord_channels"):
        op.drop_table(table)
