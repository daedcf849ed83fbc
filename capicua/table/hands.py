"""The hands of a match: a player's move, "Siguiente mano", the host dealing without
waiting, and when the next (or first) hand is dealt.

A move is checked by the engine before anything is logged (an illegal one is a
coded :class:`~capicua.table.protocol.ProtocolError`, nothing changes); an
intent made against an older ``seq`` than the last change's is stale.
Functions over a :class:`~capicua.table.core.TableCore`; the core dispatches to them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from capicua.engine import EngineError, parse_action
from capicua.table import log, protocol
from capicua.table.commands import Outcome
from capicua.table.protocol import Code, ProtocolError
from capicua.table.seating import HUMAN

if TYPE_CHECKING:
    from capicua.table.core import TableCore
    from capicua.table.presence import Conn


def check_current(table: TableCore, seq: int) -> None:
    """Refuse an intent made against an older state than the last change's."""
    if not (seq == table.seq or table.batch_first <= seq <= table.seq):
        raise ProtocolError(Code.STALE, f"the table is at {table.seq}; you played against {seq}")


def game_intent(table: TableCore, seat: int, intent: protocol.GameIntent, now: int, out: Outcome) -> None:
    """A player's move, answer to the redeal question, or "Siguiente mano"."""
    if table.status == "lobby":
        raise ProtocolError(Code.BAD_PHASE, "the match has not started yet")
    check_current(table, intent.seq)
    m = table.match
    if isinstance(intent, protocol.NextHand):
        if m.phase != "hand_over":
            msg = "the match is over" if m.phase == "match_over" else "the hand is not over"
            raise ProtocolError(Code.BAD_PHASE, msg)
        if seat in table.ready:
            return
        table.commit(out, log.Ready(seat, at=now))
        maybe_next_hand(table, out, now)
        return
    raw: dict[str, Any]
    if isinstance(intent, protocol.Play):
        raw = {"tile": list(intent.tile), "end": intent.end}
    else:
        raw = {"redeal": intent.accept}
    try:
        action = parse_action(raw, table.rules.max_pip)
        m.check(seat, action)
    except EngineError as exc:
        raise ProtocolError(_engine_code(exc), str(exc)) from None
    table.commit(out, log.Action(seat, action.to_json(), HUMAN, at=now))


def maybe_next_hand(table: TableCore, out: Outcome, now: int) -> None:
    """The next hand is dealt when every player who plays their seat is ready."""
    if table.status != "playing" or table.match.phase != "hand_over":
        return
    waiting = [s.seat for s in table.seats if s.is_human and s.online and s.controller == HUMAN]
    if waiting and set(waiting) <= table.ready:
        table.commit(out, log.StartHand(tuple(table.online_humans()), at=now))


def deal_now(table: TableCore, conn: Conn, intent: protocol.DealNow, now: int, out: Outcome) -> None:
    """The host of a private table deals the next hand without waiting for every
    "Siguiente mano" (a friend's tab left open must not stall the others)."""
    if table.host is None or conn.player != table.host:
        raise ProtocolError(Code.NOT_HOST, "only the host of a private table deals without waiting")
    if table.status == "lobby":
        raise ProtocolError(Code.BAD_PHASE, "the match has not started yet")
    check_current(table, intent.seq)
    if table.match.phase != "hand_over":
        msg = "the match is over" if table.match.phase == "match_over" else "the hand is not over"
        raise ProtocolError(Code.BAD_PHASE, msg)
    table.commit(out, log.StartHand(tuple(table.online_humans()), "host", at=now))


def maybe_first_hand(table: TableCore, out: Outcome, now: int) -> None:
    """A table against the neighbours deals its first hand once every player is here, or
    has a stand-in (a player the parque seated who never came: timers.never_came)."""
    humans = [table.seats[s] for s in table.human_seats()]
    here = all(s.online or s.stood_in for s in humans) and (not humans or any(s.online for s in humans))
    if table.status == "playing" and table.match.phase == "new" and here:
        table.commit(out, log.StartHand(tuple(table.online_humans()), at=now))


def _engine_code(exc: EngineError) -> Code:
    try:
        return Code(getattr(exc, "code", "illegal"))
    except ValueError:  # an engine code the protocol does not name: the move is illegal
        return Code.ILLEGAL
