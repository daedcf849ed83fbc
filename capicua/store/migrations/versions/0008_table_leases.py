"""table leases: which process owns each live table, and the epoch that fences its appends

A cluster (issue 23) runs each live table in exactly one process: the one holding
the table's row here until ``expires_at``, a time on the database's own clock.
``epoch`` grows by one each time the lease is taken; every append of a cluster
checks it in its own transaction, so a process that lost the lease can never
write. Rows are kept once released (their epoch must never go back).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-12
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "table_leases",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("owner", sa.String(120), nullable=False),
        sa.Column("epoch", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("table_leases")
