"""The whole cluster mode at play (issue 23, item 11): three ``capicua serve`` processes
on a real PostgreSQL and a real redis-server behind a real HAProxy, all started here on
free ports and shared by the module (tests/server/clusterrig.py).

- Four players of one table and a spectator, their sockets spread by the balancer over
  the three processes, play a hand: every socket hears the same committed events, none
  missing, and no frame any process delivered carries a tile of another seat's hand.
- Four strangers who press "Jugar con gente" (issue 24) through different processes
  are seated once, at one table, which players on different processes then join.
- (The owner stopped past its lease: test_cluster_pause.py, a cluster of its own.)
- Redis restarted mid-hand (killed by its PID, an empty one started on the same
  port): the table goes on, nothing lost or doubled.
- PostgreSQL restarted mid-hand: the table pauses (``paused`` frames, no event
  for what was not committed) and resumes, nothing lost.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from clusterrig import (
    Cluster,
    Committed,
    catch_up,
    held_to_the_log,
    play_moves,
    played,
    plays_on,
    table_of_one,
    until,
)
from conftest import WSClient
from pgserver import PgServer
from redisserver import RedisServer
from tablesim import Sim

from capicua.table.protocol import seat_audience

pytestmark = pytest.mark.xdist_group("cluster")


@pytest.fixture(scope="module")
def pg() -> Iterator[PgServer]:
    """This module's own PostgreSQL: one test restarts it."""
    server = PgServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, pg: PgServer) -> Iterator[Cluster]:
    redis = RedisServer()
    try:
        rig = Cluster(tmp_path_factory.mktemp("cluster"), pg, redis, nodes=3)
        try:
            yield rig
            for node in rig.servers:
                assert "Traceback" not in rig.log_of(node), rig.log_of(node)
        finally:
            rig.close()
    finally:
        redis.close()


def test_four_players_on_three_processes_hear_the_same_events_and_no_other_hand(cluster: Cluster) -> None:
    host = cluster.post("/api/tables", {"nickname": "Ana", "private": True})
    tid = host["table_id"]
    tokens = [host["token"]] + [cluster.post("/api/players", {"nickname": n})["token"]
                                for n in ("Beto", "Carla", "Dani")]
    owner, _ = cluster.owner(tid)
    players: list[WSClient] = []
    nodes: list[str] = []
    opened: list[WSClient] = []
    try:
        for seat, token in enumerate(tokens):
            c, node = cluster.socket()
            opened.append(c)
            players.append(c)
            nodes.append(node)
            assert c.hello(tid, token)["type"] == "welcome"
            if seat:
                c.send({"type": "sit", "seat": seat})
                c.until(lambda f, seat=seat: f["type"] == "welcome" and f["seat"] == seat)  # type: ignore[misc]
        watcher, watcher_node = cluster.socket()
        opened.append(watcher)
        watcher.send({"type": "hello", "table": tid, "watch": True})
        assert watcher.until(lambda f: f["type"] in ("welcome", "error"))["type"] == "welcome"
        # The balancer spread them: every process is the gateway of some socket of this
        # table, so the owner's frames reached the other two over Redis.
        assert len(set(nodes)) >= 2 and set([*nodes, watcher_node]) == set(cluster.servers), (nodes, watcher_node)
        assert any(n != owner for n in nodes)

        players[0].send({"type": "start"})
        for c in opened:
            c.until(lambda f: f["type"] == "events" and any(e["event"]["kind"] == "hand_start" for e in f["events"]))
        made = play_moves(players, 500)
        assert made >= 4 and players[0].view is not None and players[0].view["phase"] in ("hand_over", "match_over")
        catch_up(opened, max(c.seq for c in players))
    finally:
        for c in opened:
            c.close()

    log = cluster.committed(tid)
    heard = [log.check_heard(c.frames, f"seat {seat} on {nodes[seat]}") for seat, c in enumerate(players)]
    heard.append(log.check_heard(watcher.frames, f"the spectator on {watcher_node}"))
    assert all(h == heard[0] for h in heard) and max(heard[0]) == log.seq  # the same events, the whole hand
    assert any(log.events[s]["kind"] == "hand_end" for s in heard[0])
    checked = [log.check_no_leak(c.frames, seat, f"seat {seat} on {nodes[seat]}") for seat, c in enumerate(players)]
    checked.append(log.check_no_leak(watcher.frames, None, f"the spectator on {watcher_node}"))
    assert min(checked) >= made, checked  # every frame of the hand was held to its deal
    assert len(log.plays()) == len(set(log.plays())) == made


# ------------------------------------------------------------ faults mid-hand


