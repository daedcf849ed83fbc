"""One websocket: the client's bounds, its hello, its intents to the table shell,
and the frames back.

Checks run in this order: sockets per client address (``too_many``, closes),
the hello deadline (``timeout``, closes), the frame rate (``too_fast``; every
frame counts, however large or bad), then :func:`capicua.server.protocol.parse_intent`
(``too_large``, ``malformed``), hello (``unknown_table``, sockets per player
at a table: ``too_many``), and inside the table everything else. A slow
client never blocks a table: frames wait in the socket's own queue, and a
client that lets it fill up is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from capicua.server import protocol
from capicua.server.core import Join, Leave
from capicua.server.identity import Guests
from capicua.server.limits import SlidingWindow, SocketCounts, client_key
from capicua.server.protocol import Code, ProtocolError
from capicua.server.shell import TableShell
from capicua.server.tables import Tables

log = logging.getLogger("capicua.server")
WS_POLICY_CLOSE = 1008  # the websocket close code for a socket the server refuses
MAX_QUEUE = 2000  # frames waiting for a slow client before it is dropped


@dataclass
class SocketLimits:
    rate: tuple[int, float] = (20, 1.0)  # frames per seconds per socket
    per_player: int = 4  # sockets of one player at one table
    per_client: int = 32  # sockets of one client address
    hello_timeout: float = 10.0  # seconds a new socket has to say hello


class Sockets:
    """Every websocket of this process."""

    def __init__(self, tables: Tables, guests: Guests, limits: SocketLimits) -> None:
        self.tables = tables
        self.guests = guests
        self.limits = limits
        self.per_client = SocketCounts(limits.per_client)
        self.per_player = SocketCounts(limits.per_player)

    async def serve(self, websocket: WebSocket) -> None:
        client = client_key(websocket.client)
        try:
            await websocket.accept()
        except OSError:  # the client left during the handshake
            return
        if not self.per_client.add(client):
            await _refuse(websocket, Code.TOO_MANY, f"at most {self.limits.per_client} sockets from one address")
            return
        try:
            await _Session(self, websocket, client).run()
        finally:
            self.per_client.remove(client)


class _Session:
    def __init__(self, owner: Sockets, websocket: WebSocket, client: str) -> None:
        self.owner = owner
        self.ws = websocket
        self.client = client
        self.conn = owner.tables.new_conn_id()
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.closed = False
        self.shell: TableShell | None = None
        self.player_key: tuple[str, str] | None = None
        self.limiter = SlidingWindow(*owner.limits.rate)

    def put(self, text: str) -> None:
        """The bus's sink for this socket: never blocks."""
        if self.closed:
            return
        if self.queue.qsize() >= MAX_QUEUE:
            self.close()
            return
        self.queue.put_nowait(text)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)

    def error(self, code: Code, message: str) -> None:
        seq = self.shell.core.seq if self.shell is not None else None
        self.put(json.dumps(protocol.error_frame(code, message, seq)))

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        writer = loop.create_task(self._write())
        hello_by = loop.time() + self.owner.limits.hello_timeout
        try:
            while not self.closed:
                timeout = None if self.shell is not None else hello_by - loop.time()
                msg = await _receive(self.ws, timeout)
                if msg is None:
                    self.error(Code.TIMEOUT, f"a socket says hello within {self.owner.limits.hello_timeout:g} s")
                    break
                if msg["type"] == "websocket.disconnect":
                    break
                await self._frame(msg)
        except (WebSocketDisconnect, OSError) as exc:  # the socket broke: nothing to report
            log.debug("websocket from %s broke: %s", self.client, type(exc).__name__)
        except Exception:  # a server fault, not the client's doing
            log.exception("websocket from %s: server fault", self.client)
            self.error(Code.INTERNAL, "the server failed; reload")
        finally:
            if self.shell is not None:
                self.shell.post(Leave(self.conn))
            if self.player_key is not None:
                self.owner.per_player.remove(self.player_key)
            self.close()
            with contextlib.suppress(Exception):
                await writer

    async def _frame(self, msg: Any) -> None:
        text = msg.get("text")
        raw: str | bytes | None = text if text is not None else msg.get("bytes")
        if not self.limiter.allow():
            self.error(Code.TOO_FAST, f"at most {self.limiter.limit} frames in {self.limiter.window:g} s")
            return
        try:
            intent = protocol.parse_intent(raw)
        except ProtocolError as exc:
            self.error(exc.code, exc.message)
            return
        if isinstance(intent, protocol.Ping):
            self.put(json.dumps(protocol.pong_frame()))
        elif isinstance(intent, protocol.Hello):
            await self._hello(intent)
        elif self.shell is None:
            self.error(Code.UNAUTHORIZED, "say hello first")
        elif self.shell.stopped:
            self.error(Code.INTERNAL, "the table stopped; reload")
            self.close()
        else:
            self.shell.intent(self.conn, intent)

    async def _hello(self, hello: protocol.Hello) -> None:
        if self.shell is not None:
            self.error(Code.MALFORMED, "this socket already said hello")
            return
        shell = await self.owner.tables.get(hello.table)
        if shell is None:
            self.error(Code.UNKNOWN_TABLE, f"no table {hello.table!r}")
            return
        guest = await self.owner.guests.find(hello.token)
        if hello.token is not None and guest is None:
            self.error(Code.UNAUTHORIZED, "this browser's token is unknown here; sign in again")
            return
        if guest is not None and not hello.watch:
            key = (shell.id, guest.player)
            if not self.owner.per_player.add(key):
                self.error(Code.TOO_MANY, f"at most {self.owner.limits.per_player} sockets per player; close a tab")
                self.close()
                return
            self.player_key = key
        self.shell = shell
        shell.attach(self.conn, self.put)
        shell.post(Join(self.conn, guest.player if guest else None, guest.nickname if guest else "",
                        hello.last_seq, hello.watch))

    async def _write(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None:
                break
            try:
                await self.ws.send_text(text)
            except Exception:
                self.closed = True
                break
        if self.ws.application_state != WebSocketState.DISCONNECTED:
            with contextlib.suppress(Exception):
                await self.ws.close()


async def _receive(websocket: WebSocket, timeout: float | None) -> Any:
    """The socket's next message, or None when ``timeout`` seconds pass first."""
    if timeout is None:
        return await websocket.receive()
    try:
        return await asyncio.wait_for(websocket.receive(), max(timeout, 0.0))
    except TimeoutError:
        return None


async def _refuse(websocket: WebSocket, code: Code, message: str) -> None:
    """Tell a socket the server will not keep it, and close it."""
    with contextlib.suppress(Exception):
        await websocket.send_text(json.dumps(protocol.error_frame(code, message, None)))
        await websocket.close(WS_POLICY_CLOSE)
