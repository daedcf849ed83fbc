"""A request's JSON body, read with bounds: at most :data:`MAX_BODY` bytes, all in
within the app's ``body_timeout``, nested at most :data:`capicua.table.jsonsafe.MAX_DEPTH`."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import ClientDisconnect, Request

from capicua.server.http.errors import HttpError
from capicua.table import jsonsafe

MAX_BODY = 4096  # bytes of a request body


async def read_json_body(request: Request, limit: int, timeout: float) -> Any:
    """The request's body as JSON: at most ``limit`` bytes, all in within ``timeout``
    seconds. Raises :class:`HttpError` (``too_large``, ``too_slow``, ``malformed``)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large(limit)
    try:
        body = await asyncio.wait_for(_read_at_most(request, limit), timeout)
    except TimeoutError:
        raise HttpError(408, "too_slow", f"the body did not arrive within {timeout:g} s") from None
    except ClientDisconnect:
        raise HttpError(400, "malformed", "the connection closed before the body was in") from None
    try:
        return jsonsafe.loads(body or b"{}")
    except ValueError:
        raise HttpError(400, "malformed", f"the body is JSON, at most {jsonsafe.MAX_DEPTH} levels deep") from None


def too_large(limit: int) -> HttpError:
    return HttpError(413, "too_large", f"the body is at most {limit} bytes")


async def _read_at_most(request: Request, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)
