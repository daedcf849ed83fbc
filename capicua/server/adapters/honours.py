"""The table's announcements of a match's honours (level-ups and achievements).

:class:`StandingsLog` is the store's event log that can also say what a
finished match gave its guests (the results rows and what came of them are
written with the match's last log entry, :mod:`capicua.store.standings`); the
table shell asks it once the match's end is stored and sends each seat
concerned an ``honours`` frame (docs/protocol.md). It also reads the guests'
levels, which the table shows beside their names (a seat's ``player_level``).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from capicua.server.adapters.sql import StoreLog
from capicua.store import standings


@runtime_checkable
class HonoursSource(Protocol):
    async def honours(self, table_id: str, match_number: int) -> list[dict[str, Any]]:
        """Per seat that rose a level or earned an achievement in that match:
        ``{"seat", "level_up", "achievements"}``. Raises ``LogUnavailable``."""


@runtime_checkable
class LevelSource(Protocol):
    async def levels(self, players: list[str]) -> dict[str, dict[str, Any]]:
        """Each guest's level, ``{"number", "name", "name_en"}``. Raises ``LogUnavailable``."""


class StandingsLog(StoreLog):
    """:class:`StoreLog` and the honours of the matches it stored, and the guests' levels."""

    async def honours(self, table_id: str, match_number: int) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = await self._read(standings.honours, self.store, table_id, match_number)
        return found

    async def levels(self, players: list[str]) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = await self._read(standings.levels_of, self.store, players)
        return found
