"""``GET /api/leaderboard`` and ``GET /api/players/{player_id}`` (docs/protocol.md,
"Standings"): the query read strictly, the store asked in a worker thread.

Who asks comes from the ``Authorization: Bearer TOKEN`` header
(:mod:`capicua.server.http.viewer`), never from the address: the leaderboard's "my
place" and, on a profile, the private tables' matches the asker played too.

Every bad request is a coded error (400 ``malformed``, 401 ``unknown_token``,
404 ``unknown_player``), never a 500; a store that cannot be read is 503
``unavailable``.
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

from capicua.server.http.api import BadRequest
from capicua.server.http.viewer import TokenError, bearer_token
from capicua.standings.ratings import BOARDS
from capicua.store import standings

log = logging.getLogger("capicua.standings")
LEADERBOARD_KEYS = ("board", "period")
PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")


def _one(request: Request, key: str, default: str | None) -> str | None:
    values = request.query_params.getlist(key)
    if len(values) > 1:
        raise BadRequest("malformed", f"{key} is given more than once", field=key)
    return values[0] if values else default


def _choice(request: Request, key: str, choices: tuple[str, ...], default: str) -> str:
    value = _one(request, key, default)
    if value not in choices:
        raise BadRequest("malformed", f"{key} must be one of {', '.join(choices)}", field=key)
    return value


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


async def _ask(fn: Callable[..., Any], *args: Any) -> Any:
    try:
        return await asyncio.to_thread(fn, *args)
    except SQLAlchemyError as exc:
        log.warning("standings unavailable: %s", str(exc).splitlines()[0])
        raise BadRequest("unavailable", "the standings cannot be read right now; try again", 503) from None


async def leaderboard(request: Request) -> Response:
    try:
        token = _token(request)
        unknown = sorted(set(request.query_params) - set(LEADERBOARD_KEYS))
        if unknown:
            raise BadRequest("malformed", f"unknown parameter {unknown[0]}", field=unknown[0])
        board = _choice(request, "board", BOARDS, "neighbours")
        period = _choice(request, "period", tuple(standings.PERIODS), "all")
        me = None
        if token is not None:
            guest = await request.app.state.guests.find(token)
            if guest is None:
                raise BadRequest("unknown_token", "no guest has this token", 401, field="authorization")
            me = guest.player
        body = await _ask(standings.leaderboard, request.app.state.store, board, period, me, _now())
    except BadRequest as exc:
        return exc.response()
    return JSONResponse(body, headers={"Cache-Control": "no-cache", "Vary": "Authorization"})


def _token(request: Request) -> str | None:
    """The asker's token, from the Authorization header (a token in the address is refused)."""
    try:
        return bearer_token(request)
    except TokenError as exc:
        raise BadRequest(exc.code, str(exc), exc.status, exc.field) from None


async def player(request: Request) -> Response:
    try:
        token = _token(request)
        if request.query_params:
            key = next(iter(request.query_params))
            raise BadRequest("malformed", f"unknown parameter {key}", field=key)
        player_id = request.path_params["player_id"]
        if not PLAYER_ID.fullmatch(player_id):
            raise BadRequest("malformed", "a player id is letters, digits, _ and -", field="player_id")
        # A token no guest has reads the profile as anyone would.
        guest = None if token is None else await request.app.state.guests.find(token)
        body = await _ask(standings.profile, request.app.state.store, player_id, guest.player if guest else None)
        if body is None:
            raise BadRequest("unknown_player", f"no player {player_id}", 404, field="player_id")
    except BadRequest as exc:
        return exc.response()
    return JSONResponse(body, headers={"Cache-Control": "no-cache", "Vary": "Authorization"})
