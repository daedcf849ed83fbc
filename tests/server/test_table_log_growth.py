"""Issue 21, item 13: a table's log grows only with the game. Who watches is not
logged (a flood of a stranger's hellos adds nothing to someone else's table),
a seat's presence is logged only when a change lasts, watchers are capped per
table, and a table is loaded (its log read and replayed) off the event loop."""

from __future__ import annotations

import asyncio
import copy
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sockets_at import hello
from tablesim import NEIGHBOURS, Sim, human, replayed
from websockets.exceptions import ConnectionClosed

from capicua.server.adapters.memory import (
    LocalBus,
    LoopClock,
    MemoryLog,
)
from capicua.server.adapters.sql import StoreLog
from capicua.server.registry import Tables
from capicua.store import Store
from capicua.table import protocol
from capicua.table.commands import Reopen
from capicua.table.core import CoreConfig, TableCore
from capicua.table.log import read_log
from capicua.table.protocol import ALL, PUBLIC

FOUR = [human(0, "Ana", "p0"), human(1, "Beto", "p1", "cuca"), human(2, "Carla", "p2", "yoli"),
        human(3, "Dani", "p3", "fefa")]
FROZEN = (1e6, 1e6)


def four_humans(**kw: Any) -> Sim:
    sim = Sim(seats=copy.deepcopy(FOUR), **kw)
    for s in range(4):
        sim.join(10 + s, f"p{s}", f"P{s}")
    return sim


# ------------------------------------------------------------ watchers


def test_a_flood_of_watchers_adds_no_log_entry_and_no_flood_of_frames() -> None:
    sim = Sim()
    sim.join(1, "p_ana", "Ana")
    logged = len(sim.log)
    frames = len(sim.frames)
    for i in range(2_000):  # hello and close, as fast as a client can
        sim.join(100 + i, None, "", watch=True)
        sim.leave(100 + i)
    assert len(sim.log) == logged, [e["op"] for e in sim.log[logged:]][:5]
    told = [f for a, f in sim.frames[frames:] if a == ALL]
    assert len(told) <= 1  # the count is told at most once per CoreConfig.watchers_note_ms
    # Over time the count still reaches the players, at most once a second.
    sim.join(5000, None, "", watch=True)
    sim.advance(1_000)
    last = [f for a, f in sim.frames if a == ALL and f["type"] == "table"][-1]
    assert last["table"]["watchers"] == 1 and sim.core.watchers == 1
    assert len(sim.log) == logged


def test_watched_events_replay_their_spectators_frames_and_talk() -> None:
    sim = Sim()
    sim.join(7, None, "", watch=True)  # someone watches from the start
    sim.join(1, "p_ana", "Ana")
    sim.play_out_hand({0: 1})
    sim.leave(7)  # and then nobody
    if sim.core.match.phase == "hand_over":
        sim.intent(1, protocol.NextHand(sim.core.seq))
        sim.answer_bots()
    game = [e for e in sim.log if e["op"] in ("start_hand", "action")]
    assert game[0].get("watched") is True and "watched" not in game[-1]
    core, frames = replayed(sim.log)
    public = [f for a, f in frames if a == PUBLIC]
    assert public and public == [f for a, f in sim.frames if a == PUBLIC]
    said = [f for _, f in frames if f["type"] == "said"]
    assert said == [f for _, f in sim.frames if f["type"] == "said"]
    assert core.watchers == 0


def test_an_old_log_with_watchers_entries_still_loads_and_replays_as_it_was() -> None:
    sim = Sim()
    sim.join(1, "p_ana", "Ana")
    sim.play_out_hand({0: 1})
    old = copy.deepcopy(sim.log)
    # As the old core wrote it: a watcher came before the first hand and left after it.
    at = old[1]["at"]
    old.insert(1, {"op": "watchers", "n": 1, "at": at})
    old.append({"op": "watchers", "n": 0, "at": at})
    core, frames = replayed(old)
    assert [f for a, f in frames if a == PUBLIC]  # the spectators' frames of then
    assert core.watchers == 0 and core.view(0) == sim.core.view(0)
    out = core.handle(Reopen(), sim.now)
    assert [e.op for e in out.entries] == ["reopen"]


