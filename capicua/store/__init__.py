"""Persistence: players, matches, seats and the append-only match event log.

SQLAlchemy 2 over SQLite by default (any SQLAlchemy URL works, e.g.
PostgreSQL). The schema is made and upgraded by the Alembic migrations
shipped in ``capicua/store/migrations``; :meth:`Store.migrate` runs
``alembic upgrade head`` programmatically.

The API is synchronous and short: the server calls it from one worker
thread, so the writes of a table land in the order the table made them.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from .models import Base, MatchEvent, MatchRow, Player, SeatRow

MIGRATIONS = Path(__file__).resolve().parent / "migrations"

__all__ = ["Store", "Base", "token_hash", "default_database_url"]


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _iso(stored: datetime) -> str:
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
    def migrate(self) -> None:
        """``alembic upgrade head``, programmatically."""
        from alembic import command
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        cfg.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
        with self.engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    def close(self) -> None:
        self.engine.dispose()

    # ----------------------------------------------------------- players
    def create_player(self, nickname: str) -> tuple[str, str]:
        """A new guest: returns ``(player_id, token)``; only the token's hash is kept."""
        token = secrets.token_urlsafe(24)
        pid = "p_" + secrets.token_hex(8)
        with self.sessions.begin() as s:
            s.add(Player(id=pid, nickname=nickname, token_hash=token_hash(token), created_at=_now()))
        return pid, token

    def add_player(self, nickname: str, token_hash_hex: str) -> str:
        """A guest whose token the caller made (only its hash is given); returns the id."""
        pid = "p_" + secrets.token_hex(8)
        with self.sessions.begin() as s:
            s.add(Player(id=pid, nickname=nickname, token_hash=token_hash_hex, created_at=_now()))
        return pid

    def player_by_token(self, token: str) -> dict[str, Any] | None:
        with self.sessions() as s:
            p = s.scalar(select(Player).where(Player.token_hash == token_hash(token)))
            return None if p is None else {"id": p.id, "nickname": p.nickname, "token_hash": p.token_hash}

    def rename_player(self, player_id: str, nickname: str) -> None:
        with self.sessions.begin() as s:
            s.execute(update(Player).where(Player.id == player_id).values(nickname=nickname))

    # ----------------------------------------------------------- matches
    def create_match(
        self, match_id: str, preset: str, options: dict[str, Any], seed: str, teams: int, seats: list[dict[str, Any]]
    ) -> None:
        """``seats``: ``{"seat", "kind", "player_id", "name", "level", "character"}`` each."""
        now = _now()
        with self.sessions.begin() as s:
            s.add(
                MatchRow(
                    id=match_id, preset=preset, options=dict(options), seed=seed, status="active",
                    scores=[0] * teams, record=None, created_at=now, updated_at=now,
                )
            )
            s.flush()
            for seat in seats:
                s.add(
                    SeatRow(
                        match_id=match_id, seat=seat["seat"], kind=seat["kind"], player_id=seat.get("player_id"),
                        name=seat["name"], level=seat.get("level"), character=seat.get("character"),
                    )
                )

    def append_events(self, match_id: str, first_seq: int, entries: list[dict[str, Any]]) -> None:
        """Append log entries numbered ``first_seq, first_seq + 1, ...`` (a duplicate number fails)."""
        if not entries:
            return
        now = _now()
        with self.sessions.begin() as s:
            for i, data in enumerate(entries):
                s.add(MatchEvent(match_id=match_id, seq=first_seq + i, data=data, created_at=now))
            s.execute(update(MatchRow).where(MatchRow.id == match_id).values(updated_at=now))

    def update_match(
        self,
        match_id: str,
        status: str | None = None,
        scores: list[int] | None = None,
        record: dict[str, Any] | None = None,
    ) -> None:
        values: dict[str, Any] = {"updated_at": _now()}
        if status is not None:
            values["status"] = status
        if scores is not None:
            values["scores"] = list(scores)
        if record is not None:
            values["record"] = record
        with self.sessions.begin() as s:
            s.execute(update(MatchRow).where(MatchRow.id == match_id).values(**values))

    def load_match(self, match_id: str) -> dict[str, Any] | None:
        """Everything needed to rebuild a table: the match row, its seats (with the
        players' token hashes) and its event log in order."""
        with self.sessions() as s:
            m = s.get(MatchRow, match_id)
            if m is None:
                return None
            return self._load(s, m)

    def _load(self, s: Session, m: MatchRow) -> dict[str, Any]:
        seats = []
        for row in s.scalars(select(SeatRow).where(SeatRow.match_id == m.id).order_by(SeatRow.seat)):
            th = None
            if row.player_id is not None:
                p = s.get(Player, row.player_id)
                th = p.token_hash if p is not None else None
            seats.append(
                {
                    "seat": row.seat, "kind": row.kind, "player_id": row.player_id, "token_hash": th,
                    "name": row.name, "level": row.level, "character": row.character,
                }
            )
        events = [
            e.data for e in s.scalars(select(MatchEvent).where(MatchEvent.match_id == m.id).order_by(MatchEvent.seq))
        ]
        return {
            "id": m.id, "preset": m.preset, "options": dict(m.options or {}), "seed": m.seed, "status": m.status,
            "scores": list(m.scores or []), "record": m.record, "seats": seats, "events": events,
            "created_at": _iso(m.created_at), "updated_at": _iso(m.updated_at),
        }

    def active_match_ids(self) -> list[str]:
        with self.sessions() as s:
            return list(s.scalars(select(MatchRow.id).where(MatchRow.status == "active").order_by(MatchRow.created_at)))

    def event_count(self, match_id: str) -> int:
        with self.sessions() as s:
            return len(list(s.scalars(select(MatchEvent.seq).where(MatchEvent.match_id == match_id))))


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()
