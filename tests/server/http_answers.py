"""An HTTP module's answer as ``(status, body)``, as its route would send it."""

from __future__ import annotations

from typing import Any

from capicua.server.analyst import Analyst
from capicua.server.http import analysis as analysis_http
from capicua.server.http.errors import HttpError


async def analysis_answer(analyst: Analyst, table_id: str, match_text: str) -> tuple[int, dict[str, Any]]:
    """``GET /api/analysis/{table_id}/{match_text}`` asked of ``analyst`` by anyone."""
    try:
        return 200, await analysis_http.answer(analyst, table_id, match_text)
    except HttpError as exc:
        return exc.status, exc.body()
