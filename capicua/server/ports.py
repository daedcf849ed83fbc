"""Every port of the server: the narrow interfaces between a table's owner, the
socket tier and the world outside them. Each is a :class:`typing.Protocol`; the
adapters implement them, and the composition root (:mod:`capicua.server.app`)
hands each part the ports it uses, typed, so mypy proves every adapter fits.

- :class:`EventLog` stores table logs: fenced appends (the caller names how
  many entries it has seen and the epoch of its lease; a stale append is refused) and loads.
- :class:`Leases` says which process owns a table: a lease with an epoch that grows
  with every new holder (the fencing token the log checks).
- :class:`MatchRecords` reads the records of a table's matches, as its appends stored them.
- :class:`Bus` carries a table's messages to the sockets of an audience
  (:data:`~capicua.table.protocol.ToGateway`: frames, what a socket hears, owner changes).
- :class:`TableRouter` is how the socket tier reaches a table: where it lives,
  and the :data:`~capicua.table.protocol.ToTable` messages for it.
- :class:`LiveMatches` answers what verifying a hand of a match being played needs.
- :class:`Clock` tells the time and fires timers.
- :class:`BotPool` asks bots for moves, off the event loop.
- :class:`GuestBook` finds, makes and renames guests (the socket tier's and the HTTP API's identity).
- :class:`Standings` tells a table its guests' levels and what a finished match gave them.
- :class:`HandEnds` is told every hand that ended at a table with players (the experto's analysis).

In-process implementations: :mod:`capicua.server.adapters.memory` (log, bus,
clock), :mod:`capicua.server.adapters.sql` (the log, records and guests in the
SQL store), :mod:`capicua.server.adapters.honours` (standings),
:mod:`capicua.server.adapters.botpool` (bots), :class:`capicua.server.registry.Tables`
(the router, the live matches), :class:`capicua.server.analyst.Analyst` (hand ends),
:class:`capicua.server.adapters.memory.LocalLeases` (one process owns every table). A cluster puts
PostgreSQL and Redis behind the same interfaces: :class:`capicua.server.adapters.leases.SqlLeases`
(leases in the database, on its clock).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from capicua.table.log import Projection
from capicua.table.protocol import Route, ToGateway, ToTable


class StaleAppend(Exception):
    """Another writer appended to this table's log first: this copy of the table is stale."""


class Fenced(StaleAppend):
    """The writer's lease of the table is gone: another process took it (a newer epoch).
    Nothing was written; this copy of the table must stop and say nothing more."""


class LogUnavailable(Exception):
    """The log cannot be written now (read-only or full disk, a lost database)."""


RETRY_S = (0.5, 1.0, 2.0, 5.0)  # waits between attempts while the store cannot be read or written


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
        self, table_id: str, expected: int, entries: list[dict[str, Any]], projection: Projection | None,
        epoch: int,
    ) -> None:
        """Append ``entries`` after the ``expected`` entries already stored, and update
        the table's row, by the holder of the table's lease at ``epoch``. A log whose
        leases are shared (a cluster) checks that epoch in the same transaction as it
        writes. Raises :class:`StaleAppend` (:class:`Fenced`: the lease is another's)
        or :class:`LogUnavailable`."""

    async def load(self, table_id: str) -> list[dict[str, Any]] | None:
        """The table's whole log (migrated to the current format), or ``None``."""

    async def info(self, table_id: str) -> TableInfo | None:
        """The table's row, without its log."""

    @property
    def healthy(self) -> bool:
        """False while the last write failed."""


@dataclass(frozen=True, slots=True)
class Lease:
    """Process ``owner`` runs table ``table`` under ``epoch``: the epoch grows by one
    each time the lease is taken (never reused), so an append made under an older
    one is refused. ``took_over``: taken from another owner whose lease ran out
    (it did not release it: it died, or it is paused)."""

    table: str
    owner: str
    epoch: int
    took_over: bool = False


@dataclass(frozen=True, slots=True)
class Holder:
    """Who holds a table's lease as the store reads it now: ``owner`` (``""`` once given
    up) for ``left_ms`` more on the store's clock (``<= 0``: it ran out or was given up,
    so the next process to want the table takes it)."""

    owner: str
    left_ms: int

    @property
    def live(self) -> bool:
        return self.left_ms > 0