def test_watchers_are_capped_per_table() -> None:
    sim = Sim()
    sim.core.config = CoreConfig(auto_next_ms=0, max_watchers=3)
    sim.join(1, "p_ana", "Ana")
    for c in (20, 21, 22):
        sim.join(c, None, "", watch=True)
    out = sim.join(23, None, "", watch=True)
    assert [f["code"] for _, f in out.frames] == ["too_many"] and out.entries == []
    assert 23 not in sim.core.conns and sim.core.watchers == 3
    assert sim.join(2, "p_ana", "Ana").frames[0][1]["type"] == "welcome"  # a player's tab is no watcher
    sim.leave(20)
    assert sim.join(24, None, "", watch=True).frames[0][1]["type"] == "welcome"


def test_a_socket_the_table_refuses_is_closed() -> None:
    async def main() -> None:
        tables = Tables(MemoryLog(), LocalBus(), LoopClock(), _NoBots(), CoreConfig(max_watchers=1))
        shell = await tables.open("cubano", {}, copy.deepcopy(NEIGHBOURS), seed="cap")
        got: dict[str, list[str]] = {"one": [], "two": []}
        closed: list[str] = []
        for conn in ("one", "two"):
            hello(tables, shell.id, conn, got[conn].append, watch=True, close=lambda conn=conn: closed.append(conn))  # type: ignore[misc]
        for _ in range(100):
            await asyncio.sleep(0.01)
            if closed:
                break
        assert closed == ["two"] and '"too_many"' in got["two"][-1]
        assert shell.conns() == 1 and shell.core.watchers == 1
        await tables.close()

    asyncio.run(main())


def test_a_stranger_flooding_hellos_adds_nothing_to_the_stored_log(live_server: Any) -> None:
    srv = live_server(bot_delay=FROZEN)
    t = srv.new_table()
    c = srv.client()
    c.hello(t["table_id"], t["token"])
    c.settle()
    store = Store(srv.database_url)
    before = store.load_table(t["table_id"])
    assert before is not None
    for _ in range(60):  # no token: watching
        w = srv.client()
        w.send({"type": "hello", "table": t["table_id"], "last_seq": 0})
        w.until(lambda f: f["type"] == "sync")
        w.close()
    c.settle()
    after = store.load_table(t["table_id"])
    assert after is not None and len(after["events"]) == len(before["events"])
    c.close()
    store.close()


def test_the_next_watcher_is_told_too_many_and_its_socket_closes(live_server: Any) -> None:
    srv = live_server(bot_delay=FROZEN)
    t = srv.new_table()
    c = srv.client()
    c.hello(t["table_id"], t["token"])
    shell = srv.tables.shells[t["table_id"]]
    shell.core.config = CoreConfig(max_watchers=1)  # 64 by default: more than one address may open
    first, second = srv.client(), srv.client()
    first.send({"type": "hello", "table": t["table_id"], "watch": True})
    first.until(lambda f: f["type"] == "sync")
    second.send({"type": "hello", "table": t["table_id"], "watch": True})
    assert second.error()["code"] == "too_many"
    with pytest.raises(ConnectionClosed):
        second.recv()
    assert shell.core.watchers == 1
    for ws in (first, c):
        ws.close()


# ------------------------------------------------------------ presence


def test_flickering_presence_adds_no_entry_within_the_window() -> None:
    sim = four_humans(grace=10)
    logged = len(sim.log)
    conn = 12
    for i in range(50):  # a phone on a bad network: the socket drops and comes back
        sim.leave(conn)
        sim.advance(4_000)
        conn = 100 + i
        sim.join(conn, "p2", "P2")
    assert len(sim.log) == logged
    assert sim.core.seats[2].online and not any(k.startswith("away:") for k in sim.timers)


def test_a_lasting_absence_is_logged_from_when_it_began_and_grace_counts_from_then() -> None:
    sim = four_humans(grace=10)
    left = sim.now
    sim.leave(12)
    sim.advance(4_999)
    assert sim.core.seats[2].online and len([e for e in sim.log if e["op"] == "presence"]) == 4
    sim.advance(1)
    presence = sim.log[-1]
    assert presence == {"op": "presence", "seat": 2, "online": False, "since": left, "at": left + 5_000}
    assert sim.timers[f"grace:2:{left}"] == left + 10_000  # the grace window counts from the leaving
    sim.advance(5_000)
    assert sim.core.seats[2].controller == "stand_in"
    core, _ = replayed(sim.log)
    assert core.seats[2].offline_since == left and core.seats[2].controller == "stand_in"


