"""Several server processes on one database: each process's heartbeat, and each table's owner.

The owner is the process that runs a table's turn timer (and its seat-hold
clock); another process takes the table over when the owner's heartbeat stops
(`trainer.server.cluster`).

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
        "servers",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("started", sa.Float, nullable=False),
        sa.Column("beat", sa.Float, nullable=False),
    )
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("owner", sa.String(40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("owner")
    op.drop_table("servers")
