"""A bot worker killed (issue 21, item 13): the process pool replaces itself, the
next searching decision comes from the new pool (not the first legal move), a
decision caught in the break is asked again, and /healthz and the log say so
while the pool restarts."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import RECV_TIMEOUT, LiveServer, free_port

from capicua.bots import decide
from capicua.engine import Match, make_rules
from capicua.server.adapters import botpool
from capicua.server.adapters.botpool import PoolBots, RenewingPool

pytestmark = pytest.mark.xdist_group("server")


def small_pool(gate: Path | None = None) -> Executor:
    """One forkserver worker; with ``gate``, a worker that starts only once that file exists
    (a builtin as the initializer: nothing of the tests need be imported in the worker)."""
    ctx = multiprocessing.get_context("forkserver")
    if gate is None:
        return ProcessPoolExecutor(max_workers=1, mp_context=ctx)
    wait = f"while [ ! -e '{gate}' ]; do sleep 0.05; done"
    return ProcessPoolExecutor(max_workers=1, mp_context=ctx, initializer=os.system, initargs=(wait,))


@pytest.fixture
def renewing() -> Iterator[RenewingPool]:
    pool = RenewingPool(small_pool, "bots")
    yield pool
    pool.shutdown(wait=True, cancel_futures=True)


def searching_view() -> dict[str, Any]:
    """A seat's view with a real choice to make (several legal moves)."""
    for n in range(50):
        match = Match(make_rules("cubano"), seed=f"renew-{n}")
        match.start_hand()
        seat = match.turn
        if seat is not None and len(match.legal_moves()) > 1:
            return match.view(seat)
    raise AssertionError("no deal with a choice")


def worker_pid(pool: Executor) -> int:
    return int(pool.submit(os.getpid).result(timeout=RECV_TIMEOUT))


def wait_until(pred: Any) -> None:
    deadline = time.monotonic() + 60  # a guard against a hang, not a timed assertion
    while not pred():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.02)


def test_a_killed_worker_is_replaced_and_the_next_search_comes_from_the_new_pool(
    renewing: RenewingPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(botpool, "RENEW_GAP_S", 0.0)  # replaced as often as it breaks
    view = searching_view()
    want = {level: decide(level, view, 3) for level in ("dificil", "experto")}
    bots = PoolBots(renewing, (0.0, 0.0), deadline=RECV_TIMEOUT)

    async def ask(level: str) -> dict[str, Any]:
        return await bots.decide(level, view, 3)

    assert asyncio.run(ask("dificil")) == want["dificil"]
    first = worker_pid(renewing)
    os.kill(first, signal.SIGKILL)
    # Killed while idle: the next searching decision is the search's, from a new pool.
    assert asyncio.run(ask("dificil")) == want["dificil"]
    assert renewing.renewals == 1
    second = worker_pid(renewing)
    assert second != first
    wait_until(lambda: renewing.state == "ok")

    async def killed_mid_decision() -> dict[str, Any]:
        job = asyncio.get_running_loop().create_task(ask("experto"))
        await asyncio.sleep(0.05)  # the decision is in the worker's hands
        os.kill(second, signal.SIGKILL)
        return await job

    assert asyncio.run(killed_mid_decision()) == want["experto"]  # asked again of the new pool
    third = worker_pid(renewing)
    assert renewing.renewals == 2 and third not in (first, second)


def test_healthz_and_the_log_say_the_pool_is_restarting(tmp_path: Path, caplog: Any) -> None:
    from capicua.server.app import create_app

    gate = tmp_path / "gate"
    made: list[Executor] = []

    def make() -> Executor:  # the first pool starts at once; its replacement waits for the gate
        made.append(small_pool(gate if made else None))
        return made[-1]

    pool = RenewingPool(make, "bots")
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    srv = LiveServer(create_app(database_url=url, executor=pool, bot_delay=(0.0, 0.0)), free_port(), url).start()
    try:
        health = httpx.get(srv.base + "/healthz", timeout=RECV_TIMEOUT)
        assert health.status_code == 200
        assert health.json() == {"ok": True, "bots": "ok", "analysis": "ok", "store": "ok"}
        os.kill(worker_pid(pool), signal.SIGKILL)
        wait_until(lambda: httpx.get(srv.base + "/healthz", timeout=RECV_TIMEOUT).status_code == 503)
        health = httpx.get(srv.base + "/healthz", timeout=RECV_TIMEOUT)
        assert health.json() == {"ok": False, "bots": "restarting", "analysis": "restarting", "store": "ok"}
        assert any("process pool broke" in r.getMessage() and r.name == "capicua.bots" for r in caplog.records)
        gate.touch()  # the new pool's worker starts
        wait_until(lambda: httpx.get(srv.base + "/healthz", timeout=RECV_TIMEOUT).status_code == 200)
        assert httpx.get(srv.base + "/healthz", timeout=RECV_TIMEOUT).json()["bots"] == "ok"
        assert len(made) == 2
    finally:
        gate.touch()  # a worker waiting at the gate would hold the shutdown
        srv.stop()
        pool.shutdown(wait=True, cancel_futures=True)
