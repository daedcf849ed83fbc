"""Every table this process runs: opens them, loads them lazily from their log,
finds them, and lets idle ones leave memory.

A table is in memory only while someone uses it. One nobody is connected to
for ``idle_ms`` (and that does not play on by itself) is stopped and dropped;
the next hello (or any lookup that needs it live) loads it again from its log,
exactly as it was. Nothing is rebuilt at startup: a restarted server loads each
table when its first player comes back. A load reads the log and replays it in
worker threads: one long log never stalls the other tables.

It is the socket tier's :class:`~capicua.server.ports.TableRouter`: a socket
asks where a table lives (:meth:`Tables.route`) and sends it messages
(:meth:`Tables.send`); in one process every table lives here.

A process runs a table only while it holds the table's lease
(:class:`~capicua.server.ports.Leases`): taken before the log is loaded (a table
whose lease another live process holds is not loaded: :meth:`Tables.route`
answers that owner), renewed every third of its time while the table is here,
given up when the table leaves memory or the process stops. A lease found lost
at renewal drops the table without a word (the new owner speaks for it); one
taken over from an owner that stopped renewing (it died, or it is paused) tells
the table's sockets, wherever they are, that the owner changed; they say their
hello again, and nobody is logged gone for it (:class:`~capicua.table.commands.TakeOver`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from typing import Any

from capicua.server import metrics
from capicua.server.adapters.leases import LocalLeases
from capicua.server.ports import (
    BotPool,
    Bus,
    Clock,
    EventLog,
    HandEnds,
    Lease,
    Leases,
    LogUnavailable,
    Standings,
)
from capicua.server.shell import TableShell
from capicua.table.commands import Reopen, TakeOver
from capicua.table.core import CoreConfig, TableCore
from capicua.table.log import DEFAULT_GRACE, DEFAULT_TURN_TIMER, Open, read_log
from capicua.table.protocol import ALL, OwnerChanged, Route, ToTable, conn_audience

log = logging.getLogger("capicua.tables")


def new_table_id() -> str:
    """``t_`` and 128 random bits: a private table's link is its id, so it must be unguessable."""
    return "t_" + secrets.token_urlsafe(16)


