"""The PROXY protocol (issue 23, item 8): a trusted load balancer's PROXY header names the
client the per-address limits count on; anyone else's PROXY line is not read as one."""

from __future__ import annotations

import ipaddress
import json
import socket
import struct
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx
import pytest
import uvicorn
from conftest import free_port
from haproxyserver import HaproxyServer
from websockets.sync.client import connect

from capicua.server.app import create_app
from capicua.server.gateway.limits import ClientAddresses
from capicua.server.runtime import proxyproto
from capicua.server.runtime.edge import uvicorn_config
from capicua.server.runtime.proxyproto import ProxyHeaderError, parse, starts_proxy_header

GUARD_S = 20.0  # a guard against hangs, not a timed assertion


def v2(source: str, command: int = 1) -> bytes:
    """A PROXY v2 header for a TCP connection from ``source``."""
    address = ipaddress.ip_address(source)
    if address.version == 4:
        block = address.packed + bytes(4) + struct.pack("!HH", 5555, 8000)
        family = 0x11
    else:
        block = address.packed + bytes(16) + struct.pack("!HH", 5555, 8000)
        family = 0x21
    return proxyproto.V2_SIGNATURE + bytes([0x20 | command, family]) + struct.pack("!H", len(block)) + block


def test_headers_of_both_versions_name_the_client_and_say_how_long_they_are() -> None:
    line = b"PROXY TCP4 203.0.113.7 10.0.0.1 5555 8000\r\n"
    assert parse(line + b"GET / HTTP/1.1\r\n") == ("203.0.113.7", len(line))
    assert parse(b"PROXY TCP6 2001:db8::7 2001:db8::1 5555 8000\r\nGET") == ("2001:db8::7", 46)
    assert parse(b"PROXY UNKNOWN\r\n") == (None, 15)  # the proxy's own connection: its address counts
    assert parse(line[:20]) is None  # more bytes needed
    assert parse(v2("203.0.113.9") + b"GET") == ("203.0.113.9", 28)
    assert parse(v2("2001:db8::9") + b"GET") == ("2001:db8::9", 52)
    assert parse(v2("203.0.113.9", command=0)) == (None, 28)  # LOCAL: a health check
    assert parse(v2("203.0.113.9")[:20]) is None
    assert starts_proxy_header(b"PRO") and starts_proxy_header(v2("1.2.3.4")[:5])
    assert not starts_proxy_header(b"GET / HTTP/1.1") and not starts_proxy_header(b"POST")


@pytest.mark.parametrize("bad", [
    b"PROXY TCP4 203.0.113.7 10.0.0.1 5555\r\n",  # a field missing
    b"PROXY TCP4 2001:db8::7 10.0.0.1 5555 8000\r\n",  # the family is not the address's
    b"PROXY TCP4 203.0.113.7 10.0.0.1 5555 99999\r\n",  # no such port
    b"PROXY TCP4 " + b"1" * 120,  # no end in 107 bytes
    proxyproto.V2_SIGNATURE + b"\x30\x11\x00\x0c" + bytes(12),  # version 3
    proxyproto.V2_SIGNATURE + b"\x21\x11\xff\xff",  # longer than a proxy of ours sends
])
def test_a_malformed_header_is_refused(bad: bytes) -> None:
    with pytest.raises(ProxyHeaderError):
        parse(bad)


