"""SQLAlchemy 2 models of the store. The schema itself is made by the Alembic
migrations in ``migrations/versions`` (keep both in step)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Player(Base):
    """A guest identity: a nickname; the tokens its browsers keep are its devices (PlayerDeviceRow)."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    nickname: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    # The nickname without case or accents (capicua.store.nicknames.search_key): the search's index.
    # Deferred: only the search reads it, and loading a player never needs it. Compared by code
    # point (PostgreSQL's "C" collation; SQLite's default), so a prefix is one range of its index.
    search_key: Mapped[str | None] = mapped_column(
        String(40).with_variant(String(40, collation="C"), "postgresql"), nullable=True, index=True, deferred=True)


class PlayerDeviceRow(Base):
    """A browser of a player (capicua.store.devices): the hash of the token it keeps, a short
    label from its user agent, when it was made and last seen (updated at most once a minute)."""

    __tablename__ = "player_devices"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    label: Mapped[str] = mapped_column(String(60))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    last_seen_at: Mapped[datetime] = mapped_column(DateTime, index=True)


class PlayerKeyRow(Base):
    """A one-time code that makes another browser the same player ("Llévate tu jugador"):
    only its hash, until ``expires_at``; ``used_at`` once a browser used it."""

    __tablename__ = "player_keys"

    code_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    expires_at: Mapped[datetime] = mapped_column(DateTime)
    used_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class PlayerSettingsRow(Base):
    """The settings a player carries to every device (capicua.store.settings)."""

    __tablename__ = "player_settings"

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class TableRow(Base):
    """A table: its rules, first seed, status and scores; ``record`` holds the
    engine's record of its current match, written at every hand end and when the
    match is over."""

    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    preset: Mapped[str] = mapped_column(String(40))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[str] = mapped_column(String(128))
    status: Mapped[str] = mapped_column(String(16), index=True)  # lobby | playing | finished (old rows: active)
    scores: Mapped[list[int]] = mapped_column(JSON)
    record: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class TableSeatRow(Base):
    """Who holds each seat of a table: a human player (by token) or a bot (level + character)."""

    __tablename__ = "table_seats"
    __table_args__ = (Index("ix_table_seats_player", "player_id", "table_id"),)  # a player's tables (Gente)

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))  # human | bot
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    name: Mapped[str] = mapped_column(String(40))
    level: Mapped[str | None] = mapped_column(String(20), nullable=True)
    character: Mapped[str | None] = mapped_column(String(20), nullable=True)


