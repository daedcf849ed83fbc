"""The ports of the table shell: narrow interfaces to the world outside a table.

- :class:`EventLog` stores table logs: fenced appends (the caller names how
  many entries it has seen; a stale append is refused) and loads.
- :class:`Bus` carries frames to the sockets of an audience of a table.
- :class:`Clock` tells the time and fires timers.
- :class:`BotPool` asks bots for moves, off the event loop.

Each has an in-process implementation (:mod:`capicua.server.adapters.memory`); a
cluster puts PostgreSQL and Redis behind the same interfaces.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from capicua.table.log import Projection


class StaleAppend(Exception):
    """Another writer appended to this table's log first: this copy of the table is stale."""


class LogUnavailable(Exception):
    """The log cannot be written now (read-only or full disk, a lost database)."""


@dataclass(frozen=True, slots=True)
class TableInfo:
    """The store's row of a table: enough to list it without loading its log."""

    id: str
    preset: str
    options: dict[str, Any]
    status: str
    scores: list[int]
    created_at: str
    updated_at: str
    seats: list[dict[str, Any]]
    match_result: dict[str, Any] | None


class EventLog(Protocol):
    async def create(self, table_id: str, open_entry: dict[str, Any]) -> None:
        """Store a new table whose log is ``[open_entry]``."""

    async def append(
        self, table_id: str, expected: int, entries: list[dict[str, Any]], projection: Projection | None
    ) -> None:
        """Append ``entries`` after the ``expected`` entries already stored, and update
        the table's row. Raises :class:`StaleAppend` or :class:`LogUnavailable`."""

    async def load(self, table_id: str) -> list[dict[str, Any]] | None:
        """The table's whole log (migrated to the current format), or ``None``."""

    async def info(self, table_id: str) -> TableInfo | None:
        """The table's row, without its log."""

    @property
    def healthy(self) -> bool:
        """False while the last write failed."""


class Subscription(Protocol):
    def close(self) -> None: ...


class Bus(Protocol):
    def subscribe(self, table_id: str, audiences: tuple[str, ...], sink: Callable[[str], None]) -> Subscription:
        """``sink(text)`` receives every frame published to one of ``audiences`` of the table
        (and to its ``all`` audience)."""

    def publish(self, table_id: str, audience: str, text: str) -> None: ...


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now_ms(self) -> int: ...

    def call_at(self, at_ms: int, callback: Callable[[], None]) -> TimerHandle: ...


class BotPool(Protocol):
    def ask(
        self, level: str, view: dict[str, Any], seed: int, answer: Callable[[dict[str, Any]], None],
    ) -> TimerHandle:
        """Ask a bot for its action in ``view``; ``answer`` gets the action (JSON) on the
        loop later, or ``{}`` when the bot failed or took too long. Cancelling the
        handle means no answer."""
