"""Bot workers that scale out (issue 23, item 7): the searching neighbours' decisions
go over a real Redis Stream to real ``capicua worker`` processes and come back; a
job of a worker killed mid-decision is reclaimed by another; with no worker alive
the server's own pool decides; a job nobody answers is decided by the owner at its
deadline with a quick level; a worker outlives a Redis restart; a table of a
``capicua serve --redis`` process has its searching neighbours decided by a worker;
a hand's analysis is searched by a worker (reclaimed from a dead one) and served.
Never a mock."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from conftest import WSClient, drive
from procgroup import spawn, stop_group
from serveprocess import ServeProcess
from test_analysis_store import played_table

from capicua.bots import decide
from capicua.engine import Match, make_rules
from capicua.server import metrics
from capicua.server.adapters.botpool import PoolBots
from capicua.server.adapters.redis_bots import (
    ANALYSES,
    FALLBACK_LEVEL,
    GROUP,
    STREAM,
    WORKERS,
    RedisBots,
)
from capicua.server.analyst import Analyst
from capicua.store import Store

pytestmark = pytest.mark.xdist_group("server")

GUARD_S = 120.0  # a guard against a hang, never a timed assertion


def searching_view(n: int = 0) -> dict[str, Any]:
    """A seat's view with a real choice to make (several legal moves)."""
    for k in range(n, n + 50):
        match = Match(make_rules("cubano"), seed=f"workers-{k}")
        match.start_hand()
        seat = match.turn
        if seat is not None and len(match.legal_moves()) > 1:
            return match.view(seat)
    raise AssertionError("no deal with a choice")


def wait_until(pred: Any, what: str) -> None:
    deadline = time.monotonic() + GUARD_S
    while not pred():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.05)


class Workers:
    """``capicua worker`` subprocesses of one test, each in a process group of its own, all stopped at the end."""

    def __init__(self, url: str, logs: Path) -> None:
        self.url = url
        self.logs = logs
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, *extra: str) -> subprocess.Popen[bytes]:
        cmd = [sys.executable, "-m", "capicua.cli", "worker", "--redis", self.url, "--name", name,
               "--processes", "1", *extra]
        proc = self.procs[name] = spawn(cmd, self.log(name))
        r = redis.Redis.from_url(self.url, decode_responses=True)
        wait_until(lambda: proc.poll() is None and r.zscore(WORKERS, name) is not None, f"worker {name} alive")
        return proc

    def log(self, name: str) -> Path:
        return self.logs / f"worker-{name}.log"

    def stop(self, name: str, sig: int = signal.SIGTERM) -> int:
        proc = self.procs.pop(name)
        stop_group(proc, sig)
        return int(proc.returncode)

    def close(self) -> None:
        for name in list(self.procs):
            self.stop(name, signal.SIGKILL)


@pytest.fixture
def workers(redis_server: Any, tmp_path: Path) -> Iterator[Workers]:
    group = Workers(redis_server.url, tmp_path)
    try:
        yield group
    finally:
        group.close()


def local_bots(deadline: float = GUARD_S) -> PoolBots:
    """The server's own pool: threads are enough here (a decision is a pure function)."""
    return PoolBots(ThreadPoolExecutor(max_workers=1), (0.0, 0.0), deadline=deadline)


def ask(bots: RedisBots, level: str, view: dict[str, Any], seed: int) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        try:
            return await bots.decide(level, view, seed)
        finally:
            await bots.close()

    return asyncio.run(go())


def bot_waits() -> tuple[float, float]:
    """This process's ``capicua_bot_wait_seconds`` count and ``capicua_bot_queue_depth``."""
    count = metrics.REGISTRY.get_sample_value("capicua_bot_wait_seconds_count") or 0.0
    return count, metrics.REGISTRY.get_sample_value("capicua_bot_queue_depth") or 0.0


def test_a_worker_decides_a_searching_bot_and_the_quick_levels_stay_local(workers: Workers) -> None:
    workers.start("w1")
    view = searching_view()
    bots = RedisBots(workers.url, local_bots(), "owner-a")
    waits, depth = bot_waits()

    async def go() -> list[dict[str, Any]]:
        try:
            return [await bots.decide(level, view, 7) for level in ("dificil", "experto", "medio")]
        finally:
            await bots.close()

    got = asyncio.run(go())
    assert got == [decide(level, view, 7) for level in ("dificil", "experto", "medio")]
    assert bots.counts == {"worker": 2, "local": 0, "fallback": 0}
    # Every decision is in the bot metrics: the two answered over Redis and the quick one.
    assert bot_waits() == (waits + 3, depth)
    r = redis.Redis.from_url(workers.url, decode_responses=True)
    assert r.xlen(STREAM) == 0  # answered jobs are acknowledged and deleted
    assert r.xpending(STREAM, GROUP)["pending"] == 0
    # SIGTERM: the worker leaves the workers' set and exits cleanly.
    assert workers.stop("w1") == 0
    assert r.zscore(WORKERS, "w1") is None