def _post_guest(port: int, header: bytes, nickname: str) -> int:
    """POST /api/players on a raw connection that begins with ``header``; the status."""
    body = json.dumps({"nickname": nickname}).encode()
    request = (b"POST /api/players HTTP/1.1\r\nHost: capicua\r\nContent-Type: application/json\r\n"
               b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(header + request)
        answer = b""
        while b"\r\n" not in answer:
            chunk = s.recv(4096)
            if not chunk:
                break
            answer += chunk
    return int(answer.split(b" ", 2)[1])


def _socket_from(port: int, header: bytes) -> dict[str, object] | None:
    """A websocket on a connection that begins with ``header``: the error frame it got
    at once (None: it was kept, and closed here)."""
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    raw.sendall(header)
    with connect(f"ws://127.0.0.1:{port}/ws", sock=raw, open_timeout=10) as ws:
        try:  # a refusal is said at once, before anything is asked
            return dict(json.loads(ws.recv(timeout=1)))
        except TimeoutError:
            ws.send(json.dumps({"type": "ping"}))
            assert json.loads(ws.recv(timeout=10))["type"] == "pong"
            return None


@dataclass
class Proxied:
    port: int
    addresses: ClientAddresses


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxied]:
    """A server (uvicorn in a thread, as ``capicua serve`` runs it) behind a "proxy" at
    127.0.0.1: 2 new guests and 1 socket per client address."""
    addresses = ClientAddresses(["127.0.0.1"])
    port = free_port()
    pool = ThreadPoolExecutor(max_workers=1)
    app = create_app(database_url=f"sqlite:///{tmp_path_factory.mktemp('proxy') / 'db.sqlite3'}",
                     addresses=addresses, executor=pool, bot_delay=(0.0, 0.0), guest_rate=(2, 600.0),
                     sockets_per_client=1)
    server = uvicorn.Server(uvicorn_config(app, port=port, log_level="warning", addresses=addresses))
    thread = threading.Thread(target=server.run, daemon=True)  # uvicorn leaves signals alone off the main thread
    thread.start()
    deadline = time.monotonic() + GUARD_S
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    yield Proxied(port, addresses)
    server.should_exit = True
    thread.join(GUARD_S)
    pool.shutdown(wait=True)


def test_the_limits_count_on_the_client_a_trusted_proxy_names(proxied: Proxied) -> None:
    port = proxied.port
    seven = b"PROXY TCP4 203.0.113.7 127.0.0.1 5555 8000\r\n"
    assert [_post_guest(port, seven, f"Ana{i}") for i in range(3)] == [200, 200, 429]
    # Another client behind the same proxy has its own budget, in either version.
    assert _post_guest(port, v2("203.0.113.8"), "Beto") == 200
    assert _post_guest(port, b"PROXY TCP4 203.0.113.9 127.0.0.1 5555 8000\r\n", "Cuca") == 200
    # A trusted proxy's plain HTTP (its health checks, a balancer in HTTP mode) still is.
    assert _post_guest(port, b"", "Dani") == 200
    # Websockets behind PROXY headers count on the clients named: one each here.
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    raw.sendall(v2("203.0.113.10"))
    with connect(f"ws://127.0.0.1:{port}/ws", sock=raw, open_timeout=10) as held:
        held.send(json.dumps({"type": "ping"}))
        assert json.loads(held.recv(timeout=10))["type"] == "pong"
        assert len(proxied.addresses.proxied) == 1  # the websocket's client, while it lasts
        refused = _socket_from(port, v2("203.0.113.10"))
        assert refused is not None and refused["code"] == "too_many"
        assert _socket_from(port, v2("203.0.113.11")) is None
    # Each client named is forgotten when its connection ends, websockets too.
    deadline = time.monotonic() + GUARD_S
    while proxied.addresses.proxied:
        assert time.monotonic() < deadline, proxied.addresses.proxied
        time.sleep(0.02)


def test_a_real_haproxy_sending_proxy_v2_reaches_the_server_and_its_health_checks_too(proxied: Proxied) -> None:
    """HAProxy's own PROXY v2 headers (LOCAL ones for its health checks): the server is
    seen up, and a request and a websocket go through it."""
    balancer = HaproxyServer([proxied.port], server_options="send-proxy-v2")
    try:
        deadline = time.monotonic() + GUARD_S
        while httpx.get(balancer.base + "/healthz", timeout=5).status_code != 200:  # up once its checks pass
            assert time.monotonic() < deadline, balancer.log.read_text()
            time.sleep(0.1)
        with connect(balancer.base.replace("http://", "ws://") + "/ws", open_timeout=10) as ws:
            ws.send(json.dumps({"type": "ping"}))
            assert json.loads(ws.recv(timeout=10))["type"] == "pong"
            assert set(proxied.addresses.proxied.values()) == {"127.0.0.1"}  # the client HAProxy saw
    finally:
        balancer.close()


def test_a_proxy_line_from_anyone_else_is_not_read_as_one(proxied: Proxied, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proxied.addresses, "trusted", (ipaddress.ip_network("10.0.0.0/8"),))  # 127.0.0.1 is not
    assert _post_guest(proxied.port, b"PROXY TCP4 203.0.113.7 127.0.0.1 5555 8000\r\n", "Eli") == 400