class TableEventRow(Base):
    """The append-only log of a table: every change, in the order the table applied it.

    ``seq`` counts log entries of the table from 1. ``data`` is one of
    ``{"op": "start_hand", "present": [...]}`` or
    ``{"op": "action", "seat": s, "action": {...record action...}}``, plus
    ``"table_seq"``: the table's protocol sequence number after the entry.
    """

    __tablename__ = "table_events"
    __table_args__ = (UniqueConstraint("table_id", "seq", name="uq_table_events_table_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class TableLeaseRow(Base):
    """Which process owns a table (:class:`capicua.server.adapters.leases.SqlLeases`):
    ``owner`` holds it under ``epoch`` until ``expires_at`` (the database's clock).
    The row outlives its holder: a released lease keeps its epoch (``owner`` empty), so
    the next holder's epoch is always greater than any before it."""

    __tablename__ = "table_leases"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    owner: Mapped[str] = mapped_column(String(120))
    epoch: Mapped[int] = mapped_column(BigInteger)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class MatchRow(Base):
    """One match played at a table (a table plays several with "Otra partida"):
    its seed, status, scores and, from its first hand's end on, its record."""

    __tablename__ = "matches"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    status: Mapped[str] = mapped_column(String(16))  # playing | finished
    scores: Mapped[list[int]] = mapped_column(JSON)
    record: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class ResultRow(Base):
    """What one seat did in one finished match (:class:`capicua.standings.results.SeatResult`),
    written in the same transaction as the match's last log entry; standings read
    these, never the record. ``xp`` and the levels are the guest's experience."""

    __tablename__ = "results"
    __table_args__ = (
        UniqueConstraint("table_id", "match_number", "seat", name="uq_results_match_seat"),
        Index("ix_results_player_finished", "player_id", "finished_at"),
        # Covers the profile's sums and favourite game (no row lookups for a busy guest).
        Index("ix_results_player_stats", "player_id", "preset", "won", "left_for_good", "pollona", "viajera",
              "hands_played", "hands_won", "capicuas"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"))
    match_number: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    bot_level: Mapped[str | None] = mapped_column(String(20), nullable=True)
    team: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer)
    won: Mapped[bool] = mapped_column(Boolean)
    pollona: Mapped[bool] = mapped_column(Boolean)
    viajera: Mapped[bool] = mapped_column(Boolean)
    capicuas: Mapped[int] = mapped_column(Integer)
    dominoes: Mapped[int] = mapped_column(Integer)
    top_double_out: Mapped[int] = mapped_column(Integer)
    tranques_won: Mapped[int] = mapped_column(Integer)
    hands_won: Mapped[int] = mapped_column(Integer)
    hands_lost: Mapped[int] = mapped_column(Integer)
    hands_played: Mapped[int] = mapped_column(Integer)
    left_for_good: Mapped[bool] = mapped_column(Boolean)
    private: Mapped[bool] = mapped_column(Boolean)
    humans: Mapped[int] = mapped_column(Integer)
    preset: Mapped[str] = mapped_column(String(40))
    finished_at: Mapped[datetime] = mapped_column(DateTime)
    xp: Mapped[int] = mapped_column(Integer)
    level_before: Mapped[int | None] = mapped_column(Integer, nullable=True)
    level_after: Mapped[int | None] = mapped_column(Integer, nullable=True)


class StandInRow(Base):
    """A match a neighbour played for a guest who was away from its first move
    (:func:`capicua.standings.results.absent_from_start`): not the guest's match, so
    it has no results row of theirs; the profile says how many there were."""

    __tablename__ = "stand_ins"
    __table_args__ = (Index("ix_stand_ins_player", "player_id", "finished_at"),)

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    match_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    level: Mapped[str | None] = mapped_column(String(20), nullable=True)  # the stand-in's
    finished_at: Mapped[datetime] = mapped_column(DateTime)


class RatingRow(Base):
    """A guest's current rating on one board (neighbours | friends); ``score`` is μ − 3σ."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_board_score", "board", "score"),)

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    board: Mapped[str] = mapped_column(String(16), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    score: Mapped[float] = mapped_column(Float)
    matches: Mapped[int] = mapped_column(Integer)
    won: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class RatingHistoryRow(Base):
    """One rating update: a guest's rating on a board after a match."""

    __tablename__ = "rating_history"
    __table_args__ = (
        Index("ix_rating_history_player", "player_id", "board", "at", "score"),
        Index("ix_rating_history_board_at", "board", "at", "player_id", "won"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    board: Mapped[str] = mapped_column(String(16))
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"))
    match_number: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(DateTime)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    score: Mapped[float] = mapped_column(Float)
    won: Mapped[bool] = mapped_column(Boolean)


class PlayerLevelRow(Base):
    """A guest's experience and the level it gives."""

    __tablename__ = "player_levels"

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    xp: Mapped[int] = mapped_column(Integer)
    level: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class PlayerAchievementRow(Base):
    """An achievement a guest earned, and the match that gave it."""

    __tablename__ = "player_achievements"

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    achievement: Mapped[str] = mapped_column(String(40), primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"))
    match_number: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(DateTime)


class AnalysisRow(Base):
    """The experto's analysis of one seat's decisions in one finished hand
    (:func:`capicua.bots.analysis.analyse_hand`; docs/analysis.md)."""

    __tablename__ = "analyses"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    match_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    hand: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    result: Mapped[dict[str, Any]] = mapped_column(JSON)
    computed_at: Mapped[datetime] = mapped_column(DateTime)


class QueueEntryRow(Base):
    """A player in the parque's matchmaking queue (:mod:`capicua.store.queue`): waiting
    while ``table_id`` is empty, seated at ``table_id`` once the matcher opened it."""

    __tablename__ = "queue_entries"
    __table_args__ = (Index("ix_queue_entries_waiting", "table_id", "preset", "joined_at"),)

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    nickname: Mapped[str] = mapped_column(String(40))
    level: Mapped[int] = mapped_column(Integer)
    preset: Mapped[str] = mapped_column(String(40))
    rating: Mapped[float] = mapped_column(Float)
    wait_s: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: never neighbours
    joined_at: Mapped[datetime] = mapped_column(DateTime)
    polled_at: Mapped[datetime] = mapped_column(DateTime)
    table_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    seated_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class ParqueTableRow(Base):
    """A table the parque lists: ``public`` (its host made it public) or ``matched``
    (the matcher opened it). A table by link only has no row."""

    __tablename__ = "parque_tables"
    __table_args__ = (Index("ix_parque_tables_listed", "listed_at"),)

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    host: Mapped[str | None] = mapped_column(String(40), nullable=True)
    listed_at: Mapped[datetime] = mapped_column(DateTime)


class InvitationRow(Base):
    """An invitation to sit at a table (capicua.store.invitations): one row per sender,
    invitee and table, reused with a new ``id`` when sent again after it expired or
    was answered. ``status``: pending | accepted | dismissed | muted (the invitee mutes
    the sender: never shown to them, and to the sender exactly as a pending one)."""

    __tablename__ = "invitations"
    __table_args__ = (
        UniqueConstraint("sender_id", "invitee_id", "table_id", name="uq_invitations_sender_invitee_table"),
        Index("ix_invitations_invitee", "invitee_id", "expires_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    sender_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    invitee_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"))
    status: Mapped[str] = mapped_column(String(12))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    expires_at: Mapped[datetime] = mapped_column(DateTime)


class InvitationMuteRow(Base):
    """``player_id`` hears no invitation from ``muted_id``."""

    __tablename__ = "invitation_mutes"

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    muted_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