def test_the_ask_port_answers_on_the_loop(workers: Workers) -> None:
    workers.start("w1")
    view = searching_view(3)
    bots = RedisBots(workers.url, local_bots(), "owner-a")

    async def go() -> dict[str, Any]:
        answered: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        bots.ask("dificil", view, 11, answered.set_result)
        try:
            return await answered
        finally:
            await bots.close()

    assert asyncio.run(go()) == decide("dificil", view, 11)
    assert bots.counts["worker"] == 1


def test_a_job_of_a_worker_killed_mid_decision_is_decided_by_another(workers: Workers) -> None:
    w1 = workers.start("w1", "--reclaim-idle", "1")
    view = searching_view(5)
    # A long think: the worker is surely still deciding when it is killed.
    budget = 3000.0
    r = redis.Redis.from_url(workers.url, decode_responses=True)
    bots = RedisBots(workers.url, local_bots(), "owner-a", budget_ms=budget)
    with ThreadPoolExecutor(max_workers=1) as side:
        asked = side.submit(ask, bots, "dificil", view, 5)
        wait_until(lambda: any(c["name"] == "w1" and c["pending"] == 1 for c in r.xinfo_consumers(STREAM, GROUP)),
                   "w1 holds the job")
        assert w1.poll() is None
        workers.stop("w1", signal.SIGKILL)  # the worker and its bot process, mid-decision
        assert r.xpending(STREAM, GROUP)["pending"] == 1  # the job waits, unanswered
        workers.start("w2", "--reclaim-idle", "1")
        got = asked.result(timeout=GUARD_S)
    assert got == decide("dificil", view, 5, budget)
    assert bots.counts == {"worker": 1, "local": 0, "fallback": 0}
    assert "reclaimed job" in workers.log("w2").read_text()
    assert r.xpending(STREAM, GROUP)["pending"] == 0


def test_with_no_worker_alive_the_servers_own_pool_decides(redis_server: Any) -> None:
    view = searching_view()
    bots = RedisBots(redis_server.url, local_bots(), "owner-a")
    waits, depth = bot_waits()
    assert ask(bots, "dificil", view, 2) == decide("dificil", view, 2)
    assert bots.counts == {"worker": 0, "local": 1, "fallback": 0}
    assert bot_waits() == (waits + 1, depth)  # the server's own pool's decision is counted too
    assert redis.Redis.from_url(redis_server.url).exists(STREAM) == 0  # nothing was queued


def test_with_redis_down_the_servers_own_pool_decides(redis_server: Any) -> None:
    view = searching_view()
    bots = RedisBots(redis_server.url, local_bots(), "owner-a")
    redis_server.stop()
    errors = metrics.REGISTRY.get_sample_value("capicua_redis_errors_total") or 0.0

    async def go() -> list[dict[str, Any]]:
        try:
            return [await bots.decide("dificil", view, seed) for seed in (2, 3)]
        finally:
            await bots.close()

    assert asyncio.run(go()) == [decide("dificil", view, seed) for seed in (2, 3)]
    assert bots.counts == {"worker": 0, "local": 2, "fallback": 0}
    # The second ask does not try Redis again so soon (one that does not answer would make it wait).
    assert metrics.REGISTRY.get_sample_value("capicua_redis_errors_total") == errors + 1


def test_at_its_deadline_the_owner_decides_with_a_quick_level(redis_server: Any) -> None:
    # A worker that said it is alive and then hung (stopped, partitioned): its
    # heartbeat is current, and nobody reads the stream.
    r = redis.Redis.from_url(redis_server.url, decode_responses=True)
    r.zadd(WORKERS, {"hung": 2**52})
    view = searching_view()
    bots = RedisBots(redis_server.url, local_bots(deadline=0.5), "owner-a")
    assert ask(bots, "experto", view, 4) == decide(FALLBACK_LEVEL, view, 4)
    assert bots.counts == {"worker": 0, "local": 0, "fallback": 1}
    assert r.xlen(STREAM) == 1  # it was queued; a worker that comes back drops it (past its deadline)


def test_a_job_past_its_deadline_is_dropped_undecided(workers: Workers) -> None:
    r = redis.Redis.from_url(workers.url, decode_responses=True)
    r.zadd(WORKERS, {"hung": 2**52})
    bots = RedisBots(workers.url, local_bots(deadline=0.2), "owner-a")
    view = searching_view()
    assert ask(bots, "dificil", view, 4) == decide(FALLBACK_LEVEL, view, 4)
    time.sleep(0.3)  # past the job's deadline on any clock (it was queued before the ask returned)
    workers.start("w1")
    wait_until(lambda: r.xlen(STREAM) == 0, "the stale job is dropped")
    assert "past its deadline; dropped" in workers.log("w1").read_text()
    assert r.llen("capicua:bots:reply:owner-a") == 0  # nobody is answered


