"""What a table can be made of, for the home page: ``GET /api/presets`` (the games,
their seat choices and the levels), ``GET /api/neighbours`` (the characters) and
``GET /api/phrases`` (what a player may say at a table). docs/protocol.md."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from capicua.engine import preset_catalogue
from capicua.server.http.deps import Deps
from capicua.server.http.tables import DEFAULT_LEVEL
from capicua.table import neighbours
from capicua.table.options import NEIGHBOUR_LEVELS, seat_choices
from capicua.table.phrases import catalogue as phrase_catalogue


def routes(deps: Deps) -> list[BaseRoute]:
    """The catalogue reads no service: it is the same for every request."""
    presets = {
        "presets": [dict(p, seat_choices=seat_choices(p["name"])) for p in preset_catalogue()],
        "default": "cubano", "levels": list(NEIGHBOUR_LEVELS), "default_level": DEFAULT_LEVEL,
    }

    async def presets_answer(request: Request) -> Response:
        return JSONResponse(presets)

    async def neighbours_answer(request: Request) -> Response:
        return JSONResponse({"neighbours": neighbours.public_roster()})

    async def phrases_answer(request: Request) -> Response:
        return JSONResponse({"phrases": phrase_catalogue()})

    return [
        Route("/api/presets", presets_answer),
        Route("/api/neighbours", neighbours_answer),
        Route("/api/phrases", phrases_answer),
    ]
