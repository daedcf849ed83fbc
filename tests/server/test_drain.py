"""Graceful drain (capicua.server.runtime.drain): SIGTERM makes ``capicua serve`` not
ready at once while it still serves, then closes its websockets with code 1012
("service restart": the page reconnects), hands its tables over and exits; the table
goes on from its log when its player comes back, nobody marked offline for it."""

from __future__ import annotations

import copy
import signal
from pathlib import Path

import httpx
import pytest
from conftest import WSClient, drive
from serveprocess import ServeProcess
from tablesim import Sim, human, replayed
from websockets.exceptions import ConnectionClosed

from capicua.server.runtime.drain import RECONNECT_CODE
from capicua.store import Store
from capicua.table.commands import Reopen, StartTimer
from capicua.table.core import CoreConfig
from capicua.table.log import Handover
from capicua.table.protocol import ConnId, Join, Leave
from capicua.table.timers import RESUME_MIN_MS
from capicua.table.wire import to_json, to_table_from_json

pytestmark = pytest.mark.xdist_group("server")

GUARD_S = 30.0  # a guard against hangs, not a timed assertion


def test_sigterm_drains_then_closes_sockets_with_reconnect(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = ServeProcess(tmp_path, ["--data-dir", str(data)])
    try:
        assert httpx.get(server.base + "/readyz", timeout=5).json()["ready"] is True
        t = httpx.post(server.base + "/api/tables", json={"nickname": "Ana"}, timeout=10).json()
        c = WSClient(f"ws://127.0.0.1:{server.port}/ws")
        c.hello(t["table_id"], t["token"])
        c.settle()
        server.proc.send_signal(signal.SIGTERM)
        r = httpx.get(server.base + "/readyz", timeout=5)
        assert r.status_code == 503 and r.json()["draining"] is True  # at once
        c.settle()  # still served while the balancer takes it out
        with pytest.raises(ConnectionClosed) as closed:
            c.until(lambda f: False)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == RECONNECT_CODE
        server.proc.wait(timeout=GUARD_S)
        assert server.proc.returncode in (0, -signal.SIGTERM)  # uvicorn ends by its signal, as asked
        said = server.log.read_text()
        assert "draining" in said and "Traceback" not in said
    finally:
        server.stop()
    # The next process goes on with the table from its log.
    again = ServeProcess(tmp_path, ["--data-dir", str(data)], name="again")
    try:
        c = WSClient(f"ws://127.0.0.1:{again.port}/ws")
        assert c.hello(t["table_id"], t["token"])["type"] == "welcome"
        drive(c, lambda f: f["type"] == "events" and any(
            e["event"]["kind"] == "play" and e["event"]["seat"] == c.view["seat"] for e in f["events"]))
        c.close()
    finally:
        again.stop()
    # The drain handed the table over: its log holds no reopen, no presence change of
    # the seat (its socket was moving, then came back), no grace, no stand-in.
    store = Store(f"sqlite:///{data / 'capicua.sqlite3'}")
    ops = [e["op"] for e in store.load_table(t["table_id"])["events"]]
    store.close()
    assert "handover" in ops and "reopen" not in ops
    assert ops.count("presence") == 1  # the first hello's, before the drain
    assert "controller" not in ops and "timer" not in ops


# ------------------------------------------------------------ the table's side

SEATS = [human(0, "Ana", "p0"), human(1, "Beto", "p1", "cuca"),
         {"seat": 2, "kind": "bot", "name": "Pancho", "level": "random", "character": "pancho"},
         {"seat": 3, "kind": "bot", "name": "Yoli", "level": "random", "character": "yoli"}]
CONFIG = CoreConfig()


def two_players() -> Sim:
    sim = Sim(seats=copy.deepcopy(SEATS), seed="drain")
    sim.join(10, "p0", "Ana")
    sim.join(11, "p1", "Beto")
    sim.answer_bots()
    return sim


def presence_after(sim: Sim, start: int) -> list[dict[str, object]]:
    return [e for e in sim.log[start:] if e["op"] in ("presence", "reopen", "controller")]


def test_a_moving_socket_keeps_its_seat_present_until_the_longer_window() -> None:
    """A socket its draining gateway closed (a moving Leave, as it crosses Redis) leaves
    its seat present past the presence debounce; back in time, nothing is logged; not
    back within moving_ms, the seat is logged gone from when the socket closed."""
    moving = to_table_from_json(to_json(Leave(ConnId("g.10"), moving=True)))
    assert moving == Leave(ConnId("g.10"), moving=True)
    assert CONFIG.moving_ms > CONFIG.presence_debounce_ms
    sim = two_players()
    start, closed = len(sim.log), sim.now
    sim.send(Leave(10, moving=True))
    sim.send(Leave(11, moving=True))
    sim.advance(CONFIG.moving_ms - 1)
    assert presence_after(sim, start) == [] and all(s.online for s in sim.core.seats[:2])
    sim.send(Join(20, "p0", "", sim.core.seq, False))  # Ana's page came back through the balancer
    sim.advance(1)
    assert presence_after(sim, start) == [
        {"op": "presence", "seat": 1, "online": False, "since": closed, "at": closed + CONFIG.moving_ms}]
    assert sim.core.seats[0].online and not any(k.startswith("grace:0") for k in sim.timers)


def test_a_handed_over_table_loads_without_reopen_and_keeps_its_seats() -> None:
    """The next process loads a log that ends in ``handover``: no reopen, no presence
    change; a seat whose player comes back stays as it was, one whose player does not
    is logged gone moving_ms after the load, and its grace counts from then."""
    sim = two_players()
    sim.send(Leave(10, moving=True))
    sim.send(Leave(11, moving=True))
    sim.log.append(Handover(at=sim.now).to_json())
    start = len(sim.log)
    core, _ = replayed(sim.log, CoreConfig(auto_next_ms=0))
    assert core.handed_over and all(s.online for s in core.seats[:2])
    sim.core, sim.timers, sim.asks = core, {}, []
    sim.now += 3_000  # the process stopped, another one loads the table at the first hello
    loaded = sim.now
    assert sim.send(Reopen()).entries == []
    sim.send(Join(20, "p0", "", sim.core.seq, False))
    sim.answer_bots()
    sim.advance(CONFIG.moving_ms)
    assert presence_after(sim, start) == [
        {"op": "presence", "seat": 1, "online": False, "since": loaded, "at": loaded + CONFIG.moving_ms}]
    assert sim.core.seats[0].online and f"grace:1:{loaded}" in sim.timers
    # A table loaded again after any entry past the handover reopens as usual.
    core, _ = replayed(sim.log, CoreConfig(auto_next_ms=0))
    assert not core.handed_over
    assert [e.op for e in core.handle(Reopen(), sim.now).entries] == ["reopen"]


def test_a_turn_that_ran_out_during_the_handover_leaves_a_moment_to_come_back() -> None:
    """Not a stand-in's timed-out move for the drain: as after a restart, a turn whose
    time ran out while the table moved gets RESUME_MIN_MS after the load."""
    sim = Sim(seats=[human(s, f"P{s}", f"p{s}") for s in range(4)], turn_timer=15, seed="drain-turn")
    for s in range(4):
        sim.join(10 + s, f"p{s}", f"P{s}")
    seat = sim.core.match.turn
    sim.log.append(Handover(at=sim.now).to_json())
    core, _ = replayed(sim.log, CoreConfig(auto_next_ms=0))
    loaded = sim.now + 20_000  # past the turn's 15 s
    out = core.handle(Reopen(), loaded)
    assert out.entries == []
    assert {e.key: e.at for e in out.effects if isinstance(e, StartTimer)}[f"turn:{core.seq}:{seat}"] == (
        loaded + RESUME_MIN_MS)
