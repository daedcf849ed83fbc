"""The people a player plays with, and players found by nickname (Gente, issue 24).

:func:`people` — the guests who shared a table with a player, newest first: the
humans of the player's last :data:`MATCHES_READ` finished matches (``results``:
the same match, so a guest who sat at that table in another match is not one)
and of the last :data:`TABLES_READ` tables the player holds a seat at
(``table_seats``: tables being played, lobbies, matches not finished). Never a
neighbour (a bot's seat has no player). Each read walks one index
(``ix_results_player_finished``, ``ix_table_seats_player``) for the player's
own rows, then the other seats of just those matches and tables by their
primary keys, so its cost is bounded by those two numbers, not by how much the
player ever played.

:func:`search` — players whose nickname starts with a text, without case or
accents (``players.search_key``, :mod:`capicua.store.nicknames`): a range of
one index, never a scan. By prefix, not "contains": a contains search is a scan
of every player on both databases (SQLite has no trigram index), and people
type a name from its start.

Synchronous, like the rest of the store: the server calls these in a thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session

from capicua.standings.levels import level_of
from capicua.store import Store, iso_utc
from capicua.store.models import Player, PlayerLevelRow, ResultRow, TableRow, TableSeatRow
from capicua.store.nicknames import search_key

MATCHES_READ = 300  # the player's last finished matches whose people are listed
TABLES_READ = 300  # the player's last tables (by their last change) whose people are listed
PAGE = 30  # people per page
SEARCH_MIN = 2  # characters of a search (a key that short matches too many)
SEARCH_MAX = 20  # players a search answers
HUMAN = "human"


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a page of :func:`people` ends: its last person's time and id (the next
    page starts after them, whatever was played since)."""

    at: datetime
    player: str


def people(store: Store, me: str, after: Cursor | None = None, limit: int = PAGE) -> dict[str, object]:
    """One page of the guests ``me`` shared a table with, newest first:
    ``{"people": [{"player", "nickname", "level": {"number", "name", "name_en"},
    "last_at", "matches"}], "next": Cursor | None}``. ``last_at``: when they last
    shared a finished match or a table (its last change); ``matches``: the finished
    matches they played together among those read."""
    with store.sessions() as s:
        met = _met(s, me)
        ordered = sorted(met.items(), key=lambda kv: (-kv[1][0].timestamp(), kv[0]))
        if after is not None:
            ordered = [kv for kv in ordered if _after(kv[1][0], kv[0], after)]
        page = ordered[:limit]
        ids = [pid for pid, _ in page]
        names = dict(s.execute(select(Player.id, Player.nickname).where(Player.id.in_(ids))).all())
        xp = dict(s.execute(select(PlayerLevelRow.player_id, PlayerLevelRow.xp)
                            .where(PlayerLevelRow.player_id.in_(ids))).all())
    rows = [
        {"player": pid, "nickname": names.get(pid, ""), "level": _level(xp.get(pid, 0)),
         "last_at": iso_utc(at), "matches": together}
        for pid, (at, together) in page
    ]
    more = len(ordered) > limit
    return {"people": rows, "next": Cursor(page[-1][1][0], page[-1][0]) if more and page else None}


def _after(at: datetime, player: str, cursor: Cursor) -> bool:
    """Whether a person at (``at``, ``player``) comes after ``cursor`` in the newest-first order."""
    return at < cursor.at or (at == cursor.at and player > cursor.player)


def _met(s: Session, me: str) -> dict[str, tuple[datetime, int]]:
    """Every guest met in the matches and tables read: player → (last time, matches together)."""
    met: dict[str, tuple[datetime, int]] = {}
    mine = (
        select(ResultRow.table_id, ResultRow.match_number, ResultRow.finished_at)
        .where(ResultRow.player_id == me)
        .order_by(ResultRow.finished_at.desc(), ResultRow.id.desc())
        .limit(MATCHES_READ)
        .subquery()
    )
    for pid, last, together in s.execute(
        select(ResultRow.player_id, func.max(mine.c.finished_at), func.count())
        .join(mine, and_(ResultRow.table_id == mine.c.table_id, ResultRow.match_number == mine.c.match_number))
        .where(ResultRow.player_id.is_not(None), ResultRow.player_id != me)
        .group_by(ResultRow.player_id)
    ):
        met[pid] = (last, int(together))
    seated = (
        select(TableSeatRow.table_id, TableRow.updated_at)
        .join(TableRow, TableRow.id == TableSeatRow.table_id)
        .where(TableSeatRow.player_id == me, TableSeatRow.kind == HUMAN)
        .order_by(TableRow.updated_at.desc(), TableRow.id)
        .limit(TABLES_READ)
        .subquery()
    )
    for pid, last in s.execute(
        select(TableSeatRow.player_id, func.max(seated.c.updated_at))
        .join(seated, TableSeatRow.table_id == seated.c.table_id)
        .where(TableSeatRow.kind == HUMAN, TableSeatRow.player_id.is_not(None), TableSeatRow.player_id != me)
        .group_by(TableSeatRow.player_id)
    ):
        at, together = met.get(pid, (last, 0))
        met[pid] = (max(at, last), together)
    return met


def shared_a_table(store: Store, me: str, other: str) -> bool:
    """Whether ``me`` and ``other`` shared a table as :func:`people` reads it."""
    with store.sessions() as s:
        return other in _met(s, me)


def search(store: Store, text: str, limit: int = SEARCH_MAX) -> list[dict[str, object]]:
    """Players whose nickname starts with ``text`` (case and accents aside), by
    nickname: ``[{"player", "nickname", "level"}]``; none for a text whose key is
    shorter than :data:`SEARCH_MIN`."""
    key = search_key(text)
    if len(key) < SEARCH_MIN:
        return []
    # A range of the index: every key that starts with `key` sorts between it and
    # `key` followed by the greatest character.
    with store.sessions() as s:
        found = s.execute(
            select(Player.id, Player.nickname, PlayerLevelRow.xp)
            .outerjoin(PlayerLevelRow, PlayerLevelRow.player_id == Player.id)
            .where(Player.search_key >= key, Player.search_key < key + "\U0010ffff")
            .order_by(Player.search_key, Player.id)
            .limit(limit)
        ).all()
    return [{"player": pid, "nickname": nick, "level": _level(xp or 0)} for pid, nick, xp in found]


def _level(xp: int) -> dict[str, object]:
    level = level_of(xp)
    return {"number": level.number, "name": level.name, "name_en": level.name_en}
