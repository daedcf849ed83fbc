"""The :class:`~capicua.server.ports.Leases` port: which process owns a table.

- :class:`LocalLeases`: one process owns every table (``make run``, SQLite, the
  tests' servers). Its epochs grow as a cluster's do, so the registry and the
  shell take the same path; nothing is stored, and its log checks no lease.
- :class:`SqlLeases`: a cluster's leases, rows of ``table_leases`` in PostgreSQL
  (:mod:`capicua.store.leases`), timed by the database's clock; the log of a
  cluster (:class:`~capicua.server.adapters.sql.StoreLog` with ``leased=True``)
  refuses an append whose epoch is not the row's, in the append's transaction.
  docs/architecture.md, "Ownership", says why this is safe.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from capicua.server.ports import Holder, Lease, LogUnavailable
from capicua.store import Store
from capicua.store import leases as stored

LEASE_MS = 5_000  # how long a lease lasts unless renewed (renewed every third of it)


def default_node_id() -> str:
    """This process as an owner: ``host:pid:random`` (the random part tells apart two
    processes that reuse a pid, say in two containers of one host name)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class LocalLeases:
    """Every table is this process's: a lease is always granted, a new epoch each time."""

    def __init__(self, owner: str | None = None, ttl_ms: int = LEASE_MS) -> None:
        self._owner = owner or default_node_id()
        self._ttl_ms = ttl_ms
        self._epochs: dict[str, int] = {}

    @property
    def owner(self) -> str:
        return self._owner

    @property
    def ttl_ms(self) -> int:
        return self._ttl_ms

    async def acquire(self, table_id: str) -> Lease:
        epoch = self._epochs.get(table_id, 0) + 1
        self._epochs[table_id] = epoch
        return Lease(table_id, self._owner, epoch)

    async def renew(self, held: Sequence[Lease]) -> list[Lease]:
        return [lease for lease in held if self._epochs.get(lease.table) != lease.epoch]

    async def release(self, lease: Lease) -> None:
        """Nothing to give: one process. The epoch is kept, so it still only grows."""

    async def holders(self, table_ids: Sequence[str]) -> dict[str, Holder]:
        """This process, for a whole lease, of every table it ever leased."""
        return {t: Holder(self._owner, self._ttl_ms) for t in table_ids if t in self._epochs}


class SqlLeases:
    """Leases in PostgreSQL (``table_leases``), each call in one of a few threads of its own."""

    def __init__(self, store: Store, owner: str | None = None, ttl_ms: int = LEASE_MS) -> None:
        if store.engine.dialect.name != "postgresql":
            raise ValueError("leases shared by processes live in PostgreSQL (a cluster's database)")
        self.store = store
        self._owner = owner or default_node_id()
        self._ttl_ms = ttl_ms
        self._threads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="capicua-leases")

    @property
    def owner(self) -> str:
        return self._owner

    @property
    def ttl_ms(self) -> int:
        return self._ttl_ms

    def close(self) -> None:
        self._threads.shutdown(wait=True)

    async def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return await asyncio.get_running_loop().run_in_executor(self._threads, fn, *args)
        except SQLAlchemyError as exc:
            raise LogUnavailable(str(exc).splitlines()[0]) from None

    async def acquire(self, table_id: str) -> Lease | None:
        found: tuple[str, int, bool] | None = await self._call(
            stored.acquire, self.store, table_id, self._owner, self._ttl_ms
        )
        return None if found is None else Lease(table_id, *found)

    async def renew(self, held: Sequence[Lease]) -> list[Lease]:
        epochs = {lease.table: lease.epoch for lease in held}
        lost: list[str] = await self._call(stored.renew, self.store, self._owner, self._ttl_ms, epochs)
        gone = set(lost)
        return [lease for lease in held if lease.table in gone]

    async def release(self, lease: Lease) -> None:
        await self._call(stored.release, self.store, lease.table, self._owner, lease.epoch)

    async def holders(self, table_ids: Sequence[str]) -> dict[str, Holder]:
        found: dict[str, tuple[str, int]] = await self._call(stored.holders, self.store, list(table_ids))
        return {t: Holder(owner, left_ms) for t, (owner, left_ms) in found.items()}
