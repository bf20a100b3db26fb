"""Signed heads (contract v1.5): the server's own Ed25519 key, one for every server
sharing this database, made at the first start that finds none (:mod:`..serverkey`).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "server_key",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("algorithm", sa.String(16), nullable=False),
        sa.Column("private_seed", sa.String(64), nullable=False),
        sa.Column("public_key", sa.String(64), nullable=False),
        sa.Column("created", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("server_key")
