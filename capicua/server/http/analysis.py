"""``GET /api/analysis/{table_id}/{match_number}``: the experto's analysis of a
match's hands, as far as :class:`~capicua.server.analyst.Analyst` has computed
them (docs/analysis.md).

A private table's match is shown to its players and to holders of its own link
only (:mod:`capicua.server.http.matchaccess`): anyone else gets ``403
private_match``. Every refusal is an :class:`~capicua.server.http.errors.HttpError`
(400 ``malformed``, 404 ``unknown_table`` / ``unknown_match``, 503
``unavailable``); none is kept by a cache.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from capicua.server.analyst import AnalysisRefused, Analyst
from capicua.server.http.bigjson import json_bytes
from capicua.server.http.deps import Deps
from capicua.server.http.errors import HttpError
from capicua.server.http.matchaccess import Access
from capicua.server.http.viewer import link_key, viewer
from capicua.table.protocol import table_id_ok

MAX_MATCH = 10_000  # no table plays this many matches
STATUS = {"unknown_table": 404, "unknown_match": 404, "private_match": 403}  # of AnalysisRefused's codes
ANSWER_HEADERS = {"Cache-Control": "no-store", "Vary": "Authorization"}


def routes(deps: Deps) -> list[BaseRoute]:
    async def analysis_answer(request: Request) -> Response:
        key = link_key(request)
        guest = await viewer(request, deps.guests)
        player = guest.player if guest is not None else None
        body = await answer(
            deps.analyst, request.path_params["table_id"], request.path_params["match_number"],
            lambda access: access.allows(player, key),
        )
        # Written in a worker thread, piece by piece: a long match's analysis is big
        # enough that one call of the JSON encoder would hold every table waiting.
        data = await asyncio.to_thread(json_bytes, body)
        return Response(data, media_type="application/json", headers=ANSWER_HEADERS)

    return [Route("/api/analysis/{table_id}/{match_number}", analysis_answer)]


async def answer(
    analyst: Analyst, table_id: str, match_text: str, may_see: Callable[[Access], bool] | None = None
) -> dict[str, Any]:
    """The analysis of match ``match_text`` of ``table_id`` (see :meth:`Analyst.answer`).
    Raises :class:`HttpError`."""
    if not table_id_ok(table_id):
        raise HttpError(404, "unknown_table", "no such table", headers=ANSWER_HEADERS)
    try:
        return await analyst.answer(table_id, parse_match(match_text), may_see)
    except AnalysisRefused as exc:
        raise HttpError(STATUS[exc.code], exc.code, str(exc), headers=ANSWER_HEADERS) from None
    except SQLAlchemyError:
        raise HttpError(503, "unavailable", "the store cannot be read now; try again", headers=ANSWER_HEADERS) from None


def parse_match(raw: str) -> int:
    if not raw.isascii() or not raw.isdigit() or len(raw) > len(str(MAX_MATCH)) or not 1 <= int(raw) <= MAX_MATCH:
        raise HttpError(400, "malformed", f"a match is a number from 1 to {MAX_MATCH}", headers=ANSWER_HEADERS)
    return int(raw)
