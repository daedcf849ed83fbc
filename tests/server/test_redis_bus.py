"""The bus and the table router over a real Redis (capicua.server.adapters.redis_bus):
two processes' buses on one redis-server (in one test, and across two OS processes),
each frame to the sinks of its audience only and in order, a gap reported when
messages may be lost (a count skipped, Redis restarted), intents to an owner once
each and in order, and a process's thousands of tables on one pub/sub connection.

``pytest -s`` prints the frames per second through Redis on this machine."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis
from redisserver import RedisServer

from capicua.server.adapters.redis_bus import RedisBus, RedisRouter
from capicua.table.protocol import (
    ALL,
    ConnId,
    Frame,
    FromConn,
    Hears,
    Join,
    Leave,
    Play,
    Route,
    ToGateway,
    ToTable,
)

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 10.0  # a guard against a test that hangs, not a timed assertion


async def until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


def run(main: Callable[[], Awaitable[None]]) -> None:
    """Runs ``main`` on a fresh loop whose unhandled errors fail the test."""
    errors: list[dict[str, Any]] = []

    async def wrapped() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda loop, ctx: errors.append(ctx))
        await main()

    asyncio.run(wrapped())
    assert errors == []


class Gateway:
    """What one process's sockets heard: ``heard[audience]`` the texts in order, ``gaps`` the
    ``(table, last_seq)`` the bus reported."""

    def __init__(self, url: str) -> None:
        self.gaps: list[tuple[str, int | None]] = []
        self.bus = RedisBus(url, lambda table, seq: self.gaps.append((table, seq)))
        self.heard: dict[str, list[str]] = {}

    def sink(self, name: str) -> Callable[[ToGateway], None]:
        texts = self.heard.setdefault(name, [])

        def put(message: ToGateway) -> None:
            assert isinstance(message, Frame)
            texts.append(message.text)
        return put


def test_frames_reach_their_audience_only_in_order(redis_server: RedisServer) -> None:
    async def main() -> None:
        owner, gateway = Gateway(redis_server.url), Gateway(redis_server.url)
        await owner.bus.start()
        await gateway.bus.start()
        audiences = ("seat:0", "seat:1", "public", "conn:g.1")
        for a in audiences:
            gateway.bus.subscribe("t_a", (a,), gateway.sink(a))
        gateway.bus.subscribe("t_a", ("seat:0",), gateway.sink("seat:0 again"))  # a second socket of seat 0
        gateway.bus.subscribe("t_b", ("seat:0",), gateway.sink("t_b seat:0"))  # another table
        await gateway.bus.heard("t_a")
        await gateway.bus.heard("t_b")
        sent: dict[str, list[str]] = {a: [] for a in audiences}
        for i in range(300):
            a = audiences[i % len(audiences)]
            text = f'{{"n":{i},"to":"{a}"}}'
            owner.bus.publish("t_a", a, Frame(text, i))
            sent[a].append(text)
            if i % 50 == 0:
                owner.bus.publish("t_a", ALL, Frame(f'{{"all":{i}}}', i))
                for b in audiences:
                    sent[b].append(f'{{"all":{i}}}')
        owner.bus.publish("t_a", "seat:2", Frame('{"nobody here":1}', 300))  # an audience no socket has
        await until(lambda: len(gateway.heard["public"]) == len(sent["public"]), "the frames")
        await until(lambda: len(gateway.heard["conn:g.1"]) == len(sent["conn:g.1"]), "the frames")
        await asyncio.sleep(0.05)
        for a in audiences:
            assert gateway.heard[a] == sent[a], a
        assert gateway.heard["seat:0 again"] == sent["seat:0"]
        assert gateway.heard["t_b seat:0"] == []
        assert owner.heard == {}  # the owner holds no socket: nothing reaches it
        assert gateway.gaps == []
        await owner.bus.close()
        await gateway.bus.close()

    run(main)


def test_a_socket_moves_between_audiences(redis_server: RedisServer) -> None:
    """The gateway's Listener: its own audience first, then (Hears) its seat's too."""
    async def main() -> None:
        owner, gateway = Gateway(redis_server.url), Gateway(redis_server.url)
        await owner.bus.start()
        await gateway.bus.start()
        got: list[ToGateway] = []
        subs = [gateway.bus.subscribe("t_m", ("conn:c",), got.append)]

        def moved(message: ToGateway) -> None:
            got.append(message)
            if isinstance(message, Hears):
                subs.pop().close()  # leaves the table's channel and takes it again at once
                subs.append(gateway.bus.subscribe("t_m", ("conn:c", "seat:1"), moved))
        subs[0].close()
        subs.append(gateway.bus.subscribe("t_m", ("conn:c",), moved))
        await gateway.bus.heard("t_m")
        owner.bus.publish("t_m", "seat:1", Frame("before", 1))
        owner.bus.publish("t_m", "conn:c", Hears("seat:1"))
        owner.bus.publish("t_m", "seat:1", Frame("after", 2))
        owner.bus.publish("t_m", "seat:0", Frame("not mine", 3))
        owner.bus.publish("t_m", "conn:c", Frame("mine", 3))
        await until(lambda: len(got) == 3, "the frames")
        await asyncio.sleep(0.05)
        assert got == [Hears("seat:1"), Frame("after", 2), Frame("mine", 3)]
        await owner.bus.close()
        await gateway.bus.close()

    run(main)


def test_a_skipped_count_is_a_gap(redis_server: RedisServer) -> None:
    """A message lost between a publisher and Redis (its count skipped) is a gap at
    every subscriber, with the seq of the last frame heard; so is the next message
    after a publisher drops some (its count published again once Redis takes it)."""
    async def main() -> None:
        owner, gateway = Gateway(redis_server.url), Gateway(redis_server.url)
        await owner.bus.start()
        await gateway.bus.start()
        gateway.bus.subscribe("t_g", ("seat:0",), gateway.sink("seat:0"))
        await gateway.bus.heard("t_g")
        owner.bus.publish("t_g", "seat:0", Frame("1", 1))
        owner.bus.publish("t_g", "public", Frame("2", 2))
        await until(lambda: gateway.heard["seat:0"] == ["1"], "the first frame")
        owner.bus._published["t_g"] += 1  # the third message never reached Redis
        owner.bus.publish("t_g", "seat:0", Frame("4", 4))
        await until(lambda: gateway.heard["seat:0"] == ["1", "4"], "the fourth frame")
        assert gateway.gaps == [("t_g", 4)]
        await owner.bus.close()
        await gateway.bus.close()

    run(main)


def test_redis_restarted_mid_stream(redis_server: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    """Every table heard reports a gap once the bus hears it again; the frames after
    reach their sockets; intents sent while Redis was away arrive; one warning per
    process for the outage, nothing raised into the loop."""
    caplog.set_level(logging.INFO, logger="capicua.redis")

    async def main() -> None:
        owner, gateway = Gateway(redis_server.url), Gateway(redis_server.url)
        got: list[tuple[Route, ToTable]] = []
        owner_router = RedisRouter(redis_server.url, "o_1", no_owner, lambda r, m: got.append((r, m)), owner.bus)
        gateway_router = RedisRouter(redis_server.url, "g_1", no_owner, lambda r, m: None, gateway.bus)
        for part in (owner.bus, gateway.bus, owner_router, gateway_router):
            await part.start()
        for t in ("t_r1", "t_r2"):
            gateway.bus.subscribe(t, ("seat:0",), gateway.sink(t))
            await gateway.bus.heard(t)
        publishing = True

        async def publish() -> None:
            i = 0
            while publishing:
                i += 1
                owner.bus.publish("t_r1", "seat:0", Frame(str(i), i))
                await asyncio.sleep(0.002)
        publisher = asyncio.create_task(publish())
        await until(lambda: len(gateway.heard["t_r1"]) >= 20, "frames before the restart")
        await asyncio.to_thread(redis_server.stop)
        await asyncio.sleep(0.3)
        for n in range(5):  # sent while Redis is away
            gateway_router.send(Route("t_r1", "o_1"), Leave(ConnId(f"g.{n}")))
        await asyncio.to_thread(redis_server.start)
        await until(lambda: {t for t, _ in gateway.gaps} == {"t_r1", "t_r2"}, "a gap for every table heard")
        gap_seq = dict(gateway.gaps)["t_r1"]
        assert gap_seq is not None and str(gap_seq) in gateway.heard["t_r1"]
        heard_at_gap = len(gateway.heard["t_r1"])
        await until(lambda: len(gateway.heard["t_r1"]) > heard_at_gap + 20, "frames after the restart")
        publishing = False
        await publisher
        await until(lambda: len(got) == 5, "the intents sent while Redis was away")
        assert [m for _, m in got] == [Leave(ConnId(f"g.{n}")) for n in range(5)]
        after = [int(x) for x in gateway.heard["t_r1"]]
        assert after == sorted(after)  # order kept: late frames are dropped, never heard out of order
        for part in (owner_router, gateway_router, owner.bus, gateway.bus):
            await part.close()

    run(main)
    lost = [r for r in caplog.records if "unreachable" in r.getMessage()]
    back = [r for r in caplog.records if "back after" in r.getMessage()]
    assert len(lost) == 2 and len(back) == 2, [r.getMessage() for r in caplog.records]  # one each per process


async def no_owner(table_id: str) -> str | None:
    return None


def test_intents_reach_their_owner_once_in_order(redis_server: RedisServer) -> None:
    async def main() -> None:
        owners: dict[str, list[tuple[Route, ToTable]]] = {"o_a": [], "o_b": [], "g_1": []}
        routers = {
            me: RedisRouter(redis_server.url, me, lease, lambda r, m, me=me: owners[me].append((r, m)))
            for me in owners
        }
        for router in routers.values():
            await router.start()
        gateway = routers["g_1"]
        assert await gateway.route("t_x") == Route("t_x", "o_a")
        assert await gateway.route("t_none") is None
        sent: dict[str, list[tuple[Route, ToTable]]] = {me: [] for me in owners}
        for i in range(1500):
            owner = ("o_a", "o_b", "g_1")[i % 3]  # g_1 owns tables too: delivered without Redis
            route = Route(f"t_{i % 7}", owner)
            message: ToTable = (
                Join(ConnId(f"c.{i}"), None, "Ana", i, False) if i % 5 == 0
                else FromConn(ConnId(f"c.{i}"), Play(i, (6, i % 7), None))
            )
            gateway.send(route, message)
            sent[owner].append((route, message))
        for me in owners:
            await until(lambda me=me: len(owners[me]) >= len(sent[me]), f"the intents of {me}")
        await asyncio.sleep(0.1)
        assert owners == sent
        assert gateway.sent == 1000 and routers["o_a"].received == 500 and gateway.received == 0
        for router in routers.values():
            await router.close()
        async with Redis.from_url(redis_server.url) as r:
            assert await r.exists("capicua:o:o_a", "capicua:o:o_b") == 0  # an owner deletes its inbox when it ends

    async def lease(table_id: str) -> str | None:
        return None if table_id == "t_none" else "o_a"

    run(main)


def test_a_hello_reaches_its_table_once_its_socket_hears(redis_server: RedisServer) -> None:
    """A gateway subscribes a new socket, then sends its Join at once: the owner's
    answer, published as soon as the Join arrives, still reaches the socket."""
    async def main() -> None:
        owner = Gateway(redis_server.url)
        owner_router = RedisRouter(redis_server.url, "o_h", no_owner, lambda r, m: welcome(r, m), owner.bus)
        gateway = Gateway(redis_server.url)
        gateway_router = RedisRouter(redis_server.url, "g_h", no_owner, lambda r, m: None, gateway.bus)

        def welcome(route: Route, message: ToTable) -> None:
            assert isinstance(message, Join)
            owner.bus.publish(route.table, f"conn:{message.conn}", Frame(f"welcome {message.conn}", 0))

        for part in (owner.bus, gateway.bus, owner_router, gateway_router):
            await part.start()
        for i in range(200):
            conn = ConnId(f"g.{i}")
            gateway.bus.subscribe(f"t_{i}", (f"conn:{conn}",), gateway.sink(conn))
            gateway_router.send(Route(f"t_{i}", "o_h"), Join(conn, None, "", 0, False))
        await until(lambda: all(gateway.heard[f"g.{i}"] for i in range(200)), "every welcome")
        for part in (owner_router, gateway_router, owner.bus, gateway.bus):
            await part.close()

    run(main)


def test_thousands_of_tables_share_one_connection(redis_server: RedisServer) -> None:
    tables = 3000

    async def main() -> None:
        gateway = Gateway(redis_server.url)
        await gateway.bus.start()
        for i in range(tables):
            for a in ("seat:0", "seat:1", "public"):
                gateway.bus.subscribe(f"t_{i}", (a,), gateway.sink(f"{i} {a}"))
        await gateway.bus.heard(f"t_{tables - 1}")
        async with Redis.from_url(redis_server.url) as r:
            await until_async(lambda: subscribers(r), [tables], "every table subscribed")
            publisher = Gateway(redis_server.url)
            await publisher.bus.start()
            publisher.bus.publish(f"t_{tables - 1}", "seat:1", Frame("x", 1))
            await until(lambda: gateway.heard[f"{tables - 1} seat:1"] == ["x"], "a frame of the last table")
            await publisher.bus.close()
            subs = list(gateway.bus.sinks.tables)  # every socket of every table leaves
            for table_id in subs:
                for audience_subs in list(gateway.bus.sinks.tables[table_id].values()):
                    for sub in list(audience_subs):
                        sub.close()
            await until_async(lambda: subscribers(r), [], "every table unsubscribed")  # no channel left: a plain client again
        await gateway.bus.close()

    async def subscribers(r: Redis) -> list[int]:
        clients = await r.client_list(_type="pubsub")
        return [int(c["sub"]) for c in clients]

    async def until_async(get: Callable[[], Awaitable[Any]], want: Any, what: str) -> None:
        deadline = time.monotonic() + WAIT_S
        while (got := await get()) != want:
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: {got}")
            await asyncio.sleep(0.02)

    run(main)


PUBLISHER = """
import asyncio, sys
from capicua.server.adapters.redis_bus import RedisBus
from capicua.table.protocol import Frame

