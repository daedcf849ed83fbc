"""``GET /healthz`` (alive) and ``GET /readyz`` (ready to take traffic), docs/protocol.md.

``/healthz``: ``{"ok", "store", <part>: "ok" | "restarting", …}``, 200 when every
part is ``ok`` and the store is healthy, else 503.

``/readyz``: ``{"ready", "node", "draining", <check>: "ok" | "failing", …}``, 200
when the process is not draining and every check answers (the store, and Redis
when the process uses one) within ``READY_TIMEOUT_S``, else 503. The load
balancer sends traffic only to a ready process (``deploy/haproxy.cfg``); a
process that is alive but not ready (draining, or its store unreachable) is left
running.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from capicua.server.http.deps import Deps

READY_TIMEOUT_S = 2.0  # a check slower than this is failing: the balancer checks every second


def routes(deps: Deps) -> list[BaseRoute]:
    async def healthz(request: Request) -> Response:
        parts = deps.health()
        store = deps.log.healthy
        ok = store and all(state == "ok" for state in parts.values())
        body = {"ok": ok, **parts, "store": "ok" if store else "failing"}
        return JSONResponse(body, status_code=200 if ok else 503)

    async def readyz(request: Request) -> Response:
        draining = deps.drain.draining
        names = list(deps.ready_checks)
        answers = await asyncio.gather(*(_answers(deps.ready_checks[n]()) for n in names))
        checks = {name: "ok" if ok else "failing" for name, ok in zip(names, answers, strict=True)}
        ready = not draining and all(answers)
        body = {"ready": ready, "node": deps.node_id, "draining": draining, **checks}
        return JSONResponse(body, status_code=200 if ready else 503, headers={"cache-control": "no-store"})

    return [Route("/healthz", healthz), Route("/readyz", readyz)]


async def _answers(check: Awaitable[bool]) -> bool:
    """Whether a readiness check (an awaitable of a bool) says yes in time; a failure is a no."""
    try:
        return bool(await asyncio.wait_for(check, READY_TIMEOUT_S))
    except Exception:  # unreachable, refused, timed out: not ready, which is what the answer says
        return False
