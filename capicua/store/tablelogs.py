"""Table logs in the store: create a table, append to its log (fenced, many
tables in one transaction), load it, and read a table's row.

The log lives in ``table_events`` (one row per entry, numbered from 1; the
unique ``(table_id, seq)`` is the fence: an entry number written twice fails
the append as stale). An append made under a lease (a cluster's, ``epoch`` set)
is fenced by the lease too: in the same transaction as it writes, it reads the
table's ``table_leases`` row under a share lock and is refused (:class:`FencedLog`)
unless the row's epoch is its own, so once another process took the lease (which
updates that row, waiting for the appends in flight) the old holder writes nothing. ``tables`` and ``table_seats`` are listing rows kept up to
date from each append's projection, and ``matches`` keeps each match's
record. Synchronous: :class:`capicua.server.adapters.sql.StoreLog` calls these from
its writer thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from capicua.store import Store, iso_utc, standings
from capicua.store.models import (
    MatchRow,
    TableEventRow,
    TableLeaseRow,
    TableRow,
    TableSeatRow,
)
from capicua.table.log import Open


class StaleLog(Exception):
    """An entry number of the append is already written."""


class FencedLog(Exception):
    """The append's lease epoch is no longer the table's: another process holds it."""


@dataclass(slots=True)
class Append:
    """Entries ``first_seq, first_seq + 1, …`` of a table, and what its rows say now;
    ``epoch``: the lease it is written under (``None``: one process, no lease row)."""

    table_id: str
    first_seq: int
    entries: list[dict[str, Any]]
    epoch: int | None = None
    status: str | None = None
    scores: list[int] | None = None
    match_number: int | None = None
    record: dict[str, Any] | None = None
    seats: list[dict[str, Any]] | None = None

    def has_projection(self) -> bool:
        return self.status is not None or self.seats is not None or self.match_number is not None


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def create_table(store: Store, open_entry: dict[str, Any], first_seed: str, teams: int) -> None:
    """A new table's rows and the first entry of its log (``open_entry``: an
    :class:`~capicua.table.log.Open` entry as stored)."""
    with store.sessions.begin() as s:
        add_table(s, open_entry, first_seed, teams, _now())


def add_table(s: Session, open_entry: dict[str, Any], first_seed: str, teams: int, now: datetime) -> None:
    """:func:`create_table` in the caller's transaction (the matcher claims its players
    and opens their table in one, capicua.store.queue)."""
    opening = Open.from_json(open_entry)
    tid = opening.table
    s.add(
        TableRow(
            id=tid, preset=opening.preset, options=dict(opening.options), seed=first_seed,
            status="lobby" if opening.private else "playing", scores=[0] * teams, record=None,
            created_at=now, updated_at=now,
        )
    )
    s.flush()
    _write_seats(s.connection(), tid, [dict(seat) for seat in opening.seats])
    s.add(MatchRow(table_id=tid, number=1, status="playing", scores=[0] * teams, record=None,
                     created_at=now, updated_at=now))
    s.add(TableEventRow(table_id=tid, seq=1, data=open_entry, created_at=now))


def _write_seats(conn: Any, table_id: str, seats: list[dict[str, Any]]) -> None:
    conn.execute(_CLEAR_SEATS, {"tid": table_id})
    if seats:
        conn.execute(_INSERT_SEATS, [
            {"table_id": table_id, "seat": seat["seat"], "kind": seat.get("kind", "empty")[:8],
             "player_id": seat.get("player"), "name": seat.get("name", ""), "level": seat.get("level"),
             "character": seat.get("character")}
            for seat in seats
        ])


def append_many(store: Store, appends: list[Append]) -> list[Exception | None]:
    """Write every append in one transaction; when that fails on a stale entry,
    write them one by one so that only the stale ones fail. Returns, per append,
    ``None``, the :class:`StaleLog` it met, or :class:`FencedLog` (its lease is
    another's: nothing of it written). Other database errors propagate."""
    if not appends:
        return []
    try:
        with store.engine.begin() as conn:
            return _write_fenced(conn, appends)
    except IntegrityError:
        if len(appends) == 1:
            return [StaleLog(f"entry {appends[0].first_seq} of {appends[0].table_id} is already written")]
    results: list[Exception | None] = []
    for a in appends:
        try:
            with store.engine.begin() as conn:
                results.extend(_write_fenced(conn, [a]))
        except IntegrityError:
            results.append(StaleLog(f"entry {a.first_seq} of {a.table_id} is already written"))
    return results


def _write_fenced(conn: Any, appends: list[Append]) -> list[Exception | None]:
    """Write the appends whose lease still holds (checked in this transaction), and
    say per append ``None`` or the :class:`FencedLog` that kept it out."""
    fenced = _fenced(conn, appends)
    kept = [a for i, a in enumerate(appends) if i not in fenced]
    if kept:
        _write(conn, kept)
    return [
        FencedLog(f"{a.table_id}: the lease of epoch {a.epoch} is another's now") if i in fenced else None
        for i, a in enumerate(appends)
    ]


def _fenced(conn: Any, appends: list[Append]) -> set[int]:
    """Which appends (by index) are made under a lease epoch that is not the table's
    now. The lease rows are read under a share lock, in table order: a takeover
    (which updates the row) waits until this transaction ends, and this one reads
    the row as the takeover left it if it came first. SQLite has no row locks (its
    writer lock covers the whole database) and reads plainly."""
    leased = sorted({a.table_id for a in appends if a.epoch is not None})
    if not leased:
        return set()
    found = dict(
        conn.execute(
            select(TableLeaseRow.table_id, TableLeaseRow.epoch)
            .where(TableLeaseRow.table_id.in_(leased))
            .order_by(TableLeaseRow.table_id)
            .with_for_update(read=True)
        ).all()
    )
    return {i for i, a in enumerate(appends) if a.epoch is not None and found.get(a.table_id) != a.epoch}


# Built once: a statement built per commit cost more than its execution (the
# coercions and the cache key of a new statement object, at every batch). The
# updates without values() set the columns their parameters name.
_INSERT_ENTRIES = insert(TableEventRow)
_TOUCH_TABLES = update(TableRow).where(TableRow.id == bindparam("tid")).values(updated_at=bindparam("now"))
_UPDATE_TABLE = update(TableRow).where(TableRow.id == bindparam("tid"))
_UPDATE_MATCH = update(MatchRow).where(MatchRow.table_id == bindparam("tid"), MatchRow.number == bindparam("num"))
_INSERT_MATCH = insert(MatchRow)
_CLEAR_SEATS = delete(TableSeatRow).where(TableSeatRow.table_id == bindparam("tid"))
_INSERT_SEATS = insert(TableSeatRow)


def _write(conn: Any, appends: list[Append]) -> None:
    """The appends' entries in one multi-row insert (SQLAlchemy Core: the ORM's unit of
    work costs more than the write itself), then each table's row and projection."""
    now = _now()
    rows = [
        {"table_id": a.table_id, "seq": a.first_seq + i, "data": data, "created_at": now}
        for a in appends
        for i, data in enumerate(a.entries)
    ]
    conn.execute(_INSERT_ENTRIES, rows)
    plain = sorted({a.table_id for a in appends if not a.has_projection()})
    if plain:
        conn.execute(_TOUCH_TABLES, [{"tid": t, "now": now} for t in plain])
    for a in appends:
        if a.has_projection():
            _project(conn, a, now)


def _project(conn: Any, a: Append, now: datetime) -> None:
    """The table's row, seats and match row as the append's projection says (Core
    statements: the ORM's session, a read of the match row and a flush cost several
    times the writes; only a match's end opens a session, for its results)."""
    values: dict[str, Any] = {"tid": a.table_id, "updated_at": now}
    if a.status is not None:
        values["status"] = a.status
    if a.scores is not None:
        values["scores"] = list(a.scores)
    if a.record is not None:
        values["record"] = a.record
    conn.execute(_UPDATE_TABLE, values)
    if a.seats is not None:
        _write_seats(conn, a.table_id, a.seats)
    if a.match_number is None:
        return
    status = "finished" if a.status == "finished" else "playing"
    changed: dict[str, Any] = {"tid": a.table_id, "num": a.match_number, "status": status, "updated_at": now}
    if a.scores is not None:
        changed["scores"] = list(a.scores)
    if a.record is not None:
        changed["record"] = a.record
    if conn.execute(_UPDATE_MATCH, changed).rowcount == 0:  # the match's first projection
        conn.execute(_INSERT_MATCH, {"table_id": a.table_id, "number": a.match_number, "status": status,
                                     "scores": list(a.scores or []), "record": a.record, "created_at": now,
                                     "updated_at": now})
    if status == "finished" and a.record is not None:
        # The results in this very transaction: a match's end is never stored without them.
        with Session(bind=conn) as s:
            standings.write_results(s, a.table_id, a.match_number, a.record, now)
            s.flush()


def first_format_tables(store: Store) -> list[str]:
    """The tables whose log does not begin with an ``open`` entry: logs of the first
    format (or none at all), which ``capicua migrate-logs`` rewrites."""
    with store.sessions() as s:
        firsts = s.execute(select(TableEventRow.table_id, TableEventRow.data).where(TableEventRow.seq == 1))
        opened = {tid for tid, data in firsts if isinstance(data, dict) and data.get("op") == "open"}
        return sorted(set(s.scalars(select(TableRow.id))) - opened)


def rewrite_log(store: Store, table_id: str, expected: int, entries: list[dict[str, Any]]) -> None:
    """Rewrite a table's whole log with ``entries``, fenced: only while it holds exactly
    the ``expected`` entries it was read with, else :class:`StaleLog` and nothing changes.

    The table's row is locked first (every append updates that row, so on PostgreSQL an
    append waits for this rewrite, or this rewrite for it, and then sees it in the count);
    an append that slips in anyway meets the rewritten entry numbers in the unique
    ``(table_id, seq)`` and fails as stale, or this rewrite does."""
    now = _now()
    try:
        with store.sessions.begin() as s:
            row = s.get(TableRow, table_id, with_for_update=True)
            held = s.scalar(select(func.count()).select_from(TableEventRow).where(TableEventRow.table_id == table_id))
            if row is None or held != expected:
                raise StaleLog(f"{table_id} holds {held} entries, not {expected}: written since it was read")
            s.execute(delete(TableEventRow).where(TableEventRow.table_id == table_id))
            s.flush()
            for i, data in enumerate(entries):
                s.add(TableEventRow(table_id=table_id, seq=i + 1, data=data, created_at=now))
    except IntegrityError:
        raise StaleLog(f"an entry of {table_id} was written while its log was rewritten") from None


def load_entries(store: Store, table_id: str) -> dict[str, Any] | None:
    """The table's row (as :meth:`Store.load_table` gives it) with its log entries in order."""
    return store.load_table(table_id)


def table_row(store: Store, table_id: str) -> dict[str, Any] | None:
    """The table's listing row and seats, without its log."""
    with store.sessions() as s:
        m = s.get(TableRow, table_id)
        if m is None:
            return None
        seats = [
            {"seat": r.seat, "kind": r.kind, "name": r.name, "level": r.level, "character": r.character}
            for r in s.scalars(select(TableSeatRow).where(TableSeatRow.table_id == table_id).order_by(TableSeatRow.seat))
        ]
        return {
            "id": m.id, "preset": m.preset, "options": dict(m.options or {}), "status": m.status,
            "scores": list(m.scores or []), "record": m.record, "seats": seats,
            "created_at": iso_utc(m.created_at), "updated_at": iso_utc(m.updated_at),
        }


def match_records(store: Store, table_id: str) -> list[dict[str, Any]]:
    """Every match of a table with its record (``None`` before its first hand ends)."""
    with store.sessions() as s:
        rows = s.scalars(select(MatchRow).where(MatchRow.table_id == table_id).order_by(MatchRow.number))
        return [{"number": r.number, "status": r.status, "scores": list(r.scores), "record": r.record} for r in rows]
