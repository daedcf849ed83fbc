"""The SQL store's side of the ports: the event log and its matches' records
(:class:`StoreLog`: :class:`~capicua.server.ports.EventLog`,
:class:`~capicua.server.ports.MatchRecords`) and the guests (:class:`StoreGuests`:
:class:`~capicua.server.ports.GuestBook`).

:class:`StoreLog` writes table logs to a :class:`~capicua.store.Store`. Appends
are sharded by table id over a few writer threads; each takes every append
waiting in its shard at that moment and writes them in one transaction (group
commit), so one table's appends stay in order and tables do not queue behind
each other's round trips, and on PostgreSQL the shards commit in parallel.
A writer that wakes for an append waits ``linger_s`` (2 ms) before it takes
what waits: at a human pace appends come one at a time, and a commit of one costs
nearly what a commit of four does. Reads run in threads of their own. A cluster's
log (``leased=True``) fences every append by its lease epoch too, in the append's own transaction
(:mod:`capicua.store.tablelogs`, :class:`~capicua.server.adapters.leases.SqlLeases`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
import zlib
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from capicua.engine import make_rules
from capicua.server import metrics
from capicua.server.ports import Fenced, LogUnavailable, StaleAppend, TableInfo
from capicua.store import Store, devices, tablelogs
from capicua.table.log import Projection, match_seed

log = logging.getLogger("capicua.store")


_Pending = tuple[tablelogs.Append, "asyncio.Future[None]", asyncio.AbstractEventLoop]


LINGER_S = 0.002  # a writer's wait for company before a commit (StoreLog.linger_s)


def default_writers(store: Store) -> int:
    """How many writer threads a store gets. SQLite has one writer lock for the whole
    database: a second writer thread only waits for it (and its busy handler sleeps),
    so one thread that batches every table's appends makes the biggest group commits.
    PostgreSQL locks rows: appends of different tables commit in parallel."""
    return 1 if store.engine.dialect.name == "sqlite" else 4


class StoreLog:
    """:class:`~capicua.server.ports.EventLog` over a :class:`~capicua.store.Store`.

    ``writers`` threads (default :func:`default_writers`) each own the tables whose id
    hashes to them (crc32, so a table always lands on the same one): a table's
    appends are written in the order they were made, by one thread. ``leased``:
    the tables' leases are rows of this store (a cluster): an append whose epoch is
    not its table's lease's is refused (:class:`~capicua.server.ports.Fenced`)."""

    def __init__(
        self, store: Store, max_batch: int = 256, writers: int | None = None, leased: bool = False,
        linger_s: float = LINGER_S,
    ) -> None:
        self.store = store
        self.max_batch = max_batch
        self.linger_s = linger_s
        self.leased = leased
        self._healthy = True
        count = default_writers(store) if writers is None else writers
        if count < 1:
            raise ValueError("a StoreLog needs at least one writer")
        self._queues: list[queue.SimpleQueue[_Pending | None]] = [queue.SimpleQueue() for _ in range(count)]
        self._writers = [
            threading.Thread(target=self._write_loop, args=(q,), name=f"capicua-log-writer-{i}", daemon=True)
            for i, q in enumerate(self._queues)
        ]
        for w in self._writers:
            w.start()
        self._readers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="capicua-log-reader")

    @property
    def healthy(self) -> bool:
        return self._healthy

    @property
    def writers(self) -> int:
        return len(self._writers)

    def close(self) -> None:
        for q in self._queues:
            q.put(None)
        for w in self._writers:
            w.join(timeout=10)
        self._readers.shutdown(wait=True)

    async def _read(self, fn: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._readers, fn, *args)
        except SQLAlchemyError as exc:
            raise LogUnavailable(str(exc).splitlines()[0]) from None

    def _shard(self, table_id: str) -> queue.SimpleQueue[_Pending | None]:
        return self._queues[zlib.crc32(table_id.encode()) % len(self._queues)]

    async def _write(self, append: tablelogs.Append) -> None:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._shard(append.table_id).put((append, fut, loop))
        await fut

    async def create(self, table_id: str, open_entry: dict[str, Any]) -> None:
        teams = make_rules(open_entry["preset"], **open_entry["options"]).teams
        seed = open_entry.get("seed") or match_seed(open_entry["secret"], 1)
        try:
            await self._read(tablelogs.create_table, self.store, open_entry, seed, teams)
        except LogUnavailable:
            self._healthy = False
            raise
        self._healthy = True

    async def append(
        self, table_id: str, expected: int, entries: list[dict[str, Any]], projection: Projection | None,
        epoch: int,
    ) -> None:
        a = tablelogs.Append(table_id, expected + 1, entries, epoch if self.leased else None)
        if projection is not None:
            a.status = projection.status
            a.scores = projection.scores
            a.match_number = projection.match_number
            a.record = projection.record
            a.seats = projection.seats
        await self._write(a)

    async def load(self, table_id: str) -> list[dict[str, Any]] | None:
        row = await self._read(tablelogs.load_entries, self.store, table_id)
        if row is None:
            return None
        entries: list[dict[str, Any]] = row["events"]  # a log of the first format: capicua migrate-logs
        return entries

    async def records(self, table_id: str) -> list[dict[str, Any]] | None:
        """Every match of the table with its record (``None`` for an unknown table)."""
        row = await self._read(tablelogs.table_row, self.store, table_id)
        if row is None:
            return None
        found: list[dict[str, Any]] = await self._read(tablelogs.match_records, self.store, table_id)
        for m in found:
            m["preset"], m["options"] = row["preset"], row["options"]
        return found

    async def info(self, table_id: str) -> TableInfo | None:
        row = await self._read(tablelogs.table_row, self.store, table_id)
        if row is None:
            return None
        record = row.get("record") or {}
        return TableInfo(
            id=row["id"], preset=row["preset"], options=row["options"],
            status="playing" if row["status"] == "active" else row["status"], scores=row["scores"],
            created_at=row["created_at"], updated_at=row["updated_at"], seats=row["seats"],
            match_result=record.get("result") if isinstance(record, dict) else None,
        )

    # A writer thread: group commit of what waits in its shard.
    def _write_loop(self, pending: queue.SimpleQueue[_Pending | None]) -> None:
        while True:
            item = pending.get()  # idle: the next append wakes this thread
            if item is None:
                return
            batch = [item]
            # Busy: linger, take what came, commit, and again, until a linger brings
            # nothing. The appends made meanwhile find no writer blocked on the queue,
            # so they wake nobody (a wake-up held the loop ~60 us at 1,000 tables).
            while True:
                if self.linger_s:
                    time.sleep(self.linger_s)  # the appends of the next moments join this commit
                closing = self._take(pending, batch)
                if batch:
                    self._commit(batch)
                if closing:
                    return
                if not batch:
                    break
                batch = []

    def _take(self, pending: queue.SimpleQueue[_Pending | None], batch: list[_Pending]) -> bool:
        """Move what waits in ``pending`` into ``batch`` (up to ``max_batch``); True when
        the writer is told to stop."""
        while len(batch) < self.max_batch:
            try:
                nxt = pending.get_nowait()
            except queue.Empty:
                return False
            if nxt is None:
                return True
            batch.append(nxt)
        return False

    def _commit(self, batch: list[_Pending]) -> None:
        try:
            results: list[Exception | None] = tablelogs.append_many(self.store, [b[0] for b in batch])
            self._healthy = True
        except SQLAlchemyError as exc:
            self._healthy = False
            metrics.store_error()
            reason = str(exc).splitlines()[0]
            log.warning("the store cannot be written: %s", reason)
            results = [LogUnavailable(reason)] * len(batch)
        # One wake-up of each waiting loop for the whole batch, not one per append.
        settles: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], Exception | None]]] = {}
        for (_, fut, loop), result in zip(batch, results, strict=True):
            error: Exception | None = result
            if result is None:
                metrics.appended()
            elif isinstance(result, tablelogs.StaleLog):
                error = StaleAppend(str(result))
            elif isinstance(result, tablelogs.FencedLog):
                metrics.fenced()
                error = Fenced(str(result))
            settles.setdefault(loop, []).append((fut, error))
        for loop, settled in settles.items():
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
                loop.call_soon_threadsafe(_settle, settled)


def _settle(settled: list[tuple[asyncio.Future[None], Exception | None]]) -> None:
    for fut, error in settled:
        if fut.done():
            continue
        if error is None:
            fut.set_result(None)
        else:
            fut.set_exception(error)


class StoreGuests:
    """:class:`~capicua.server.ports.GuestBook` over a :class:`~capicua.store.Store`, its
    calls in ``executor``'s threads (``None``: the loop's default executor)."""

    def __init__(self, store: Store, executor: Executor | None) -> None:
        self.store = store
        self.executor = executor

    async def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)
        except SQLAlchemyError as exc:
            raise LogUnavailable(str(exc).splitlines()[0]) from None

    async def by_token(self, token: str) -> tuple[str, str, str] | None:
        now = datetime.now(UTC).replace(tzinfo=None)
        found: dict[str, Any] | None = await self._call(devices.player_by_token, self.store, token, now)
        return None if found is None else (found["id"], found["nickname"], found["device"])

    async def create(self, nickname: str, label: str) -> tuple[str, str]:
        made: tuple[str, str] = await self._call(self.store.create_player, nickname, label)
        return made

    async def rename(self, player: str, nickname: str) -> None:
        await self._call(self.store.rename_player, player, nickname)
