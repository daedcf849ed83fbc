"""In-process implementations of the shell's ports (:mod:`capicua.server.ports`).

- :class:`MemoryLog`: the event log in memory (tests, benchmarks).
- :class:`LocalBus`: frames to the sockets of this process.
- :class:`AudienceSinks`: a process's sinks by table and audience (the local
  fan-out both buses share).
- :class:`LoopClock`: ``time.time`` and the event loop's timers.

The event log in the SQL store is :class:`capicua.server.adapters.sql.StoreLog`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from capicua.server.ports import StaleAppend, TableInfo
from capicua.table.log import Projection
from capicua.table.protocol import ALL, ToGateway

log = logging.getLogger("capicua.store")


class MemoryLog:
    """:class:`~capicua.server.ports.EventLog` in memory (tests, benchmarks, a server
    without a database): fenced like the store, lost with the process."""

    def __init__(self) -> None:
        self.logs: dict[str, list[dict[str, Any]]] = {}
        self.healthy = True

    async def create(self, table_id: str, open_entry: dict[str, Any]) -> None:
        self.logs[table_id] = [open_entry]

    async def append(
        self, table_id: str, expected: int, entries: list[dict[str, Any]], projection: Projection | None,
        epoch: int,
    ) -> None:
        """In one process: fenced by ``expected`` (no lease is shared, ``epoch`` is not checked)."""
        log = self.logs[table_id]
        if len(log) != expected:
            raise StaleAppend(f"{table_id} holds {len(log)} entries, not {expected}")
        log.extend(json.loads(json.dumps(entries)))  # stored as JSON would be: no shared objects

    async def load(self, table_id: str) -> list[dict[str, Any]] | None:
        log = self.logs.get(table_id)
        return None if log is None else json.loads(json.dumps(log))

    async def info(self, table_id: str) -> TableInfo | None:
        return None

    async def records(self, table_id: str) -> list[dict[str, Any]] | None:
        return None


class AudienceSub:
    """One subscription: ``sink`` hears the ``audiences`` of table ``table_id`` until
    :meth:`close` (which tells ``drop``)."""

    def __init__(
        self, table_id: str, audiences: tuple[str, ...], sink: Callable[[ToGateway], None],
        drop: Callable[[AudienceSub], object],
    ) -> None:
        self.table_id = table_id
        self.audiences = audiences
        self.sink = sink
        self._drop = drop

    def close(self) -> None:
        self._drop(self)


class AudienceSinks:
    """The subscriptions of one process, by table and audience: whom a message to an
    audience of a table is handed to (``all``: every subscription of the table). A
    socket never hears another audience's messages."""

    def __init__(self) -> None:
        self.tables: dict[str, dict[str, set[AudienceSub]]] = {}

    def add(self, sub: AudienceSub) -> bool:
        """Hold ``sub``; True when it is its table's first."""
        table = self.tables.get(sub.table_id)
        first = table is None
        if table is None:
            table = self.tables[sub.table_id] = defaultdict(set)
        for a in sub.audiences:
            table[a].add(sub)
        return first

    def remove(self, sub: AudienceSub) -> bool:
        """Let ``sub`` go; True when its table has no subscription left."""
        table = self.tables.get(sub.table_id)
        if table is None:
            return False
        for a in sub.audiences:
            subs = table.get(a)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del table[a]
        if table:
            return False
        del self.tables[sub.table_id]
        return True

    def targets(self, table_id: str, audience: str) -> set[AudienceSub]:
        table = self.tables.get(table_id)
        if not table:
            return set()
        if audience == ALL:
            targets: set[AudienceSub] = set()
            for subs in table.values():
                targets |= subs
            return targets
        return set(table.get(audience, ()))

    @staticmethod
    def hand(targets: set[AudienceSub], table_id: str, message: ToGateway) -> None:
        for sub in targets:
            try:
                sub.sink(message)
            except Exception:  # one broken socket must not stop the table or the other sockets
                log.exception("a socket of table %s failed to take a frame", table_id)


class LocalBus:
    """:class:`~capicua.server.ports.Bus` for the sockets of this process: a message is
    handed to each sink as it is published (no copy, no serialisation)."""

    def __init__(self) -> None:
        self.sinks = AudienceSinks()

    def subscribe(
        self, table_id: str, audiences: tuple[str, ...], sink: Callable[[ToGateway], None]
    ) -> AudienceSub:
        sub = AudienceSub(table_id, audiences, sink, self.sinks.remove)
        self.sinks.add(sub)
        return sub

    def publish(self, table_id: str, audience: str, message: ToGateway) -> None:
        AudienceSinks.hand(self.sinks.targets(table_id, audience), table_id, message)


class _Handle:
    def __init__(self, handle: asyncio.TimerHandle) -> None:
        self.handle = handle

    def cancel(self) -> None:
        self.handle.cancel()


class LoopClock:
    """:class:`~capicua.server.ports.Clock` on the running event loop."""

    def now_ms(self) -> int:
        return int(time.time() * 1000)

    def call_at(self, at_ms: int, callback: Callable[[], None]) -> _Handle:
        delay = max(0.0, (at_ms - self.now_ms()) / 1000)
        return _Handle(asyncio.get_running_loop().call_later(delay, callback))

