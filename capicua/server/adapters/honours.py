"""The standings' side of a table: its guests' levels and what a finished match gave them.

:class:`StandingsLog` is the store's event log that is also the
:class:`~capicua.server.ports.Standings` port: it says what a finished match
gave its guests (the results rows and what came of them are written with the
match's last log entry, :mod:`capicua.store.standings`) and reads the guests'
levels. The table shell asks it once a match's end is stored and sends each seat
concerned an ``honours`` frame (docs/protocol.md); the levels are shown beside
the guests' names (a seat's ``player_level``).
"""

from __future__ import annotations

from typing import Any

from capicua.server.adapters.sql import StoreLog
from capicua.store import standings


class StandingsLog(StoreLog):
    """:class:`StoreLog` and the honours of the matches it stored, and the guests' levels."""

    async def honours(self, table_id: str, match_number: int) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = await self._read(standings.honours, self.store, table_id, match_number)
        return found

    async def levels(self, players: list[str]) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = await self._read(standings.levels_of, self.store, players)
        return found
