"""A private table's lobby: guests take and leave seats; the host moves, fills and
clears seats, sets the timers and starts the match.

Every change of seats moves each socket to its player's seat (a watcher when
it has none) and tells it so (:func:`reseat`). The neighbours seated (and each
guest's stand-in) are chosen from the table's secret and the log
(:func:`pick_characters`), so a log replays to the same table.
Functions over a :class:`~capicua.table.core.TableCore`; the core dispatches to them.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from capicua.table import log, neighbours, protocol
from capicua.table.commands import Frames, Outcome
from capicua.table.options import NEIGHBOUR_LEVELS
from capicua.table.presence import Conn, player_seat
from capicua.table.protocol import Code, ConnId, ProtocolError, conn_audience
from capicua.table.seating import EMPTY

if TYPE_CHECKING:
    from capicua.table.core import TableCore


def sit_or_stand(
    table: TableCore, conn_id: ConnId, conn: Conn, intent: protocol.Sit | protocol.Stand, now: int, out: Outcome
) -> None:
    if table.status != "lobby":
        raise ProtocolError(Code.STARTED, "the match has started: you can watch")
    if isinstance(intent, protocol.Stand):
        seat = player_seat(conn)
        if conn.player is not None and conn.player == table.host:
            raise ProtocolError(Code.NOT_HOST, "the host keeps a seat")
        table.commit(out, log.Stand(seat, at=now))
        reseat(table, out, now)
        return
    if conn.player is None:
        raise ProtocolError(Code.UNAUTHORIZED, "choose a nickname first")
    if conn.seat is not None or table.seat_of(conn.player) is not None:
        raise ProtocolError(Code.SEAT_TAKEN, "you already have a seat at this table")
    free = [s.seat for s in table.seats if s.kind == EMPTY]
    if not free:
        raise ProtocolError(Code.TABLE_FULL, "every seat is taken: you can watch")
    seat = free[0] if intent.seat is None else intent.seat
    if seat >= len(table.seats):
        raise ProtocolError(Code.MALFORMED, f"seats are 0 to {len(table.seats) - 1}")
    if seat not in free:
        raise ProtocolError(Code.SEAT_TAKEN, "that seat is taken")
    stand_in_level = table.config.stand_in_level
    stand_in = pick_characters(table, [stand_in_level])[0]
    conn.watch = False  # a watcher who sits plays: its other tabs follow it to the seat
    table.commit(out, log.Sit(seat, conn.player, conn.name or "?", stand_in.id, stand_in_level, at=now))
    reseat(table, out, now)


def reseat(table: TableCore, out: Outcome, now: int) -> None:
    """After seats changed in the lobby: every socket to its player's seat (a watcher
    when it has none), the watchers' count and presence logged, and each socket whose
    seat changed told so (a ``welcome`` with its seat, then a ``sync`` of its view)."""
    moved = []
    for cid, c in table.conns.items():
        want = None if c.watch else table.seat_of(c.player)
        if want != c.seat:
            c.seat = want
            moved.append(cid)
    for s in table.seats:
        online = table.conns_of(s.seat) > 0
        if s.is_human and online != s.online:
            table.commit(out, log.Presence(s.seat, online, at=now))
    # Before the table frame that shows the new seats: a page that drew them first
    # would draw its player in the old seat for a frame.
    at = next((i for i, (_, f) in enumerate(out.frames) if f["type"] == "table"), len(out.frames))
    told: Frames = []
    for cid in moved:
        seat = table.conns[cid].seat
        told.append((conn_audience(cid), protocol.welcome_frame(seat, table.table_state())))
        told.append((conn_audience(cid), protocol.sync_frame(table.seq, table.match.view(seat))))
    out.frames[at:at] = told
    table.table_changed(out.frames)  # the watchers' count, when no entry showed it yet


def host_intent(table: TableCore, conn: Conn, intent: protocol.Intent, now: int, out: Outcome) -> None:
    """The host moves, fills or clears a seat, sets the timers, or starts the match."""
    if table.host is None or conn.player != table.host:
        raise ProtocolError(Code.NOT_HOST, "only the host can do that")
    if table.status != "lobby":
        raise ProtocolError(Code.STARTED, "the match has started")
    n = len(table.seats)
    if isinstance(intent, protocol.Configure):
        table.commit(out, log.Configure(intent.grace, intent.turn_timer, at=now))
        return
    if isinstance(intent, protocol.Start):
        empty = [s.seat for s in table.seats if s.kind == EMPTY]
        if empty:
            raise ProtocolError(Code.BAD_PHASE, "every seat needs a player or a neighbour first")
        table.commit(out, log.Start(at=now))
        table.commit(out, log.StartHand(tuple(table.online_humans()), at=now))
        return
    assert isinstance(intent, (protocol.MoveSeat, protocol.FillSeat, protocol.ClearSeat))
    if intent.seat >= n or (isinstance(intent, protocol.MoveSeat) and intent.to >= n):
        raise ProtocolError(Code.MALFORMED, f"seats are 0 to {n - 1}")
    if isinstance(intent, protocol.MoveSeat):
        if intent.seat == intent.to:
            raise ProtocolError(Code.NO_CHANGE, "a seat moves to another seat")
        if table.seats[intent.seat].kind == EMPTY and table.seats[intent.to].kind == EMPTY:
            raise ProtocolError(Code.NO_CHANGE, "both seats are empty")
        table.commit(out, log.Move(intent.seat, intent.to, at=now))
        reseat(table, out, now)
    elif isinstance(intent, protocol.FillSeat):
        if intent.level not in NEIGHBOUR_LEVELS:
            raise ProtocolError(Code.MALFORMED, f"level is one of {', '.join(NEIGHBOUR_LEVELS)}")
        if table.seats[intent.seat].kind != EMPTY:
            raise ProtocolError(Code.SEAT_TAKEN, "that seat is taken")
        ch = pick_characters(table, [intent.level])[0]
        table.commit(out, log.Fill(intent.seat, intent.level, ch.id, ch.name, at=now))
    else:
        target = table.seats[intent.seat]
        if target.kind == EMPTY:
            raise ProtocolError(Code.NO_CHANGE, "that seat is empty already")
        if target.player is not None and target.player == table.host:
            raise ProtocolError(Code.NOT_HOST, "the host keeps a seat")
        table.commit(out, log.Clear(intent.seat, at=now))
        reseat(table, out, now)


def pick_characters(table: TableCore, levels: list[str]) -> list[neighbours.Character]:
    """Neighbours not at the table yet, chosen from the table's secret and the log."""
    rng = random.Random(f"capicua/characters/{table.secret}/{table.log_seq}")
    taken = {s.character for s in table.seats if s.character}
    return neighbours.choose_characters(rng, levels, exclude=taken)
