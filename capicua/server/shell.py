"""The table shell: runs one :class:`~capicua.table.core.TableCore` on the event loop.

One asyncio task per table takes commands from the table's inbox one at a
time and, for each, in this order:

1. asks the core what changes (``core.handle(command, clock.now_ms())``);
2. appends the entries to the event log, naming how many it holds already
   and the epoch of the table's lease (a stale append stops this copy of the
   table; a fenced one, made after another process took the lease, drops it
   without a word: nothing of it was stored); while the log cannot be
   written the table is *paused*: it says so to everyone, keeps the change
   unsent and unsaid, and retries until the store is back;
3. tells each socket whose audience changed what it hears now (a
   :class:`~capicua.table.protocol.Hears` to ``conn:ID``), and publishes the
   frames through the bus (never before step 2 succeeded);
4. runs the effects: asks the bot pool, starts and cancels timers.

The socket tier reaches a table only by :meth:`TableShell.receive` (through
:class:`capicua.server.registry.Tables`, the router) and hears it only on the
bus: the shell holds no socket, and no socket reads the shell.

A bug in the core stops this table only: its sockets are told to reload (and
that the table left its owner) and the next hello loads it again from its log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any

import orjson

from capicua.server.ports import (
    RETRY_S,
    BotPool,
    Bus,
    Clock,
    EventLog,
    Fenced,
    HandEnds,
    Lease,
    LogUnavailable,
    StaleAppend,
    Standings,
    TimerHandle,
)
from capicua.table import protocol
from capicua.table.commands import (
    AskBot,
    BotAnswer,
    CancelTimer,
    Command,
    Outcome,
    PlayerLevels,
    StartTimer,
    TimerFired,
)
from capicua.table.core import TableCore
from capicua.table.fairness import hand_to_verify
from capicua.table.log import write_log
from capicua.table.protocol import (
    ALL,
    PUBLIC,
    Code,
    ConnId,
    Frame,
    FromConn,
    Hears,
    Join,
    Leave,
    OwnerChanged,
    ToTable,
    conn_audience,
    seat_audience,
)

log = logging.getLogger("capicua.tables")


def dumps(frame: dict[str, Any]) -> str:
    """A frame as JSON text: what ``json.dumps(frame, separators=(",", ":"),
    ensure_ascii=False)`` writes, byte for byte, for what frames hold (objects with
    string keys, arrays, strings, integers, booleans, null), written by orjson in a
    fifth of the time (a seat's view is ~2 KB, and every event sends one). What
    orjson refuses (a key that is not a string, an integer past 64 bits, a lone
    surrogate) is written by :mod:`json`, as it was."""
    try:
        return orjson.dumps(frame).decode()
    except orjson.JSONEncodeError:
        return json.dumps(frame, separators=(",", ":"), ensure_ascii=False)


class TableShell:
    """One running table. Made by :class:`capicua.server.registry.Tables`."""

    def __init__(
        self,
        core: TableCore,
        stored: int,
        lease: Lease,
        event_log: EventLog,
        bus: Bus,
        clock: Clock,
        bots: BotPool,
        on_stop: Callable[[TableShell], None],
        standings: Standings | None = None,
        hand_ends: HandEnds | None = None,
    ) -> None:
        self.core = core
        self.id = core.id
        self.stored = stored  # entries of this table in the log
        self.lease = lease  # this process runs the table under it; appends carry its epoch
        self.log = event_log
        self.bus = bus
        self.clock = clock
        self.bots = bots
        self.on_stop = on_stop
        self.standings = standings  # None: no standings (a log in memory): no honours, no levels
        # Told (table, match number, hand number) once a hand of a table with players
        # has ended and is stored: the experto's analysis (capicua.server.analyst).
        self.hand_ends = hand_ends
        self.inbox: asyncio.Queue[Command] = asyncio.Queue()
        self.paused = False
        self.stopped = False
        self.idle_since: int | None = clock.now_ms()
        self._task: asyncio.Task[None] | None = None
        self._timers: dict[str, TimerHandle] = {}
        self._bot_tasks: set[TimerHandle] = set()  # bots asked, not answered yet
        # Every socket that said hello here and has not left, and the audience it was
        # told it hears besides its own (None: not told yet).
        self._heard: dict[ConnId, str | None] = {}
        self._hand_told: tuple[int, int] | None = None
        self._levels_asked: set[tuple[int, str]] = set()  # (seat, player) whose level was asked
        self._level_reads: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------- running

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"table-{self.id}")

    def post(self, cmd: Command) -> None:
        if not self.stopped:
            self.inbox.put_nowait(cmd)

    def receive(self, message: ToTable) -> None:
        """A message of the socket tier. The socket already hears ``conn:ID``. While the
        table is paused a hello is told so at once (its welcome waits until the table
        can save) and an intent is refused at once."""
        if self.stopped:
            return
        if isinstance(message, Join):
            self._heard.setdefault(message.conn, None)
            self.idle_since = None
            if self.paused:
                self._send(conn_audience(message.conn), protocol.paused_frame(True))
        elif isinstance(message, FromConn) and self.paused:
            frame = protocol.error_frame(Code.PAUSED, "the table cannot save right now; try again", self.core.seq)
            self._send(conn_audience(message.conn), frame)
            return
        self.post(message)

    def hand_record(self, match_number: int | None, hand: int) -> dict[str, Any] | None:
        """What verifying hand ``hand`` of the match being played needs, when it is match
        ``match_number`` (``None``: whichever); read between the table's steps, so never
        half-changed. Raises :class:`~capicua.table.fairness.HandNotOver`."""
        if match_number not in (None, self.core.match_number):
            return None
        return hand_to_verify(self.core.match, hand)

    def conns(self) -> int:
        """Sockets that said hello here and have not left."""
        return len(self._heard)

    async def stop(self) -> None:
        if not self.stopped:
            # Its sockets stop hearing it; what they say next is answered by their gateway.
            self.bus.publish(self.id, ALL, OwnerChanged(self.id, None))
        await self.drop()

    async def drop(self) -> None:
        """Stop without a word: the lease is another process's now, which speaks for the
        table (its sockets, on a bus shared with it, must hear nothing of this copy)."""
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
            # Its own fault was logged where it stopped (_run); here it only has to be over.
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        self._heard.clear()

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
        except Fenced:
            log.warning("table %s: its lease was taken by another process; this copy drops it", self.id)
            self.on_stop(self)
            await self.drop()
            return False
        except StaleAppend:
            log.warning("table %s: another copy wrote its log; this one stops", self.id)
            await self._fail(Code.INTERNAL, "the table moved; reload")
            return False
        self._route(cmd)
        self._publish(out)
        self._drop_refused(cmd)
        if isinstance(cmd, Join | Leave) and not self._heard:
            self.idle_since = self.clock.now_ms()
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
                await self.log.append(
                    self.id, self.stored, write_log(out.entries), out.projection, self.lease.epoch
                )
                break
            except LogUnavailable:
                if not self.paused:
                    self.paused = True
                    log.warning("table %s paused: the store cannot be written", self.id)
                    self._send(ALL, protocol.paused_frame(True))
                await asyncio.sleep(RETRY_S[min(attempt, len(RETRY_S) - 1)])
                attempt += 1
        self.stored += len(out.entries)
        if self.paused:
            self.paused = False
            log.info("table %s resumed: the store is back", self.id)
            self._send(ALL, protocol.paused_frame(False))

    def _send(self, audience: str, frame: dict[str, Any]) -> None:
        self.bus.publish(self.id, audience, Frame(dumps(frame), self.core.seq))

    def _route(self, cmd: Command) -> None:
        """Tell each socket whose audience changed what it hears now (its seat's, or the spectators')."""
        if isinstance(cmd, Leave):
            self._heard.pop(cmd.conn, None)
            return
        for conn, heard in list(self._heard.items()):
            state = self.core.conns.get(conn)
            if state is None:
                continue
            want = seat_audience(state.seat) if state.seat is not None else PUBLIC
            if want != heard:
                self._heard[conn] = want
                self.bus.publish(self.id, conn_audience(conn), Hears(want))

    def _drop_refused(self, cmd: Command) -> None:
        """A hello the table refused (its error is sent): the socket leaves the table and closes."""
        if not isinstance(cmd, Join) or cmd.conn in self.core.conns or cmd.conn not in self._heard:
            return
        del self._heard[cmd.conn]
        self.bus.publish(self.id, conn_audience(cmd.conn), Hears(None))

    def _publish(self, out: Outcome) -> None:
        seq = self.core.seq
        for audience, frame in out.frames:
            self.bus.publish(self.id, audience, Frame(dumps(frame), seq))

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
        """Tell :attr:`hand_ends` once per ended hand (after it was stored)."""
        m = self.core.match
        if self.hand_ends is None or m.phase not in ("hand_over", "match_over") or not m.hands:
            return
        key = (self.core.match_number, len(m.hands))
        if key != self._hand_told and self.core.human_seats():
            self._hand_told = key
            self.hand_ends.hand_ended(self.id, *key)

    async def _announce_honours(self, out: Outcome) -> None:
        """Once a match's end is stored (its results with it), tell each seat what the
        match gave its guest: an ``honours`` frame per seat that rose a level or earned
        an achievement. A store that cannot be read now costs the announcement only."""
        p = out.projection
        if p is None or p.status != "finished" or p.record is None or self.standings is None:
            return
        try:
            found = await self.standings.honours(self.id, p.match_number)
        except LogUnavailable:
            log.warning("table %s: the honours of match %d could not be read", self.id, p.match_number)
            return
        risen = []
        for h in found:
            self._send(seat_audience(h["seat"]), protocol.honours_frame(h["seat"], h["level_up"], h["achievements"]))
            player = self.core.seats[h["seat"]].player
            if h["level_up"] is not None and player is not None:
                risen.append((h["seat"], player, h["level_up"]))
        if risen:
            self.post(PlayerLevels(tuple(risen)))  # the new level beside the name, for everyone

    def _ask_levels(self) -> None:
        """Read the standings' level of each guest newly seated (shown beside their name,
        docs/protocol.md): off the table's turn, told back as a :class:`PlayerLevels`."""
        if self.standings is None:
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
        read = asyncio.get_running_loop().create_task(self._read_levels(self.standings, want))
        self._level_reads.add(read)
        read.add_done_callback(self._level_reads.discard)

    async def _read_levels(self, source: Standings, want: list[tuple[int, str]]) -> None:
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

        handle = self.bots.ask(eff.level, eff.view, eff.seed, answer, pause=not eff.again)
        self._bot_tasks.add(handle)

    async def _fail(self, code: Code, message: str) -> None:
        self._send(ALL, protocol.error_frame(code, message, self.core.seq))
        self.on_stop(self)
        await self.stop()
