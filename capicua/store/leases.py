"""Table leases in the store (``table_leases``): which process owns each live table,
until when, under which epoch. Times are the database's (``now()``): the processes'
clocks never enter, so a process whose clock is off cannot keep a lease it lost.

PostgreSQL only (a cluster's database): the row is locked while it is read and
changed, and an append under a lease reads it under a share lock in its own
transaction (:func:`capicua.store.tablelogs.append_many`). Synchronous:
:class:`capicua.server.adapters.leases.SqlLeases` calls these from its threads.
"""

from __future__ import annotations

import math
from datetime import timedelta

from sqlalchemy import func, select, update
from sqlalchemy.dialects.postgresql import insert

from capicua.store import Store
from capicua.store.models import TableLeaseRow, TableRow

FREE = ""  # the owner of a released lease


def acquire(store: Store, table_id: str, owner: str, ttl_ms: int) -> tuple[str, int, bool] | None:
    """Take the table's lease for ``owner`` when it is free, ran out or is ``owner``'s
    own: ``(owner, epoch, took_over)`` with the epoch one more than the last
    (``took_over``: from another owner whose lease ran out). Held live by another:
    ``(that owner, its epoch, False)``. ``None``: no such table."""
    ttl = timedelta(milliseconds=ttl_ms)
    while True:
        with store.engine.begin() as conn:
            row = conn.execute(
                select(TableLeaseRow.owner, TableLeaseRow.epoch, TableLeaseRow.expires_at <= func.now())
                .where(TableLeaseRow.table_id == table_id)
                .with_for_update()
            ).first()
            if row is None:
                if conn.execute(select(TableRow.id).where(TableRow.id == table_id)).first() is None:
                    return None
                made = conn.execute(
                    insert(TableLeaseRow)
                    .values(table_id=table_id, owner=owner, epoch=1, expires_at=func.now() + ttl)
                    .on_conflict_do_nothing()
                    .returning(TableLeaseRow.epoch)
                ).first()
                if made is not None:
                    return owner, 1, False
                continue  # another process made the row first: read it
            holder, epoch, expired = row
            if holder not in (FREE, owner) and not expired:
                return holder, epoch, False
            conn.execute(
                update(TableLeaseRow)
                .where(TableLeaseRow.table_id == table_id)
                .values(owner=owner, epoch=epoch + 1, expires_at=func.now() + ttl)
            )
            return owner, epoch + 1, holder not in (FREE, owner)


def renew(store: Store, owner: str, ttl_ms: int, held: dict[str, int]) -> list[str]:
    """Extend ``owner``'s leases of ``held`` (table → epoch) still its own at that
    epoch; returns the tables whose lease it lost. The rows are locked in table
    order, as appends lock them, so a renewal and a group commit never deadlock."""
    if not held:
        return []
    ids = sorted(held)
    with store.engine.begin() as conn:
        mine = dict(
            conn.execute(
                select(TableLeaseRow.table_id, TableLeaseRow.epoch)
                .where(TableLeaseRow.table_id.in_(ids), TableLeaseRow.owner == owner)
                .order_by(TableLeaseRow.table_id)
                .with_for_update()
            ).all()
        )
        kept = [t for t in ids if mine.get(t) == held[t]]
        if kept:
            conn.execute(
                update(TableLeaseRow)
                .where(TableLeaseRow.table_id.in_(kept))
                .values(expires_at=func.now() + timedelta(milliseconds=ttl_ms))
            )
    return [t for t in ids if mine.get(t) != held[t]]


def holders(store: Store, table_ids: list[str]) -> dict[str, tuple[str, int]]:
    """Who holds each table's lease and for how long still, in one query, without a
    lock: ``{table: (owner, ms left)}``, the time left on the database's clock
    (``<= 0``: it ran out, or was given up, owner ``FREE``). A table with no lease
    row (no such table, or never leased) is left out."""
    if not table_ids:
        return {}
    left = func.extract("epoch", TableLeaseRow.expires_at - func.now()) * 1000
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(TableLeaseRow.table_id, TableLeaseRow.owner, left).where(TableLeaseRow.table_id.in_(table_ids))
        ).all()
    return {table_id: (owner, math.ceil(ms)) for table_id, owner, ms in rows}


def release(store: Store, table_id: str, owner: str, epoch: int) -> None:
    """Give the lease up, when it is still ``owner``'s at ``epoch``: free from now on,
    its epoch kept (the next holder's is greater)."""
    with store.engine.begin() as conn:
        conn.execute(
            update(TableLeaseRow)
            .where(TableLeaseRow.table_id == table_id, TableLeaseRow.owner == owner, TableLeaseRow.epoch == epoch)
            .values(owner=FREE, expires_at=func.now())
        )

