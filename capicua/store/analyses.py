"""The experto's analyses in the store (table ``analyses``, migration 0004).

One row per seat and finished hand of a table's match: the JSON of
:func:`capicua.bots.analysis.analyse_hand` for that seat and when it was computed.
Synchronous, like the rest of the store: the server calls it from a thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, select

from capicua.store import Store, iso_utc
from capicua.store.models import (
    AnalysisRow,
    MatchRow,
    TableEventRow,
    TableRow,
)


@dataclass(frozen=True, slots=True)
class MatchInputs:
    """What an analysis of a table's match is computed from: the match's record
    (None before its first hand ended) and the table's whole log (who chose each action)."""

    record: dict[str, Any] | None
    entries: list[dict[str, Any]]


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def save(store: Store, table_id: str, match_number: int, hand: int, results: list[dict[str, Any]]) -> None:
    """Store (or replace) the analyses of hand ``hand``: one per seat of ``results``."""
    now = _now()
    with store.sessions.begin() as s:
        for result in results:
            seat = int(result["seat"])
            s.execute(
                delete(AnalysisRow).where(
                    AnalysisRow.table_id == table_id, AnalysisRow.match_number == match_number,
                    AnalysisRow.hand == hand, AnalysisRow.seat == seat,
                )
            )
            s.add(AnalysisRow(table_id=table_id, match_number=match_number, hand=hand, seat=seat,
                              result=result, computed_at=now))


def load(store: Store, table_id: str, match_number: int) -> list[dict[str, Any]]:
    """The stored analyses of a match, by hand and seat: ``{"hand", "seat", "result", "computed_at"}``."""
    with store.sessions() as s:
        rows = s.scalars(
            select(AnalysisRow)
            .where(AnalysisRow.table_id == table_id, AnalysisRow.match_number == match_number)
            .order_by(AnalysisRow.hand, AnalysisRow.seat)
        )
        return [
            {"hand": r.hand, "seat": r.seat, "result": r.result, "computed_at": iso_utc(r.computed_at)} for r in rows
        ]


def inputs(store: Store, table_id: str, match_number: int) -> MatchInputs | None:
    """The record and log of match ``match_number`` of the table; None when the
    table or that match is unknown (:func:`table_known` tells which)."""
    with store.sessions() as s:
        row = s.get(MatchRow, (table_id, match_number))
        if row is None:
            return None
        entries = [
            e.data
            for e in s.scalars(select(TableEventRow).where(TableEventRow.table_id == table_id).order_by(TableEventRow.seq))
        ]
        return MatchInputs(row.record, entries)


def table_known(store: Store, table_id: str) -> bool:
    with store.sessions() as s:
        return s.get(TableRow, table_id) is not None
