"""The table core: one table as a synchronous function of commands, with no I/O.

``TableCore.handle(command, now)`` takes what happened (a socket joined or
left, a player's intent, a bot's answer, a timer firing, the table being
loaded again) and the time in milliseconds, and returns an :class:`Outcome`:

- ``entries``: the log entries to append (see :mod:`capicua.table.log`);
- ``frames``: ``(audience, frame)`` pairs to publish once the entries are
  stored. Audiences: ``seat:N`` (the sockets of seat N), ``public`` (the
  spectators), ``all`` (everyone at the table) and ``conn:ID`` (one socket:
  the answer to its hello, its errors);
- ``effects``: what the shell must start: :class:`AskBot`,
  :class:`StartTimer`, :class:`CancelTimer`.

It never touches a socket, a database or the clock, and it is deterministic:
every choice it makes (a match seed, a neighbour for a seat, who talks) comes
from the table's secret and the log, so :meth:`TableCore.from_log` rebuilds
the same table and the same frames from the entries it made. A refused
command returns one error frame and no entry: nothing changes.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, assert_never

from capicua.engine import EngineError, Match, make_rules, parse_action
from capicua.engine.rules import Rules
from capicua.table import log, neighbours, phrases, protocol
from capicua.table.log import Entry, Projection, match_seed
from capicua.table.options import NEIGHBOUR_LEVELS
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
from capicua.table.rematch import RematchCheck, rematch_check
from capicua.table.seating import (
    BOT,
    EMPTY,
    HUMAN,
    STAND_IN,
    STAND_IN_LEVEL,
    Seat,
)

HISTORY = 64  # events kept for a reconnecting client; more missed: a fresh sync
PHRASE_LIMIT = (3, 10_000)  # phrases per socket per ms window
TIMEOUT = "timeout"  # a move the stand-in made because the player's turn ran out (the log's ``by``)
AUTO = "auto"  # who made a pass or a draw: nobody, they are automatic
AUTOMATIC = ("pass", "draw")
RESUME_MIN_MS = 5_000  # after a reload, a running deadline keeps at least this long (its player reconnects)
HANDOVER_FACTOR = 2  # with a turn timer of N s, the wait between hands is 2N s


# ----------------------------------------------------------------- commands


@dataclass(frozen=True, slots=True)
class BotAnswer:
    key: str
    action: dict[str, Any]


@dataclass(frozen=True, slots=True)
class TimerFired:
    key: str


@dataclass(frozen=True, slots=True)
class Reopen:
    """The table was loaded again: the sockets of before are gone."""


@dataclass(frozen=True, slots=True)
class PlayerLevels:
    """The standings' level of guests at the table, ``(seat, player, {"number", "name",
    "name_en"})``: read from the store by the shell, or told by a match's honours. Not
    logged (a level belongs to the standings, not to the table); a seat another player
    took meanwhile is left alone."""

    levels: tuple[tuple[int, str, dict[str, Any]], ...]


Command = Join | Leave | FromConn | BotAnswer | TimerFired | Reopen | PlayerLevels


# ------------------------------------------------------------------ effects


@dataclass(frozen=True, slots=True)
class AskBot:
    """Ask the bot pool what ``level`` plays in ``view``; answer with ``BotAnswer(key, …)``."""

    key: str
    seat: int
    level: str
    view: dict[str, Any]
    seed: int


@dataclass(frozen=True, slots=True)
class StartTimer:
    """Send ``TimerFired(key)`` at ``at`` (ms)."""

    key: str
    at: int


@dataclass(frozen=True, slots=True)
class CancelTimer:
    key: str


Effect = AskBot | StartTimer | CancelTimer


@dataclass(slots=True)
class Outcome:
    entries: list[Entry] = field(default_factory=list)  # stored as ``entry.to_json()`` (capicua.table.log)
    frames: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    projection: Projection | None = None  # what the store's listing rows say now, when it changed


@dataclass(slots=True)
class _Conn:
    """A socket that said hello (not part of the table's state: sockets do not survive a restart)."""

    seat: int | None
    player: str | None
    name: str
    watch: bool = False  # asked to watch: stays a watcher whatever seat its player holds
    phrase_times: deque[int] = field(default_factory=deque)


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
    # A change of the watchers' count alone is told to the table at most this often.
    watchers_note_ms: int = 1_000


class TableCore:
    """One table. Build it with :meth:`open` (a new table) or :meth:`from_log`."""

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
        self._resume_floor = 0  # no deadline ends before this (the last reload's time + RESUME_MIN_MS)
        self._clock = self.turn_since  # the time of the command (or entry) being handled
        self.created_at = self.updated_at = opening.at
        self.timed_out: tuple[int, int] | None = None  # (seat, seq) whose turn ran out
        self.conns: dict[ConnId, _Conn] = {}
        # Seats whose last socket closed at that time, not logged until they stay away
        # for CoreConfig.presence_debounce_ms (live state, like the sockets).
        self._leaving: dict[int, int] = {}
        self._last_table: tuple[Any, ...] = ()  # what the last table state sent showed
        self._table_told_at = 0  # when the last table frame was sent
        # Effect bookkeeping (what the shell was asked to do; rebuilt after a load).
        self._timers: dict[str, int] = {}
        self._asked: str | None = None
        self._last_table = self._table_key()
        self._projected = self._projection_key()

    # ------------------------------------------------------------ building

    @classmethod
    def from_log(
        cls,
        entries: Iterable[Entry],
        config: CoreConfig | None = None,
        frames: list[tuple[str, dict[str, Any]]] | None = None,
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
            "deadline": self._deadline(self._clock if now is None else now),
            "rematch": self._rematch_check().public() if self.status == "finished" else None,
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

    def _deadline(self, now: int) -> dict[str, Any] | None:
        """TABLE's ``deadline``: what runs on the clock, until when (``at``), how long
        it runs in all (``ms``) and how long it had left at ``now`` (``left``)."""
        turn = self._turn_deadline()
        if turn is not None:
            seat, at = turn
            return {"for": "turn", "seat": seat, "at": at, "ms": self.turn_timer * 1000, "left": max(0, at - now)}
        handover = self._handover_deadline()
        if handover is not None:
            return {"for": "next_hand", "seat": None, "at": handover, "ms": self._handover_ms(),
                    "left": max(0, handover - now)}
        return None

    def _handover_ms(self) -> int:
        return HANDOVER_FACTOR * self.turn_timer * 1000

    def _handover_deadline(self) -> int | None:
        """With a turn timer, when the next hand is dealt even if a player never said
        "Siguiente mano" (a tab left open must not stall the others)."""
        if self.turn_timer <= 0 or self.status != "playing" or self.match.phase != "hand_over":
            return None
        if not self.human_seats():
            return None  # a table of neighbours only goes on by itself (the ``next`` timer)
        return max(self.turn_since + self._handover_ms(), self._resume_floor)

    def _turn_deadline(self) -> tuple[int, int] | None:
        m = self.match
        if self.turn_timer <= 0 or self.status != "playing" or m.phase not in ("play", "redeal_question"):
            return None
        seat = m.turn
        if seat is None:
            return None
        s = self.seats[seat]
        if not s.is_human or s.controller != HUMAN or self.timed_out == (seat, self.seq):
            return None
        return seat, max(self.turn_since + self.turn_timer * 1000, self._resume_floor)

    # ------------------------------------------------------------ commands

    def handle(self, cmd: Command, now: int) -> Outcome:
        """What ``cmd`` changes, as entries, frames and effects (see the module doc)."""
        out = Outcome()
        self._clock = now
        try:
            if isinstance(cmd, Join):
                self._join(cmd, now, out)
            elif isinstance(cmd, Leave):
                self._leave(cmd, now, out)
            elif isinstance(cmd, FromConn):
                self._intent(cmd, now, out)
            elif isinstance(cmd, BotAnswer):
                self._bot_answer(cmd, now, out)
            elif isinstance(cmd, TimerFired):
                self._timer_fired(cmd, now, out)
            elif isinstance(cmd, PlayerLevels):
                self._player_levels(cmd, out)
            elif isinstance(cmd, Reopen):
                self._timers.clear()
                self._asked = None
                if self.log_seq > 1:
                    self._commit(out, log.Reopen(at=now))
                self._maybe_first_hand(out, now)
            self._maybe_rematch(out, now)  # whatever made everyone agree (a "yes", a decision, someone leaving)
        except ProtocolError as exc:
            conn = getattr(cmd, "conn", None)
            if out.entries:  # refusals happen before any change
                raise
            if conn is not None:
                out.frames.append((conn_audience(conn), protocol.error_frame(exc.code, exc.message, self.seq)))
            return out
        self._effects(out, now)
        if out.entries:
            out.projection = self._project()
        return out

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

    def _commit(self, out: Outcome, entry: Entry) -> None:
        self._commit_into(out.frames, out, entry)

    def _player_levels(self, cmd: PlayerLevels, out: Outcome) -> None:
        for seat, player, level in cmd.levels:
            s = self.seats[seat] if 0 <= seat < len(self.seats) else None
            if s is not None and s.is_human and s.player == player:
                s.player_level = dict(level)
        self._table_changed(out.frames)

    # -- joining and leaving

    def _join(self, cmd: Join, now: int, out: Outcome) -> None:
        if cmd.conn in self.conns:
            raise ProtocolError(Code.MALFORMED, "this socket already said hello")
        seat = None if cmd.watch else self.seat_of(cmd.player)
        if seat is None and self.watchers >= self.config.max_watchers:
            raise ProtocolError(Code.TOO_MANY, f"at most {self.config.max_watchers} watch one table")
        self.conns[cmd.conn] = _Conn(seat, cmd.player, cmd.name, cmd.watch)
        first: list[tuple[str, dict[str, Any]]] = []
        if seat is None:
            self._note_watchers(now, first)
        else:
            self._leaving.pop(seat, None)  # back within the debounce window: it never left
            s = self.seats[seat]
            if not s.online:
                self._commit_into(first, out, log.Presence(seat, True, at=now))
            if s.controller == STAND_IN:
                self._commit_into(first, out, log.Controller(seat, HUMAN, at=now))
        out.frames.append((conn_audience(cmd.conn), protocol.welcome_frame(seat, self.table_state())))
        out.frames.append((conn_audience(cmd.conn), self._resync(seat, cmd.last_seq)))
        out.frames.extend(first)
        self._maybe_first_hand(out, now)

    def _commit_into(self, frames: list[tuple[str, dict[str, Any]]], out: Outcome, entry: Entry) -> None:
        if isinstance(entry, (log.StartHand, log.Action)) and self.watchers:
            # Who watches is not logged (it is not the game's state), but whether anyone
            # did when events were sent is: the spectators' frame and the neighbours'
            # talk of that change replay as they were.
            entry = replace(entry, watched=True)
        self.apply(entry, frames)
        out.entries.append(entry)

    def recent_events(self) -> list[tuple[int, dict[str, Any]]]:
        """The last events the table sent (at most :data:`HISTORY`), numbered."""
        return [(seq, json.loads(text)) for seq, text in self.history]

    def _resync(self, seat: int | None, last_seq: int) -> dict[str, Any]:
        view = self.match.view(seat)
        if 0 < last_seq < self.seq and self.history:
            missed = [(s, json.loads(e)) for s, e in self.history if s > last_seq]
            if missed and missed[0][0] == last_seq + 1:
                return protocol.batch_frame(missed, view, replayed=True)
        return protocol.sync_frame(self.seq, view)

    def _leave(self, cmd: Leave, now: int, out: Outcome) -> None:
        conn = self.conns.pop(cmd.conn, None)
        if conn is None:
            return
        if conn.seat is None:
            self._note_watchers(now, out.frames)
        elif self.conns_of(conn.seat) == 0 and self.seats[conn.seat].online:
            # Logged (and shown) only if it lasts: see _effects and the ``away`` timer.
            self._leaving[conn.seat] = now

    def _note_watchers(self, now: int, frames: list[tuple[str, dict[str, Any]]]) -> None:
        """The count of watchers changed: a table frame says so now, or at most once per
        CoreConfig.watchers_note_ms (the ``note`` timer): a flood of hellos is not a
        flood of frames to the players."""
        if now - self._table_told_at >= self.config.watchers_note_ms:
            self._table_changed(frames)

    def _table_changed(self, frames: list[tuple[str, dict[str, Any]]] | None) -> None:
        """A ``table`` frame to everyone when anything TABLE shows changed since the last
        one (``frames`` None: a table being loaded only notes what it shows)."""
        key = self._table_key()
        if key != self._last_table:
            self._last_table = key
            self._table_told_at = self._clock
            if frames is not None:
                frames.append((ALL, protocol.table_frame(self.seq, self.table_state())))

    def _maybe_first_hand(self, out: Outcome, now: int) -> None:
        """A table against the neighbours deals its first hand once every player is here."""
        humans = self.human_seats()
        if self.status == "playing" and self.match.phase == "new" and all(self.seats[s].online for s in humans):
            self._commit(out, log.StartHand(tuple(self.online_humans()), at=now))

    # -- intents

    def _conn(self, conn_id: ConnId) -> _Conn:
        conn = self.conns.get(conn_id)
        if conn is None:
            raise ProtocolError(Code.UNAUTHORIZED, "say hello first")
        return conn

    def _player_seat(self, conn: _Conn) -> int:
        if conn.seat is None:
            raise ProtocolError(Code.WATCHER, "you are watching: los mirones son de palo")
        return conn.seat

    def _intent(self, cmd: FromConn, now: int, out: Outcome) -> None:
        conn = self._conn(cmd.conn)
        intent = cmd.intent
        if isinstance(intent, (protocol.Play, protocol.Redeal, protocol.NextHand)):
            self._game_intent(conn, intent, now, out)
        elif isinstance(intent, protocol.Say):
            self._say(conn, intent, now, out)
        elif isinstance(intent, protocol.DealNow):
            self._deal_now(conn, intent, now, out)
        elif isinstance(intent, protocol.Rematch):
            self._rematch(conn, now, out)
        elif isinstance(intent, (protocol.StandIn, protocol.ToLobby)) or (
            isinstance(intent, protocol.FillSeat) and self.status == "finished"
        ):
            self._after_match(conn, intent, now, out)
        elif isinstance(intent, (protocol.Sit, protocol.Stand)):
            self._sit_or_stand(cmd.conn, conn, intent, now, out)
        elif isinstance(
            intent, (protocol.MoveSeat, protocol.FillSeat, protocol.ClearSeat, protocol.Configure, protocol.Start)
        ):
            self._host_intent(conn, intent, now, out)
        else:
            raise ProtocolError(Code.MALFORMED, "this socket already said hello")

    def _check_current(self, seq: int) -> None:
        if not (seq == self.seq or self.batch_first <= seq <= self.seq):
            raise ProtocolError(Code.STALE, f"the table is at {self.seq}; you played against {seq}")

    def _game_intent(self, conn: _Conn, intent: protocol.GameIntent, now: int, out: Outcome) -> None:
        seat = self._player_seat(conn)
        if self.status == "lobby":
            raise ProtocolError(Code.BAD_PHASE, "the match has not started yet")
        self._check_current(intent.seq)
        m = self.match
        if isinstance(intent, protocol.NextHand):
            if m.phase != "hand_over":
                msg = "the match is over" if m.phase == "match_over" else "the hand is not over"
                raise ProtocolError(Code.BAD_PHASE, msg)
            if seat in self.ready:
                return
            self._commit(out, log.Ready(seat, at=now))
            self._maybe_next_hand(out, now)
            return
        raw: dict[str, Any]
        if isinstance(intent, protocol.Play):
            raw = {"tile": list(intent.tile), "end": intent.end}
        else:
            raw = {"redeal": intent.accept}
        try:
            action = parse_action(raw, self.rules.max_pip)
            m.check(seat, action)
        except EngineError as exc:
            raise ProtocolError(_engine_code(exc), str(exc)) from None
        self._commit(out, log.Action(seat, action.to_json(), HUMAN, at=now))

    def _maybe_next_hand(self, out: Outcome, now: int) -> None:
        """The next hand is dealt when every player who plays their seat is ready."""
        if self.status != "playing" or self.match.phase != "hand_over":
            return
        waiting = [s.seat for s in self.seats if s.is_human and s.online and s.controller == HUMAN]
        if waiting and set(waiting) <= self.ready:
            self._commit(out, log.StartHand(tuple(self.online_humans()), at=now))

    def _deal_now(self, conn: _Conn, intent: protocol.DealNow, now: int, out: Outcome) -> None:
        """The host of a private table deals the next hand without waiting for every
        "Siguiente mano" (a friend's tab left open must not stall the others)."""
        if self.host is None or conn.player != self.host:
            raise ProtocolError(Code.NOT_HOST, "only the host of a private table deals without waiting")
        if self.status == "lobby":
            raise ProtocolError(Code.BAD_PHASE, "the match has not started yet")
        self._check_current(intent.seq)
        if self.match.phase != "hand_over":
            msg = "the match is over" if self.match.phase == "match_over" else "the hand is not over"
            raise ProtocolError(Code.BAD_PHASE, msg)
        self._commit(out, log.StartHand(tuple(self.online_humans()), "host", at=now))

    def _say(self, conn: _Conn, intent: protocol.Say, now: int, out: Outcome) -> None:
        seat = self._player_seat(conn)
        if phrases.phrase(intent.phrase) is None:
            raise ProtocolError(Code.MALFORMED, f"unknown phrase {intent.phrase!r}")
        limit, window = PHRASE_LIMIT
        times = conn.phrase_times
        while times and now - times[0] >= window:
            times.popleft()
        if len(times) >= limit:
            raise ProtocolError(Code.TOO_FAST, f"at most {limit} phrases in {window // 1000} s")
        times.append(now)
        self._commit(out, log.Say(seat, intent.phrase, at=now))

    def _rematch(self, conn: _Conn, now: int, out: Outcome) -> None:
        """"Otra partida": this seat is ready (the match starts in :meth:`_maybe_rematch`)."""
        seat = self._player_seat(conn)
        if self.status != "finished":
            raise ProtocolError(Code.BAD_PHASE, "the match is not over")
        if seat not in self.ready:  # else another tab of the player said it already
            self._commit(out, log.Ready(seat, at=now))

    def _rematch_check(self) -> RematchCheck:
        return rematch_check(self.seats, self.ready, self.left_to_stand_in, self.host)

    def _maybe_rematch(self, out: Outcome, now: int) -> None:
        """The next match starts once every player here said "Otra partida" and every
        gone player's seat was decided on (:mod:`capicua.table.rematch`). A seat left
        to its stand-in is the stand-in's from the first move (no grace to wait out)."""
        if self.status != "finished":
            return  # (runs after every command: nothing to compute while a match is played)
        check = self._rematch_check()
        if not check.agreed:
            return
        self._commit(out, log.Rematch(at=now))
        for seat in check.stand_in:
            if self.seats[seat].controller == HUMAN:
                self._commit(out, log.Controller(seat, STAND_IN, at=now))
        self._commit(out, log.StartHand(tuple(self.online_humans()), at=now))

    def _after_match(
        self, conn: _Conn, intent: protocol.StandIn | protocol.ToLobby | protocol.FillSeat, now: int, out: Outcome
    ) -> None:
        """After the match, what becomes of a gone player's seat (left to its stand-in, or
        a neighbour sits there), or the host takes the table back to its lobby."""
        seat = self._player_seat(conn)
        if self.status != "finished":
            raise ProtocolError(Code.BAD_PHASE, "only once the match is over")
        if isinstance(intent, protocol.ToLobby):
            if self.host is None or conn.player != self.host:
                raise ProtocolError(Code.NOT_HOST, "only the host takes the table back to its lobby")
            self._commit(out, log.Rematch(lobby=True, at=now))
            return
        if seat not in self._rematch_check().deciders:
            raise ProtocolError(Code.NOT_HOST, "the host decides (anyone here, while the host is gone)")
        if intent.seat >= len(self.seats):
            raise ProtocolError(Code.MALFORMED, f"seats are 0 to {len(self.seats) - 1}")
        target = self.seats[intent.seat]
        if not target.is_human:
            raise ProtocolError(Code.SEAT_TAKEN, "a neighbour plays that seat")
        if target.online:
            raise ProtocolError(Code.SEAT_TAKEN, "that seat's player is here")
        if isinstance(intent, protocol.StandIn):
            if intent.seat in self.left_to_stand_in:
                raise ProtocolError(Code.NO_CHANGE, "that seat is left to its stand-in already")
            self._commit(out, log.StandIn(intent.seat, at=now))
            return
        if intent.level not in NEIGHBOUR_LEVELS:
            raise ProtocolError(Code.MALFORMED, f"level is one of {', '.join(NEIGHBOUR_LEVELS)}")
        if target.player is not None and target.player == self.host:
            raise ProtocolError(Code.NOT_HOST, "the host keeps a seat")
        ch = self._pick_characters([intent.level])[0]
        self._commit(out, log.Fill(intent.seat, intent.level, ch.id, ch.name, at=now))

    def _sit_or_stand(
        self, conn_id: ConnId, conn: _Conn, intent: protocol.Sit | protocol.Stand, now: int, out: Outcome
    ) -> None:
        if self.status != "lobby":
            raise ProtocolError(Code.STARTED, "the match has started: you can watch")
        if isinstance(intent, protocol.Stand):
            seat = self._player_seat(conn)
            if conn.player is not None and conn.player == self.host:
                raise ProtocolError(Code.NOT_HOST, "the host keeps a seat")
            self._commit(out, log.Stand(seat, at=now))
            self._reseat(out, now)
            return
        if conn.player is None:
            raise ProtocolError(Code.UNAUTHORIZED, "choose a nickname first")
        if conn.seat is not None or self.seat_of(conn.player) is not None:
            raise ProtocolError(Code.SEAT_TAKEN, "you already have a seat at this table")
        free = [s.seat for s in self.seats if s.kind == EMPTY]
        if not free:
            raise ProtocolError(Code.TABLE_FULL, "every seat is taken: you can watch")
        seat = free[0] if intent.seat is None else intent.seat
        if seat >= len(self.seats):
            raise ProtocolError(Code.MALFORMED, f"seats are 0 to {len(self.seats) - 1}")
        if seat not in free:
            raise ProtocolError(Code.SEAT_TAKEN, "that seat is taken")
        stand_in = self._pick_characters([self.config.stand_in_level])[0]
        conn.watch = False  # a watcher who sits plays: its other tabs follow it to the seat
        self._commit(out, log.Sit(seat, conn.player, conn.name or "?", stand_in.id, self.config.stand_in_level, at=now))
        self._reseat(out, now)

    def _reseat(self, out: Outcome, now: int) -> None:
        """After seats changed in the lobby: every socket to its player's seat (a watcher
        when it has none), the watchers' count and presence logged, and each socket whose
        seat changed told so (a ``welcome`` with its seat, then a ``sync`` of its view)."""
        moved = []
        for cid, c in self.conns.items():
            want = None if c.watch else self.seat_of(c.player)
            if want != c.seat:
                c.seat = want
                moved.append(cid)
        for s in self.seats:
            online = self.conns_of(s.seat) > 0
            if s.is_human and online != s.online:
                self._commit(out, log.Presence(s.seat, online, at=now))
        # Before the table frame that shows the new seats: a page that drew them first
        # would draw its player in the old seat for a frame.
        at = next((i for i, (_, f) in enumerate(out.frames) if f["type"] == "table"), len(out.frames))
        told: list[tuple[str, dict[str, Any]]] = []
        for cid in moved:
            seat = self.conns[cid].seat
            told.append((conn_audience(cid), protocol.welcome_frame(seat, self.table_state())))
            told.append((conn_audience(cid), protocol.sync_frame(self.seq, self.match.view(seat))))
        out.frames[at:at] = told
        self._table_changed(out.frames)  # the watchers' count, when no entry showed it yet

    def _host_intent(self, conn: _Conn, intent: protocol.Intent, now: int, out: Outcome) -> None:
        if self.host is None or conn.player != self.host:
            raise ProtocolError(Code.NOT_HOST, "only the host can do that")
        if self.status != "lobby":
            raise ProtocolError(Code.STARTED, "the match has started")
        n = len(self.seats)
        if isinstance(intent, protocol.Configure):
            self._commit(out, log.Configure(intent.grace, intent.turn_timer, at=now))
            return
        if isinstance(intent, protocol.Start):
            empty = [s.seat for s in self.seats if s.kind == EMPTY]
            if empty:
                raise ProtocolError(Code.BAD_PHASE, "every seat needs a player or a neighbour first")
            self._commit(out, log.Start(at=now))
            self._commit(out, log.StartHand(tuple(self.online_humans()), at=now))
            return
        assert isinstance(intent, (protocol.MoveSeat, protocol.FillSeat, protocol.ClearSeat))
        if intent.seat >= n or (isinstance(intent, protocol.MoveSeat) and intent.to >= n):
            raise ProtocolError(Code.MALFORMED, f"seats are 0 to {n - 1}")
        if isinstance(intent, protocol.MoveSeat):
            if intent.seat == intent.to:
                raise ProtocolError(Code.NO_CHANGE, "a seat moves to another seat")
            if self.seats[intent.seat].kind == EMPTY and self.seats[intent.to].kind == EMPTY:
                raise ProtocolError(Code.NO_CHANGE, "both seats are empty")
            self._commit(out, log.Move(intent.seat, intent.to, at=now))
            self._reseat(out, now)
        elif isinstance(intent, protocol.FillSeat):
            if intent.level not in NEIGHBOUR_LEVELS:
                raise ProtocolError(Code.MALFORMED, f"level is one of {', '.join(NEIGHBOUR_LEVELS)}")
            if self.seats[intent.seat].kind != EMPTY:
                raise ProtocolError(Code.SEAT_TAKEN, "that seat is taken")
            ch = self._pick_characters([intent.level])[0]
            self._commit(out, log.Fill(intent.seat, intent.level, ch.id, ch.name, at=now))
        else:
            target = self.seats[intent.seat]
            if target.kind == EMPTY:
                raise ProtocolError(Code.NO_CHANGE, "that seat is empty already")
            if target.player is not None and target.player == self.host:
                raise ProtocolError(Code.NOT_HOST, "the host keeps a seat")
            self._commit(out, log.Clear(intent.seat, at=now))
            self._reseat(out, now)

    def _pick_characters(self, levels: list[str]) -> list[neighbours.Character]:
        """Neighbours not at the table yet, chosen from the table's secret and the log."""
        rng = random.Random(f"capicua/characters/{self.secret}/{self.log_seq}")
        taken = {s.character for s in self.seats if s.character}
        return neighbours.choose_characters(rng, levels, exclude=taken)

    # -- bots and timers

    def _bot_answer(self, cmd: BotAnswer, now: int, out: Outcome) -> None:
        if cmd.key != self._asked:
            return  # the table moved on while the bot thought
        self._asked = None
        actor, seq, seat = _split_key(cmd.key)
        m = self.match
        if seq != self.seq or m.turn != seat:
            return
        try:
            action = parse_action(cmd.action, self.rules.max_pip)
            m.check(seat, action)
        except EngineError:
            # A bot that answers nonsense (or a pool that failed) must not stall the table.
            action = m.legal_moves()[0]
        self._commit(out, log.Action(seat, action.to_json(), actor, at=now))

    def _timer_fired(self, cmd: TimerFired, now: int, out: Outcome) -> None:
        if self._timers.pop(cmd.key, None) is None:
            return
        name, _, rest = cmd.key.partition(":")
        if name == "grace":
            seat, since = (int(x) for x in rest.split(":"))
            s = self.seats[seat]
            if s.is_human and not s.online and s.offline_since == since and s.controller == HUMAN:
                self._commit(out, log.Timer("grace", seat, at=now))
                self._commit(out, log.Controller(seat, STAND_IN, at=now))
                self._maybe_next_hand(out, now)  # the others need not wait for a stand-in's "ready"
        elif name == "away":
            seat, since = (int(x) for x in rest.split(":"))
            s = self.seats[seat]
            if self._leaving.get(seat) == since and s.is_human and s.online and self.conns_of(seat) == 0:
                del self._leaving[seat]
                # ``since``: when the last socket closed; the grace window counts from then.
                self._commit(out, log.Presence(seat, False, since, at=now))
                self._maybe_next_hand(out, now)
        elif name == "deal":
            if int(rest) == self.seq and self._handover_deadline() is not None:
                self._commit(out, log.Timer("next_hand", at=now))
                self._commit(out, log.StartHand(tuple(self.online_humans()), at=now))
        elif name == "note":
            self._table_changed(out.frames)
        elif name == "turn":
            seq, seat = (int(x) for x in rest.split(":"))
            if seq == self.seq and self.match.turn == seat and self._turn_deadline() is not None:
                self._commit(out, log.Timer("turn", seat, at=now))
        elif name == "next":
            if int(rest) == self.seq and self.match.phase == "hand_over" and not self.human_seats():
                self._commit(out, log.StartHand((), at=now))

    def _effects(self, out: Outcome, now: int) -> None:
        """Diff what the table waits for (timers, a bot's move) against what the shell was asked."""
        wanted: dict[str, int] = {}
        m = self.match
        if self.status == "playing":
            for s in self.seats:
                if s.is_human and not s.online and s.controller == HUMAN and s.offline_since is not None:
                    wanted[f"grace:{s.seat}:{s.offline_since}"] = s.offline_since + self.grace * 1000
            deadline = self._turn_deadline()
            if deadline is not None:
                wanted[f"turn:{self.seq}:{deadline[0]}"] = deadline[1]
            if m.phase == "hand_over" and not self.human_seats():
                wanted[f"next:{self.seq}"] = self.turn_since + self.config.auto_next_ms
            handover = self._handover_deadline()
            if handover is not None:
                wanted[f"deal:{self.seq}"] = handover
        for seat, since in list(self._leaving.items()):
            s = self.seats[seat]
            if s.is_human and s.online and self.conns_of(seat) == 0:
                wanted[f"away:{seat}:{since}"] = since + self.config.presence_debounce_ms
            else:
                del self._leaving[seat]  # back, or the seat changed hands in the lobby
        if self._table_key() != self._last_table:  # only the watchers' count: told by the ``note`` timer
            wanted[f"note:{self._table_told_at}"] = self._table_told_at + self.config.watchers_note_ms
        for key in [k for k in self._timers if k not in wanted]:
            del self._timers[key]
            out.effects.append(CancelTimer(key))
        for key, at in wanted.items():
            if self._timers.get(key) != at:
                self._timers[key] = at
                out.effects.append(StartTimer(key, at))
        ask = self._wanted_bot()
        if ask is not None and ask[0] != self._asked:
            key, seat, level = ask
            self._asked = key
            hand = m.hand
            assert hand is not None
            src = f"capicua/bot/{m.seed}/{hand.number}/{len(hand.actions)}/{seat}"
            seed = int.from_bytes(hashlib.sha256(src.encode()).digest()[:8], "big")
            out.effects.append(AskBot(key, seat, level, m.view(seat), seed))

    def _wanted_bot(self) -> tuple[str, int, str] | None:
        m = self.match
        if self.status != "playing" or m.phase not in ("play", "redeal_question") or m.turn is None:
            return None
        seat = m.turn
        s = self.seats[seat]
        if s.is_bot:
            return f"bot:{self.seq}:{seat}", seat, s.level or STAND_IN_LEVEL
        if not s.is_human:
            return None
        level = s.level or self.config.stand_in_level
        if self.timed_out == (seat, self.seq):
            return f"timeout:{self.seq}:{seat}", seat, level
        # A stand-in plays only while some player is at the table: a table whose
        # players have all gone waits instead of playing their match out.
        if s.controller == STAND_IN and self.online_humans():
            return f"stand_in:{self.seq}:{seat}", seat, level
        if self._asked is not None and self._asked.startswith("stand_in:") and _split_key(self._asked)[1:] == (self.seq, seat):
            return self._asked, seat, level  # the player came back while the stand-in thinks
        return None

    # ------------------------------------------------------------ applying

    def apply(self, entry: Entry, frames: list[tuple[str, dict[str, Any]]] | None = None) -> None:
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
                    text = phrases.phrase(entry.phrase) or ("…", "…")
                    name = self.seats[entry.seat].name
                    frames.append(
                        (ALL, protocol.said_frame(self.seq, entry.seat, entry.phrase, text[0], text[1], "player", name))
                    )
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
        self.log_seq += 1
        self.updated_at = max(self.updated_at, at)
        self._table_changed(frames)

    def _table_key(self) -> tuple[Any, ...]:
        """Everything :meth:`table_state` shows, compared after every entry (cheaper
        than building the state: most entries are moves that change none of it)."""
        seats = tuple(
            (s.kind, s.name, s.player, s.level, s.character, s.online, s.controller, (s.player_level or {}).get("number"))
            for s in self.seats
        )
        rematch = (tuple(sorted(self.ready)), tuple(sorted(self.left_to_stand_in))) if self.status == "finished" else None
        return (self.status, self.watchers, self.grace, self.turn_timer, self.match_number, self._turn_deadline(), seats,
                rematch)

    def _apply_reopen(self, at: int) -> None:
        for s in self.seats:
            if s.is_human and s.online:
                s.online = False
                s.offline_since = at
        self._logged_watchers = 0
        # The deadlines stand as the log set them (the time left goes on running), but
        # one that ran out while the table was away leaves its player a moment to reconnect.
        self._resume_floor = at + RESUME_MIN_MS
        self.conns.clear()
        self._leaving.clear()

    def _apply_action(self, e: log.Action, frames: list[tuple[str, dict[str, Any]]] | None) -> None:
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

    def _game_events(
        self, events: list[dict[str, Any]], at: int, frames: list[tuple[str, dict[str, Any]]] | None, watched: bool
    ) -> None:
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
        self._talk(events, frames, watched)

    def _talk(self, events: list[dict[str, Any]], frames: list[tuple[str, dict[str, Any]]], watched: bool) -> None:
        """The neighbours comment on what just happened (not on every event)."""
        rng = random.Random(f"capicua/talk/{self.secret}/{self.seq}")
        for line in neighbours.table_talk(rng, self.rules, self.seats, events, 1 if watched else 0):
            frames.append(
                (ALL, protocol.said_frame(self.seq, line["seat"], line["moment"], line["es"], line["en"],
                                          "neighbour", line["name"]))
            )


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


def _engine_code(exc: EngineError) -> Code:
    try:
        return Code(getattr(exc, "code", "illegal"))
    except ValueError:  # an engine code the protocol does not name: the move is illegal
        return Code.ILLEGAL


def _split_key(key: str) -> tuple[str, int, int]:
    actor, seq, seat = key.split(":")
    return actor, int(seq), int(seat)
