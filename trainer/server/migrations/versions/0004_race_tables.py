"""The race tables each server process holds, listed for every process's lobby.

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
    op.create_table(
        "race_tables",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("owner", sa.String(40), nullable=False),
        sa.Column("url", sa.String(200), nullable=True),
        sa.Column("summary", sa.Text, nullable=False),
        sa.Column("private", sa.Boolean, nullable=False),
        sa.Column("members", sa.Text, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("race_tables")
