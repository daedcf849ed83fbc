"""The route table: every URL the server answers and who answers it.

Each HTTP module of :mod:`capicua.server.http` gives its routes as
``routes(deps)`` over the one :class:`~capicua.server.http.deps.Deps` the
composition root (:mod:`capicua.server.app`) builds; the websocket goes to the
gateway (:mod:`capicua.server.gateway.sockets`). A refusal anywhere is an
:class:`~capicua.server.http.errors.HttpError`, answered by one handler; an
unknown URL gets the 404 page, or the API's JSON error under ``/api/``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket

from capicua.server import metrics
from capicua.server.http import (
    analysis,
    catalogue,
    devices,
    guests,
    health,
    parque,
    people,
    replay,
    settings,
    standings,
    static,
    tables,
    verify,
)
from capicua.server.http.deps import Deps
from capicua.server.http.errors import HttpError, http_error_response
from capicua.server.http.notfound import not_found_page

ErrorHandler = Callable[[Request, Exception], Awaitable[Response]]


def routes(deps: Deps) -> list[BaseRoute]:
    async def websocket(ws: WebSocket) -> None:
        await deps.sockets.serve(ws)

    async def metrics_page(request: Request) -> Response:
        # Scraped from each process directly: the balancer does not forward it (deploy/haproxy.cfg).
        return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE)

    return [
        *static.routes(deps),  # the pages and the static files
        *replay.routes(deps),
        *health.routes(deps),
        *catalogue.routes(deps),
        *verify.routes(deps),
        *analysis.routes(deps),
        *guests.routes(deps),
        *devices.routes(deps),  # a player's devices and the keys that add one
        *settings.routes(deps),
        *people.routes(deps),  # GET /api/players (the search) beside guests' POST
        *standings.routes(deps),
        *tables.routes(deps),
        *parque.routes(deps),
        Route("/metrics", metrics_page),
        WebSocketRoute("/ws", websocket),
    ]


def error_handlers(deps: Deps) -> Mapping[Any, ErrorHandler]:
    """Starlette's ``exception_handlers``: every :class:`HttpError` as its JSON, and a
    URL that is nothing here as a page in the site's style (capicua.server.http.notfound)."""
    return {HttpError: http_error_response, 404: not_found_page(deps.assets)}
