"""Persistence: players (guests), tables and their logs.

SQLAlchemy 2, one database URL: SQLite by default (``sqlite:///path``) or
PostgreSQL through psycopg 3 (``postgresql+psycopg://user:password@host/db``); the
same code and migrations run on both (the tests run the store on both). The
schema is made and upgraded by the Alembic migrations shipped in
``capicua/store/migrations``; :meth:`Store.migrate` runs ``alembic upgrade``
programmatically. :class:`Store` holds the engine
and the guests; :mod:`capicua.store.tablelogs` writes and reads table logs.

The API is synchronous: the server calls it from threads, never on its event loop.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session, sessionmaker

from capicua.store.models import (
    Base,
    Player,
    PlayerDeviceRow,
    TableEventRow,
    TableRow,
    TableSeatRow,
)
from capicua.store.nicknames import search_key

MIGRATIONS = Path(__file__).resolve().parent / "migrations"

__all__ = ["Store", "Base", "token_hash", "default_database_url", "iso_utc"]


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def iso_utc(stored: datetime) -> str:
    """A stored time (naive, UTC) as ISO 8601 with its offset."""
    return stored.replace(tzinfo=UTC).isoformat()


def default_database_url(data_dir: str | Path = "data") -> str:
    """``sqlite:///<data_dir>/capicua.sqlite3``, creating the folder."""
    path = Path(data_dir)
    path.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{(path / 'capicua.sqlite3').as_posix()}"


class Store:
    def __init__(self, url: str) -> None:
        self.url = url
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False}
        self.engine: Engine = create_engine(url, **kwargs)
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    # ------------------------------------------------------------ schema
    def migrate(self, revision: str = "head") -> None:
        """``alembic upgrade <revision>`` (by default the newest), programmatically."""
        from alembic import command
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        cfg.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
        with self.engine.begin() as conn:
            _lock_for_migration(conn)
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, revision)

    def close(self) -> None:
        self.engine.dispose()

    # ----------------------------------------------------------- players
    def create_player(self, nickname: str, label: str = "") -> tuple[str, str]:
        """A new guest and its first device (``label``: its browser, capicua.store.devices):
        returns ``(player_id, token)``; only the token's hash is kept."""
        token = secrets.token_urlsafe(24)
        pid = "p_" + secrets.token_hex(8)
        now = _now()
        with self.sessions.begin() as s:
            s.add(Player(id=pid, nickname=nickname, created_at=now, search_key=search_key(nickname)))
            s.flush()  # the device's row refers to the player's
            s.add(PlayerDeviceRow(id="d_" + secrets.token_hex(8), player_id=pid, token_hash=token_hash(token),
                                  label=label[:60], created_at=now, last_seen_at=now))
        return pid, token

    def rename_player(self, player_id: str, nickname: str) -> None:
        with self.sessions.begin() as s:
            s.execute(update(Player).where(Player.id == player_id).values(nickname=nickname,
                                                                          search_key=search_key(nickname)))

    # ------------------------------------------------------------ tables
    def load_table(self, table_id: str) -> dict[str, Any] | None:
        """Everything needed to rebuild a table: its row, its seats (with the
        players' token hashes) and its event log in order."""
        with self.sessions() as s:
            m = s.get(TableRow, table_id)
            if m is None:
                return None
            return self._load(s, m)

    def _load(self, s: Session, m: TableRow) -> dict[str, Any]:
        seats = []
        for row in s.scalars(select(TableSeatRow).where(TableSeatRow.table_id == m.id).order_by(TableSeatRow.seat)):
            seats.append(
                {
                    "seat": row.seat, "kind": row.kind, "player_id": row.player_id,
                    "name": row.name, "level": row.level, "character": row.character,
                }
            )
        # The column alone, not ORM objects: a long log loads in a reader thread, and
        # building an object per entry held the interpreter lock long enough to stall
        # the event loop (77-93 ms for 4,040 entries; 2-4 ms this way).
        events = list(
            s.scalars(select(TableEventRow.data).where(TableEventRow.table_id == m.id).order_by(TableEventRow.seq))
        )
        return {
            "id": m.id, "preset": m.preset, "options": dict(m.options or {}), "seed": m.seed, "status": m.status,
            "scores": list(m.scores or []), "record": m.record, "seats": seats, "events": events,
            "created_at": iso_utc(m.created_at), "updated_at": iso_utc(m.updated_at),
        }


# Any constant: the key of the advisory lock that migrations of a PostgreSQL database take.
_MIGRATION_LOCK_KEY = 0x43415049  # "CAPI"


def _lock_for_migration(conn: Connection) -> None:
    """Another process may be migrating the same database right now (two servers starting
    at once): wait for it, so that this one then finds the schema made instead of making
    it twice (which fails). The lock ends with the migration's transaction."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK_KEY})")
    elif conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")  # the database's write lock, before the version is read


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()
