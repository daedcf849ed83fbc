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
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from typing import Any

from capicua.server.ports import BotPool, Bus, Clock, EventLog, HandEnds, Standings
from capicua.server.shell import TableShell
from capicua.table.core import CoreConfig, Reopen, TableCore
from capicua.table.log import DEFAULT_GRACE, DEFAULT_TURN_TIMER, Open, read_log
from capicua.table.protocol import OwnerChanged, Route, ToTable, conn_audience

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
    ) -> None:
        self.log = event_log
        self.bus = bus
        self.clock = clock
        self.bots = bots
        self.config = config or CoreConfig()
        self.idle_ms = idle_ms
        self.shells: dict[str, TableShell] = {}
        self._loading: dict[str, asyncio.Future[TableShell | None]] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self.standings = standings  # given to every shell
        self.hand_ends = hand_ends  # given to every shell
        self.owner = "o_" + secrets.token_hex(6)  # this process, as the owner a Route names

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
        return self._run(core, 1)

    def _run(self, core: TableCore, stored: int) -> TableShell:
        shell = TableShell(
            core, stored, self.log, self.bus, self.clock, self.bots, self.forget, self.standings, self.hand_ends,
        )
        self.shells[core.id] = shell
        shell.start()
        shell.post(Reopen())
        return shell

    # ------------------------------------------------------------ finding

    async def route(self, table_id: str) -> Route | None:
        """Where the table lives: here, loaded when it is not in memory (``None``: no such table)."""
        shell = await self.get(table_id)
        return None if shell is None else Route(table_id, self.owner)

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
        """The running table, loaded from its log when it is not in memory."""
        shell = self.shells.get(table_id)
        if shell is not None:
            return shell
        pending = self._loading.get(table_id)
        if pending is not None:
            return await asyncio.shield(pending)
        fut: asyncio.Future[TableShell | None] = asyncio.get_running_loop().create_future()
        self._loading[table_id] = fut
        try:
            entries = await self.log.load(table_id)  # read in the log's own threads
            shell = None
            if entries is not None:
                core = await asyncio.to_thread(self._replay, entries)
                shell = self._run(core, len(entries))
            fut.set_result(shell)
            return shell
        except BaseException as exc:
            fut.set_exception(exc)
            fut.exception()  # retrieved: a failed load is reported to this caller only
            raise
        finally:
            del self._loading[table_id]

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
        if self.shells.get(shell.id) is shell:
            del self.shells[shell.id]

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
            self.forget(shell)
            await shell.stop()
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
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        for shell in list(self.shells.values()):
            await shell.stop()
        self.shells.clear()
