"""``GET /healthz``: ``{"ok", "store", <part>: "ok" | "restarting", …}``, 200 when every
part is ``ok`` and the store is healthy, else 503 (docs/protocol.md)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from capicua.server.http.deps import Deps


def routes(deps: Deps) -> list[BaseRoute]:
    async def healthz(request: Request) -> Response:
        parts = deps.health()
        store = deps.log.healthy
        ok = store and all(state == "ok" for state in parts.values())
        body = {"ok": ok, **parts, "store": "ok" if store else "failing"}
        return JSONResponse(body, status_code=200 if ok else 503)

    return [Route("/healthz", healthz)]
