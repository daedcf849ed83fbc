"""players, matches, seats and the append-only match_events log

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("nickname", sa.String(40), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_players_token_hash", "players", ["token_hash"], unique=True)
    op.create_table(
        "matches",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("preset", sa.String(40), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seed", sa.String(128), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("scores", sa.JSON(), nullable=False),
        sa.Column("record", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_matches_status", "matches", ["status"])
    op.create_table(
        "seats",
        sa.Column("match_id", sa.String(40), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("player_id", sa.String(40), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("level", sa.String(20), nullable=True),
        sa.Column("character", sa.String(20), nullable=True),
    )
    op.create_table(
        "match_events",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("match_id", sa.String(40), sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("match_id", "seq", name="uq_match_events_match_seq"),
    )
    op.create_index("ix_match_events_match_id", "match_events", ["match_id"])


def downgrade() -> None:
    op.drop_index("ix_match_events_match_id", table_name="match_events")
    op.drop_table("match_events")
    op.drop_table("seats")
    op.drop_index("ix_matches_status", table_name="matches")
    op.drop_table("matches")
    op.drop_index("ix_players_token_hash", table_name="players")
    op.drop_table("players")