def test_the_others_need_not_wait_for_a_player_who_left_after_the_hand() -> None:
    sim = Sim(seats=[human(0, "Ana", "p0"), *copy.deepcopy(NEIGHBOURS[1:2]), human(2, "Carla", "p2", "yoli"),
                     *copy.deepcopy(NEIGHBOURS[3:])])
    sim.join(10, "p0", "Ana")
    sim.join(12, "p2", "Carla")
    sim.play_out_hand({0: 10, 2: 12})
    if sim.core.match.phase != "hand_over":
        pytest.skip("the seed ended the match in one hand")
    hand = sim.core.match.view(0)["hand_number"]
    sim.intent(10, protocol.NextHand(sim.core.seq))
    sim.leave(12)  # Carla closed the tab without "Siguiente mano"
    sim.advance(5_000)
    assert sim.core.match.view(0)["hand_number"] == hand + 1


# ------------------------------------------------------------ loading


class _NoBots:
    def ask(self, level: str, view: dict[str, Any], seed: int, answer: Any, pause: bool = True) -> Any:
        return asyncio.get_running_loop().call_later(3600, lambda: None)


def big_log(watchers: int, player: str = "p_ana") -> list[dict[str, Any]]:
    """A played hand, then ``watchers`` hellos and closes as the old core logged them."""
    sim = Sim(seats=[human(0, "Ana", player), *copy.deepcopy(NEIGHBOURS[1:])])
    sim.join(1, player, "Ana")
    sim.play_out_hand({0: 1})
    entries = copy.deepcopy(sim.log)
    at = entries[-1]["at"]
    for i in range(watchers):
        entries.append({"op": "watchers", "n": (i + 1) % 2, "at": at})
    return entries


def test_a_table_is_loaded_off_the_event_loop(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The replay runs in a worker thread; prints the longest stall of the loop while a
    big table loads (a benchmark's number, not an assertion), the same replay on the
    loop, and the load of that table had the flood not been logged (as now)."""
    store = Store(f"sqlite:///{tmp_path / 'big.sqlite3'}")
    store.migrate()
    entries = big_log(4_000, store.create_player("Ana")[0])  # the reliability run's flood: 4,000 entries
    game = [e for e in entries if e["op"] != "watchers"]
    lean = [{**game[0], "table": "t_lean"}, *game[1:]]
    threads: list[int] = []
    replayed: list[float] = []
    real = TableCore.from_log.__func__  # type: ignore[attr-defined]

    def spy(cls: type[TableCore], *args: Any, **kwargs: Any) -> Any:
        threads.append(threading.get_ident())
        started = time.perf_counter()
        try:
            return real(cls, *args, **kwargs)
        finally:
            replayed.append(time.perf_counter() - started)

    monkeypatch.setattr(TableCore, "from_log", classmethod(spy))

    async def main() -> tuple[float, float, float]:
        log = StoreLog(store)
        for table in (entries, lean):
            await log.create(table[0]["table"], table[0])
            await log.append(table[0]["table"], 1, table[1:], None, epoch=1)
        tables = Tables(log, LocalBus(), LoopClock(), _NoBots())
        stalls: list[float] = []
        done = asyncio.Event()

        async def ticker() -> None:
            last = time.perf_counter()
            while not done.is_set():
                await asyncio.sleep(0.001)
                now = time.perf_counter()
                stalls.append(now - last)
                last = now

        tick = asyncio.get_running_loop().create_task(ticker())
        await asyncio.sleep(0.01)
        started = time.perf_counter()
        shell = await tables.get("t_sim")
        took = time.perf_counter() - started
        done.set()
        await tick
        assert shell is not None and shell.core.view(0)["hand_number"] == 1
        assert threads and threads[-1] != threading.get_ident()  # not on the loop's thread
        started = time.perf_counter()
        assert await tables.get("t_lean") is not None
        lean_took = time.perf_counter() - started
        await tables.close()
        log.close()
        return took, max(stalls), lean_took

    took, stall, lean_took = asyncio.run(main())
    store.close()
    started = time.perf_counter()
    TableCore.from_log(read_log(copy.deepcopy(entries)))
    on_loop = time.perf_counter() - started
    print(f"\nload of a {len(entries)}-entry log: {took * 1000:.1f} ms (replay {replayed[0] * 1000:.1f} ms in a "
          f"worker thread), longest loop stall {stall * 1000:.1f} ms; the replay on the loop: a "
          f"{on_loop * 1000:.1f} ms stall; the same table without the flood ({len(lean)} entries): "
          f"{lean_took * 1000:.1f} ms")
