"""Cluster mode at the edge: two ``capicua serve`` processes on one PostgreSQL behind a
real HAProxy (``deploy/haproxy.cfg`` as the repository has it, tests/haproxyserver.py):
requests reach both, a websocket through the balancer says hello and plays, a
process that is draining leaves the balancer's rotation, and (with a real Redis: the
whole cluster mode) a drained process's sockets come back through the balancer to
the other one and the hand goes on."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import WSClient, drive
from haproxyserver import HaproxyServer
from serveprocess import ServeProcess
from websockets.exceptions import ConnectionClosed

from capicua.server.runtime.drain import RECONNECT_CODE

pytestmark = pytest.mark.xdist_group("cluster")

GUARD_S = 30.0  # a guard against hangs, not a timed assertion


@pytest.fixture
def cluster(tmp_path: Path, pg_server: Any) -> Iterator[dict[str, Any]]:
    yield from _cluster(tmp_path, pg_server, [])


@pytest.fixture
def redis_cluster(tmp_path: Path, pg_server: Any, redis_server: Any) -> Iterator[dict[str, Any]]:
    yield from _cluster(tmp_path, pg_server, ["--redis", redis_server.url])


def _cluster(tmp_path: Path, pg_server: Any, args: list[str]) -> Iterator[dict[str, Any]]:
    url = pg_server.create_database()
    servers: list[ServeProcess] = []
    balancer: HaproxyServer | None = None
    try:
        for node in ("node-a", "node-b"):
            servers.append(ServeProcess(tmp_path, ["--database", url, "--node-id", node, *args], name=node))
        balancer = HaproxyServer([s.port for s in servers])
        _until(lambda: _nodes(balancer.base, 20) == {"node-a", "node-b"})  # both checked up
        yield {"servers": servers, "balancer": balancer}
    finally:
        if balancer is not None:
            balancer.close()
        for s in servers:
            s.stop()
        pg_server.drop_database(url)


def _nodes(base: str, tries: int) -> set[str]:
    """The nodes that answered ``tries`` fresh connections to ``/readyz``."""
    seen = set()
    for _ in range(tries):
        r = httpx.get(base + "/readyz", timeout=5, headers={"connection": "close"})
        if r.status_code == 200:
            seen.add(r.json()["node"])
    return seen


def _until(ok: Any) -> None:
    deadline = time.monotonic() + GUARD_S
    while not ok():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.1)


def test_requests_and_a_played_socket_through_the_balancer(cluster: dict[str, Any]) -> None:
    base = cluster["balancer"].base
    assert _nodes(base, 10) == {"node-a", "node-b"}  # no stickiness: both processes answer
    t = httpx.post(base + "/api/tables", json={"nickname": "Ana"}, timeout=10).json()
    c = WSClient(base.replace("http://", "ws://") + "/ws")
    try:
        assert c.hello(t["table_id"], t["token"])["type"] == "welcome"
        # --bot-delay 0: the neighbours play at once; Ana plays until a tile of hers is on the table.
        drive(c, lambda f: f["type"] == "events" and any(
            e["event"]["kind"] == "play" and e["event"]["seat"] == c.view["seat"] for e in f["events"]))
    finally:
        c.close()


def test_a_draining_process_leaves_the_rotation(cluster: dict[str, Any]) -> None:
    a, b = cluster["servers"]
    base = cluster["balancer"].base
    a.proc.send_signal(signal.SIGTERM)
    # Not ready at once, while still serving: the balancer stops sending it anything.
    r = httpx.get(a.base + "/readyz", timeout=5)
    assert r.status_code == 503 and r.json()["draining"] is True
    assert httpx.get(a.base + "/healthz", timeout=5).status_code == 200
    _until(lambda: a.proc.poll() is not None)
    assert _nodes(base, 10) == {"node-b"}  # every request is answered, by the one left


def _ana_played(c: WSClient, after: int = 0) -> Any:
    return lambda f: f["type"] == "events" and any(
        e["seq"] > after and e["event"]["kind"] == "play" and e["event"]["seat"] == c.view["seat"]
        for e in f["events"])


def test_a_drained_process_sends_its_sockets_back_through_the_balancer(redis_cluster: dict[str, Any]) -> None:
    base = redis_cluster["balancer"].base
    t = httpx.post(base + "/api/tables", json={"nickname": "Ana"}, timeout=10).json()
    c = WSClient(base.replace("http://", "ws://") + "/ws")
    assert c.hello(t["table_id"], t["token"])["type"] == "welcome"
    drive(c, _ana_played(c), rematch=True)
    holder = next(s for s in redis_cluster["servers"] if _socket_count(s) == 1)  # the gateway of Ana's socket
    holder.proc.send_signal(signal.SIGTERM)
    with pytest.raises(ConnectionClosed) as closed:
        c.until(lambda f: False)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == RECONNECT_CODE
    # As the page does: a new socket through the balancer, hello with the last seq seen.
    again = WSClient(base.replace("http://", "ws://") + "/ws")
    try:
        assert again.hello(t["table_id"], t["token"], last_seq=c.seq)["type"] == "welcome"
        drive(again, _ana_played(again, after=c.seq), rematch=True)  # the hand goes on, from the other process
        assert _socket_count(next(s for s in redis_cluster["servers"] if s is not holder)) == 1
    finally:
        again.close()
    holder.proc.wait(timeout=GUARD_S)
    assert "Traceback" not in holder.log.read_text()


def _socket_count(server: ServeProcess) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    text = httpx.get(server.base + "/metrics", timeout=5).text
    return next(s.value for f in text_string_to_metric_families(text) for s in f.samples if s.name == "capicua_sockets")
