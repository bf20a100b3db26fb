"""Epochs (committed server seeds) and players' client seeds.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "epochs",
        sa.Column("room_id", sa.String(64), sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("epoch", sa.Integer, primary_key=True),
        sa.Column("public_seed", sa.String(64), nullable=False),
        sa.Column("secret_seed", sa.String(64), nullable=False),
        sa.Column("mix", sa.String(64)),
        sa.Column("closed", sa.Boolean, nullable=False),
        sa.Column("declassified", sa.Boolean, nullable=False),
    )
    op.create_table(
        "client_seeds",
        sa.Column("room_id", sa.String(64), sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("epoch", sa.Integer, primary_key=True),
        sa.Column("member_id", sa.String(64), primary_key=True),
        sa.Column("seed", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("client_seeds")
    op.drop_table("epochs")
