"""While the store cannot be written or read (issue 21, item 13): the HTTP API
answers ``503 unavailable`` with Retry-After and no traceback; a hello to a
paused table, or to a table that cannot be loaded now, is told ``paused`` at
once and welcomed when the store is back; an analysis that failed during the
fault is tried again."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

import pytest
from conftest import RECV_TIMEOUT, drive
from sqlalchemy.exc import OperationalError
from test_table_shell import FROZEN, has_event, read_only

from capicua.server.analyst import analyse_stored_hand
from capicua.server.ports import LogUnavailable

pytestmark = pytest.mark.xdist_group("server")


def no_traceback(caplog: Any) -> None:
    assert not [r.getMessage() for r in caplog.records if r.exc_info], "a store fault writes no traceback"


def test_writes_while_the_store_is_read_only_answer_503(live_server: Any, caplog: Any) -> None:
    srv = live_server(bot_delay=FROZEN)
    known = srv.post("/api/players", {"nickname": "Ana"}).json()
    store = srv.app.state.deps.store
    srv.run(asyncio.to_thread(read_only, store, True))
    try:
        for path, body in (
            ("/api/players", {"nickname": "Beto"}),  # a new guest
            ("/api/players", {"nickname": "Anita", "token": known["token"]}),  # a rename
            ("/api/tables", {"nickname": "Beto"}),  # a new guest's table
            ("/api/tables", {"nickname": "Ana", "token": known["token"]}),  # a known guest's table
        ):
            r = srv.post(path, body)
            assert r.status_code == 503, (path, body, r.text)
            assert r.json()["error"]["code"] == "unavailable" and int(r.headers["Retry-After"]) >= 1
            assert "Traceback" not in r.text
    finally:
        srv.run(asyncio.to_thread(read_only, store, False))
    assert srv.post("/api/tables", {"nickname": "Ana", "token": known["token"]}).status_code == 200
    no_traceback(caplog)


def test_a_hello_to_a_paused_table_is_told_at_once(live_server: Any, caplog: Any) -> None:
    srv = live_server(bot_delay=FROZEN)
    t = srv.new_table()
    c = srv.client()
    c.hello(t["table_id"], t["token"])
    c.until(lambda f: has_event(f, "hand_start"))
    c.settle()
    store = srv.app.state.deps.store
    srv.run(asyncio.to_thread(read_only, store, True))
    try:
        c.send({"type": "say", "phrase": "agua"})
        assert c.until(lambda f: f["type"] == "paused") == {"type": "paused", "paused": True}
        # The same player's phone reconnects: told at once, while the store still fails.
        phone = srv.client()
        phone.send({"type": "hello", "table": t["table_id"], "token": t["token"], "last_seq": 0})
        assert phone.recv(timeout=RECV_TIMEOUT) == {"type": "paused", "paused": True}
    finally:
        srv.run(asyncio.to_thread(read_only, store, False))
    # The store is back: the table says so to the phone too, and the phone's welcome follows.
    assert phone.until(lambda f: f["type"] in ("welcome", "error"))["type"] == "welcome"
    assert {"type": "paused", "paused": False} in phone.frames
    for s in (c, phone):
        s.close()
    no_traceback(caplog)


def test_a_hello_to_a_table_that_cannot_be_loaded_is_told_paused_then_welcomed(
    live_server: Any, caplog: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    srv = live_server(bot_delay=FROZEN)
    t = srv.new_table()
    shell = srv.tables.shells[t["table_id"]]
    srv.tables.forget(shell)
    srv.run(shell.stop())  # out of memory: the next hello loads it from the store
    event_log = srv.tables.log
    load = event_log.load
    reads: list[str] = []

    async def failing(table_id: str) -> Any:
        reads.append(table_id)
        raise LogUnavailable("the database is gone")

    monkeypatch.setattr(event_log, "load", failing)
    c = srv.client()
    c.send({"type": "hello", "table": t["table_id"], "token": t["token"], "last_seq": 0})
    assert c.recv(timeout=RECV_TIMEOUT) == {"type": "paused", "paused": True}
    c.send({"type": "next_hand", "seq": 0})  # nothing can change meanwhile
    assert c.error()["code"] == "paused"
    while len(reads) < 2:  # tried again while the store fails
        time.sleep(0.05)
    monkeypatch.setattr(event_log, "load", load)
    assert c.recv(timeout=RECV_TIMEOUT) == {"type": "paused", "paused": False}
    assert c.until(lambda f: f["type"] in ("welcome", "error"))["type"] == "welcome"
    c.close()
    no_traceback(caplog)


class StoreFaultOnce(Executor):
    """The analysis pool, whose first job fails as a worker fails when the store
    cannot be written; the next jobs run in the real pool."""

    def __init__(self, pool: Executor) -> None:
        self.pool = pool
        self.jobs: list[tuple[Any, ...]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.jobs.append(args)
        if fn is analyse_stored_hand and len(self.jobs) == 1:
            failed: Future[Any] = Future()
            failed.set_exception(OperationalError("INSERT INTO analyses", {}, Exception("readonly database")))
            return failed
        return self.pool.submit(fn, *args, **kwargs)


def test_an_analysis_that_failed_in_a_store_fault_is_tried_again(live_server: Any, bot_pool: Any) -> None:
    srv = live_server()
    table, token = srv.table_with_seed("fault-analysis-1")
    analyst = srv.app.state.deps.analyst
    faulty = StoreFaultOnce(bot_pool)
    analyst.executor = faulty
    analyst.retry_s = (0.2, 0.2)
    c = srv.client()
    assert c.hello(table, token)["type"] == "welcome"
    drive(c, lambda f: f.get("type") == "events" and any(e["event"]["kind"] == "hand_end" for e in f["events"]))
    body: dict[str, Any] = {}
    for _ in range(600):  # a guard against a hang, not a timed assertion
        body = srv.get(f"/api/analysis/{table}/1").json()
        if body["status"] == "ready":
            break
        time.sleep(0.05)
    assert body["status"] == "ready" and [h["hand"] for h in body["hands"]] == [1]
    assert len(faulty.jobs) == 2 and faulty.jobs[0] == faulty.jobs[1]  # the same hand, once more
    c.close()


def test_a_hand_that_fails_every_time_is_given_up_after_the_last_try(live_server: Any) -> None:
    srv = live_server()
    analyst = srv.app.state.deps.analyst
    analyst.retry_s = (0.05, 0.05)

    class Failing(Executor):
        jobs = 0

        def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
            Failing.jobs += 1
            failed: Future[Any] = Future()
            failed.set_exception(RuntimeError("a bug"))
            return failed

    analyst.executor = Failing()
    key = ("t_x", 1, 1)
    srv.run(_call(lambda: analyst.hand_ended(*key)))
    for _ in range(600):
        if key in analyst.failed:
            break
        time.sleep(0.02)
    assert key in analyst.failed and Failing.jobs == 3 and key not in analyst.tries


async def _call(fn: Callable[[], None]) -> None:
    fn()
