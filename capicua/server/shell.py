"""The table shell: runs one :class:`~capicua.table.core.TableCore` on the event loop.

One asyncio task per table takes commands from the table's inbox one at a
time and, for each, in this order:

1. asks the core what changes (``core.handle(command, clock.now_ms())``);
2. appends the entries to the event log, naming how many it holds already
   (a stale append stops this copy of the table); while the log cannot be
   written the table is *paused*: it says so to everyone, keeps the change
   unsent and unsaid, and retries until the store is back;
3. publishes the frames through the bus (never before step 2 succeeded);
4. runs the effects: asks the bot pool, starts and cancels timers.

A bug in the core stops this table only: its sockets are told to reload and
the next hello loads it again from its log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any

from capicua.server.adapters.honours import HonoursSource, LevelSource
from capicua.server.ports import (
    BotPool,
    Bus,
    Clock,
    EventLog,
    LogUnavailable,
    StaleAppend,
    Subscription,
    TimerHandle,
)
from capicua.table import protocol
from capicua.table.core import (
    PUBLIC,
    AskBot,
    BotAnswer,
    CancelTimer,
    Command,
    Outcome,
    PlayerLevels,
    StartTimer,
    TableCore,
    TimerFired,
    conn_audience,
    seat_audience,
)
from capicua.table.protocol import Code, FromConn, Join, Leave

log = logging.getLogger("capicua.tables")
RETRY_S = (0.5, 1.0, 2.0, 5.0)  # waits between attempts while the store cannot be written


def dumps(frame: dict[str, Any]) -> str:
    return json.dumps(frame, separators=(",", ":"), ensure_ascii=False)


class TableShell:
    """One running table. Made by :class:`capicua.server.registry.Tables`."""

    def __init__(
        self,
        core: TableCore,
        stored: int,
        event_log: EventLog,
        bus: Bus,
        clock: Clock,
        bots: BotPool,
        on_stop: Callable[[TableShell], None],
    ) -> None:
        self.core = core
        self.id = core.id
        self.stored = stored  # entries of this table in the log
        self.log = event_log
        self.bus = bus
        self.clock = clock
        self.bots = bots
        self.on_stop = on_stop
        self.inbox: asyncio.Queue[Command] = asyncio.Queue()
        self.paused = False
        self.stopped = False
        self.idle_since: int | None = clock.now_ms()
        self._task: asyncio.Task[None] | None = None
        self._timers: dict[str, TimerHandle] = {}
        self._bot_tasks: set[TimerHandle] = set()  # bots asked, not answered yet
        self._subs: dict[int, tuple[str | None, Subscription | None, Callable[[str], None]]] = {}
        self._closers: dict[int, Callable[[], None]] = {}  # how to close each socket the table refuses
        # Told (table, match number, hand number) once a hand of a table with players
        # has ended and is stored: the experto's analysis (capicua.server.analyst).
        self.on_hand_end: Callable[[str, int, int], None] | None = None
        self._hand_told: tuple[int, int] | None = None
        self._levels_asked: set[tuple[int, str]] = set()  # (seat, player) whose level was asked
        self._level_reads: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------- running

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"table-{self.id}")

    def post(self, cmd: Command) -> None:
        if not self.stopped:
            self.inbox.put_nowait(cmd)

    def attach(self, conn: int, sink: Callable[[str], None], close: Callable[[], None] | None = None) -> None:
        """Let socket ``conn`` receive its own frames (before its hello is handled);
        ``close`` closes the socket when the table refuses its hello (``too_many``)."""
        sub = self.bus.subscribe(self.id, (conn_audience(conn),), sink)
        self._subs[conn] = (None, sub, sink)
        if close is not None:
            self._closers[conn] = close
        self.idle_since = None

    def conns(self) -> int:
        return len(self._subs)

    async def stop(self) -> None:
        self.stopped = True
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        for task in list(self._bot_tasks):
            task.cancel()
        for read in list(self._level_reads):
            read.cancel()
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        for _, sub, _ in self._subs.values():
            if sub is not None:
                sub.close()
        self._subs.clear()

    async def _run(self) -> None:
        while not self.stopped:
            if not await self._step(await self.inbox.get()):
                return

    async def _step(self, cmd: Command) -> bool:
        """One command, start to end (its outcome is not kept once it is out: an idle
        table holds no frame). False when the table stopped."""
        try:
            out = self.core.handle(cmd, self.clock.now_ms())
        except Exception:
            log.exception("table %s stopped on a fault; it reloads from its log on the next hello", self.id)
            await self._fail(Code.INTERNAL, "the table stopped on a server fault; reload")
            return False
        try:
            await self._persist(out)
        except StaleAppend:
            log.warning("table %s: another copy wrote its log; this one stops", self.id)
            await self._fail(Code.INTERNAL, "the table moved; reload")
            return False
        self._route(cmd)
        self._publish(out)
        self._drop_refused(cmd)
        await self._announce_honours(out)
        self._run_effects(out)
        self._tell_hand_end()
        self._ask_levels()
        return True

    async def _persist(self, out: Outcome) -> None:
        if not out.entries:
            return
        attempt = 0
        while True:
            try:
                await self.log.append(self.id, self.stored, out.entries, out.projection)
                break
            except LogUnavailable:
                if not self.paused:
                    self.paused = True
                    log.warning("table %s paused: the store cannot be written", self.id)
                    self._broadcast_direct(protocol.paused_frame(True))
                await asyncio.sleep(RETRY_S[min(attempt, len(RETRY_S) - 1)])
                attempt += 1
        self.stored += len(out.entries)
        if self.paused:
            self.paused = False
            log.info("table %s resumed: the store is back", self.id)
            self._broadcast_direct(protocol.paused_frame(False))

    def _broadcast_direct(self, frame: dict[str, Any]) -> None:
        text = dumps(frame)
        for conn in list(self._subs):
            self.bus.publish(self.id, conn_audience(conn), text)

    def _route(self, cmd: Command) -> None:
        """Subscribe each socket to its audience (its seat's, or the spectators')."""
        if isinstance(cmd, Leave):
            self._detach(cmd.conn)
            return
        for conn, (audience, sub, sink) in list(self._subs.items()):
            state = self.core.conns.get(conn)
            if state is None:
                continue
            want = seat_audience(state.seat) if state.seat is not None else PUBLIC
            if want != audience:
                if sub is not None:
                    sub.close()
                new = self.bus.subscribe(self.id, (conn_audience(conn), want), sink)
                self._subs[conn] = (want, new, sink)

    def _detach(self, conn: int) -> None:
        entry = self._subs.pop(conn, None)
        self._closers.pop(conn, None)
        if entry is not None and entry[1] is not None:
            entry[1].close()
        if not self._subs:
            self.idle_since = self.clock.now_ms()

    def _drop_refused(self, cmd: Command) -> None:
        """A hello the table refused (its error is sent): the socket leaves the table and closes."""
        if not isinstance(cmd, Join) or cmd.conn in self.core.conns or cmd.conn not in self._subs:
            return
        close = self._closers.get(cmd.conn)
        self._detach(cmd.conn)
        if close is not None:
            close()

    def _publish(self, out: Outcome) -> None:
        for audience, frame in out.frames:
            self.bus.publish(self.id, audience, dumps(frame))

    def _run_effects(self, out: Outcome) -> None:
        for eff in out.effects:
            if isinstance(eff, AskBot):
                self._ask(eff)
            elif isinstance(eff, StartTimer):
                old = self._timers.pop(eff.key, None)
                if old is not None:
                    old.cancel()
                key = eff.key
                self._timers[key] = self.clock.call_at(eff.at, lambda key=key: self._fire(key))  # type: ignore[misc]
            elif isinstance(eff, CancelTimer):
                handle = self._timers.pop(eff.key, None)
                if handle is not None:
                    handle.cancel()

    def _tell_hand_end(self) -> None:
        """Call :attr:`on_hand_end` once per ended hand (after it was stored)."""
        m = self.core.match
        if self.on_hand_end is None or m.phase not in ("hand_over", "match_over") or not m.hands:
            return
        key = (self.core.match_number, len(m.hands))
        if key != self._hand_told and self.core.human_seats():
            self._hand_told = key
            self.on_hand_end(self.id, *key)

    async def _announce_honours(self, out: Outcome) -> None:
        """Once a match's end is stored (its results with it), tell each seat what the
        match gave its guest: an ``honours`` frame per seat that rose a level or earned
        an achievement. A store that cannot be read now costs the announcement only."""
        p = out.projection
        if p is None or p.status != "finished" or p.record is None or not isinstance(self.log, HonoursSource):
            return
        try:
            found = await self.log.honours(self.id, p.match_number)
        except LogUnavailable:
            log.warning("table %s: the honours of match %d could not be read", self.id, p.match_number)
            return
        risen = []
        for h in found:
            frame = protocol.honours_frame(h["seat"], h["level_up"], h["achievements"])
            self.bus.publish(self.id, seat_audience(h["seat"]), dumps(frame))
            player = self.core.seats[h["seat"]].player
            if h["level_up"] is not None and player is not None:
                risen.append((h["seat"], player, h["level_up"]))
        if risen:
            self.post(PlayerLevels(tuple(risen)))  # the new level beside the name, for everyone

    def _ask_levels(self) -> None:
        """Read the standings' level of each guest newly seated (shown beside their name,
        docs/protocol.md): off the table's turn, told back as a :class:`PlayerLevels`."""
        if not isinstance(self.log, LevelSource):
            return
        seated = {(s.seat, s.player) for s in self.core.seats if s.is_human and s.player is not None}
        self._levels_asked &= seated  # a seat left and taken again is asked again
        want = sorted(
            (seat, player) for seat, player in seated
            if self.core.seats[seat].player_level is None and (seat, player) not in self._levels_asked
        )
        if not want:
            return
        self._levels_asked.update(want)
        read = asyncio.get_running_loop().create_task(self._read_levels(self.log, want))
        self._level_reads.add(read)
        read.add_done_callback(self._level_reads.discard)

    async def _read_levels(self, source: LevelSource, want: list[tuple[int, str]]) -> None:
        try:
            found = await source.levels([player for _, player in want])
        except Exception as exc:  # the store is down, or closing with the server: no level shown yet
            log.warning("table %s: the players' levels could not be read: %s", self.id, type(exc).__name__)
            self._levels_asked.difference_update(want)  # asked again after the next command
            return
        self.post(PlayerLevels(tuple((seat, player, found[player]) for seat, player in want if player in found)))

    def _fire(self, key: str) -> None:
        self._timers.pop(key, None)
        self.post(TimerFired(key))

    def _ask(self, eff: AskBot) -> None:
        handle: TimerHandle | None = None

        def answer(action: dict[str, Any], key: str = eff.key) -> None:
            if handle is not None:
                self._bot_tasks.discard(handle)
            self.post(BotAnswer(key, action))

        handle = self.bots.ask(eff.level, eff.view, eff.seed, answer)
        self._bot_tasks.add(handle)

    async def _fail(self, code: Code, message: str) -> None:
        self._broadcast_direct(protocol.error_frame(code, message, self.core.seq))
        self.on_stop(self)
        await self.stop()

    # ------------------------------------------------------------- intents

    def intent(self, conn: int, intent: protocol.Intent) -> None:
        """A socket's intent. While the table is paused a change is refused at once."""
        if self.paused:
            frame = protocol.error_frame(Code.PAUSED, "the table cannot save right now; try again", self.core.seq)
            self.bus.publish(self.id, conn_audience(conn), dumps(frame))
            return
        self.post(FromConn(conn, intent))
