"""The tables the parque lists (``parque_tables``): a host's public table waiting in
its lobby for players, and the tables being played that anyone may watch (the
public ones and those the matcher opened). A table by link only has no row and
is never listed: its link is its invitation.

Synchronous, like the rest of the store: the server calls it from threads.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, select

from capicua.engine.rules import make_rules
from capicua.store import Store
from capicua.store.models import ParqueTableRow, TableEventRow, TableRow, TableSeatRow
from capicua.store.queue import QueueRefused

LOBBY_LIVE_S = 1800  # a public lobby untouched this long is not listed (its host went away)
PLAYING_LIVE_S = 600  # a match with no move this long is not listed to watch


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def set_public(store: Store, table_id: str, player: str, public: bool, now: datetime | None = None) -> bool:
    """The host of a table waiting in its lobby lists it in the parque (``public``) or
    keeps it by link only. Returns whether it is public now. Refused
    (:class:`~capicua.store.queue.QueueRefused`, nothing changed): ``unknown_table``,
    ``not_host`` (not the host, or a table without one), ``started`` (the lobby closed)."""
    at = now or _now()
    with store.sessions.begin() as s:
        row = s.get(TableRow, table_id)
        if row is None:
            raise QueueRefused(404, "unknown_table", "no such table")
        opening = s.scalar(select(TableEventRow.data).where(TableEventRow.table_id == table_id,
                                                            TableEventRow.seq == 1))
        if not isinstance(opening, dict) or opening.get("host") != player:
            raise QueueRefused(403, "not_host", "only the table's host can do that")
        if row.status != "lobby":
            raise QueueRefused(409, "started", "the match has started")
        listed = s.get(ParqueTableRow, table_id)
        if public and listed is None:
            s.add(ParqueTableRow(table_id=table_id, kind="public", host=player, listed_at=at))
        elif not public and listed is not None:
            s.execute(delete(ParqueTableRow).where(ParqueTableRow.table_id == table_id))
    return public


def is_public(store: Store, table_id: str) -> bool:
    with store.sessions() as s:
        return s.get(ParqueTableRow, table_id) is not None


def listing(store: Store, limit: int, now: datetime | None = None) -> dict[str, Any]:
    """``{"waiting": [...], "playing": [...]}``, each at most ``limit`` tables, newest
    first: the public tables waiting in their lobby with a seat free (game, target,
    seats free, host, the levels of the neighbours seated) and the listed tables
    being played."""
    at = now or _now()
    with store.sessions() as s:
        waiting = s.execute(
            select(TableRow, ParqueTableRow.host).join(ParqueTableRow, ParqueTableRow.table_id == TableRow.id)
            .where(TableRow.status == "lobby", TableRow.updated_at >= at - timedelta(seconds=LOBBY_LIVE_S))
            .order_by(ParqueTableRow.listed_at.desc()).limit(limit)
        ).all()
        playing = s.scalars(
            select(TableRow).join(ParqueTableRow, ParqueTableRow.table_id == TableRow.id)
            .where(TableRow.status == "playing", TableRow.updated_at >= at - timedelta(seconds=PLAYING_LIVE_S))
            .order_by(TableRow.updated_at.desc()).limit(limit)
        ).all()
        ids = [t.id for t, _ in waiting] + [t.id for t in playing]
        seats: dict[str, list[TableSeatRow]] = {}
        for seat in s.scalars(select(TableSeatRow).where(TableSeatRow.table_id.in_(ids)).order_by(TableSeatRow.seat)):
            seats.setdefault(seat.table_id, []).append(seat)
    open_seats = [(t, host, seats.get(t.id, [])) for t, host in waiting]
    return {  # a full lobby waits for its host's "Empezar", not for players
        "waiting": [_waiting(t, host, ss) for t, host, ss in open_seats if any(x.kind == "empty" for x in ss)],
        "playing": [_playing(t, seats.get(t.id, [])) for t in playing],
    }


def _target(t: TableRow) -> int | None:
    try:
        return make_rules(t.preset, **dict(t.options or {})).target
    except (TypeError, ValueError):  # a row of a game this build no longer offers
        return None


def _waiting(t: TableRow, host: str | None, seats: Sequence[TableSeatRow]) -> dict[str, Any]:
    return {
        "table_id": t.id, "preset": t.preset, "target": _target(t), "seats": len(seats),
        "free": sum(1 for s in seats if s.kind == "empty"),
        "host": next((s.name for s in seats if s.player_id is not None and s.player_id == host), ""),
        "players": [s.name for s in seats if s.kind == "human"],
        "neighbours": [s.level for s in seats if s.kind == "bot" and s.level],
    }


def _playing(t: TableRow, seats: Sequence[TableSeatRow]) -> dict[str, Any]:
    return {
        "table_id": t.id, "preset": t.preset, "target": _target(t), "scores": list(t.scores or []),
        "players": [s.name for s in seats if s.kind == "human"],
        "neighbours": [s.level for s in seats if s.kind == "bot" and s.level],
    }
