"""The server's HTTP and websocket edge against a live uvicorn server: deep
JSON, bodies that are too large or too slow, half-open connections, the limits
on table creation and on sockets, the hello deadline, and the rate limit that
oversized frames count against."""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any

import httpx
import pytest
from conftest import RECV_TIMEOUT, free_port
from websockets.exceptions import ConnectionClosed

pytestmark = pytest.mark.xdist_group("server")

DEEP = "[" * 999 + "]" * 999


def closed(c: Any) -> bool:
    """True when the server closes the socket before sending anything else."""
    try:
        c.recv()
    except ConnectionClosed:
        return True
    return False


# ------------------------------------------------------------------ deep JSON


def test_deep_json_is_malformed_over_http_and_on_the_socket(live_server: Any) -> None:
    srv = live_server()
    for body in (DEEP, '{"nickname": "Ana", "options": ' + DEEP + "}", '{"a":' * 5000 + "1" + "}" * 5000):
        r = httpx.post(srv.base + "/api/tables", content=body.encode(), timeout=RECV_TIMEOUT)
        assert r.status_code in (400, 413), r.text
        assert r.json()["error"]["code"] in ("malformed", "too_large")
    r = httpx.post(srv.base + "/api/tables", content=DEEP.encode(), timeout=RECV_TIMEOUT)
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed"
    c = srv.client()
    c.send(DEEP)
    err = c.error()
    assert err["code"] == "malformed" and err["seq"] is None
    c.send({"type": "ping"})  # the socket is still there
    assert c.recv()["type"] == "pong"
    c.close()


# --------------------------------------------------------------------- bodies


