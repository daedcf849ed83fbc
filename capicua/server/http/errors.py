"""The one HTTP error: every route refuses a request by raising :class:`HttpError`.

One handler (:func:`http_error_response`, installed by :mod:`capicua.server.routes`)
turns it into ``{"error": {"code", "message", "field"?}}`` with its status
(docs/protocol.md, "HTTP errors"). A refusal is the client's business, never a
fault of the server: it is not logged, except a store that cannot be read or
written (:func:`unavailable`), which is one line of the log. An error answer is
never kept by a cache (``Cache-Control: no-store``).
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from capicua.server.gateway.limits import HttpLimits, Refusal, retry_after

log = logging.getLogger("capicua.server")

UNAVAILABLE_RETRY_S = 5  # Retry-After of a 503 while the store fails (the tables retry within 5 s too)
NO_STORE = {"Cache-Control": "no-store"}


class HttpError(Exception):
    """A request the server refuses: its HTTP ``status``, protocol ``code``, a
    readable ``message``, the ``field`` at fault (None when the request as a whole
    is) and any ``headers`` the answer carries (``Retry-After``, ``Vary``)."""

    def __init__(
        self, status: int, code: str, message: str, field: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.field is not None:
            error["field"] = self.field
        return {"error": error}

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers={**NO_STORE, **self.headers})


async def http_error_response(request: Request, exc: Exception) -> Response:
    """Starlette's handler for :class:`HttpError` (its type is Starlette's signature)."""
    assert isinstance(exc, HttpError)
    return exc.response()


def unavailable(request: Request, exc: Exception) -> HttpError:
    """``503 unavailable``: the store cannot be read or written now (one line in the log)."""
    log.warning("%s %s: the store is unavailable (%s)", request.method, request.url.path, exc)
    return HttpError(
        503, "unavailable", "the store cannot be written right now; try again",
        headers={"Retry-After": str(UNAVAILABLE_RETRY_S)},
    )


LIMIT_WORDS = {
    "tables_per_guest": "new tables per player",
    "tables_per_address": "new tables from one address",
    "guests_per_address": "new players from one address",
    "keys_per_guest": "keys to carry one's player per player",
    "keys_per_address": "keys to carry a player made or used from one address",
    "searches_per_guest": "player searches per player",
    "queue_per_guest": "turns in the parque's queue per player",
}


def too_fast(limits: HttpLimits, refusal: Refusal) -> HttpError:
    """``429 too_fast`` naming the limit and when one more is allowed (``Retry-After``)."""
    count, seconds = getattr(limits, refusal.what)
    return HttpError(
        429, "too_fast", f"at most {count} {LIMIT_WORDS[refusal.what]} in {seconds:g} s",
        headers={"Retry-After": retry_after(refusal.wait)},
    )
