"""devices: a player's browsers, the one-time keys that add one, and their settings

``player_devices``: one row per browser token of a player (its SHA-256, unique),
with a short label from the user agent and when it was made and last seen. Each
player's ``players.token_hash`` moves here (a device labelled ``""``: nobody knows
which browser it was) and the column goes: a token is a device's, not a player's.

``player_keys``: "Llévate tu jugador", a one-time code that makes another browser
the same player, kept only as its SHA-256, until it expires or is used.

``player_settings``: the settings a player carries to every device (one JSON object).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "player_devices",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("player_id", sa.String(40), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("label", sa.String(60), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_player_devices_token_hash", "player_devices", ["token_hash"], unique=True)
    op.create_index("ix_player_devices_player_id", "player_devices", ["player_id"])
    op.create_index("ix_player_devices_last_seen_at", "player_devices", ["last_seen_at"])
    conn = op.get_bind()
    players = conn.execute(sa.text("SELECT id, token_hash, created_at FROM players")).all()
    if players:
        conn.execute(
            sa.text("INSERT INTO player_devices (id, player_id, token_hash, label, created_at, last_seen_at) "
                    "VALUES (:id, :player_id, :token_hash, '', :created_at, :created_at)"),
            [{"id": "d_" + secrets.token_hex(8), "player_id": pid, "token_hash": th, "created_at": at}
             for pid, th, at in players],
        )
    op.drop_index("ix_players_token_hash", table_name="players")
    # A plain ALTER TABLE on both databases (SQLite ≥ 3.35): a batch copy of `players`
    # would drop the table the other tables' foreign keys point at.
    op.drop_column("players", "token_hash")

    op.create_table(
        "player_keys",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(40), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_player_keys_player_id", "player_keys", ["player_id"])
    op.create_table(
        "player_settings",
        sa.Column("player_id", sa.String(40), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("player_settings")
    op.drop_index("ix_player_keys_player_id", "player_keys")
    op.drop_table("player_keys")
    # Back to one token per player: each keeps its oldest device's; the others' browsers sign in anew.
    op.add_column("players", sa.Column("token_hash", sa.String(64), nullable=True))
    op.execute(
        "UPDATE players SET token_hash = (SELECT d.token_hash FROM player_devices d WHERE d.player_id = players.id "
        "ORDER BY d.created_at, d.id LIMIT 1)"
    )
    op.create_index("ix_players_token_hash", "players", ["token_hash"], unique=True)
    op.drop_index("ix_player_devices_last_seen_at", "player_devices")
    op.drop_index("ix_player_devices_player_id", "player_devices")
    op.drop_index("ix_player_devices_token_hash", "player_devices")
    op.drop_table("player_devices")
