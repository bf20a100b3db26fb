"""Room administration (contract v1.1): archived rooms, and members who left.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(
            sa.Column("archived", sa.Boolean, nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("members") as batch:
        batch.add_column(sa.Column("left", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("members") as batch:
        batch.drop_column("left")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("archived")