async def main(url, n):
    bus = RedisBus(url, lambda t, s: None)
    await bus.start()
    audiences = ("seat:0", "seat:1", "seat:2", "seat:3", "public")
    for i in range(n):
        a = audiences[i % 5]
        bus.publish("t_p", a, Frame('{"type":"events","seq":%d,"to":"%s","pad":"%s"}' % (i, a, "x" * 400), i))
        if i % 256 == 0:
            await asyncio.sleep(0)
    while bus.published < n:
        await asyncio.sleep(0.01)
    await bus.close()

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


def test_frames_across_processes(redis_server: RedisServer) -> None:
    """Another OS process publishes a table's frames to five audiences; this one's
    sinks get their audience's frames, all of them, in order. Prints frames/s."""
    frames = 20_000

    async def main() -> None:
        gateway = Gateway(redis_server.url)
        await gateway.bus.start()
        audiences = ("seat:0", "seat:1", "seat:2", "seat:3", "public")
        for a in audiences:
            gateway.bus.subscribe("t_p", (a,), gateway.sink(a))
        await gateway.bus.heard("t_p")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-c", PUBLISHER, redis_server.url, str(frames), env=env,
        )
        await until(lambda: len(gateway.heard["seat:0"]) > 0, "the first frame")
        began = time.monotonic()
        total = lambda: sum(len(v) for v in gateway.heard.values())  # noqa: E731
        await until(lambda: total() == frames, "every frame")
        took = time.monotonic() - began
        assert await child.wait() == 0
        for k, a in enumerate(audiences):
            seqs = [int(t.split('"seq":')[1].split(",")[0]) for t in gateway.heard[a]]
            assert seqs == list(range(k, frames, 5)), a
            assert all(f'"to":"{a}"' in t for t in gateway.heard[a])
        assert gateway.gaps == []
        print(f"\n{frames} frames of ~450 bytes from another process through Redis: {frames / took:,.0f} frames/s")
        await gateway.bus.close()

    run(main)

