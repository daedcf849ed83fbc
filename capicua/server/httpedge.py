"""The HTTP edge: how uvicorn runs the app, and a deadline for request headers.

uvicorn's ``timeout_keep_alive`` closes a connection that stays idle *after*
a response; it never times out a connection that opens and then sends no
request, or sends its headers a byte at a time (a half-open connection holds
a socket and a little memory for good). :class:`HeaderTimeoutProtocol` is
uvicorn's httptools protocol with one more timer: the headers of each request
must be complete within ``header_timeout`` seconds of the connection opening
or of the previous response. Slow bodies are the app's business: it reads a
body with its own deadline (``body_timeout`` of ``create_app``).

uvicorn (and the websockets library under it) log a few faults of the
*client* with a traceback: a text frame that is not UTF-8, a broken
websocket handshake. :class:`ClientFaultsInOneLine` turns those records into
one line, at most a warning: bad input never writes a traceback to the log.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from websockets.exceptions import WebSocketException

HEADER_TIMEOUT = 10.0  # seconds for a request's headers
KEEP_ALIVE = 5  # seconds an idle keep-alive connection is kept (uvicorn's default, made explicit)
WS_PING = 20.0  # seconds between websocket pings; a socket that misses one pong for as long is closed
LIMIT_CONCURRENCY = 1024  # connections + requests at once; more get 503 (the process bound)
MAX_WS_MESSAGE = 65536  # bytes; uvicorn closes a socket whose message is larger (1009)

def header_timeout_protocol(seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's httptools protocol (``uvicorn[standard]`` brings httptools) with a
    ``seconds`` deadline on request headers."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class HeaderTimeoutProtocol(HttpToolsProtocol):
        header_timeout = seconds
        _header_timer: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            self._disarm()
            self._header_timer = self.loop.call_later(self.header_timeout, self._headers_too_slow)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            if not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            # uvicorn arms its keep-alive timer only when no pipelined request
            # is waiting: then the connection waits for the next headers.
            if self.timeout_keep_alive_task is not None:
                self._arm()

        def handle_websocket_upgrade(self) -> None:
            self._disarm()
            super().handle_websocket_upgrade()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return HeaderTimeoutProtocol


class ClientFaultsInOneLine(logging.Filter):
    """One line, at most a warning, for the records uvicorn writes with a
    traceback when a client sends what it should not. Faults of the server
    (``Exception in ASGI application``) keep their traceback."""

    CLIENT_MESSAGES = ("Invalid UTF-8 sequence received from client.",)

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is None or not (record.msg in self.CLIENT_MESSAGES or isinstance(exc, WebSocketException)):
            return True
        record.msg, record.args = "%s (%s: %s)", (record.getMessage(), type(exc).__name__, exc)
        record.exc_info = record.exc_text = None
        if record.levelno > logging.WARNING:
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def install_log_filter() -> None:
    """Put :class:`ClientFaultsInOneLine` on uvicorn's error logger (once)."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, ClientFaultsInOneLine) for f in logger.filters):
        logger.addFilter(ClientFaultsInOneLine())


def uvicorn_config(
    app: Any,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "info",
    header_timeout: float = HEADER_TIMEOUT,
    limit_concurrency: int | None = LIMIT_CONCURRENCY,
) -> Any:
    """The ``uvicorn.Config`` the server runs with: every connection has a bound in time."""
    import uvicorn

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        lifespan="on",
        http=header_timeout_protocol(header_timeout),
        timeout_keep_alive=KEEP_ALIVE,
        limit_concurrency=limit_concurrency,
        ws_max_size=MAX_WS_MESSAGE,
        # permessage-deflate: a player's whole cubano match is ~30 kB on the wire instead
        # of ~550 kB (players pay for mobile data). uvicorn's sans-I/O websockets keep a
        # 4 KiB window (12 bits) and memLevel 5 per socket: see docs/protocol.md,
        # "Compression", for the memory and CPU it costs (tests/test_bandwidth.py).
        ws_per_message_deflate=True,
        ws_ping_interval=WS_PING,
        ws_ping_timeout=WS_PING,
    )
    install_log_filter()  # after Config, which sets up uvicorn's logging
    return config