class Leases(Protocol):
    """Which process owns each live table. A process runs a table only while it holds
    its lease, and renews it every :attr:`ttl_ms` / 3."""

    @property
    def owner(self) -> str:
        """This process, as an owner (``--node-id``)."""

    @property
    def ttl_ms(self) -> int:
        """How long a lease lasts unless renewed."""

    async def acquire(self, table_id: str) -> Lease | None:
        """Take the table's lease when it is free, ran out or is this process's own
        (its epoch one more than the last); else the live holder's lease (its
        ``owner`` another process). ``None``: no such table. Raises :class:`LogUnavailable`."""

    async def renew(self, held: Sequence[Lease]) -> list[Lease]:
        """Extend each of ``held`` still this process's at its epoch; returns the ones
        lost (another process took them). Raises :class:`LogUnavailable`."""

    async def release(self, lease: Lease) -> None:
        """Give the lease up (the table left memory): the next process to want the
        table takes it at once. Raises :class:`LogUnavailable`."""

    async def holders(self, table_ids: Sequence[str]) -> dict[str, Holder]:
        """Who holds each table's lease now and for how long still, read at once for
        many tables (a gateway watching the owners its sockets follow); a table whose
        lease was never taken is left out. Raises :class:`LogUnavailable`."""


class MatchRecords(Protocol):
    async def records(self, table_id: str) -> list[dict[str, Any]] | None:
        """Every match of the table, in order: ``{"number", "status", "scores", "record",
        "preset", "options"}`` (``record``: ``None`` before the match's first hand ends;
        the result: ``None`` for no such table). Raises :class:`LogUnavailable`."""


class Subscription(Protocol):
    def close(self) -> None: ...


class Bus(Protocol):
    def subscribe(
        self, table_id: str, audiences: tuple[str, ...], sink: Callable[[ToGateway], None]
    ) -> Subscription:
        """``sink(message)`` receives every message published to one of ``audiences`` of
        the table (and to its ``all`` audience)."""

    def publish(self, table_id: str, audience: str, message: ToGateway) -> None: ...


class TableRouter(Protocol):
    """The socket tier's only way to a table: it never holds one, nor reads its state."""

    async def route(self, table_id: str) -> Route | None:
        """Where the table lives (an owner loads it when no process runs it); ``None``:
        no such table. Raises :class:`LogUnavailable`."""

    def send(self, route: Route, message: ToTable) -> None:
        """Deliver ``message`` to the table ``route`` names. A table its owner no longer
        runs answers the message's socket :class:`~capicua.table.protocol.OwnerChanged`."""


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


class LiveMatches(Protocol):
    def hand_record(self, table_id: str, match_number: int | None, hand: int) -> dict[str, Any] | None:
        """When match ``match_number`` (``None``: the latest) of the table is being played
        here, the record :func:`capicua.table.fairness.verify_record_hand` needs of hand
        ``hand`` (:func:`capicua.table.fairness.hand_to_verify`: a hand in play raises
        :class:`~capicua.table.fairness.HandNotOver`); ``None`` otherwise (its records are
        in the store)."""


class Clock(Protocol):
    def now_ms(self) -> int: ...

    def call_at(self, at_ms: int, callback: Callable[[], None]) -> TimerHandle: ...


class BotPool(Protocol):
    def ask(
        self, level: str, view: dict[str, Any], seed: int, answer: Callable[[dict[str, Any]], None],
        pause: bool = True,
    ) -> TimerHandle:
        """Ask a bot for its action in ``view``; ``answer`` gets the action (JSON) on the
        loop later, or ``{}`` when the bot failed or took too long. Cancelling the
        handle means no answer. ``pause``: the answer waits the neighbour's thinking
        pause (not when the turn is asked again after the table moved process)."""


class GuestBook(Protocol):
    """The guests the store knows: a player id, a nickname and the hashes of its devices' tokens."""

    async def by_token(self, token: str) -> tuple[str, str, str] | None:
        """``(player, nickname, device)`` of the guest holding ``token``, or ``None``; the
        device is seen now. Raises :class:`LogUnavailable`."""

    async def create(self, nickname: str, label: str) -> tuple[str, str]:
        """A new guest and its first device (``label``: its browser): ``(player, token)``
        (the store keeps the token's hash only). Raises :class:`LogUnavailable`."""

    async def rename(self, player: str, nickname: str) -> None:
        """Raises :class:`LogUnavailable`."""


class Standings(Protocol):
    """What the standings say of a table's guests (shown at the table, docs/protocol.md)."""

    async def honours(self, table_id: str, match_number: int) -> list[dict[str, Any]]:
        """Per seat that rose a level or earned an achievement in that match (stored with
        its end): ``{"seat", "level_up", "achievements"}``. Raises :class:`LogUnavailable`."""

    async def levels(self, players: list[str]) -> dict[str, dict[str, Any]]:
        """Each guest's level, ``{"number", "name", "name_en"}``. Raises :class:`LogUnavailable`."""


class HandEnds(Protocol):
    def hand_ended(self, table_id: str, match_number: int, hand: int) -> None:
        """Hand ``hand`` of match ``match_number`` of a table with players ended and is stored."""
