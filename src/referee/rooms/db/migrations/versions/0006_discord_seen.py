"""Discord (issue 50): the interactions seen within their 5 minutes, shared by every
server and worker (a replay after a restart, or to another server, is refused), and the
players' rolls that did not reach the GM's channel (the GM is told).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "discord_seen",
        sa.Column("signature", sa.String(128), primary_key=True),
        sa.Column("until", sa.Float, nullable=False),
    )
    op.create_index("ix_discord_seen_until", "discord_seen", ["until"])
    op.create_table(
        "discord_missed",
        sa.Column("channel_id", sa.String(32), primary_key=True),
        sa.Column("gm_user", sa.String(32), primary_key=True),
        sa.Column("count", sa.Integer, nullable=False),
        sa.Column("why", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("discord_missed")
    op.drop_index("ix_discord_seen_until", "discord_seen")
    op.drop_table("discord_seen")
