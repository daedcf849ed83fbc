"""The parque's matchmaking queue ("Jugar con gente"), kept in the store so that it
survives a restart and is shared by a cluster's processes.

A player has one row at most (``queue_entries``' key is the player): waiting while
its ``table_id`` is empty, seated once a matcher opened their table. A page polls
its row (:func:`poll`); a row not polled for :data:`STALE_S` is dropped (the page
was closed). :func:`match_round` is one round of the matcher: it drops the stale
rows, reads the waiting ones, lets the caller decide the tables (the pure
:mod:`capicua.table.matchmaking` and the tables' first entries), then claims each
table's players and writes the table in the same transaction, so a player is
either seated at exactly one new table or still waiting. On PostgreSQL a round
first takes a transaction-level advisory lock (a round of another process is
skipped, not waited for) and reads the rows ``FOR UPDATE SKIP LOCKED``; a claim
only takes rows that are still waiting, and a round that finds one taken writes
nothing.

Synchronous, like the rest of the store: the server calls it from threads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import delete, func, select, text, update
from sqlalchemy.engine import CursorResult
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from capicua.standings.ratings import NEW_RATING
from capicua.store import Store
from capicua.store.models import (
    ParqueTableRow,
    QueueEntryRow,
    RatingRow,
    TableRow,
    TableSeatRow,
)
from capicua.store.tablelogs import add_table
from capicua.table.matchmaking import Waiting

STALE_S = 30  # a row its page has not polled for this long is dropped (the page was closed)
# Only rows polled this recently are seated (pages poll every 2 s): a table waits for all its
# players before its first deal, so a page closed a moment ago must not be given a seat.
FRESH_S = 6
LIVE_S = 600  # a table whose rows changed within this long is live (its players cannot queue)
ROUND_MAX = 2000  # waiting rows one round reads, oldest first
RATING_BOARD = "friends"  # the board of matches among people
_MATCHER_LOCK_KEY = 0x50415251  # "PARQ": the advisory lock of a round on PostgreSQL


class QueueRefused(Exception):
    """A queue request refused: ``code`` (the HTTP API's), ``status``, a readable message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


@dataclass(frozen=True, slots=True)
class NewTable:
    """A table a round opens: its id, its players, its log's first entry (an
    :class:`~capicua.table.log.Open` as stored), its first match's seed and teams."""

    table_id: str
    players: tuple[str, ...]
    open_entry: dict[str, Any]
    first_seed: str
    teams: int


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _ms(at: datetime) -> int:
    return int(at.replace(tzinfo=UTC).timestamp() * 1000)


def _changed(result: Any) -> int:
    """The rows an UPDATE or DELETE changed (its cursor's count)."""
    count: int = cast(CursorResult[Any], result).rowcount
    return count


def live_table_of(s: Session, player: str, now: datetime) -> str | None:
    """A table ``player`` has a seat at whose lobby or match is going on (changed within
    :data:`LIVE_S`), or None."""
    return s.scalar(
        select(TableSeatRow.table_id)
        .join(TableRow, TableRow.id == TableSeatRow.table_id)
        .where(TableSeatRow.player_id == player, TableRow.status.in_(("lobby", "playing")),
               TableRow.updated_at >= now - timedelta(seconds=LIVE_S))
        .limit(1)
    )


def join(store: Store, player: str, nickname: str, level: int, preset: str, wait_s: int | None,
         now: datetime | None = None) -> None:
    """Put ``player`` in the queue for ``preset``, neighbours after ``wait_s`` (None: never).
    Refused (:class:`QueueRefused`, nothing changed) when they wait already or have a
    seat at a live table. A seated row of theirs whose table is over is replaced."""
    at = now or _now()
    try:
        with store.sessions.begin() as s:
            row = s.get(QueueEntryRow, player)
            if row is not None and row.table_id is None:
                raise QueueRefused(409, "already_queued", "you are in the queue already")
            live = live_table_of(s, player, at)
            if live is not None:
                raise QueueRefused(409, "at_a_table", f"you have a seat at a table being played: /t/{live}")
            if row is not None:
                s.delete(row)
                s.flush()
            rated = s.get(RatingRow, (player, RATING_BOARD))
            s.add(QueueEntryRow(
                player_id=player, nickname=nickname, level=level, preset=preset,
                rating=NEW_RATING.mu if rated is None else rated.mu, wait_s=wait_s,
                joined_at=at, polled_at=at, table_id=None, seated_at=None,
            ))
    except IntegrityError:  # the same player's other request inserted first
        raise QueueRefused(409, "already_queued", "you are in the queue already") from None


def poll(store: Store, player: str, now: datetime | None = None) -> dict[str, Any] | None:
    """The player's row, marked as polled now: ``{"state": "waiting", "preset", "wait",
    "waited_s", "waiting"}`` (``waiting``: how many wait for the same game) or
    ``{"state": "seated", "table_id"}``; None when they are not in the queue."""
    at = now or _now()
    with store.sessions.begin() as s:
        row = s.get(QueueEntryRow, player)
        if row is None:
            return None
        row.polled_at = at
        if row.table_id is not None:
            return {"state": "seated", "table_id": row.table_id, "preset": row.preset}
        same = s.scalar(select(func.count()).select_from(QueueEntryRow).where(
            QueueEntryRow.table_id.is_(None), QueueEntryRow.preset == row.preset))
        return {"state": "waiting", "preset": row.preset, "wait": row.wait_s,
                "waited_s": max(0, int((at - row.joined_at).total_seconds())), "waiting": int(same or 0)}


def leave(store: Store, player: str) -> bool:
    """Take a waiting player out of the queue (False: they were not waiting; a seated
    row stays, so the page still learns its table)."""
    with store.sessions.begin() as s:
        gone = _changed(s.execute(delete(QueueEntryRow).where(
            QueueEntryRow.player_id == player, QueueEntryRow.table_id.is_(None))))
        return gone > 0


def waiting_players(store: Store, limit: int) -> dict[str, Any]:
    """What the parque shows of the queue: how many wait for each game, and the
    nickname and level of the first ``limit`` of them (nothing else about anyone)."""
    with store.sessions() as s:
        counts = dict(s.execute(
            select(QueueEntryRow.preset, func.count()).where(QueueEntryRow.table_id.is_(None))
            .group_by(QueueEntryRow.preset)).all())
        first = s.execute(
            select(QueueEntryRow.nickname, QueueEntryRow.level, QueueEntryRow.preset)
            .where(QueueEntryRow.table_id.is_(None)).order_by(QueueEntryRow.joined_at).limit(limit)).all()
    return {"counts": {p: int(n) for p, n in sorted(counts.items())},
            "players": [{"nickname": n, "level": lv, "preset": p} for n, lv, p in first]}


Plan = Callable[[Sequence[Waiting], int], list[NewTable]]


def match_round(store: Store, plan: Plan, now: datetime | None = None) -> list[NewTable]:
    """One round of the matcher: drop the stale rows, ``plan(waiting, now_ms)`` the
    tables, claim their players and write the tables, all in one transaction.
    Returns the tables written (none when another process's round runs now)."""
    at = now or _now()
    with store.sessions() as s:  # an empty queue (most seconds of most servers) costs one read, no write lock
        if s.scalar(select(QueueEntryRow.player_id).limit(1)) is None:
            return []
    try:
        return _round(store, plan, at)
    except _Taken:  # a player of a planned table is no longer waiting: this round wrote nothing
        return []


class _Taken(Exception):
    pass


def _round(store: Store, plan: Plan, at: datetime) -> list[NewTable]:
    with store.sessions.begin() as s:
        if s.get_bind().dialect.name == "postgresql" and not s.scalar(
            text("SELECT pg_try_advisory_xact_lock(:key)"), {"key": _MATCHER_LOCK_KEY}
        ):
            return []
        s.execute(delete(QueueEntryRow).where(QueueEntryRow.polled_at < at - timedelta(seconds=STALE_S)))
        rows = s.scalars(
            select(QueueEntryRow)
            .where(QueueEntryRow.table_id.is_(None), QueueEntryRow.polled_at >= at - timedelta(seconds=FRESH_S))
            .order_by(QueueEntryRow.joined_at).limit(ROUND_MAX).with_for_update(skip_locked=True)
        ).all()
        waiting = [Waiting(r.player_id, r.preset, r.rating, _ms(r.joined_at), r.wait_s, r.nickname) for r in rows]
        planned = plan(waiting, _ms(at)) if waiting else []
        for table in planned:
            claimed = _changed(s.execute(
                update(QueueEntryRow)
                .where(QueueEntryRow.player_id.in_(table.players), QueueEntryRow.table_id.is_(None))
                .values(table_id=table.table_id, seated_at=at)
                .execution_options(synchronize_session=False)
            ))
            if claimed != len(table.players):
                raise _Taken(table.table_id)
            add_table(s, table.open_entry, table.first_seed, table.teams, at)
            s.add(ParqueTableRow(table_id=table.table_id, kind="matched", host=None, listed_at=at))
    return planned
