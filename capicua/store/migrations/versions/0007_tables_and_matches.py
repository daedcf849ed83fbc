"""tables are tables, matches are matches: the schema's names say what they hold

Until now a table's row lived in ``matches``, its seats in ``seats`` and its log
in ``match_events`` (keyed by ``match_id``, a table's id), while each match of a
table lived in ``table_matches``. Renamed, every row kept:

    matches            -> tables
    seats              -> table_seats    (match_id -> table_id)
    match_events       -> table_events   (match_id -> table_id)
    table_matches      -> matches

with the indexes and constraints named after them. ``matches`` is renamed to
``tables`` before ``table_matches`` takes its name (and the other way round on the
way down). Foreign keys to ``matches.id`` follow the rename on both databases:
PostgreSQL holds them by the table's oid, SQLite (3.26 on) rewrites them.

PostgreSQL renames its own constraint names, indexes and the log's id sequence
(metadata only). SQLite cannot rename an index or a named constraint: the indexes
are made again, and the log's table is copied once to rename its unique
constraint (the append's fence).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-10
"""

from __future__ import annotations

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

# In the order they run upward: ``matches`` is free before ``table_matches`` takes it.
TABLES = [("matches", "tables"), ("seats", "table_seats"), ("match_events", "table_events"),
          ("table_matches", "matches")]
# (table under its new name, old column, new column)
COLUMNS = [("table_seats", "match_id", "table_id"), ("table_events", "match_id", "table_id")]
# (table under its new name, old index, new index, its columns under their new names)
INDEXES = [("tables", "ix_matches_status", "ix_tables_status", ["status"]),
           ("table_events", "ix_match_events_match_id", "ix_table_events_table_id", ["table_id"])]
# The log's unique (table, entry number): the append's fence.
FENCE = ("table_events", "uq_match_events_match_seq", "uq_table_events_table_seq", ["table_id", "seq"])
# PostgreSQL's own names (``<table>_pkey``, ``<table>_<column>_fkey``), in an order in
# which no new name is still taken: ``matches_pkey`` is free before it is given again.
PG_CONSTRAINTS = [
    ("tables", "matches_pkey", "tables_pkey"),
    ("table_seats", "seats_pkey", "table_seats_pkey"),
    ("table_seats", "seats_match_id_fkey", "table_seats_table_id_fkey"),
    ("table_seats", "seats_player_id_fkey", "table_seats_player_id_fkey"),
    ("table_events", "match_events_pkey", "table_events_pkey"),
    ("table_events", "match_events_match_id_fkey", "table_events_table_id_fkey"),
    ("matches", "table_matches_pkey", "matches_pkey"),
    ("matches", "table_matches_table_id_fkey", "matches_table_id_fkey"),
]
PG_SEQUENCES = [("match_events_id_seq", "table_events_id_seq")]


def upgrade() -> None:
    for old, new in TABLES:
        op.rename_table(old, new)
    for table, old, new in COLUMNS:
        _rename_column(table, old, new)
    _rename_names(forward=True)


def downgrade() -> None:
    _rename_names(forward=False)
    for table, old, new in COLUMNS:
        _rename_column(table, new, old)
    for old, new in reversed(TABLES):
        op.rename_table(new, old)


def _rename_column(table: str, old: str, new: str) -> None:
    # Both databases rename a column in place (SQLite since 3.25), indexes and constraints included.
    op.execute(f"ALTER TABLE {table} RENAME COLUMN {old} TO {new}")


def _rename_names(forward: bool) -> None:
    """Indexes, constraints and sequences named after the old tables, while the tables
    have their new names (upward: after the tables are renamed; downward: before)."""
    def way(old: str, new: str) -> tuple[str, str]:
        return (old, new) if forward else (new, old)

    postgres = op.get_context().dialect.name == "postgresql"
    for table, old_index, new_index, columns in INDEXES:
        was, now = way(old_index, new_index)
        if postgres:
            op.execute(f"ALTER INDEX {was} RENAME TO {now}")
        else:
            op.drop_index(was, table_name=table)
            op.create_index(now, table, columns)
    table, old_fence, new_fence, columns = FENCE
    was, now = way(old_fence, new_fence)
    if postgres:
        op.execute(f"ALTER TABLE {table} RENAME CONSTRAINT {was} TO {now}")
        constraints = PG_CONSTRAINTS if forward else reversed(PG_CONSTRAINTS)
        for table, old, new in constraints:
            was, now = way(old, new)
            op.execute(f"ALTER TABLE {table} RENAME CONSTRAINT {was} TO {now}")
        for old, new in PG_SEQUENCES:
            was, now = way(old, new)
            op.execute(f"ALTER SEQUENCE {was} RENAME TO {now}")
    else:
        with op.batch_alter_table(table, recreate="always") as batch:
            batch.drop_constraint(was, type_="unique")
            batch.create_unique_constraint(now, columns)

