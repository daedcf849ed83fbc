"""table_matches: every match of a table (a table plays several with "Otra partida")

Existing tables played one match: each gets its row, from the matches row.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
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
        "table_matches",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("number", sa.Integer(), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("scores", sa.JSON(), nullable=False),
        sa.Column("record", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    op.execute(
        "INSERT INTO table_matches (table_id, number, status, scores, record, created_at, updated_at) "
        "SELECT id, 1, status, scores, record, created_at, updated_at FROM matches"
    )


def downgrade() -> None:
    op.drop_table("table_matches")
