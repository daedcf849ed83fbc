"""Who is at a table: sockets saying hello and leaving, the seats' presence, the watchers.

A socket that says hello gets its seat (its player's, or none: a watcher), a
``welcome`` and the events it missed (or a fresh ``sync``). A seat is logged
present when its first socket arrives; it is logged gone only when its last
socket stayed away for :attr:`~capicua.table.core.CoreConfig.presence_debounce_ms`
(the ``away`` timer): a reload of the page or a flicker of the network logs
nothing. Sockets are live state, never logged: they do not survive a restart.
A table another process took over (its owner died) keeps the presence of its
log: its sockets re-attach through their gateways (:func:`taken_over`). So does
a table handed over by a draining process (its ``handover`` entry), and a socket
closed by its draining gateway (a ``moving`` :class:`~capicua.table.protocol.Leave`)
leaves its seat present: their pages reconnect through the load balancer, so
such a seat is logged gone only when none of its sockets is back within
:attr:`~capicua.table.core.CoreConfig.moving_ms` (not the shorter debounce).

Functions over a :class:`~capicua.table.core.TableCore` (its ``conns`` and
``leaving``); the core dispatches to them.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from capicua.table import hands, log, protocol
from capicua.table.commands import Frames, Outcome
from capicua.table.protocol import Code, Join, Leave, ProtocolError, conn_audience
from capicua.table.seating import HUMAN, STAND_IN

if TYPE_CHECKING:
    from capicua.table.core import TableCore


@dataclass(slots=True)
class Conn:
    """A socket that said hello (not part of the table's state: sockets do not survive a restart)."""

    seat: int | None
    player: str | None
    name: str
    watch: bool = False  # asked to watch: stays a watcher whatever seat its player holds
    phrase_times: deque[int] = field(default_factory=deque)


def player_seat(conn: Conn) -> int:
    """The seat ``conn`` plays; a watcher is refused."""
    if conn.seat is None:
        raise ProtocolError(Code.WATCHER, "you are watching: los mirones son de palo")
    return conn.seat


def join(table: TableCore, cmd: Join, now: int, out: Outcome) -> None:
    if cmd.conn in table.conns:
        raise ProtocolError(Code.MALFORMED, "this socket already said hello")
    seat = None if cmd.watch else table.seat_of(cmd.player)
    if seat is None and table.watchers >= table.config.max_watchers:
        raise ProtocolError(Code.TOO_MANY, f"at most {table.config.max_watchers} watch one table")
    table.conns[cmd.conn] = Conn(seat, cmd.player, cmd.name, cmd.watch)
    first: Frames = []
    if seat is None:
        note_watchers(table, now, first)
    else:
        table.leaving.pop(seat, None)  # back within the debounce window: it never left
        table.moving.discard(seat)
        s = table.seats[seat]
        if not s.online:
            table.commit_into(first, out, log.Presence(seat, True, at=now))
        if s.controller == STAND_IN:
            table.commit_into(first, out, log.Controller(seat, HUMAN, at=now))
    out.frames.append((conn_audience(cmd.conn), protocol.welcome_frame(seat, table.table_state())))
    out.frames.append((conn_audience(cmd.conn), resync(table, seat, cmd.last_seq)))
    out.frames.extend(first)
    hands.maybe_first_hand(table, out, now)


def resync(table: TableCore, seat: int | None, last_seq: int) -> dict[str, Any]:
    """The events a socket that heard up to ``last_seq`` missed, or a fresh sync of its view."""
    view = table.match.view(seat)
    if 0 < last_seq < table.seq and table.history:
        missed = [(s, json.loads(e)) for s, e in table.history if s > last_seq]
        if missed and missed[0][0] == last_seq + 1:
            return protocol.batch_frame(missed, view, replayed=True)
    return protocol.sync_frame(table.seq, view)


def taken_over(table: TableCore, now: int) -> None:
    """The table was taken over from an owner that died: each seat present in the log
    is kept present while its sockets come back (they re-join through their gateways),
    and is logged gone as any seat whose last socket closed at ``now`` when none does
    within the debounce (the ``away`` timer). Handed over by a draining process (the
    log ends in ``handover``): the same, within ``moving_ms`` (the pages reconnect
    through the load balancer)."""
    for s in table.seats:
        if s.is_human and s.online:
            table.leaving[s.seat] = now
            if table.handed_over:
                table.moving.add(s.seat)


def leave(table: TableCore, cmd: Leave, now: int, out: Outcome) -> None:
    conn = table.conns.pop(cmd.conn, None)
    if conn is None:
        return
    if conn.seat is None:
        note_watchers(table, now, out.frames)
    elif table.conns_of(conn.seat) == 0 and table.seats[conn.seat].online:
        # Logged (and shown) only if it lasts: see away_timers and the ``away`` timer.
        table.leaving[conn.seat] = now
        if cmd.moving:
            table.moving.add(conn.seat)
        else:
            table.moving.discard(conn.seat)


def note_watchers(table: TableCore, now: int, frames: Frames) -> None:
    """The count of watchers changed: a table frame says so now, or at most once per
    CoreConfig.watchers_note_ms (the ``note`` timer): a flood of hellos is not a
    flood of frames to the players."""
    if now - table.table_told_at >= table.config.watchers_note_ms:
        table.table_changed(frames)


def away_timers(table: TableCore) -> dict[str, int]:
    """The ``away`` timers of the seats whose last socket closed (dropping those whose
    player came back, or whose seat changed hands in the lobby)."""
    wanted: dict[str, int] = {}
    for seat, since in list(table.leaving.items()):
        s = table.seats[seat]
        if s.is_human and s.online and table.conns_of(seat) == 0:
            window = table.config.moving_ms if seat in table.moving else table.config.presence_debounce_ms
            wanted[f"away:{seat}:{since}"] = since + window
        else:
            del table.leaving[seat]  # back, or the seat changed hands in the lobby
            table.moving.discard(seat)
    return wanted


def away(table: TableCore, seat: int, since: int, now: int, out: Outcome) -> None:
    """The ``away`` timer of ``seat`` ran out: its player is logged gone, if still away."""
    s = table.seats[seat]
    if table.leaving.get(seat) == since and s.is_human and s.online and table.conns_of(seat) == 0:
        del table.leaving[seat]
        table.moving.discard(seat)
        # ``since``: when the last socket closed; the grace window counts from then.
        table.commit(out, log.Presence(seat, False, since, at=now))
        hands.maybe_next_hand(table, out, now)
