"""A table's clocks: the turn timer, the wait between hands, a gone player's grace,
and the timers the shell runs for them.

A deadline is computed from the log (when the wait began, the table's
settings), never stored: a table loaded again resumes each one with the time
it had left, and one that ran out while the table was away leaves its player
:data:`RESUME_MIN_MS` to reconnect. After every command, :func:`settle` diffs
the timers the table waits for against those the shell was asked to run
(``table.armed_timers``) and returns the difference as effects.

Timer keys (``TimerFired.key``): ``grace:SEAT:SINCE`` (a gone player's seat
goes to its stand-in), ``turn:SEQ:SEAT`` (a turn ran out), ``deal:SEQ`` (the
wait between hands ran out), ``next:SEQ`` (a table of neighbours only deals
on), ``away:SEAT:SINCE`` (a seat's last socket stayed away:
:mod:`capicua.table.presence`), ``note:AT`` (the watchers' count is told).
Functions over a :class:`~capicua.table.core.TableCore`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from capicua.table import hands, log, presence
from capicua.table.commands import CancelTimer, Outcome, StartTimer, TimerFired
from capicua.table.seating import HUMAN, STAND_IN

if TYPE_CHECKING:
    from capicua.table.core import TableCore

RESUME_MIN_MS = 5_000  # after a reload, a running deadline keeps at least this long (its player reconnects)
HANDOVER_FACTOR = 2  # with a turn timer of N s, the wait between hands is 2N s


def deadline(table: TableCore, now: int) -> dict[str, Any] | None:
    """TABLE's ``deadline``: what runs on the clock, until when (``at``), how long
    it runs in all (``ms``) and how long it had left at ``now`` (``left``)."""
    turn = turn_deadline(table)
    if turn is not None:
        seat, at = turn
        return {"for": "turn", "seat": seat, "at": at, "ms": table.turn_timer * 1000, "left": max(0, at - now)}
    handover = handover_deadline(table)
    if handover is not None:
        return {"for": "next_hand", "seat": None, "at": handover, "ms": handover_ms(table),
                "left": max(0, handover - now)}
    return None


def handover_ms(table: TableCore) -> int:
    return HANDOVER_FACTOR * table.turn_timer * 1000


def handover_deadline(table: TableCore) -> int | None:
    """With a turn timer, when the next hand is dealt even if a player never said
    "Siguiente mano" (a tab left open must not stall the others)."""
    if table.turn_timer <= 0 or table.status != "playing" or table.match.phase != "hand_over":
        return None
    if not table.human_seats():
        return None  # a table of neighbours only goes on by itself (the ``next`` timer)
    return max(table.turn_since + handover_ms(table), table.resume_floor)


def turn_deadline(table: TableCore) -> tuple[int, int] | None:
    """The seat whose turn runs on the clock, and when it runs out."""
    m = table.match
    if table.turn_timer <= 0 or table.status != "playing" or m.phase not in ("play", "redeal_question"):
        return None
    seat = m.turn
    if seat is None:
        return None
    s = table.seats[seat]
    if not s.is_human or s.controller != HUMAN or table.timed_out == (seat, table.seq):
        return None
    return seat, max(table.turn_since + table.turn_timer * 1000, table.resume_floor)


def settle(table: TableCore, out: Outcome) -> None:
    """Start the timers the table waits for and the shell does not run yet; cancel the others."""
    wanted = _wanted(table)
    for key in [k for k in table.armed_timers if k not in wanted]:
        del table.armed_timers[key]
        out.effects.append(CancelTimer(key))
    for key, at in wanted.items():
        if table.armed_timers.get(key) != at:
            table.armed_timers[key] = at
            out.effects.append(StartTimer(key, at))


def _wanted(table: TableCore) -> dict[str, int]:
    wanted: dict[str, int] = {}
    if table.status == "playing":
        for s in table.seats:
            if s.is_human and not s.online and s.controller == HUMAN and s.offline_since is not None:
                wanted[f"grace:{s.seat}:{s.offline_since}"] = s.offline_since + table.grace * 1000
        # A player seated by the parque's matcher who never came: the first deal waits for
        # them as long as for a dropped player (counted from the opening), then their
        # stand-in plays and the others need not wait.
        for seat in never_came(table):
            wanted[f"grace:{seat}:{table.created_at}"] = table.created_at + table.grace * 1000
        turn = turn_deadline(table)
        if turn is not None:
            wanted[f"turn:{table.seq}:{turn[0]}"] = turn[1]
        if table.match.phase == "hand_over" and not table.human_seats():
            wanted[f"next:{table.seq}"] = table.turn_since + table.config.auto_next_ms
        handover = handover_deadline(table)
        if handover is not None:
            wanted[f"deal:{table.seq}"] = handover
    wanted.update(presence.away_timers(table))
    if table.table_untold():  # only the watchers' count: told by the ``note`` timer
        wanted[f"note:{table.table_told_at}"] = table.table_told_at + table.config.watchers_note_ms
    return wanted


def never_came(table: TableCore) -> list[int]:
    """Before a table's first deal, while someone is here: the human seats whose player has
    not come yet (never online, no stand-in)."""
    humans = [table.seats[s] for s in table.human_seats()]
    if table.status != "playing" or table.match_number != 1 or table.match.phase != "new":
        return []
    if not any(s.online for s in humans):
        return []
    return [s.seat for s in humans if not s.online and s.offline_since is None and s.controller == HUMAN]


def fired(table: TableCore, cmd: TimerFired, now: int, out: Outcome) -> None:
    """What a timer that ran out changes (nothing when the table moved on meanwhile)."""
    if table.armed_timers.pop(cmd.key, None) is None:
        return
    name, _, rest = cmd.key.partition(":")
    if name == "grace":
        seat, since = (int(x) for x in rest.split(":"))
        s = table.seats[seat]
        gone = s.is_human and not s.online and s.offline_since == since and s.controller == HUMAN
        if gone or (seat in never_came(table) and since == table.created_at):
            table.commit(out, log.Timer("grace", seat, at=now))
            table.commit(out, log.Controller(seat, STAND_IN, at=now))
            hands.maybe_next_hand(table, out, now)  # the others need not wait for a stand-in's "ready"
            hands.maybe_first_hand(table, out, now)  # ... nor for one who never came to deal
    elif name == "away":
        seat, since = (int(x) for x in rest.split(":"))
        presence.away(table, seat, since, now, out)
    elif name == "deal":
        if int(rest) == table.seq and handover_deadline(table) is not None:
            table.commit(out, log.Timer("next_hand", at=now))
            table.commit(out, log.StartHand(tuple(table.online_humans()), at=now))
    elif name == "note":
        table.table_changed(out.frames)
    elif name == "turn":
        seq, seat = (int(x) for x in rest.split(":"))
        if seq == table.seq and table.match.turn == seat and turn_deadline(table) is not None:
            table.commit(out, log.Timer("turn", seat, at=now))
    elif name == "next":
        if int(rest) == table.seq and table.match.phase == "hand_over" and not table.human_seats():
            table.commit(out, log.StartHand((), at=now))
