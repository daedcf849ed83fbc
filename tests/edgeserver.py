"""A server as ``capicua serve`` runs it (httpedge's uvicorn settings, websocket
compression included), in a thread, behind :class:`WireMeter`: a TCP relay that
counts the bytes each connection carries on the wire (headers, websocket framing,
after compression). :class:`CountingApp` records the requests that reach the app.
Used by tests/server/test_bandwidth.py and tests/server/test_ws_compression.py.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from conftest import RECV_TIMEOUT, free_port


@dataclass
class Wire:
    """One TCP connection through the meter: what the client said first, bytes each way."""

    head: bytes = b""
    up: int = 0
    down: int = 0
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def websocket(self) -> bool:
        return self.head.startswith(b"GET /ws")

    @property
    def user_agent(self) -> str:
        for line in self.head.split(b"\r\n"):
            if line.lower().startswith(b"user-agent:"):
                return line.split(b":", 1)[1].strip().decode("latin-1")
        return ""


class WireMeter:
    """A TCP relay to ``port`` that counts the bytes of every connection."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.wires: list[Wire] = []
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            wire = Wire()
            with self._lock:
                self.wires.append(wire)
                self._sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, wire, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, wire, False), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket, wire: Wire, up: bool) -> None:
        try:
            while data := src.recv(65536):
                if up:
                    if len(wire.head) < 4096:
                        wire.head += data[: 4096 - len(wire.head)]
                    wire.up += len(data)
                else:
                    wire.down += len(data)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            if not up:
                wire.done.set()

    def sockets(self, since: int = 0) -> list[Wire]:
        """The websockets among the connections from the ``since``-th on."""
        with self._lock:
            return [w for w in self.wires[since:] if w.websocket]

    def close(self) -> None:
        self.listener.close()
        with self._lock:
            for s in self._sockets:
                s.close()


class CountingApp:
    """The app, with a record of every HTTP request and websocket that reaches it."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.state = app.state
        self.seen: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            query = scope.get("query_string", b"").decode()
            self.seen.append(f"{scope.get('method', 'WS')} {scope['path']}" + (f"?{query}" if query else ""))
        await self.app(scope, receive, send)


class EdgeServer:
    """The app served as ``capicua serve`` serves it (httpedge's uvicorn settings), in a
    thread; ``base`` reaches it through the meter."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        from capicua.server.runtime.edge import uvicorn_config

        self.app = CountingApp(app)
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn_config(self.app, port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "the server did not start"
            time.sleep(0.02)
        self.meter = WireMeter(self.port)
        self.base = f"http://127.0.0.1:{self.meter.port}"

    def run(self, coro: Any) -> Any:
        """Run a coroutine on the server's loop (to reach the tables directly)."""
        return asyncio.run_coroutine_threadsafe(coro, self.app.state.loop).result(timeout=RECV_TIMEOUT)

    def seeded_table(self, seed: str, preset: str = "cubano") -> dict[str, Any]:
        """A table against three botagorda neighbours dealt from ``seed`` (the same match
        every run, for a first-legal-move player): ``table_id``, ``token``, ``url``."""
        state = self.app.state.deps
        guest, token = self.run(state.guests.sign_in("Ana", None))
        seats: list[dict[str, Any]] = [
            {"seat": 0, "kind": "human", "name": "Ana", "player": guest.player, "level": "medio", "character": "mima"}
        ]
        for i, ch in enumerate(("cuca", "pancho", "yoli"), start=1):
            seats.append({"seat": i, "kind": "bot", "name": ch.title(), "level": "botagorda", "character": ch})
        shell = self.run(state.tables.open(preset, {}, seats, seed=seed))
        return {"table_id": shell.id, "token": token, "url": f"/t/{shell.id}"}

    def new_table(self, **body: Any) -> dict[str, Any]:
        import httpx

        r = httpx.post(self.base + "/api/tables", json={"nickname": "Ana", "partner_level": "botagorda",
                                                         "rival_level": "botagorda", **body}, timeout=RECV_TIMEOUT)
        assert r.status_code == 200, r.text
        return dict(r.json())

    def stop(self) -> None:
        self.meter.close()
        self.server.should_exit = True
        self.thread.join(timeout=30)
