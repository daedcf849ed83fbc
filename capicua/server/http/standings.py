"""``GET /api/leaderboard`` and ``GET /api/players/{player_id}`` (docs/protocol.md,
"Standings"): the query read strictly, the store asked in a worker thread.

Who asks comes from the ``Authorization: Bearer TOKEN`` header
(:mod:`capicua.server.http.viewer`), never from the address: the leaderboard's "my
place" and, on a profile, the private tables' matches the asker played too.

Every bad request is an :class:`~capicua.server.http.errors.HttpError` (400
``malformed``, 401 ``unknown_token``, 404 ``unknown_player``), never a 500; a
store that cannot be read is 503 ``unavailable``.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from capicua.server.http.deps import Deps
from capicua.server.http.errors import HttpError
from capicua.server.http.viewer import bearer_token
from capicua.standings.ratings import BOARDS
from capicua.store import standings

log = logging.getLogger("capicua.standings")
LEADERBOARD_KEYS = ("board", "period")
PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
ASKER_HEADERS = {"Cache-Control": "no-cache", "Vary": "Authorization"}  # the answer depends on who asks


def routes(deps: Deps) -> list[BaseRoute]:
    async def leaderboard(request: Request) -> Response:
        token = bearer_token(request)
        unknown = sorted(set(request.query_params) - set(LEADERBOARD_KEYS))
        if unknown:
            raise HttpError(400, "malformed", f"unknown parameter {unknown[0]}", field=unknown[0])
        board = _choice(request, "board", BOARDS, "neighbours")
        period = _choice(request, "period", tuple(standings.PERIODS), "all")
        me = None
        if token is not None:
            guest = await deps.guests.find(token)
            if guest is None:
                raise HttpError(401, "unknown_token", "no guest has this token", field="authorization")
            me = guest.player
        body = await _ask(standings.leaderboard, deps.store, board, period, me, _now())
        return JSONResponse(body, headers=ASKER_HEADERS)

    async def player(request: Request) -> Response:
        token = bearer_token(request)
        if request.query_params:
            key = next(iter(request.query_params))
            raise HttpError(400, "malformed", f"unknown parameter {key}", field=key)
        player_id = request.path_params["player_id"]
        if not PLAYER_ID.fullmatch(player_id):
            raise HttpError(400, "malformed", "a player id is letters, digits, _ and -", field="player_id")
        # A token no guest has reads the profile as anyone would.
        guest = None if token is None else await deps.guests.find(token)
        body = await _ask(standings.profile, deps.store, player_id, guest.player if guest else None)
        if body is None:
            raise HttpError(404, "unknown_player", f"no player {player_id}", field="player_id")
        return JSONResponse(body, headers=ASKER_HEADERS)

    return [Route("/api/players/{player_id}", player), Route("/api/leaderboard", leaderboard)]


def _one(request: Request, key: str, default: str | None) -> str | None:
    values = request.query_params.getlist(key)
    if len(values) > 1:
        raise HttpError(400, "malformed", f"{key} is given more than once", field=key)
    return values[0] if values else default


def _choice(request: Request, key: str, choices: tuple[str, ...], default: str) -> str:
    value = _one(request, key, default)
    if value not in choices:
        raise HttpError(400, "malformed", f"{key} must be one of {', '.join(choices)}", field=key)
    return value


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


async def _ask(fn: Callable[..., Any], *args: Any) -> Any:
    try:
        return await asyncio.to_thread(fn, *args)
    except SQLAlchemyError as exc:
        log.warning("standings unavailable: %s", str(exc).splitlines()[0])
        raise HttpError(503, "unavailable", "the standings cannot be read right now; try again") from None
