"""the parque: the matchmaking queue and the tables listed in the public room

``queue_entries``: one row per player waiting to be seated by the matcher (the
primary key is the player, so a player is never queued twice). ``table_id`` is
empty while they wait and names the table once the matcher seated them; the row
is dropped when the player's page learned it, left, or stopped polling.

``parque_tables``: the tables the parque lists (a host's public table waiting in
its lobby, a table the matcher opened); a table by link only has no row.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "queue_entries",
        sa.Column("player_id", sa.String(40), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("nickname", sa.String(40), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("preset", sa.String(40), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("wait_s", sa.Integer(), nullable=True),
        sa.Column("joined_at", sa.DateTime(), nullable=False),
        sa.Column("polled_at", sa.DateTime(), nullable=False),
        sa.Column("table_id", sa.String(40), nullable=True),
        sa.Column("seated_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_queue_entries_waiting", "queue_entries", ["table_id", "preset", "joined_at"])
    op.create_table(
        "parque_tables",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("host", sa.String(40), nullable=True),
        sa.Column("listed_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_parque_tables_listed", "parque_tables", ["listed_at"])


def downgrade() -> None:
    op.drop_index("ix_parque_tables_listed", "parque_tables")
    op.drop_table("parque_tables")
    op.drop_index("ix_queue_entries_waiting", "queue_entries")
    op.drop_table("queue_entries")
