"""stand_ins: the matches a neighbour played for a guest who was away from their first move

Such a match is not the guest's (no results row of theirs, no rating, experience
or achievement): this row is what the profile says of it. Matches finished before
this revision keep the results they were given.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "stand_ins",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("match_number", sa.Integer(), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("player_id", sa.String(40), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("level", sa.String(20), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_stand_ins_player", "stand_ins", ["player_id", "finished_at"])


def downgrade() -> None:
    op.drop_index("ix_stand_ins_player", table_name="stand_ins")
    op.drop_table("stand_ins")