def test_four_strangers_queued_on_three_processes_land_at_one_table_any_process_runs(cluster: Cluster) -> None:
    """"Jugar con gente" in cluster mode (issue 24): the queue is in the store and every
    process runs the matcher, so strangers who queue and poll through different processes
    are seated once, at one table, which a socket on any process then joins."""
    nodes = sorted(cluster.servers)
    names = ("Elsa", "Fito", "Gema", "Hugo")
    tokens: list[str] = []
    for i, name in enumerate(names):
        r = httpx.post(cluster.servers[nodes[i % len(nodes)]].base + "/api/parque/queue",
                       json={"nickname": name, "wait": None}, timeout=10)
        assert r.status_code in (200, 201), r.text
        tokens.append(r.json()["token"])

    def seated() -> list[dict[str, Any]] | None:
        # Each polls through another process than the one it joined on (a page's poll
        # goes wherever the balancer sends it); an unpolled entry would be dropped.
        states = [httpx.get(cluster.servers[nodes[(i + 1) % len(nodes)]].base + "/api/parque/queue",
                            headers={"Authorization": f"Bearer {t}"}, timeout=10).json()
                  for i, t in enumerate(tokens)]
        return states if all(s["state"] == "seated" for s in states) else None

    states = until(seated, "the matcher seats the four strangers")
    assert len({s["table_id"] for s in states}) == 1  # one table, each seated once
    tid = states[0]["table_id"]
    # The matcher wrote the table; the first hello loads it where it lands, and a player
    # on another process than that owner joins it there.
    first = cluster.socket_at(nodes[0])
    opened = [first]
    try:
        assert first.hello(tid, tokens[0])["type"] == "welcome"
        owner, _ = cluster.owner(tid)
        second = cluster.socket_at(next(n for n in nodes if n != owner))
        opened.append(second)
        welcome = second.hello(tid, tokens[1])
        assert welcome["type"] == "welcome" and welcome["seat"] is not None  # a player, not watching
    finally:
        for c in opened:
            c.close()


def test_a_redis_restart_mid_hand_loses_and_doubles_nothing(cluster: Cluster) -> None:
    at = table_of_one(cluster, "Fede")
    player = at.player
    try:
        cluster.redis.stop()
        # Her play, sent while Redis is away, reaches the owner once it is back.
        player.send({"type": "play", "seq": player.seq, **player.view["legal"][0]})  # type: ignore[index]
        cluster.redis.start()
        player.until(lambda f: played(player) >= 2)
        plays_on(player)  # and the table goes on, over the new Redis
        catch_up([at.watcher], player.seq)
        held_to_the_log(cluster, at)  # while they are here: a seat is logged gone once they leave
    finally:
        at.close()
    assert cluster.owner(at.table)[0] == at.owner  # no takeover: the owner never stopped


def test_a_postgresql_restart_mid_hand_pauses_the_table_and_it_resumes(cluster: Cluster) -> None:
    at = table_of_one(cluster, "Gema")
    player = at.player
    before = player.seq

    def news(f: dict[str, Any]) -> bool:
        return f["type"] == "paused" or (f["type"] == "events" and f["seq"] > before)

    try:
        cluster.pg.halt()
        try:
            player.send({"type": "play", "seq": player.seq, **player.view["legal"][0]})  # type: ignore[index]
            # Not committed: no event for it, the table says it is paused.
            for c in (player, at.watcher):
                assert c.until(news) == {"type": "paused", "paused": True}
        finally:
            cluster.pg.resume()
        for c in (player, at.watcher):
            assert c.until(news) == {"type": "paused", "paused": False}  # resumed before any event
        player.until(lambda f: played(player, before) >= 1)  # her play, committed now
        plays_on(player)
        catch_up([at.watcher], player.seq)
        held_to_the_log(cluster, at)  # while they are here: a seat is logged gone once they leave
    finally:
        at.close()


def test_the_checks_catch_an_event_not_committed_a_changed_one_and_another_seats_tile() -> None:
    """The checks above can fail (a table core, no cluster): a socket's frames held to a
    log that lacks an event they carry, or whose event differs, and a frame that carries
    a tile of another seat's hand."""
    sim = Sim(seed="checks")
    sim.join(1, "p_ana", "Ana")
    sim.answer_bots()
    for _ in range(3):
        if sim.core.match.turn == 0:
            sim.play_first_legal(1, 0)
        sim.answer_bots()
    frames = sim.frames_to(seat_audience(0))
    log = Committed(sim.log)
    assert log.check_heard(frames, "Ana") and log.check_no_leak(frames, 0, "Ana") > 0
    last = next(f for f in reversed(frames) if f["type"] == "events")
    beyond = {**last, "seq": log.seq + 1, "events": [{"seq": log.seq + 1, "event": last["events"][-1]["event"]}]}
    with pytest.raises(AssertionError, match="does not hold"):
        log.check_heard([*frames, beyond], "Ana")
    changed = {**last, "events": [{**e, "event": {**e["event"], "seat": 9}} for e in last["events"]]}
    with pytest.raises(AssertionError, match="heard at seq"):
        log.check_heard([*frames, changed], "Ana")
    hand = sim.core.match.hand
    assert hand is not None and sim.core.match.phase == "play"
    leaky = {"type": "said", "seq": sim.core.seq, "x": [list(t) for t in hand.hands[1]]}
    with pytest.raises(AssertionError, match="of another hand"):
        log.check_no_leak([leaky], 0, "Ana")
