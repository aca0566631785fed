"""Kyōgi ratings of accounts, and the record of each rated match (so a match counts once).

Revision ID: 0003
Revises: 0002
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_index("ratings_game", "ratings", ["game"])
    op.create_table(
        "rated_matches",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("first_user", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("second_user", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("winner", sa.Integer, nullable=True),
        sa.Column("by", sa.String(16), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rated_matches")
    op.drop_index("ratings_game", table_name="ratings")
    op.drop_table("ratings")
