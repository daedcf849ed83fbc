"""After a match: "Otra partida", what becomes of a gone player's seat, back to the lobby.

Who the next match waits for is :func:`capicua.table.rematch.rematch_check`
(pure); this module logs what the players say and decide, and starts the next
match once everyone agreed. Functions over a
:class:`~capicua.table.core.TableCore`; the core dispatches to them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from capicua.table import log, protocol
from capicua.table.commands import Outcome
from capicua.table.lobby import pick_characters
from capicua.table.options import NEIGHBOUR_LEVELS
from capicua.table.presence import Conn, player_seat
from capicua.table.protocol import Code, ProtocolError
from capicua.table.rematch import RematchCheck, rematch_check
from capicua.table.seating import HUMAN, STAND_IN

if TYPE_CHECKING:
    from capicua.table.core import TableCore


def check(table: TableCore) -> RematchCheck:
    """Who the next match waits for (TABLE's ``rematch``)."""
    return rematch_check(table.seats, table.ready, table.left_to_stand_in, table.host)


def say_rematch(table: TableCore, conn: Conn, now: int, out: Outcome) -> None:
    """"Otra partida": this seat is ready (the match starts in :func:`maybe_rematch`)."""
    seat = player_seat(conn)
    if table.status != "finished":
        raise ProtocolError(Code.BAD_PHASE, "the match is not over")
    if seat not in table.ready:  # else another tab of the player said it already
        table.commit(out, log.Ready(seat, at=now))


def maybe_rematch(table: TableCore, out: Outcome, now: int) -> None:
    """The next match starts once every player here said "Otra partida" and every
    gone player's seat was decided on (:mod:`capicua.table.rematch`). A seat left
    to its stand-in is the stand-in's from the first move (no grace to wait out)."""
    if table.status != "finished":
        return  # (runs after every command: nothing to compute while a match is played)
    agreed = check(table)
    if not agreed.agreed:
        return
    table.commit(out, log.Rematch(at=now))
    for seat in agreed.stand_in:
        if table.seats[seat].controller == HUMAN:
            table.commit(out, log.Controller(seat, STAND_IN, at=now))
    table.commit(out, log.StartHand(tuple(table.online_humans()), at=now))


def decide(
    table: TableCore, conn: Conn, intent: protocol.StandIn | protocol.ToLobby | protocol.FillSeat, now: int, out: Outcome
) -> None:
    """After the match, what becomes of a gone player's seat (left to its stand-in, or
    a neighbour sits there), or the host takes the table back to its lobby."""
    seat = player_seat(conn)
    if table.status != "finished":
        raise ProtocolError(Code.BAD_PHASE, "only once the match is over")
    if isinstance(intent, protocol.ToLobby):
        if table.host is None or conn.player != table.host:
            raise ProtocolError(Code.NOT_HOST, "only the host takes the table back to its lobby")
        table.commit(out, log.Rematch(lobby=True, at=now))
        return
    if seat not in check(table).deciders:
        raise ProtocolError(Code.NOT_HOST, "the host decides (anyone here, while the host is gone)")
    if intent.seat >= len(table.seats):
        raise ProtocolError(Code.MALFORMED, f"seats are 0 to {len(table.seats) - 1}")
    target = table.seats[intent.seat]
    if not target.is_human:
        raise ProtocolError(Code.SEAT_TAKEN, "a neighbour plays that seat")
    if target.online:
        raise ProtocolError(Code.SEAT_TAKEN, "that seat's player is here")
    if isinstance(intent, protocol.StandIn):
        if intent.seat in table.left_to_stand_in:
            raise ProtocolError(Code.NO_CHANGE, "that seat is left to its stand-in already")
        table.commit(out, log.StandIn(intent.seat, at=now))
        return
    if intent.level not in NEIGHBOUR_LEVELS:
        raise ProtocolError(Code.MALFORMED, f"level is one of {', '.join(NEIGHBOUR_LEVELS)}")
    if target.player is not None and target.player == table.host:
        raise ProtocolError(Code.NOT_HOST, "the host keeps a seat")
    ch = pick_characters(table, [intent.level])[0]
    table.commit(out, log.Fill(intent.seat, intent.level, ch.id, ch.name, at=now))