def raw_http(port: int, data: bytes, read_timeout: float = RECV_TIMEOUT) -> bytes:
    """Send ``data`` on a fresh connection and read until the server closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=read_timeout) as s:
        s.sendall(data)
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out
            out += chunk


def test_a_large_body_is_refused_without_being_read(live_server: Any) -> None:
    srv = live_server()
    # Declared too large: refused at once, the 10 MB never sent.
    head = (b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 10000000\r\nConnection: close\r\n\r\n{")
    answer = raw_http(srv.port, head)
    assert answer.startswith(b"HTTP/1.1 413") and b'"too_large"' in answer
    # Chunked, no length: refused once it passes 4 KiB.
    r = httpx.post(srv.base + "/api/tables", content=iter([b'{"nickname": "' + b"x" * 3000, b"y" * 3000 + b'"}']),
                   timeout=RECV_TIMEOUT)
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"


def test_a_slow_body_times_out(live_server: Any) -> None:
    srv = live_server(body_timeout=0.5)
    head = (b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\nConnection: close\r\n\r\n{\"nickname\": ")
    started = time.monotonic()
    answer = raw_http(srv.port, head)
    print(f"slow body answered after {time.monotonic() - started:.2f} s (body_timeout 0.5 s)")
    assert answer.startswith(b"HTTP/1.1 408") and b'"too_slow"' in answer


def test_half_open_connections_are_closed(bot_pool: Any, tmp_path: Any) -> None:
    """A connection that sends no request, or its headers a byte at a time, is closed."""
    import uvicorn

    from capicua.server.app import create_app
    from capicua.server.runtime.edge import uvicorn_config

    app = create_app(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", executor=bot_pool, bot_delay=(0.0, 0.0))
    port = free_port()
    server = uvicorn.Server(uvicorn_config(app, port=port, log_level="warning", header_timeout=0.5))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            assert thread.is_alive()
            time.sleep(0.02)
        for data in (b"", b"GET /healthz HTTP/1.1\r\nHost: x\r\n"):
            started = time.monotonic()
            assert raw_http(port, data) == b""  # closed by the server, no answer
            print(f"half-open connection {data[:12]!r} closed after {time.monotonic() - started:.2f} s")
        # A whole request is answered, then the idle connection waits for the next headers only so long.
        with socket.create_connection(("127.0.0.1", port), timeout=RECV_TIMEOUT) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            got = b""
            while not got.endswith(b'"store":"ok"}'):
                got += s.recv(65536)
            assert got.startswith(b"HTTP/1.1 200")
            s.sendall(b"GET /healthz HTTP/1.1\r\n")
            assert s.recv(65536) == b""
    finally:
        server.should_exit = True
        thread.join(timeout=30)


# --------------------------------------------------------------- table limit


def test_table_creation_is_limited_per_client(live_server: Any) -> None:
    srv = live_server(table_rate=(3, 3600.0))
    for _ in range(3):
        srv.new_table()
    # Refused requests do not count: the fourth table is still refused for its rate only.
    assert srv.post("/api/tables", {"nickname": ""}).json()["error"]["code"] == "malformed"
    r = srv.post("/api/tables", {"nickname": "Ana"})
    assert r.status_code == 429 and r.json()["error"]["code"] == "too_fast"
    assert int(r.headers["Retry-After"]) >= 3000
    assert len(srv.tables.shells) == 3


# ------------------------------------------------------------------- sockets


def test_sockets_per_seat_are_capped(live_server: Any) -> None:
    srv = live_server(sockets_per_seat=2)
    t = srv.new_table()
    other = srv.new_table(nickname="Beto")
    tabs = [srv.client() for _ in range(2)]
    for c in tabs:
        assert c.hello(t["table_id"], t["token"])["type"] == "welcome"
    extra = srv.client()
    err = extra.hello(t["table_id"], t["token"])
    assert err["type"] == "error" and err["code"] == "too_many"
    assert closed(extra)
    # Another seat is not affected, and a closed tab frees its place.
    c = srv.client()
    assert c.hello(other["table_id"], other["token"])["type"] == "welcome"
    tabs[0].close()
    deadline = time.monotonic() + RECV_TIMEOUT  # the server notices the close on its own time
    while True:
        again = srv.client()
        got = again.hello(t["table_id"], t["token"])
        if got["type"] == "welcome" or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert got["type"] == "welcome"
    for s in (tabs[1], c, again):
        s.close()


def test_sockets_per_client_are_capped(live_server: Any) -> None:
    srv = live_server(sockets_per_client=3)
    held = [srv.client() for _ in range(3)]
    for c in held:
        c.send({"type": "ping"})
        assert c.recv()["type"] == "pong"
    extra = srv.client()
    err = extra.recv()
    assert err["type"] == "error" and err["code"] == "too_many"
    assert closed(extra)
    for c in held:
        c.close()


def test_a_socket_that_never_says_hello_is_closed(live_server: Any) -> None:
    srv = live_server(hello_timeout=0.5)
    t = srv.new_table()
    silent = srv.client()
    chatty = srv.client()
    chatty.send({"type": "ping"})  # pings and bad hellos do not hold the socket open
    assert chatty.recv()["type"] == "pong"
    bound = srv.client()
    assert bound.hello(t["table_id"], t["token"])["type"] == "welcome"
    for c in (silent, chatty):
        err = c.until(lambda f: f["type"] == "error")
        assert err["code"] == "timeout"
        assert closed(c)
    # The socket that said hello stays open past the deadline.
    time.sleep(0.7)
    bound.settle()
    bound.close()


def test_oversized_frames_count_against_the_rate_limit(live_server: Any) -> None:
    srv = live_server(rate_limit=(3, 3600.0))
    c = srv.client()
    for _ in range(3):
        c.send("x" * 5000)
        assert c.error()["code"] == "too_large"
    c.send({"type": "ping"})
    assert c.error()["code"] == "too_fast"
    c.close()


def test_presets_carry_their_seat_choices(live_server: Any) -> None:
    from capicua.table.options import seat_choices

    srv = live_server()
    presets = srv.get("/api/presets").json()["presets"]
    assert presets
    for p in presets:
        assert p["seat_choices"] == seat_choices(p["name"])
        default = {"players": p["rules"]["players"], "partnership": p["rules"]["partnership"]}
        assert default in p["seat_choices"], p["name"]


def test_summary_dates_and_a_finished_match_stays_in_the_store(live_server: Any) -> None:
    import asyncio
    from datetime import datetime

    srv = live_server()
    t = srv.new_table()
    summary = srv.get(f"/api/tables/{t['table_id']}").json()
    created = datetime.fromisoformat(summary["created_at"])
    assert created.tzinfo is not None and datetime.fromisoformat(summary["updated_at"]) >= created
    seats = [{"seat": i, "kind": "bot", "name": n, "level": "random", "character": n.lower()}
             for i, n in enumerate(("Cuca", "Pancho", "Yoli", "Chucho"))]
    shell = srv.run(srv.tables.open("cubano", {"target": 50}, seats, seed="finished-in-store"))

    async def finished() -> None:
        while shell.core.status != "finished":
            await asyncio.sleep(0.05)
        srv.tables.forget(shell)
        await shell.stop()

    srv.run(asyncio.wait_for(finished(), 60))
    live = shell.core.summary()
    for _ in range(5):
        got = srv.get(f"/api/tables/{shell.id}").json()
        assert shell.id not in srv.tables.shells  # read from the store, not loaded as a table
    assert got["status"] == "finished" and got["scores"] == live["scores"]
    assert got["match_result"] == live["match_result"]
    assert [(s["seat"], s["kind"], s["name"]) for s in got["seats"]] == [
        (s["seat"], s["kind"], s["name"]) for s in live["seats"]]
    assert datetime.fromisoformat(got["updated_at"]) >= datetime.fromisoformat(got["created_at"])
    print(json.dumps({k: got[k] for k in ("created_at", "updated_at")}))


# ------------------------------------------------------ a stalled event loop


def _stall(srv: Any, seconds: float) -> None:
    """Block the server's event loop for ``seconds`` (as a slow synchronous step would), without waiting."""
    import asyncio

    async def block() -> None:
        time.sleep(seconds)

    asyncio.run_coroutine_threadsafe(block(), srv.app.state.loop)
    time.sleep(0.1)  # the loop is blocked now


def test_a_hello_sent_in_time_counts_even_when_the_server_stalls(live_server: Any) -> None:
    """The deadline is for the client: a hello that arrived while the loop was blocked
    past the deadline is read before the deadline is enforced."""
    srv = live_server(hello_timeout=0.5)
    t = srv.new_table()
    c = srv.client()
    _stall(srv, 1.0)
    got = c.hello(t["table_id"], t["token"])  # sent at once, read after the stall
    assert got["type"] == "welcome", got
    c.close()


def test_headers_sent_in_time_count_even_when_the_server_stalls(bot_pool: Any, tmp_path: Any) -> None:
    import uvicorn

    from capicua.server.app import create_app
    from capicua.server.runtime.edge import uvicorn_config

    app = create_app(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", executor=bot_pool, bot_delay=(0.0, 0.0))
    port = free_port()
    server = uvicorn.Server(uvicorn_config(app, port=port, log_level="warning", header_timeout=0.5))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            assert thread.is_alive()
            time.sleep(0.02)
        with socket.create_connection(("127.0.0.1", port), timeout=RECV_TIMEOUT) as s:
            time.sleep(0.1)  # accepted: the header deadline runs
            _stall(type("S", (), {"app": app})(), 1.0)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            got = b""
            while chunk := s.recv(65536):
                got += chunk
        assert got.startswith(b"HTTP/1.1 200"), got
    finally:
        server.should_exit = True
        thread.join(timeout=30)
