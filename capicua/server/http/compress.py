"""Gzip for the HTTP API's answers (and any other answer built per request).

:class:`GzipAnswers` is ASGI middleware: an answer of a text type (JSON, HTML,
text) of at least ``GZIP_MIN`` bytes, sent in one piece, is gzipped for a client
whose ``Accept-Encoding`` takes gzip. An answer that already says its
``Content-Encoding`` passes as it is: the static files come gzipped from
:mod:`capicua.server.http.static` and the replay from :mod:`capicua.server.http.replay`
(compressed there, off the event loop). A body over ``INLINE_MAX`` bytes is
compressed in a worker thread, so that no large answer holds the event loop
(every table waits while it is held); smaller ones take a few tens of
microseconds, less than the thread hop.
"""

from __future__ import annotations

import asyncio
import gzip

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

GZIP_MIN = 1024  # bytes: a smaller answer goes as it is
INLINE_MAX = 64 * 1024  # bytes: a larger answer is gzipped in a worker thread
LEVEL = 6
TEXT_TYPES = ("application/json", "text/", "image/svg+xml", "application/javascript")


def takes_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip (named, or ``*``, and not with ``q=0``)."""
    for part in accept_encoding.lower().split(","):
        name, _, params = part.strip().partition(";")
        if name.strip() in ("gzip", "*"):
            q = params.replace(" ", "").removeprefix("q=")
            try:
                return not params.strip() or float(q) > 0
            except ValueError:  # a weight that is not a number: gzip is named, so it is taken
                return True
    return False


async def gzip_body(body: bytes) -> bytes:
    """``body`` gzipped: on the loop when small, in a worker thread when large."""
    if len(body) > INLINE_MAX:
        return await asyncio.to_thread(gzip.compress, body, LEVEL, mtime=0)
    return gzip.compress(body, LEVEL, mtime=0)


class GzipAnswers:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not takes_gzip(Headers(scope=scope).get("accept-encoding", "")):
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        passing = False

        async def wrapped(message: Message) -> None:
            nonlocal start, passing
            if message["type"] == "http.response.start":
                headers = Headers(raw=message["headers"])
                kind = headers.get("content-type", "")
                passing = "content-encoding" in headers or not kind.startswith(TEXT_TYPES)
                if passing:
                    await send(message)
                else:
                    start = message  # held until the body says whether it pays
                return
            if passing or message["type"] != "http.response.body":
                await send(message)
                return
            assert start is not None
            body: bytes = message.get("body", b"")
            passing = True  # whatever comes next goes as it is
            if message.get("more_body", False) or len(body) < GZIP_MIN:
                await send(start)  # streamed, or too small to pay
                await send(message)
                return
            packed = await gzip_body(body)
            headers = MutableHeaders(raw=start["headers"])
            headers["Content-Encoding"] = "gzip"
            headers["Content-Length"] = str(len(packed))
            headers.add_vary_header("Accept-Encoding")
            await send(start)
            await send({"type": "http.response.body", "body": packed, "more_body": False})

        await self.app(scope, receive, wrapped)

