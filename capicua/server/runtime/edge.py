"""The HTTP edge: how uvicorn runs the app, and a deadline for request headers.

uvicorn's ``timeout_keep_alive`` closes a connection that stays idle *after*
a response; it never times out a connection that opens and then sends no
request, or sends its headers a byte at a time (a half-open connection holds
a socket and a little memory for good). :class:`HeaderTimeoutProtocol` is
uvicorn's httptools protocol with one more timer: the headers of each request
must be complete within ``header_timeout`` seconds of the connection opening
or of the previous response, and be at most ``MAX_HEADER_BYTES`` (the request
line and the headers; more is answered 431 and the connection closed, before
any of it reaches the app). Slow bodies are the app's business: it reads a
body with its own deadline (``body_timeout`` of ``create_app``).

uvicorn (and the websockets library under it) log a few faults of the
*client* with a traceback: a text frame that is not UTF-8, a broken
websocket handshake. :class:`ClientFaultsInOneLine` turns those records into
one line, at most a warning: bad input never writes a traceback to the log.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from websockets.exceptions import WebSocketException

from capicua.server.runtime import proxyproto
from capicua.server.runtime.connections import MAX_CONNECTIONS, REFUSAL, Refusals
from capicua.server.runtime.drain import SHUTDOWN_S

if TYPE_CHECKING:
    from capicua.server.gateway.limits import ClientAddresses

log = logging.getLogger("capicua.server")
HEADER_TIMEOUT = 10.0  # seconds for a request's headers
KEEP_ALIVE = 5  # seconds an idle keep-alive connection is kept (uvicorn's default, made explicit)
WS_PING = 20.0  # seconds between websocket pings; a socket that misses one pong for as long is closed
MAX_WS_MESSAGE = 65536  # bytes; uvicorn closes a socket whose message is larger (1009)
# Bytes of a request's line and headers (h11's and Node's default): a page and the
# API need well under 2 KiB; httptools alone takes any size (70 kB was accepted).
MAX_HEADER_BYTES = 16384


class HeadersTooLarge(Exception):
    """Raised inside the parser's callbacks: the request is answered 431."""

