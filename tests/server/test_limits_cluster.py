"""The limits behind a load balancer (issue 23, item 8): the client's address from the
X-Forwarded-For of trusted proxies only, the HTTP budgets shared by every process
through a real Redis (and counted locally while it is down), the silent sockets shed
first, and a process at its connection bound answering 503 with Retry-After and one
log line (never a 500) when its open-file limit is low."""

from __future__ import annotations

import asyncio
import json
import resource
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import WSClient
from serveprocess import ServeProcess
from websockets.exceptions import ConnectionClosed

from capicua.server.adapters.redis_limits import RedisBudgets
from capicua.server.gateway.limits import ClientAddresses, HttpLimits
from capicua.server.runtime.connections import connection_bound

pytestmark = pytest.mark.xdist_group("server")


def test_forwarded_for_counts_only_from_trusted_proxies() -> None:
    none = ClientAddresses()
    assert none.key(("10.0.0.5", 1), ["203.0.113.7"]) == "10.0.0.5"  # no proxy trusted: the header is ignored
    lb = ClientAddresses(["10.0.0.0/8", "127.0.0.1"])
    assert lb.key(("10.0.0.5", 1), ["203.0.113.7"]) == "203.0.113.7"
    # Read from the right: the client may write any first hops it likes; the nearest untrusted one counts.
    assert lb.key(("10.0.0.5", 1), ["1.2.3.4, 203.0.113.7, 10.0.0.9"]) == "203.0.113.7"
    assert lb.key(("10.0.0.5", 1), ["1.2.3.4", "203.0.113.7"]) == "203.0.113.7"  # several headers, in order
    assert lb.key(("198.51.100.1", 1), ["203.0.113.7"]) == "198.51.100.1"  # not a trusted proxy: its own address
    assert lb.key(("::ffff:127.0.0.1", 1), ["2001:db8:1:2::1"]) == "2001:db8:1:2::/64"
    assert lb.key(("127.0.0.1", 1), []) == "127.0.0.1"  # a proxy's own request
    assert lb.key(("10.0.0.5", 1), ["10.0.0.7"]) == "10.0.0.7"  # only proxies: the farthest


def test_budgets_hold_across_processes_through_redis(redis_server: Any) -> None:
    from capicua.server.app import redis_client

    async def run() -> None:
        limits = HttpLimits(tables_per_guest=(2, 60.0), tables_per_address=(3, 60.0))
        one, two = redis_client(redis_server.url), redis_client(redis_server.url)
        a, b = RedisBudgets(limits, one), RedisBudgets(limits, two)  # two processes' budgets
        try:
            assert await a.take({"tables_per_guest": "ana", "tables_per_address": "nat"}) is None
            assert await b.take({"tables_per_guest": "ana", "tables_per_address": "nat"}) is None
            refused = await a.take({"tables_per_guest": "ana", "tables_per_address": "nat"})
            assert refused is not None and refused.what == "tables_per_guest" and 0 < refused.wait <= 60
            assert await b.take({"tables_per_guest": "beto", "tables_per_address": "nat"}) is None
            refused = await a.take({"tables_per_guest": "cuca", "tables_per_address": "nat"})
            assert refused is not None and refused.what == "tables_per_address"
            await b.count("tables_per_guest", "dino")
            await b.count("tables_per_guest", "dino")
            refused = await a.take({"tables_per_guest": "dino"})
            assert refused is not None and refused.what == "tables_per_guest"
            # Redis gone: each process counts on its own, nothing raises; back: counted there again.
            redis_server.stop()
            assert await a.take({"tables_per_guest": "eva"}) is None and a.failing
            redis_server.start()
            assert await a.take({"tables_per_guest": "eva"}) is None and not a.failing
        finally:
            await one.aclose()
            await two.aclose()

    asyncio.run(run())


def test_silent_sockets_are_shed_first(live_server: Any) -> None:
    srv = live_server(silent_sockets=3)
    t = srv.new_table()
    talker = WSClient(srv.ws_url)
    talker.hello(t["table_id"], t["token"])  # said hello: never shed for the silent ones
    silent = [WSClient(srv.ws_url) for _ in range(4)]
    try:
        assert silent[0].error()["code"] == "too_many"  # the oldest silent one goes
        with pytest.raises(ConnectionClosed):
            silent[0].recv()
        for c in silent[1:]:
            c.settle()  # the others are kept
        talker.settle()
    finally:
        for c in [talker, *silent[1:]]:
            c.close()


