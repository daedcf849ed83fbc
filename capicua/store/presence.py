"""Who is around: the players whose browsers were seen lately.

A device's ``last_seen_at`` moves when its guest is found by token (a hello, an API
call), at most once a minute (:func:`capicua.store.devices.player_by_token`), so "seen
since T" is exact to a minute. A player is seen when any of their devices is.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select

from capicua.standings.levels import level_of
from capicua.store import Store, iso_utc
from capicua.store.models import Player, PlayerDeviceRow, PlayerLevelRow

SEEN_MAX = 200  # the most players one answer lists, whatever the caller asks


def players_seen_since(store: Store, since: datetime, limit: int) -> list[dict[str, Any]]:
    """The players seen at or after ``since`` (naive UTC), newest first, at most ``limit``
    (and :data:`SEEN_MAX`): ``{"player", "nickname", "level": {"number", "name", "name_en"},
    "seen_at"}`` (ISO 8601 with offset)."""
    limit = max(0, min(limit, SEEN_MAX))
    if limit == 0:
        return []
    seen = func.max(PlayerDeviceRow.last_seen_at).label("seen")
    latest = (
        select(PlayerDeviceRow.player_id, seen)
        .where(PlayerDeviceRow.last_seen_at >= since)
        .group_by(PlayerDeviceRow.player_id)
        .subquery()
    )
    query = (
        select(Player.id, Player.nickname, PlayerLevelRow.xp, latest.c.seen)
        .join(latest, latest.c.player_id == Player.id)
        .outerjoin(PlayerLevelRow, PlayerLevelRow.player_id == Player.id)
        .order_by(latest.c.seen.desc(), Player.id)
        .limit(limit)
    )
    with store.sessions() as s:
        rows = s.execute(query).all()
    out = []
    for pid, nickname, xp, at in rows:
        level = level_of(xp or 0)
        out.append({"player": pid, "nickname": nickname, "seen_at": iso_utc(at),
                    "level": {"number": level.number, "name": level.name, "name_en": level.name_en}})
    return out


def seen_players(store: Store, player_ids: list[str], since: datetime) -> set[str]:
    """Which of ``player_ids`` were seen at or after ``since`` (naive UTC)."""
    if not player_ids:
        return set()
    with store.sessions() as s:
        found = s.scalars(
            select(PlayerDeviceRow.player_id)
            .where(PlayerDeviceRow.player_id.in_(set(player_ids)), PlayerDeviceRow.last_seen_at >= since)
            .distinct()
        )
        return set(found)
