"""The table shell around the core, with the real ports: a store that cannot be
written pauses the table (and /healthz says so) until it can; a stale append
stops the stale copy; a fault or a bot that never answers at one table never
stalls another."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from conftest import drive
from sockets_at import hello
from sqlalchemy import event

from capicua.server.adapters.botpool import PoolBots
from capicua.server.adapters.memory import (
    LocalBus,
    LoopClock,
    MemoryLog,
)
from capicua.server.adapters.sql import StoreLog
from capicua.server.registry import Tables
from capicua.store import Store
from capicua.table import protocol
from capicua.table.core import CoreConfig

pytestmark = pytest.mark.xdist_group("server")

FROZEN = (1e6, 1e6)


def has_event(f: dict[str, Any], kind: str) -> bool:
    return f.get("type") == "events" and any(e["event"]["kind"] == kind for e in f["events"])


def read_only(store: Store, on: bool) -> None:
    """Make every connection of the store's engine read-only (or writable again):
    SQLite then refuses each write with "attempt to write a readonly database",
    PostgreSQL with "cannot execute INSERT in a read-only transaction"."""
    sqlite = store.engine.dialect.name == "sqlite"

    def pragma(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA query_only = ON" if sqlite else "SET default_transaction_read_only = on")
        cur.close()
        if not sqlite:
            dbapi_conn.commit()

    if on:
        event.listen(store.engine, "connect", pragma)
        store._read_only_hook = pragma  # type: ignore[attr-defined]
    else:
        event.remove(store.engine, "connect", store._read_only_hook)  # type: ignore[attr-defined]
    store.engine.dispose()  # new connections from now on


def test_a_store_that_cannot_be_written_pauses_the_table_until_it_can(
    live_server: Any, database_url: str, caplog: Any
) -> None:
    srv = live_server(database_url=database_url, bot_delay=FROZEN)
    t = srv.new_table()
    c = srv.client()
    c.hello(t["table_id"], t["token"])
    c.until(lambda f: has_event(f, "hand_start"))
    c.settle()
    store = srv.app.state.deps.store
    assert srv.get("/healthz").json() == {"ok": True, "bots": "ok", "analysis": "ok", "store": "ok"}
    # The store goes read-only; the player says a phrase (a change that must be saved).
    srv.run(asyncio.to_thread(read_only, store, True))
    c.send({"type": "say", "phrase": "agua"})
    paused = c.until(lambda f: f["type"] == "paused" or (f["type"] == "said" and f["by"] == "player"))
    assert paused == {"type": "paused", "paused": True}  # said only once it is saved
    health = srv.get("/healthz")
    assert health.status_code == 503 and health.json() == {"ok": False, "bots": "ok", "analysis": "ok", "store": "failing"}
    c.send({"type": "next_hand", "seq": c.seq})
    assert c.error()["code"] == "paused"  # refused at once, nothing changes
    time.sleep(1.0)
    assert not [f for f in c.frames if f["type"] == "said" and f["by"] == "player"]  # nothing unsaved was told
    # The store is back: the table saves what waited, says it, and resumes.
    srv.run(asyncio.to_thread(read_only, store, False))
    said = c.until(lambda f: f["type"] == "said" and f["by"] == "player")
    assert said["phrase"] == "agua" and said["by"] == "player"
    assert {"type": "paused", "paused": False} in c.frames
    assert srv.get("/healthz").json() == {"ok": True, "bots": "ok", "analysis": "ok", "store": "ok"}
    c.close()
    logged = Store(srv.database_url).load_table(t["table_id"])
    assert logged is not None and [e["op"] for e in logged["events"]].count("say") == 1
    assert not any(r.exc_info for r in caplog.records), "a store failure writes no traceback"


def test_a_stale_copy_of_a_table_stops(database_url: str) -> None:
    async def main() -> None:
        store = Store(database_url)
        store.migrate()
        log = StoreLog(store)
        pool = PoolBots(None, FROZEN)
        pid, _ = store.create_player("Ana")
        seats = [{"seat": 0, "kind": "human", "name": "Ana", "player": pid, "level": "random", "character": "mima"},
                 *({"seat": s, "kind": "bot", "name": n, "level": "random", "character": n.lower()}
                   for s, n in ((1, "Cuca"), (2, "Pancho"), (3, "Yoli")))]
        first = Tables(log, LocalBus(), LoopClock(), pool)
        shell = await first.open("cubano", {}, seats, seed="stale")
        await asyncio.sleep(0.05)
        second = Tables(log, LocalBus(), LoopClock(), pool)  # another process that loaded it too
        copy = await second.get(shell.id)
        assert copy is not None
        frames: list[str] = []
        hello(first, shell.id, "ana-1", frames.append, pid, "Ana")  # the first copy appends
        await _until(lambda: any(json.loads(f)["type"] == "events" for f in frames))
        stale: list[str] = []
        told = hello(second, copy.id, "ana-2", stale.append, pid, "Ana")  # the second copy's append is stale
        await _until(lambda: copy.stopped and bool(stale))  # (waits on a loaded machine, asserts nothing)
        assert copy.stopped and shell.id not in second.shells
        assert json.loads(stale[-1])["code"] == "internal" and told.gone  # and its socket hears it no more
        assert not shell.stopped and any(json.loads(f)["type"] == "events" for f in frames)
        await first.close()
        await second.close()
        log.close()
        store.close()

    asyncio.run(main())


class StallingBots:
    """A bot pool whose ``experto`` never answers (a hung worker), others answer at once."""

    def __init__(self) -> None:
        self.inner = PoolBots(ThreadPoolExecutor(2), (0.0, 0.0))

    def ask(self, level: str, view: dict[str, Any], seed: int, answer: Callable[[dict[str, Any]], None], pause: bool = True) -> Any:
        if level == "experto":
            return asyncio.get_running_loop().call_later(3600, lambda: None)  # never answers in time
        return self.inner.ask(level, view, seed, answer)


def seats_with(level: str, human: bool = True) -> list[dict[str, Any]]:
    seats = [{"seat": s, "kind": "bot", "name": n, "level": level, "character": n.lower()}
             for s, n in enumerate(("Fefa", "Cuca", "Pancho", "Yoli"))]
    if human:
        seats[0] = {"seat": 0, "kind": "human", "name": "Ana", "player": "p_ana", "level": "random", "character": "mima"}
    return seats


def test_a_hung_bot_or_a_fault_at_one_table_never_stalls_another() -> None:
    async def main() -> None:
        tables = Tables(MemoryLog(), LocalBus(), LoopClock(), StallingBots(), CoreConfig(auto_next_ms=0))
        hung = await tables.open("cubano", {}, seats_with("experto", human=False), seed="hung")
        broken = await tables.open("cubano", {}, seats_with("random"), seed="broken")
        fine = await tables.open("cubano", {"target": 50}, seats_with("random", human=False), seed="fine")
        # A fault in one table's core: it stops, tells its sockets, and only it.
        got: list[str] = []

        def boom(*args: Any) -> Any:
            raise RuntimeError("a bug")

        broken.core.handle = boom  # type: ignore[method-assign]
        told = hello(tables, broken.id, "ana", got.append, "p_ana", "Ana")
        started = time.monotonic()
        while fine.core.status != "finished":
            await asyncio.sleep(0.01)
            assert time.monotonic() - started < 60, "the fine table stalled"
        assert broken.stopped and json.loads(got[-1])["code"] == "internal" and told.gone
        assert broken.id not in tables.shells
        assert hung.core.match.turn is not None and hung.core.match.hand is not None
        assert not hung.stopped  # it waits for its bot, and only it waits
        # The broken table comes back from its log on the next lookup, working.
        again = await tables.get(broken.id)
        assert again is not None and again is not broken and not again.stopped
        await tables.close()

    asyncio.run(main())


def test_a_bot_past_its_deadline_gives_no_move_and_the_table_plays_on() -> None:
    from capicua.engine import Match, make_rules

    m = Match(make_rules("cubano"), "deadline")
    m.start_hand()
    seat = m.turn
    assert seat is not None

    async def main() -> dict[str, Any]:
        pool = PoolBots(ThreadPoolExecutor(1), (0.0, 0.0), deadline=0.000_001)
        return await pool.decide("experto", m.view(seat), 1)

    assert asyncio.run(main()) == {}


def test_intents_for_a_stopped_table_are_refused(live_server: Any) -> None:
    srv = live_server(bot_delay=FROZEN)
    t = srv.new_table()
    c = srv.client()
    c.hello(t["table_id"], t["token"])
    c.until(lambda f: has_event(f, "hand_start"))
    shell = srv.tables.shells[t["table_id"]]
    srv.run(shell.stop())
    c.send({"type": "say", "phrase": "agua"})
    assert c.error()["code"] == "internal"
    # A new socket loads the table again from its log.
    srv.tables.forget(shell)
    c2 = srv.client()
    c2.hello(t["table_id"], t["token"])
    assert c2.until(lambda f: f["type"] == "sync")["view"]["hand_number"] == 1
    c2.close()


def test_a_whole_hand_with_the_stand_in_after_the_grace_window(live_server: Any) -> None:
    """Two players; one closes the page: after the grace window a neighbour plays for them."""
    srv = live_server()
    a = srv.post("/api/players", {"nickname": "Ana"}).json()
    b = srv.post("/api/players", {"nickname": "Beto"}).json()
    seats = [
        {"seat": 0, "kind": "human", "name": "Ana", "player": a["player"], "level": "random", "character": "mima"},
        {"seat": 1, "kind": "bot", "name": "Cuca", "level": "random", "character": "cuca"},
        {"seat": 2, "kind": "human", "name": "Beto", "player": b["player"], "level": "random", "character": "chucho"},
        {"seat": 3, "kind": "bot", "name": "Yoli", "level": "random", "character": "yoli"},
    ]
    shell = srv.run(srv.tables.open("cubano", {}, seats, seed="stand-in", grace=10))
    ca, cb = srv.client(), srv.client()
    ca.hello(shell.id, a["token"])
    cb.hello(shell.id, b["token"])
    cb.until(lambda f: has_event(f, "hand_start"))
    cb.close()
    table = ca.until(lambda f: f["type"] == "table" and f["table"]["seats"][2]["connected"] is False)
    assert table["table"]["seats"][2]["stand_in"] is None

    async def shorten() -> None:  # the grace window is 10 s; let it end now
        for key in list(shell._timers):
            if key.startswith("grace:"):
                shell._fire(key)

    srv.run(shorten())
    stood = ca.until(lambda f: f["type"] == "table" and f["table"]["seats"][2]["stand_in"] is not None)
    assert stood["table"]["seats"][2]["stand_in"]["name"] == "Chucho"
    drive(ca, lambda f: has_event(f, "hand_end"))
    log = Store(srv.database_url).load_table(shell.id)
    assert log is not None
    by = {(e["seat"], e["by"]) for e in log["events"] if e["op"] == "action"}
    assert (2, "stand_in") in by and (0, "human") in by
    # Beto comes back: the seat is his again.
    cb = srv.client()
    back = cb.hello(shell.id, b["token"])
    assert back["seat"] == 2
    cb.until(lambda f: f["type"] == "table" and f["table"]["seats"][2]["stand_in"] is None)
    ca.close()
    cb.close()


def test_a_phrase_goes_to_everyone_and_spam_is_throttled(live_server: Any) -> None:
    srv = live_server(bot_delay=FROZEN)
    t = srv.new_table()
    c = srv.client()
    c.hello(t["table_id"], t["token"])
    w = srv.client()
    w.send({"type": "hello", "table": t["table_id"], "watch": True})
    w.until(lambda f: f["type"] == "sync")
    for _ in range(3):
        c.send({"type": "say", "phrase": "buena_companero"})
    heard = [w.until(lambda f: f["type"] == "said" and f["by"] == "player") for _ in range(3)]
    assert all(f["es"] == "¡Buena, pareja!" and f["name"] == "Ana" for f in heard)
    c.send({"type": "say", "phrase": "buena_companero"})
    assert c.error()["code"] == "too_fast"
    c.send({"type": "say", "phrase": "te tengo el seis"})
    assert c.error()["code"] == "malformed"
    w.send({"type": "say", "phrase": "agua"})
    assert w.error()["code"] == "watcher"
    assert any(f["type"] == "table" and f["table"]["watchers"] == 1 for f in c.frames)
    c.close()
    w.close()
    assert protocol.PROTOCOL_VERSION == 2


def test_idle_unfinished_tables_leave_memory_and_a_restart_loads_none_of_them(live_server: Any) -> None:
    """Issue 10 item 17: abandoned tables do not stay in memory, and a restarted server
    answers at once, loading a table only when someone comes back to it."""
    srv = live_server(idle_s=0.3, bot_delay=FROZEN)
    made = [srv.new_table() for _ in range(12)]
    for t in made[:3]:
        c = srv.client()
        c.hello(t["table_id"], t["token"])
        c.until(lambda f: has_event(f, "hand_start"))
        c.close()

    async def emptied() -> None:
        while srv.tables.shells:
            await asyncio.sleep(0.05)

    srv.run(asyncio.wait_for(emptied(), 20))
    # A second server on the same database (a restart): nothing is loaded up front.
    srv2 = live_server(database_url=srv.database_url, bot_delay=FROZEN)
    assert srv2.tables.shells == {}
    assert srv2.get("/healthz").json()["ok"] is True
    summary = srv2.get(f"/api/tables/{made[5]['table_id']}").json()
    assert summary["status"] == "playing" and srv2.tables.shells == {}  # read from the row
    c = srv2.client()
    c.hello(made[0]["table_id"], made[0]["token"])
    sync = c.until(lambda f: f["type"] == "sync")
    assert sync["view"]["hand_number"] == 1 and sync["view"]["hand"]
    assert list(srv2.tables.shells) == [made[0]["table_id"]]
    c.close()


async def _until(ok: Callable[[], bool], guard_s: float = 20.0) -> None:
    """Wait until ``ok()`` (a guard against hangs, not a timed assertion)."""
    deadline = asyncio.get_running_loop().time() + guard_s
    while not ok() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.01)