def test_the_connection_bound_leaves_room_for_the_rest() -> None:
    assert connection_bound(10_000, 1_048_576) == 10_000
    assert connection_bound(10_000, 20_000) == 10_000
    assert connection_bound(10_000, 1024) == 1024 - 102  # a tenth kept for the store, the pools, the logs
    assert connection_bound(10_000, 256) == 256 - 64


def _low_open_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))  # soft = hard: the server cannot raise it


def test_past_the_bound_a_clean_503_with_retry_after(tmp_path: Path) -> None:
    server = ServeProcess(tmp_path, ["--data-dir", str(tmp_path / "data")], preexec_fn=_low_open_files)
    held: list[socket.socket] = []
    try:
        bound = connection_bound(10_000, 256)
        for _ in range(bound + 20):
            held.append(socket.create_connection(("127.0.0.1", server.port), timeout=10))
        time.sleep(0.5)  # the server has taken every one of them (a settling wait, not an assertion)
        answers = [httpx.post(server.base + "/api/tables", json={"nickname": "Ana"}, timeout=10) for _ in range(5)]
        assert {r.status_code for r in answers} == {503}
        assert all(r.headers["retry-after"] == "2" for r in answers)
        assert answers[0].json()["error"]["code"] == "unavailable"
        for s in held:
            s.close()
        held.clear()
        deadline = time.monotonic() + 20
        while httpx.get(server.base + "/healthz", timeout=10).status_code != 200:  # room again
            assert time.monotonic() < deadline
            time.sleep(0.1)
        said = server.log.read_text()
        assert said.count("refusing new ones with 503") == 1 and "accepting connections again" in said
        assert "Traceback" not in said and " 500" not in said
    finally:
        for s in held:
            s.close()
        server.stop()


def test_json_logs_name_the_process_and_the_table(tmp_path: Path) -> None:
    server = ServeProcess(tmp_path, ["--data-dir", str(tmp_path / "data"), "--log-format", "json",
                                     "--node-id", "node-j"])
    try:
        httpx.get(server.base + "/readyz", timeout=10)
    finally:
        server.stop()
    lines = [json.loads(line) for line in server.log.read_text().splitlines() if line.startswith("{")]
    assert lines and all({"time", "level", "logger", "message", "table", "process", "pid"} <= set(x) for x in lines)
    assert {x["process"] for x in lines} == {"node-j"}
    assert any("GET /readyz" in x["message"] for x in lines)


def test_socket_caps_hold_across_processes_through_redis(redis_server: Any) -> None:
    from capicua.server.adapters.redis_limits import SharedSocketCounts
    from capicua.server.app import redis_client

    async def run() -> None:
        one, two = redis_client(redis_server.url), redis_client(redis_server.url)
        a = SharedSocketCounts(3, "address", "node-a", one)
        b = SharedSocketCounts(3, "address", "node-b", two)
        try:
            assert a.add("nat") and a.add("nat") and b.add("nat")
            for counts in (a, b, a):
                await counts.sync()
            assert not a.add("nat") and not b.add("nat")  # 2 + 1 across the two processes
            assert a.add("other")  # another address is not touched
            b.remove("nat")
            await b.sync()
            await a.sync()
            assert a.add("nat")
            # A process that stops writing (it died) stops counting once its fields are stale.
            dead = SharedSocketCounts(3, "address", "node-dead", two)
            dead.STALE_S = 0.3
            assert dead.add("hotspot") and dead.add("hotspot") and dead.add("hotspot")
            await dead.sync()
            assert a.add("hotspot")
            await a.sync()
            assert not a.add("hotspot")  # 1 + 3 of the live-looking one
            await asyncio.sleep(0.4)
            await a.sync()
            assert a.add("hotspot")
            # Redis gone: each process caps its own, nothing raises.
            assert b.add("elsewhere")  # something of b's to write
            redis_server.stop()
            await b.sync()
            assert b.failing and b.others == {}
            assert b.add("nat")  # b's own cap while Redis is away (a's 3 unseen)
            redis_server.start()
            await b.sync()
            await a.sync()  # an empty Redis holds again what b writes (and, each REFRESH_S, all it holds)
            assert not b.failing and a.others.get("nat") == 1
        finally:
            await one.aclose()
            await two.aclose()

    asyncio.run(run())
