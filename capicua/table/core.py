"""The table core: one table as a synchronous function of commands, with no I/O.

``TableCore.handle(command, now)`` takes what happened (a socket joined or
left, a player's intent, a bot's answer, a timer firing, the table being
loaded again or taken over by another process: :mod:`capicua.table.commands`) and the time in milliseconds,
and returns an :class:`~capicua.table.commands.Outcome`:

- ``entries``: the log entries to append (see :mod:`capicua.table.log`);
- ``frames``: ``(audience, frame)`` pairs to publish once the entries are
  stored. Audiences: ``seat:N`` (the sockets of seat N), ``public`` (the
  spectators), ``all`` (everyone at the table) and ``conn:ID`` (one socket:
  the answer to its hello, its errors);
- ``effects``: what the shell must start: ``AskBot``, ``StartTimer``,
  ``CancelTimer``.

It never touches a socket, a database or the clock, and it is deterministic:
every choice it makes (a match seed, a neighbour for a seat, who talks) comes
from the table's secret and the log, so :meth:`TableCore.from_log` rebuilds
the same table and the same frames from the entries it made. A refused
command returns one error frame and no entry: nothing changes.

This module holds the table's state, the dispatch of commands and intents,
and :meth:`TableCore.apply`, the one place an entry changes the state. What
each command does lives with its concern, as functions over the table (none
holds a reference to it: a table is freed by reference counting alone, which
the server's frozen heap relies on, see ``capicua.server.runtime.heap``):
:mod:`~capicua.table.presence` (hellos, leaving, watchers),
:mod:`~capicua.table.hands` (moves, the next hand),
:mod:`~capicua.table.lobby` (seats and the host's settings),
:mod:`~capicua.table.aftermatch` ("Otra partida", gone seats),
:mod:`~capicua.table.talk` (phrases, the neighbours' comments),
:mod:`~capicua.table.timers` (deadlines and the shell's timers) and
:mod:`~capicua.table.botmoves` (what the bot pool is asked to play).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, assert_never

from capicua.engine import Match, make_rules, parse_action
from capicua.engine.rules import Rules
from capicua.table import (
    aftermatch,
    botmoves,
    hands,
    lobby,
    log,
    neighbours,
    presence,
    protocol,
    talk,
    timers,
)
from capicua.table.commands import (
    BotAnswer,
    Command,
    Frames,
    Outcome,
    PlayerLevels,
    Reopen,
    TakeOver,
    TimerFired,
)
from capicua.table.log import Entry, Projection, match_seed
from capicua.table.presence import Conn, player_seat
from capicua.table.protocol import (
    ALL,
    PUBLIC,
    Code,
    ConnId,
    FromConn,
    Join,
    Leave,
    ProtocolError,
    conn_audience,
    seat_audience,
)
from capicua.table.seating import (
    BOT,
    HUMAN,
    STAND_IN,
    STAND_IN_LEVEL,
    Seat,
)

HISTORY = 64  # events kept for a reconnecting client; more missed: a fresh sync
TIMEOUT = "timeout"  # a move the stand-in made because the player's turn ran out (the log's ``by``)
AUTO = "auto"  # who made a pass or a draw: nobody, they are automatic
AUTOMATIC = ("pass", "draw")


@dataclass(frozen=True, slots=True)
class CoreConfig:
    """Settings of the running server, not of the table (not logged: the entries a
    table makes with them replay the same under any other settings)."""

    auto_next_ms: int = 1500  # a table of neighbours only deals the next hand after this
    stand_in_level: str = STAND_IN_LEVEL
    max_watchers: int = 64  # sockets watching one table; the next hello gets too_many
    # A seat whose last socket closed and that comes back within this long was never
    # gone: nothing is logged (a flicker of the network, a reload of the page).
    presence_debounce_ms: int = 5_000
    # ... and this long when its socket was closed by a draining process (a ``moving``
    # Leave) or the table was handed over by one (a ``handover`` entry): the page comes
    # back through the load balancer, its reconnects backing off 0.5, 1, 2, 4, 8 s
    # (docs/protocol.md), so this covers four failed tries and most of a fifth.
    moving_ms: int = 15_000
    # A change of the watchers' count alone is told to the table at most this often.
    watchers_note_ms: int = 1_000


class TableCore:
    """One table. Build it from its ``open`` entry (a new table) or with :meth:`from_log`."""

    def __init__(self, opening: log.Open, config: CoreConfig | None = None) -> None:
        self.config = config or CoreConfig()
        self.id: str = opening.table
        self.secret: str = opening.secret
        self.preset: str = opening.preset
        self.options: dict[str, Any] = dict(opening.options)
        self.rules, self._describe = _rules(self.preset, self.options)
        self.private: bool = opening.private
        self.host: str | None = opening.host
        self.grace: int = opening.grace
        self.turn_timer: int = opening.turn_timer
        self.seats = [Seat.from_entry(dict(s)) for s in opening.seats]
        if len(self.seats) != self.rules.players:
            raise ValueError(f"{self.preset} has {self.rules.players} seats, the log names {len(self.seats)}")
        self.status = "lobby" if self.private else "playing"  # lobby | playing | finished
        self.match_number = 1
        self.match = Match(self.rules, opening.seed or match_seed(self.secret, 1))
        self.seq = 0  # protocol sequence number: one per game event
        self.batch_first = 0
        self.log_seq = 1  # entries applied (the open entry is the first)
        # The last events as JSON text: a thousand tables' recent events kept as dicts
        # were most of the objects the garbage collector walked; text is not walked.
        self.history: deque[tuple[int, str]] = deque(maxlen=HISTORY)
        # Watchers of a log written before they left it (its ``watchers`` entries): only
        # to replay that log's spectators' frames and talk as they were. 0 for newer logs.
        self._logged_watchers = 0
        self.ready: set[int] = set()  # seats that said "Siguiente mano" (or, after the match, "Otra partida")
        self.left_to_stand_in: set[int] = set()  # after the match: gone seats the host left to their stand-in
        self.turn_since = opening.at  # when the wait for the present turn (or hand) began
        self.resume_floor = 0  # no deadline ends before this (the last reload's time + timers.RESUME_MIN_MS)
        self._clock = self.turn_since  # the time of the command (or entry) being handled
        self.created_at = self.updated_at = opening.at
        self.timed_out: tuple[int, int] | None = None  # (seat, seq) whose turn ran out
        # Live state, not the table's: sockets and what the shell was asked to do are
        # gone after a restart (the effects are asked again by the first command).
        self.conns: dict[ConnId, Conn] = {}
        # Seats whose last socket closed at that time, not logged until they stay away
        # for CoreConfig.presence_debounce_ms (presence.away_timers).
        self.leaving: dict[int, int] = {}
        self.moving: set[int] = set()  # ... those whose socket moved (CoreConfig.moving_ms)
        self.handed_over = False  # the last entry is a ``handover``: loaded, the seats keep their presence
        self.armed_timers: dict[str, int] = {}  # timers the shell runs, by key, and when they fire (timers.settle)
        self.asked_bot: str | None = None  # the key of the move the bot pool was asked for (botmoves.settle)
        self.ask_again = False  # the next bot asked is a turn in flight when the table moved here
        self.table_told_at = 0  # when the last table frame was sent
        self._last_table: tuple[Any, ...] = ()  # what the last table state sent showed
        self._last_table = self._table_key()
        self._projected = self._projection_key()

    # ------------------------------------------------------------ building

    @classmethod
    def from_log(
        cls,
        entries: Iterable[Entry],
        config: CoreConfig | None = None,
        frames: Frames | None = None,
    ) -> TableCore:
        """The table the entries describe (as :func:`capicua.table.log.read_log` reads
        them). Only its state is built: with ``frames``, the frames it sent while making
        them (but the per-socket ones) are appended there too (a replay's, a test's)."""
        it = iter(entries)
        first = next(it, None)
        if not isinstance(first, log.Open):
            raise log.LogError("a table log begins with an open entry")
        core = cls(first, config)
        for entry in it:
            core.apply(entry, frames)
        return core

    # ------------------------------------------------------------ reading

    def table_state(self, now: int | None = None) -> dict[str, Any]:
        """The table around the match, as every client sees it (``table`` frames);
        a deadline's ``left`` counted at ``now`` (default: the command being handled)."""
        host_seat = next((s.seat for s in self.seats if s.player is not None and s.player == self.host), None)
        return {
            "id": self.id,
            "preset": self.preset,
            "rules": self._describe,
            "private": self.private,
            "status": self.status,
            "host_seat": host_seat,
            "seats": [s.public() for s in self.seats],
            "watchers": self.watchers,
            "settings": {"grace": self.grace, "turn_timer": self.turn_timer},
            "match_number": self.match_number,
            "deadline": timers.deadline(self, self._clock if now is None else now),
            "rematch": aftermatch.check(self).public() if self.status == "finished" else None,
        }

    def summary(self, now: int | None = None) -> dict[str, Any]:
        """The table state plus the match's public facts (``GET /api/tables/{id}``)."""
        m = self.match
        return {
            **self.table_state(now),
            "phase": m.phase,
            "hand_number": len(m.hands),
            "scores": list(m.scores),
            "seq": self.seq,
            "match_result": m.match_result,
            "created_at": _iso(self.created_at),
            "updated_at": _iso(self.updated_at),
        }

    def seat_of(self, player: str | None) -> int | None:
        if player is None:
            return None
        return next((s.seat for s in self.seats if s.is_human and s.player == player), None)

    def human_seats(self) -> list[int]:
        return [s.seat for s in self.seats if s.is_human]

    def online_humans(self) -> list[int]:
        return [s.seat for s in self.seats if s.is_human and s.online]

    def conns_of(self, seat: int | None) -> int:
        return sum(1 for c in self.conns.values() if c.seat == seat)

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.match.view(seat)

    @property
    def watchers(self) -> int:
        """Sockets watching now: live, never logged (a replay has none)."""
        return sum(1 for c in self.conns.values() if c.seat is None)

    def recent_events(self) -> list[tuple[int, dict[str, Any]]]:
        """The last events the table sent (at most :data:`HISTORY`), numbered."""
        return [(seq, json.loads(text)) for seq, text in self.history]

    # ------------------------------------------------------------ commands

    def handle(self, cmd: Command, now: int) -> Outcome:
        """What ``cmd`` changes, as entries, frames and effects (see the module doc)."""
        out = Outcome()
        self._clock = now
        try:
            if isinstance(cmd, Join):
                presence.join(self, cmd, now, out)
            elif isinstance(cmd, Leave):
                presence.leave(self, cmd, now, out)
            elif isinstance(cmd, FromConn):
                self._intent(cmd, now, out)
            elif isinstance(cmd, BotAnswer):
                botmoves.answer(self, cmd, now, out)
            elif isinstance(cmd, TimerFired):
                timers.fired(self, cmd, now, out)
            elif isinstance(cmd, PlayerLevels):
                self._player_levels(cmd, out)
            elif isinstance(cmd, Reopen | TakeOver):
                # What the shell runs is asked for afresh: the timers with the time the
                # log leaves them, a bot turn in flight asked again.
                self.armed_timers.clear()
                self.asked_bot = None
                if isinstance(cmd, TakeOver) or self.handed_over:
                    self.ask_again = True
                    if self.handed_over:  # a turn that ran out while its page came back: a moment more
                        self.resume_floor = max(self.resume_floor, now + timers.RESUME_MIN_MS)
                    presence.taken_over(self, now)
                elif self.log_seq > 1:
                    self.commit(out, log.Reopen(at=now))
                hands.maybe_first_hand(self, out, now)
            aftermatch.maybe_rematch(self, out, now)  # whatever made everyone agree (a "yes", a decision, someone leaving)
        except ProtocolError as exc:
            conn = getattr(cmd, "conn", None)
            if out.entries:  # refusals happen before any change
                raise
            if conn is not None:
                out.frames.append((conn_audience(conn), protocol.error_frame(exc.code, exc.message, self.seq)))
            return out
        timers.settle(self, out)
        botmoves.settle(self, out)
        if out.entries:
            out.projection = self._project()
        return out

    def _intent(self, cmd: FromConn, now: int, out: Outcome) -> None:
        conn = self.conns.get(cmd.conn)
        if conn is None:
            raise ProtocolError(Code.UNAUTHORIZED, "say hello first")
        intent = cmd.intent
        if isinstance(intent, (protocol.Play, protocol.Redeal, protocol.NextHand)):
            hands.game_intent(self, player_seat(conn), intent, now, out)
        elif isinstance(intent, protocol.Say):
            talk.say(self, conn, intent, now, out)
        elif isinstance(intent, protocol.DealNow):
            hands.deal_now(self, conn, intent, now, out)
        elif isinstance(intent, protocol.Rematch):
            aftermatch.say_rematch(self, conn, now, out)
        elif isinstance(intent, (protocol.StandIn, protocol.ToLobby)) or (
            isinstance(intent, protocol.FillSeat) and self.status == "finished"
        ):
            aftermatch.decide(self, conn, intent, now, out)
        elif isinstance(intent, (protocol.Sit, protocol.Stand)):
            lobby.sit_or_stand(self, cmd.conn, conn, intent, now, out)
        elif isinstance(
            intent, (protocol.MoveSeat, protocol.FillSeat, protocol.ClearSeat, protocol.Configure, protocol.Start)
        ):
            lobby.host_intent(self, conn, intent, now, out)
        else:
            raise ProtocolError(Code.MALFORMED, "this socket already said hello")

    def _player_levels(self, cmd: PlayerLevels, out: Outcome) -> None:
        for seat, player, level in cmd.levels:
            s = self.seats[seat] if 0 <= seat < len(self.seats) else None
            if s is not None and s.is_human and s.player == player:
                s.player_level = dict(level)
        self.table_changed(out.frames)

    def commit(self, out: Outcome, entry: Entry) -> None:
        """Apply ``entry`` and log it; its frames go to ``out``."""
        self.commit_into(out.frames, out, entry)

    def commit_into(self, frames: Frames, out: Outcome, entry: Entry) -> None:
        """Apply ``entry`` and log it in ``out``; its frames go to ``frames``."""
        if isinstance(entry, (log.StartHand, log.Action)) and self.watchers:
            # Who watches is not logged (it is not the game's state), but whether anyone
            # did when events were sent is: the spectators' frame and the neighbours'
            # talk of that change replay as they were.
            entry = replace(entry, watched=True)
        self.apply(entry, frames)
        out.entries.append(entry)

    def _projection_key(self) -> tuple[Any, ...]:
        m = self.match
        finished = sum(1 for h in m.hands if h.result is not None)
        return (self.status, tuple(m.scores), self.match_number, finished, tuple(repr(s.to_entry()) for s in self.seats))

    def _project(self) -> Projection | None:
        key = self._projection_key()
        old, self._projected = self._projected, key
        if key == old:
            return None
        record = self.match.record() if key[2:4] != old[2:4] or key[0] != old[0] else None
        seats = [s.to_entry() for s in self.seats] if key[4] != old[4] else None
        return Projection(self.status, list(self.match.scores), self.match_number, record, seats)

    # ------------------------------------------------------------ the table frame

    def table_changed(self, frames: Frames | None) -> None:
        """A ``table`` frame to everyone when anything TABLE shows changed since the last
        one (``frames`` None: a table being loaded only notes what it shows)."""
        key = self._table_key()
        if key != self._last_table:
            self._last_table = key
            self.table_told_at = self._clock
            if frames is not None:
                frames.append((ALL, protocol.table_frame(self.seq, self.table_state())))

    def table_untold(self) -> bool:
        """TABLE shows what no ``table`` frame told yet (only the watchers' count can:
        every entry tells what it changed)."""
        return self._table_key() != self._last_table

    def _table_key(self) -> tuple[Any, ...]:
        """Everything :meth:`table_state` shows, compared after every entry (cheaper
        than building the state: most entries are moves that change none of it)."""
        seats = tuple(
            (s.kind, s.name, s.player, s.level, s.character, s.online, s.controller, (s.player_level or {}).get("number"))
            for s in self.seats
        )
        rematch = (tuple(sorted(self.ready)), tuple(sorted(self.left_to_stand_in))) if self.status == "finished" else None
        return (self.status, self.watchers, self.grace, self.turn_timer, self.match_number, timers.turn_deadline(self),
                seats, rematch)

    # ------------------------------------------------------------ applying

    def apply(self, entry: Entry, frames: Frames | None = None) -> None:
        """Change the table by one log entry; with ``frames``, add the frames it sends
        (without: the state only, as a table being loaded needs it)."""
        at = entry.at
        self._clock = at
        match entry:
            case log.Presence():
                s = self.seats[entry.seat]
                s.online = entry.online
                s.offline_since = None if s.online else (at if entry.since is None else entry.since)
            case log.Watchers():
                # Logs written before the watchers left the log (nothing writes this entry now).
                self._logged_watchers = entry.n
            case log.Reopen():
                self._apply_reopen(at)
            case log.Handover():
                pass  # the sockets of before come back through the balancer: see handed_over
            case log.Sit():
                self.seats[entry.seat] = Seat(
                    entry.seat, HUMAN, entry.name, player=entry.player, level=entry.level, character=entry.character
                )
            case log.Stand() | log.Clear():
                self.seats[entry.seat] = Seat(entry.seat)
            case log.Move():
                a, b = self.seats[entry.seat], self.seats[entry.to]
                a.seat, b.seat = b.seat, a.seat
                self.seats[a.seat], self.seats[b.seat] = a, b
            case log.Fill():
                self.seats[entry.seat] = Seat(entry.seat, BOT, entry.name, level=entry.level, character=entry.character)
                self.ready.discard(entry.seat)  # after a match: a gone player's seat, a neighbour's now
                self.left_to_stand_in.discard(entry.seat)
            case log.Configure():
                self.grace = entry.grace
                self.turn_timer = entry.turn_timer
            case log.Start():
                self.status = "playing"
            case log.StartHand():
                events = self.match.start_hand(frozenset(entry.present or ()))
                self.ready.clear()
                self._game_events(events, at, frames, entry.watched or self._logged_watchers > 0)
            case log.Action():
                self._apply_action(entry, frames)
            case log.Ready():
                self.ready.add(entry.seat)
            case log.Say():
                if frames is not None:
                    frames.append((ALL, talk.said_frame(self, entry)))
            case log.Timer():
                if entry.name == "turn" and entry.seat is not None:
                    self.timed_out = (entry.seat, self.seq)
            case log.Controller():
                self.seats[entry.seat].controller = entry.to
                m = self.match
                if entry.to == HUMAN and m.turn == entry.seat and m.phase in ("play", "redeal_question"):
                    self.turn_since = at  # a player back on their own turn gets the whole of it
            case log.StandIn():
                self.left_to_stand_in.add(entry.seat)
            case log.Rematch():
                self._apply_rematch(entry)
            case log.Open():
                raise log.LogError("a table log has one open entry, its first")
            case _:
                assert_never(entry)
        self.handed_over = isinstance(entry, log.Handover)
        self.log_seq += 1
        self.updated_at = max(self.updated_at, at)
        self.table_changed(frames)

    def _apply_reopen(self, at: int) -> None:
        for s in self.seats:
            if s.is_human and s.online:
                s.online = False
                s.offline_since = at
        self._logged_watchers = 0
        # The deadlines stand as the log set them (the time left goes on running), but
        # one that ran out while the table was away leaves its player a moment to reconnect.
        self.resume_floor = at + timers.RESUME_MIN_MS
        self.conns.clear()
        self.leaving.clear()
        self.moving.clear()

    def _apply_action(self, e: log.Action, frames: Frames | None) -> None:
        action = parse_action(e.action, self.rules.max_pip)
        events = self.match.apply(e.seat, action)
        self._game_events([self.attributed(ev, e.by, e.seat) for ev in events], e.at, frames,
                          e.watched or self._logged_watchers > 0)

    def attributed(self, ev: dict[str, Any], by: str, seat: int) -> dict[str, Any]:
        """A play with who made it: the log's ``by`` for its action, and the neighbour's
        name when a stand-in played it (on time-out or for an absent player)."""
        if ev["kind"] != "play":
            return ev
        if by not in (STAND_IN, TIMEOUT):
            return {**ev, "by": by}
        ch = neighbours.BY_ID.get(self.seats[seat].character or "")
        return {**ev, "by": by, "stand_in": {"name": ch.name if ch else "", "character": self.seats[seat].character}}

    def _apply_rematch(self, e: log.Rematch) -> None:
        """The next match: played at once, or (``lobby``) waiting in the lobby for its host."""
        self.match_number += 1
        self.match = Match(self.rules, match_seed(self.secret, self.match_number))
        self.status = "lobby" if e.lobby else "playing"
        self.ready.clear()
        self.left_to_stand_in.clear()
        self.timed_out = None

    def _game_events(self, events: list[dict[str, Any]], at: int, frames: Frames | None, watched: bool) -> None:
        """Number the events of one change and send them, with each audience's view
        (the spectators' only when ``watched``: someone watched as they were sent)."""
        self.turn_since = at
        self.timed_out = None
        if not events:
            return
        self.batch_first = self.seq + 1
        numbered = []
        for ev in events:
            self.seq += 1
            if ev["kind"] in AUTOMATIC:
                ev = {**ev, "by": AUTO}  # nobody chose it
            numbered.append((self.seq, ev))
            self.history.append((self.seq, json.dumps(ev, separators=(",", ":"))))
        if self.match.phase == "match_over":
            self.status = "finished"
        if frames is None:
            return  # a table being loaded: its sockets get their frames when they connect
        for seat in self.online_humans():
            frames.append((seat_audience(seat), protocol.batch_frame(numbered, self.match.view(seat))))
        if watched:
            frames.append((PUBLIC, protocol.batch_frame(numbered, self.match.view(None))))
        talk.neighbours_talk(self, events, frames, watched)


_RULES: dict[str, tuple[Rules, dict[str, Any]]] = {}


def _rules(preset: str, options: dict[str, Any]) -> tuple[Rules, dict[str, Any]]:
    """The rules of a game and their description, shared by every table of that game
    (both are never changed: a thousand tables need not hold a thousand copies)."""
    key = json.dumps([preset, options], sort_keys=True)
    found = _RULES.get(key)
    if found is None:
        rules = make_rules(preset, **options)
        found = _RULES[key] = (rules, rules.describe())
    return found


def _iso(ms: int) -> str:
    """A log time (ms since the epoch) as ISO 8601, as the store's rows say it."""
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat()
