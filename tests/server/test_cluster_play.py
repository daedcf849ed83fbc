"""The whole cluster mode at play (issue 23, item 11): three ``capicua serve`` processes
on a real PostgreSQL and a real redis-server behind a real HAProxy, all started here on
free ports and shared by the module (tests/server/clusterrig.py).

- Four players of one table and a spectator, their sockets spread by the balancer over
  the three processes, play a hand: every socket hears the same committed events, none
  missing, and no frame any process delivered carries a tile of another seat's hand.
- The owner process stopped (SIGSTOP) past its lease, then let go on (SIGCONT):
  another process has taken the table over and play goes on there; the stopped one
  writes nothing more (its append is refused, or its renewal finds the lease lost
  first) and no socket hears from it an event the log does not hold.
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
from clusterrig import Cluster, play_moves
from conftest import WSClient
from pgserver import PgServer
from redisserver import RedisServer

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


def _post(cluster: Cluster, path: str, body: dict[str, Any]) -> dict[str, Any]:
    r = httpx.post(cluster.base + path, json=body, timeout=10)
    assert r.status_code == 200, r.text
    return dict(r.json())


def _catch_up(clients: list[WSClient], seq: int) -> None:
    for c in clients:
        while c.seq < seq:
            c.recv()


def test_four_players_on_three_processes_hear_the_same_events_and_no_other_hand(cluster: Cluster) -> None:
    host = _post(cluster, "/api/tables", {"nickname": "Ana", "private": True})
    tid = host["table_id"]
    tokens = [host["token"]] + [_post(cluster, "/api/players", {"nickname": n})["token"]
                                for n in ("Beto", "Carla", "Dani")]
    owner, _ = cluster.owner(tid)
    players: list[WSClient] = []
    nodes: list[str] = []
    try:
        for seat, token in enumerate(tokens):
            c, node = cluster.socket()
            players.append(c)
            nodes.append(node)
            assert c.hello(tid, token)["type"] == "welcome"
            if seat:
                c.send({"type": "sit", "seat": seat})
                c.until(lambda f, seat=seat: f["type"] == "welcome" and f["seat"] == seat)  # type: ignore[misc]
        watcher, watcher_node = cluster.socket()
        players_and_watcher = [*players, watcher]
        watcher.send({"type": "hello", "table": tid, "watch": True})
        assert watcher.until(lambda f: f["type"] in ("welcome", "error"))["type"] == "welcome"
        # The balancer spread them: every process is the gateway of some socket of this
        # table, so the owner's frames reached the other two over Redis.
        assert len(set(nodes)) >= 2 and set([*nodes, watcher_node]) == set(cluster.servers), (nodes, watcher_node)
        assert any(n != owner for n in nodes)

        players[0].send({"type": "start"})
        for c in players_and_watcher:
            c.until(lambda f: f["type"] == "events" and any(e["event"]["kind"] == "hand_start" for e in f["events"]))
        made = play_moves(players, 500)
        assert made >= 4 and players[0].view is not None and players[0].view["phase"] in ("hand_over", "match_over")
        _catch_up(players_and_watcher, max(c.seq for c in players))
    finally:
        for c in players:
            c.close()
        watcher.close()

    log = cluster.committed(tid)
    heard = [log.check_heard(c.frames, f"seat {seat} on {nodes[seat]}") for seat, c in enumerate(players)]
    heard.append(log.check_heard(watcher.frames, f"the spectator on {watcher_node}"))
    assert all(h == heard[0] for h in heard) and max(heard[0]) == log.seq  # the same events, the whole hand
    assert any(log.events[s]["kind"] == "hand_end" for s in heard[0])
    checked = [log.check_no_leak(c.frames, seat, f"seat {seat} on {nodes[seat]}") for seat, c in enumerate(players)]
    checked.append(log.check_no_leak(watcher.frames, None, f"the spectator on {watcher_node}"))
    assert min(checked) >= made, checked  # every frame of the hand was held to its deal
    assert len(log.plays()) == len(set(log.plays())) == made
