"""neighbours board: rated again from the results, against the neighbours only

Until issue 21 "contra los vecinos" rated every match of a guest, a match among
friends too. Its ratings and their history are rebuilt from the results rows, in
the order the matches ended, by the rule of today (``rate_board``: a guest's match
counts when every rival seat was a neighbour's). Nothing else changes.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from capicua.store.standings import rerate_neighbours

    rerate_neighbours(op.get_bind())


def downgrade() -> None:
    pass  # the old rule's ratings are not kept: a downgrade leaves the rebuilt board as it is
