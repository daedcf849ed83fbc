"""gente: invitations to a table, who mutes whose invitations, the nickname search

``invitations``: one row per (sender, invitee, table) — an invitation sent again
after it expired or was answered reuses the row with a new id, so "one pending
invitation per sender, invitee and table" is the unique constraint itself.
``status``: pending | accepted | dismissed | muted (sent to someone who mutes the
sender: never shown to them, and to the sender exactly as a pending one).

``invitation_mutes``: a player's mutes, one row per muted sender.

``players.search_key``: the nickname without case or accents
(:func:`capicua.store.nicknames.search_key`), indexed for the search by prefix;
filled here for the players there are.

``table_seats`` gets an index on ``player_id``: the tables a player sits at (Gente,
an invitation's check that the sender is seated) without a scan.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from capicua.store.nicknames import search_key

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "invitations",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("sender_id", sa.String(40), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("invitee_id", sa.String(40), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("table_id", sa.String(40), sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("sender_id", "invitee_id", "table_id", name="uq_invitations_sender_invitee_table"),
    )
    op.create_index("ix_invitations_invitee", "invitations", ["invitee_id", "expires_at"])
    op.create_table(
        "invitation_mutes",
        sa.Column("player_id", sa.String(40), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("muted_id", sa.String(40), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    # By code point on PostgreSQL too (its "C" collation): a prefix is then one range of the index.
    key_type = sa.String(40).with_variant(sa.String(40, collation="C"), "postgresql")
    op.add_column("players", sa.Column("search_key", key_type, nullable=True))
    players = sa.table("players", sa.column("id", sa.String), sa.column("nickname", sa.String),
                       sa.column("search_key", sa.String))
    conn = op.get_bind()
    for pid, nickname in conn.execute(sa.select(players.c.id, players.c.nickname)).all():
        conn.execute(players.update().where(players.c.id == pid).values(search_key=search_key(nickname)))
    op.create_index("ix_players_search_key", "players", ["search_key"])
    op.create_index("ix_table_seats_player", "table_seats", ["player_id", "table_id"])


def downgrade() -> None:
    op.drop_index("ix_table_seats_player", "table_seats")
    op.drop_index("ix_players_search_key", "players")
    # A plain ALTER TABLE on both databases (SQLite ≥ 3.35): a batch copy of `players`
    # would drop the table the other tables' foreign keys point at.
    op.drop_column("players", "search_key")
    op.drop_table("invitation_mutes")
    op.drop_index("ix_invitations_invitee", "invitations")
    op.drop_table("invitations")
