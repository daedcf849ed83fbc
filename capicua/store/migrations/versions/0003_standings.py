"""standings: results rows, ratings and their history, levels, achievements

Every match already finished gets its results (and the ratings, experience and
achievements they give, in the order the matches ended) from its record, its
table's seats and log, by the same code that writes them when a match ends. The
tables are read under the names they had then (0007 renamed them).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.orm import Session

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
    backfill(op.get_bind())


# The tables as this revision knows them: a table's row, seats and log, and its matches.
_TABLES = sa.table("matches", sa.column("id", sa.String), sa.column("preset", sa.String))
_SEATS = sa.table("seats", sa.column("match_id", sa.String), sa.column("seat", sa.Integer),
                  sa.column("kind", sa.String), sa.column("player_id", sa.String), sa.column("level", sa.String))
_LOG = sa.table("match_events", sa.column("match_id", sa.String), sa.column("seq", sa.Integer),
                sa.column("data", sa.JSON))
_MATCHES = sa.table("table_matches", sa.column("table_id", sa.String), sa.column("number", sa.Integer),
                    sa.column("status", sa.String), sa.column("record", sa.JSON), sa.column("updated_at", sa.DateTime))


def backfill(conn: sa.Connection) -> None:
    """The results of every match finished before results were written, in the order
    they ended, so that ratings and experience add up as they would have."""
    from capicua.standings.results import SeatAtTable
    from capicua.store.standings import TableAtEnd, write_results

    with Session(bind=conn) as s:
        finished = s.execute(
            sa.select(_MATCHES).where(_MATCHES.c.status == "finished").order_by(_MATCHES.c.updated_at,
                                                                                _MATCHES.c.table_id)
        ).all()
        tables: dict[str, tuple[TableAtEnd, list[dict[str, Any]]]] = {}
        for m in finished:
            if not isinstance(m.record, dict) or not isinstance(m.record.get("result"), dict):
                continue
            if m.table_id not in tables:
                preset = s.execute(sa.select(_TABLES.c.preset).where(_TABLES.c.id == m.table_id)).scalar_one()
                seats = [
                    SeatAtTable(r.seat, r.kind, r.player_id, r.level)
                    for r in s.execute(sa.select(_SEATS).where(_SEATS.c.match_id == m.table_id).order_by(_SEATS.c.seat))
                ]
                entries = list(
                    s.scalars(sa.select(_LOG.c.data).where(_LOG.c.match_id == m.table_id).order_by(_LOG.c.seq))
                )
                tables[m.table_id] = (TableAtEnd(preset, seats), entries)
            table, entries = tables[m.table_id]
            write_results(s, m.table_id, m.number, m.record, m.updated_at, entries, stand_ins=False, table=table)
        s.flush()


def downgrade() -> None:
    for table in ("player_achievements", "player_levels", "rating_history", "ratings", "results"):
        op.drop_table(table)
