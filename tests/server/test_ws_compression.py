"""The websocket's permessage-deflate, as ``capicua serve`` runs it
(capicua.server.runtime.edge): what it negotiates, that a socket gets the very same
frames with it or without it, and what it costs in memory per socket (measured
with tracemalloc and printed; bounded by a budget). tests/server/test_bandwidth.py
measures the bytes it saves over a whole match in Chromium."""

from __future__ import annotations

import contextlib
import gc
import json
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import RECV_TIMEOUT
from edgeserver import EdgeServer

pytestmark = pytest.mark.xdist_group("ws_compression")

DEFLATE_MEMORY_BUDGET = 64 * 1024  # bytes the server's deflate state may take per socket
SOCKETS = 16  # sockets opened to measure memory


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, bot_pool: Any) -> Iterator[EdgeServer]:
    from capicua.server.app import create_app

    db = tmp_path_factory.mktemp("wsdeflate") / "db.sqlite3"
    app = create_app(database_url=f"sqlite:///{db}", executor=bot_pool, bot_delay=(0.0, 0.0),
                     rate_limit=(1_000_000, 1.0))
    srv = EdgeServer(app)
    yield srv
    srv.stop()


def _connect(server: EdgeServer, deflate: bool) -> Any:
    from websockets.sync.client import connect

    return connect(f"ws://127.0.0.1:{server.port}/ws", max_size=2**22, compression="deflate" if deflate else None)


def _texts(ws: Any, until: str) -> list[str]:
    out = []
    while True:
        text = ws.recv(timeout=RECV_TIMEOUT)
        out.append(text)
        if json.loads(text)["type"] == until:
            return out


def test_the_server_takes_deflate_with_a_4_kib_window(server: EdgeServer) -> None:
    with _connect(server, deflate=True) as ws:
        offer = ws.response.headers["Sec-WebSocket-Extensions"]
    print(f"\n[websocket] the server answers: {offer}")
    params = {p.strip() for p in offer.split(";")}
    assert "permessage-deflate" in params and "server_max_window_bits=12" in params, offer
    with _connect(server, deflate=False) as ws:
        assert ws.response.headers.get("Sec-WebSocket-Extensions") is None


def _view_on_my_turn(ws: Any) -> dict[str, Any]:
    """The seat's view once the table waits for it (a neighbour's table plays on until then)."""
    while True:
        frame = json.loads(ws.recv(timeout=RECV_TIMEOUT))
        view = frame.get("view")
        if view is not None and view["turn"] == view["seat"] and view["legal"]:
            return dict(view)


def test_a_seat_gets_the_very_same_view_with_deflate_and_without(server: EdgeServer) -> None:
    """Compression is the transport's: the text each socket reads is the same, so what
    each audience may see (tests/server/test_leak.py) does not depend on it."""
    table = server.seeded_table("deflate-same")
    hello = json.dumps({"type": "hello", "table": table["table_id"], "token": table["token"]})
    with _connect(server, deflate=True) as packed, _connect(server, deflate=False) as plain:
        packed.send(hello)
        plain.send(hello)
        views = [_view_on_my_turn(packed), _view_on_my_turn(plain)]
        watched = []
        for deflate in (True, False):
            with _connect(server, deflate) as ws:
                ws.send(json.dumps({"type": "hello", "table": table["table_id"], "token": None}))
                watched.append(json.loads(_texts(ws, "sync")[-1])["view"])
    assert views[0] == views[1] and views[0]["hand"], views
    assert watched[0] == watched[1] and "hand" not in watched[0], watched


def _server_side_bytes(snapshot: tracemalloc.Snapshot) -> int:
    """Bytes still held that the server's websocket code allocated (uvicorn's frames in the traceback)."""
    only = snapshot.filter_traces([tracemalloc.Filter(True, "*uvicorn*", all_frames=True)])
    return sum(stat.size for stat in only.statistics("filename"))


def _held_by_sockets(server: EdgeServer, deflate: bool) -> int:
    gc.collect()
    before = _server_side_bytes(tracemalloc.take_snapshot())
    with contextlib.ExitStack() as stack:
        for _ in range(SOCKETS):
            ws = stack.enter_context(_connect(server, deflate))
            ws.send(json.dumps({"type": "ping"}))  # one frame each way: the server's inflater has its window
            assert json.loads(ws.recv(timeout=RECV_TIMEOUT))["type"] == "pong"
        time.sleep(0.2)
        gc.collect()
        return _server_side_bytes(tracemalloc.take_snapshot()) - before


def test_what_deflate_costs_the_server_per_socket(server: EdgeServer) -> None:
    tracemalloc.start(24)
    try:
        plain = _held_by_sockets(server, deflate=False)
        packed = _held_by_sockets(server, deflate=True)
    finally:
        tracemalloc.stop()
    per_plain, per_packed = plain / SOCKETS, packed / SOCKETS
    cost = per_packed - per_plain
    print(f"\n[websocket] server memory per open socket ({SOCKETS} sockets, tracemalloc): "
          f"{per_plain / 1024:.1f} KiB without deflate, {per_packed / 1024:.1f} KiB with it: "
          f"deflate costs {cost / 1024:.1f} KiB per socket ({cost * 1000 / 2**20:.0f} MiB per 1,000 sockets)")
    assert 8 * 1024 < cost <= DEFLATE_MEMORY_BUDGET, cost