def test_a_worker_outlives_a_redis_restart(workers: Workers, redis_server: Any) -> None:
    workers.start("w1")
    redis_server.restart()  # empty: no stream, no group, no heartbeat
    r = redis.Redis.from_url(workers.url, decode_responses=True)
    wait_until(lambda: r.zscore(WORKERS, "w1") is not None, "w1's heartbeat is back")
    view = searching_view(8)
    bots = RedisBots(workers.url, local_bots(), "owner-a")
    assert ask(bots, "dificil", view, 9) == decide("dificil", view, 9)
    assert bots.counts == {"worker": 1, "local": 0, "fallback": 0}


def test_a_cluster_servers_searching_neighbours_think_in_a_worker(
    workers: Workers, pg_server: Any, tmp_path: Path,
) -> None:
    workers.start("w1")
    url = pg_server.create_database()
    server = ServeProcess(tmp_path, ["--database", url, "--redis", workers.url, "--node-id", "node-a"])
    try:
        t = httpx.post(server.base + "/api/tables", json={"nickname": "Ana", "partner_level": "dificil",
                                                          "rival_level": "dificil"}, timeout=10).json()
        c = WSClient(server.base.replace("http://", "ws://") + "/ws")
        try:
            assert c.hello(t["table_id"], t["token"])["type"] == "welcome"
            seat = t["seat"]
            r = redis.Redis.from_url(workers.url, decode_responses=True)

            def answered_by_workers() -> int:
                groups = r.xinfo_groups(STREAM) if r.exists(STREAM) else []
                return sum((g["entries-read"] or 0) - g["pending"] for g in groups)

            def a_neighbour_played(f: dict[str, Any]) -> bool:
                return f.get("type") == "events" and any(
                    e["event"]["kind"] == "play" and e["event"]["seat"] != seat for e in f["events"])

            drive(c, a_neighbour_played)
            # A worker answers and acknowledges in one transaction: the move it answered is acknowledged.
            assert answered_by_workers() >= 1
        finally:
            c.close()
    finally:
        server.stop(signal.SIGKILL)
        pg_server.drop_database(url)


class RecordingPool(ThreadPoolExecutor):
    """The server's analysis pool, naming every function it ran."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.ran: list[str] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        self.ran.append(fn.__name__)
        return super().submit(fn, *args, **kwargs)


def test_a_hand_analysis_is_searched_by_a_worker_reclaimed_from_a_dead_one_and_served(
    workers: Workers, tmp_path: Path,
) -> None:
    r = redis.Redis.from_url(workers.url, decode_responses=True)
    r.zadd(WORKERS, {"dead": 2**52})  # a worker alive when the job is queued, which then dies holding it
    r.xgroup_create(ANALYSES, GROUP, id="0", mkstream=True)  # as that worker made it
    store = Store(f"sqlite:///{tmp_path / 'analyses.sqlite3'}")
    store.migrate()
    played_table(store, "t_workers", "an-workers-1")
    pool = RecordingPool()
    bots = RedisBots(workers.url, local_bots(), "owner-a")
    analyst = Analyst(store, pool, budget_ms=10.0, workers=bots)

    async def go() -> dict[str, Any]:
        try:
            analyst.hand_ended("t_workers", 1, 1)
            while r.xlen(ANALYSES) == 0:
                await asyncio.sleep(0.05)
            assert r.xreadgroup(GROUP, "dead", {ANALYSES: ">"}, count=1)  # the dead worker holds the job
            workers.start("w1", "--reclaim-idle", "1")
            deadline = time.monotonic() + GUARD_S
            while (answer := await analyst.answer("t_workers", 1))["status"] != "ready":
                assert time.monotonic() < deadline, "the analysis never came"
                await asyncio.sleep(0.1)
            return answer
        finally:
            await analyst.close()
            await bots.close()

    answer = asyncio.run(go())
    pool.shutdown()
    store.close()
    assert [(h["hand"], h["seat"]) for h in answer["hands"]] == [(1, 0)]
    assert analyst.counts == {"worker": 1, "local": 0}
    assert "analyse_job" not in pool.ran and "hand_job" in pool.ran and "save_analysis" in pool.ran
    said = workers.log("w1").read_text()
    assert "reclaimed job" in said and "analysed a hand" in said
    assert r.xpending(ANALYSES, GROUP)["pending"] == 0