def header_timeout_protocol(
    seconds: float, max_header_bytes: int = MAX_HEADER_BYTES, refusals: Refusals | None = None,
    addresses: ClientAddresses | None = None,
) -> type[asyncio.Protocol]:
    """uvicorn's httptools protocol (``uvicorn[standard]`` brings httptools) with a
    ``seconds`` deadline on request headers and at most ``max_header_bytes`` of them;
    a connection past ``refusals.bound`` connections is answered 503 with ``Retry-After``
    and closed before any of it is read (capicua.server.runtime.connections). A
    connection from one of ``addresses``'s trusted proxies that begins with a PROXY
    protocol header has its client recorded in ``addresses.proxied`` while it lasts
    (websocket or not) and the header taken off before HTTP reads the rest."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class HeaderTimeoutProtocol(HttpToolsProtocol):
        header_timeout = seconds
        header_limit = max_header_bytes
        _header_timer: asyncio.TimerHandle | None = None
        _header_bytes = 0
        _headers_too_large = False
        _refused = False
        _proxy_head: bytes | None = None  # a trusted proxy's first bytes, while they may be a PROXY header
        _proxied: tuple[str, int] | None = None  # this connection's key in addresses.proxied

        def _proxy_header(self, data: bytes) -> bytes:
            """What of ``data`` HTTP reads: the PROXY header, once whole, taken off."""
            assert addresses is not None and self._proxy_head is not None
            head = self._proxy_head + data
            if not proxyproto.starts_proxy_header(head):
                self._proxy_head = None
                return head  # plain HTTP from the proxy (its X-Forwarded-For is read)
            try:
                found = proxyproto.parse(head)
            except proxyproto.ProxyHeaderError as exc:
                log.warning("a connection from the proxy %s: %s; closed", self.client and self.client[0], exc)
                self._proxy_head = None
                self._refused = True  # nothing more of it is read
                self.transport.close()
                return b""
            if found is None:
                self._proxy_head = head
                return b""
            host, used = found
            self._proxy_head = None
            if host is not None and self.client is not None:
                self._proxied = (self.client[0], self.client[1])
                addresses.proxied[self._proxied] = host
            return head[used:]

        def _forget_proxied(self) -> None:
            if self._proxied is not None and addresses is not None:
                addresses.proxied.pop(self._proxied, None)
                self._proxied = None

        def on_message_begin(self) -> None:
            self._header_bytes = 0
            super().on_message_begin()

        def on_url(self, url: bytes) -> None:
            self._count(len(url))
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            self._count(len(name) + len(value) + 4)  # ": " and CRLF
            super().on_header(name, value)

        def _count(self, size: int) -> None:
            self._header_bytes += size
            if self._header_bytes > self.header_limit:
                # uvicorn answers a parser error with send_400_response (below: a 431) and closes.
                self._headers_too_large = True
                raise HeadersTooLarge

        def send_400_response(self, msg: str) -> None:
            if not self._headers_too_large:
                super().send_400_response(msg)
                return
            body = f"request headers over {self.header_limit} bytes".encode()
            self.transport.write(
                b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
                b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body
            )
            self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self._proxy_head is not None:
                data = self._proxy_header(data)
            if data and not (self._headers_too_large or self._refused):  # refused: the rest is not read
                super().data_received(data)

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
            if refusals is not None:
                if len(self.connections) > refusals.bound:
                    self._refused = True
                    refusals.refuse()
                    transport.write(REFUSAL)
                    transport.close()
                    return
                refusals.accepted()
            if addresses is not None and self.client is not None and addresses.is_trusted(self.client[0]):
                self._proxy_head = b""
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
            if self._proxied is not None:
                # The websocket's protocol now holds the connection: its client is
                # forgotten when that protocol hears the connection end.
                ws = self.transport.get_protocol()
                lost = ws.connection_lost

                def connection_lost(exc: Exception | None) -> None:
                    self._forget_proxied()
                    lost(exc)

                ws.connection_lost = connection_lost  # type: ignore[method-assign]

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            self._forget_proxied()  # (not called once a websocket's protocol took the connection)
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
    max_connections: int | None = MAX_CONNECTIONS,
    log_config: dict[str, Any] | None = None,
    addresses: ClientAddresses | None = None,
) -> Any:
    """The ``uvicorn.Config`` the server runs with: every connection has a bound in time,
    and at most ``max_connections`` are held at once (None: no bound; ``capicua serve``
    gives :func:`capicua.server.runtime.connections.connection_bound`).
    ``log_config``: a :func:`logging.config.dictConfig` dict for uvicorn to apply
    (``capicua serve``: :func:`capicua.server.runtime.logsetup.log_config`); uvicorn's own when None.
    ``addresses``: the app's client addresses, whose trusted proxies may open a connection
    with a PROXY protocol header (:mod:`capicua.server.runtime.proxyproto`)."""
    import uvicorn

    logging_kw: dict[str, Any] = {} if log_config is None else {"log_config": log_config}
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        lifespan="on",
        http=header_timeout_protocol(
            header_timeout, refusals=None if max_connections is None else Refusals(max_connections),
            addresses=addresses,
        ),
        timeout_keep_alive=KEEP_ALIVE,
        ws_max_size=MAX_WS_MESSAGE,
        # permessage-deflate: a player's whole cubano match is ~28 kB on the wire instead
        # of ~480 kB (players pay for mobile data). uvicorn's sans-I/O websockets keep a
        # 4 KiB window (12 bits) and memLevel 5 per socket: see docs/protocol.md,
        # "Compression and caching", for the memory and CPU it costs.
        ws_per_message_deflate=True,
        ws_ping_interval=WS_PING,
        ws_ping_timeout=WS_PING,
        timeout_graceful_shutdown=SHUTDOWN_S,  # requests in flight at a shutdown (runtime/drain.py)
        **logging_kw,
    )
    install_log_filter()  # after Config, which sets up uvicorn's logging
    return config
