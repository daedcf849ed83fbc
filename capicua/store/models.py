"""SQLAlchemy 2 models of the store. The schema itself is made by the Alembic
migrations in ``migrations/versions`` (keep both in step)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Player(Base):
    """A guest identity: a nickname and the hash of the token the browser keeps."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    nickname: Mapped[str] = mapped_column(String(40))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class MatchRow(Base):
    """A table's match: rules, seed and status; ``record`` holds the engine's
    match record, written at every hand end and when the match is over."""

    __tablename__ = "matches"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    preset: Mapped[str] = mapped_column(String(40))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[str] = mapped_column(String(128))
    status: Mapped[str] = mapped_column(String(16), index=True)  # active | finished
    scores: Mapped[list[int]] = mapped_column(JSON)
    record: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class SeatRow(Base):
    """Who holds each seat: a human player (by token) or a bot (level + character)."""

    __tablename__ = "seats"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))  # human | bot
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    name: Mapped[str] = mapped_column(String(40))
    level: Mapped[str | None] = mapped_column(String(20), nullable=True)
    character: Mapped[str | None] = mapped_column(String(20), nullable=True)


class MatchEvent(Base):
    """The append-only log of a match: every change, in the order the table applied it.

    ``seq`` counts log entries of the match from 1. ``data`` is one of
    ``{"op": "start_hand", "present": [...]}`` or
    ``{"op": "action", "seat": s, "action": {...record action...}}``, plus
    ``"table_seq"``: the table's protocol sequence number after the entry.
    """

    __tablename__ = "match_events"
    __table_args__ = (UniqueConstraint("match_id", "seq", name="uq_match_events_match_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class TableMatch(Base):
    """One match played at a table (a table plays several with "Otra partida"):
    its seed, status, scores and, from its first hand's end on, its record."""

    __tablename__ = "table_matches"

    table_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    status: Mapped[str] = mapped_column(String(16))  # playing | finished
    scores: Mapped[list[int]] = mapped_column(JSON)
    record: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)
