"""standings: results rows, ratings and their history, levels, achievements

Every match already finished gets its results (and the ratings, experience and
achievements they give, in the order the matches ended) from its record, its
table's seats and log, by the same code that writes them when a match ends.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
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
        "results",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(40), sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("match_number", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(40), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("bot_level", sa.String(20), nullable=True),
        sa.Column("team", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("pollona", sa.Boolean(), nullable=False),
        sa.Column("viajera", sa.Boolean(), nullable=False),
        sa.Column("capicuas", sa.Integer(), nullable=False),
        sa.Column("dominoes", sa.Integer(), nullable=False),
        sa.Column("top_double_out", sa.Integer(), nullable=False),
        sa.Column("tranques_won", sa.Integer(), nullable=False),
        sa.Column("hands_won", sa.Integer(), nullable=False),
        sa.Column("hands_lost", sa.Integer(), nullable=False),
        sa.Column("hands_played", sa.Integer(), nullable=False),
        sa.Column("left_for_good", sa.Boolean(), nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("humans", sa.Integer(), nullable=False),
        sa.Column("preset", sa.String(40), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=False),
        sa.Column("xp", sa.Integer(), nullable=False),
        sa.Column("level_before", sa.Integer(), nullable=True),
        sa.Column("level_after", sa.Integer(), nullable=True),
        sa.UniqueConstraint("table_id", "match_number", "seat", name="uq_results_match_seat"),
    )
    op.create_index("ix_results_player_finished", "results", ["player_id", "finished_at"])
    op.create_index(
        "ix_results_player_stats", "results",
        ["player_id", "preset", "won", "left_for_good", "pollona", "viajera", "hands_played", "hands_won", "capicuas"],
    )
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.String(40), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("board", sa.String(16), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("won", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_ratings_board_score", "ratings", ["board", "score"])
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.String(40), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("board", sa.String(16), nullable=False),
        sa.Column("table_id", sa.String(40), sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("match_number", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_rating_history_player", "rating_history", ["player_id", "board", "at", "score"])
    op.create_index("ix_rating_history_board_at", "rating_history", ["board", "at", "player_id", "won"])
    op.create_table(
        "player_levels",
        sa.Column("player_id", sa.String(40), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("xp", sa.Integer(), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "player_achievements",
        sa.Column("player_id", sa.String(40), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("achievement", sa.String(40), primary_key=True),
        sa.Column("table_id", sa.String(40), sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("match_number", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    from capicua.store.standings import backfill

    backfill(op.get_bind())


def downgrade() -> None:
    for table in ("player_achievements", "player_levels", "rating_history", "ratings", "results"):
        op.drop_table(table)