class Tables:
    def __init__(
        self,
        event_log: EventLog,
        bus: Bus,
        clock: Clock,
        bots: BotPool,
        config: CoreConfig | None = None,
        idle_ms: int = 10 * 60_000,
        standings: Standings | None = None,
        hand_ends: HandEnds | None = None,
        leases: Leases | None = None,
    ) -> None:
        self.log = event_log
        self.bus = bus
        self.clock = clock
        self.bots = bots
        self.config = config or CoreConfig()
        self.idle_ms = idle_ms
        self.shells: dict[str, TableShell] = {}
        self._loading: dict[str, asyncio.Future[TableShell | Lease | None]] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self.standings = standings  # given to every shell
        self.hand_ends = hand_ends  # given to every shell
        self.leases: Leases = leases or LocalLeases()  # None: one process, every table its own
        self.owner = self.leases.owner  # this process, as the owner a Route names
        self.held: dict[str, Lease] = {}  # the leases of the tables here (and being loaded)
        self._renewer: asyncio.Task[None] | None = None
        self.closing = False  # stopping: no table is loaded any more

    # ------------------------------------------------------------ opening

    async def open(
        self,
        preset: str,
        options: dict[str, Any],
        seats: list[dict[str, Any]],
        private: bool = False,
        host: str | None = None,
        seed: str | None = None,
        grace: int = DEFAULT_GRACE,
        turn_timer: int = DEFAULT_TURN_TIMER,
    ) -> TableShell:
        """A new table (``seats``: one entry per seat, see :class:`~capicua.table.seating.Seat`)."""
        table_id = new_table_id()
        secret = secrets.token_hex(32)
        opening = Open(
            table_id, preset, options, secret, tuple(seats), private, host,
            seed=seed, grace=grace, turn_timer=turn_timer, at=self.clock.now_ms(),
        )
        core = TableCore(opening, self.config)  # validates the game and the seats before anything is stored
        await self.log.create(table_id, opening.to_json())
        lease = await self.leases.acquire(table_id)
        if lease is None or lease.owner != self.owner:  # a new id: nobody else can hold it
            raise LogUnavailable(f"the lease of the new table {table_id} was not granted")
        self._hold(lease)
        return self._run(core, 1, lease)

    def _run(self, core: TableCore, stored: int, lease: Lease) -> TableShell:
        shell = TableShell(
            core, stored, lease, self.log, self.bus, self.clock, self.bots, self.forget, self.standings,
            self.hand_ends,
        )
        self.shells[core.id] = shell
        shell.start()
        if lease.took_over:
            metrics.lease_taken_over()
            # Sockets that heard the owner before (on any gateway) now follow this one
            # and say their hello again: nobody is logged gone for the failover.
            self.bus.publish(core.id, ALL, OwnerChanged(core.id, self.owner))
            shell.post(TakeOver())
        else:
            shell.post(Reopen())
        return shell

    def _hold(self, lease: Lease) -> None:
        """Keep ``lease`` renewed from now until its table leaves (or the process stops)."""
        self.held[lease.table] = lease
        if self._renewer is None:
            self._renewer = asyncio.get_running_loop().create_task(self._renew_loop(), name="capicua-leases")

    # ------------------------------------------------------------ finding

    async def route(self, table_id: str) -> Route | None:
        """Where the table lives: the process holding its lease, or here, loaded when no
        process runs it (``None``: no such table)."""
        found = await self._find(table_id)
        if found is None:
            return None
        return Route(table_id, found.owner if isinstance(found, Lease) else self.owner)

    def send(self, route: Route, message: ToTable) -> None:
        """Deliver a socket's message to the table. One that stopped since the socket found
        it (a fault, a stale copy) is not here: the socket is told its owner changed."""
        shell = self.shells.get(route.table) if route.owner == self.owner else None
        if shell is None:
            self.bus.publish(route.table, conn_audience(message.conn), OwnerChanged(route.table, None))
            return
        shell.receive(message)

    def hand_record(self, table_id: str, match_number: int | None, hand: int) -> dict[str, Any] | None:
        """:class:`~capicua.server.ports.LiveMatches`: from the table when it runs here."""
        shell = self.shells.get(table_id)
        return None if shell is None else shell.hand_record(match_number, hand)

    async def get(self, table_id: str) -> TableShell | None:
        """The running table, loaded from its log when it is not in memory (``None``: no
        such table, or another process runs it)."""
        found = await self._find(table_id)
        return found if isinstance(found, TableShell) else None

    async def _find(self, table_id: str) -> TableShell | Lease | None:
        """The table running here, loaded when no process runs it; the live lease of
        another process that runs it; ``None``: no such table."""
        shell = self.shells.get(table_id)
        if shell is not None:
            return shell
        pending = self._loading.get(table_id)
        if pending is not None:
            return await asyncio.shield(pending)
        if self.closing:  # a socket following its stopped table waits until the process is gone
            raise LogUnavailable("the server is stopping")
        fut: asyncio.Future[TableShell | Lease | None] = asyncio.get_running_loop().create_future()
        self._loading[table_id] = fut
        try:
            found = await self._load(table_id)
            fut.set_result(found)
            return found
        except BaseException as exc:
            fut.set_exception(exc)
            fut.exception()  # retrieved: a failed load is reported to this caller only
            raise
        finally:
            del self._loading[table_id]

    async def _load(self, table_id: str) -> TableShell | Lease | None:
        """Take the table's lease, then load it: never before, so no two processes run it."""
        lease = await self.leases.acquire(table_id)
        if lease is None:
            return None
        if lease.owner != self.owner:
            return lease
        # Renewed while the log is read and replayed; a load that fails leaves it
        # held by no table, and the next renewal gives it up.
        self._hold(lease)
        entries = await self.log.load(table_id)  # read in the log's own threads
        if entries is None:
            return None
        core = await asyncio.to_thread(self._replay, entries)
        return self._run(core, len(entries), lease)

    def _replay(self, entries: list[dict[str, Any]]) -> TableCore:
        """The table its log describes (in a worker thread: a long log takes a while)."""
        return TableCore.from_log(read_log(entries), self.config)

    async def summary(self, table_id: str) -> dict[str, Any] | None:
        """The public summary, from memory or from the store's row (never loading the table)."""
        shell = self.shells.get(table_id)
        if shell is not None:
            return shell.core.summary(self.clock.now_ms())
        info = await self.log.info(table_id)
        if info is None:
            return None
        return {
            "id": info.id, "preset": info.preset, "status": info.status, "scores": info.scores,
            "seats": info.seats, "match_result": info.match_result,
            "created_at": info.created_at, "updated_at": info.updated_at,
        }

    # ------------------------------------------------------------ leaving

    def forget(self, shell: TableShell) -> None:
        """The table left this process (its lease is given up at the next renewal)."""
        if self.shells.get(shell.id) is shell:
            del self.shells[shell.id]

    async def _release(self, table_id: str) -> None:
        lease = self.held.pop(table_id, None)
        if lease is None:
            return
        try:
            await self.leases.release(lease)
        except LogUnavailable as exc:  # it runs out by itself within its time: the table waits that long
            log.warning("the lease of table %s could not be given up: %s", lease.table, exc)

    async def renew(self) -> int:
        """Give up the leases of tables no longer here, renew the others; a table whose
        lease was lost (another process took it after this one failed to renew in
        time) is dropped without a word. Returns how many were lost."""
        for table_id in [t for t in self.held if t not in self.shells and t not in self._loading]:
            await self._release(table_id)
        if not self.held:
            return 0
        lost = await self.leases.renew(list(self.held.values()))
        for lease in lost:
            if self.held.get(lease.table) is not lease:
                continue  # given up or taken again meanwhile
            del self.held[lease.table]
            log.warning("table %s: its lease was lost to another process; dropped here", lease.table)
            shell = self.shells.pop(lease.table, None)
            if shell is not None and shell.lease is lease:
                await shell.drop()
        return len(lost)

    async def _renew_loop(self) -> None:
        every = self.leases.ttl_ms / 3000
        while True:
            await asyncio.sleep(every)
            try:
                await self.renew()
            except LogUnavailable as exc:
                log.warning("the tables' leases could not be renewed: %s", exc)
            except Exception:
                log.exception("renewing the tables' leases failed")

    def idle(self, now: int) -> list[TableShell]:
        """Tables nobody has been connected to for ``idle_ms`` and that do not play on by themselves."""
        out = []
        for shell in self.shells.values():
            if shell.conns() or shell.idle_since is None or now - shell.idle_since < self.idle_ms:
                continue
            core = shell.core
            plays_alone = not core.human_seats() and core.status == "playing"
            if not plays_alone and not shell.paused and shell.inbox.empty():
                out.append(shell)
        return out

    async def sweep(self) -> int:
        """Stop and drop the idle tables; returns how many left memory."""
        gone = self.idle(self.clock.now_ms())
        for shell in gone:
            self.shells.pop(shell.id, None)
            await shell.stop()
            await self._release(shell.id)  # once stopped: it appends nothing more
        return len(gone)

    def start_sweeping(self, every_s: float = 30.0) -> None:
        async def loop() -> None:
            while True:
                await asyncio.sleep(every_s)
                try:
                    n = await self.sweep()
                    if n:
                        log.info("%d idle tables left memory", n)
                except Exception:
                    log.exception("sweeping idle tables failed")

        self._sweeper = asyncio.get_running_loop().create_task(loop(), name="capicua-sweeper")

    async def close(self) -> None:
        """Stop every table and give up its lease (another process may take it at once)."""
        self.closing = True
        for task in (self._sweeper, self._renewer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for shell in list(self.shells.values()):
            await shell.stop()
        self.shells.clear()
        for table_id in list(self.held):
            await self._release(table_id)
