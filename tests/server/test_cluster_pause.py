"""A table's owner process stopped (SIGSTOP) past its lease, then let go on (SIGCONT),
in the whole cluster mode (issue 23, item 11): two ``capicua serve`` processes on a
real PostgreSQL and a real redis-server behind a real HAProxy, started here on free
ports (tests/server/clusterrig.py). The owner runs this table only, so what it
appends after it wakes is this table's.

While it is stopped the other process takes the table over once the lease ran out
and play goes on there. Awake, the stopped one acts on its copy: its next append is
refused (fenced: counted in its /metrics), it drops the copy, nothing of it is in the
log, and no socket, on either process, hears from it an event the log does not hold."""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Iterator
from typing import Any

import pytest
from clusterrig import Cluster, catch_up, drive_on, held_to_the_log, plays_on, table_of_one, until
from redisserver import RedisServer

pytestmark = pytest.mark.xdist_group("cluster")


@pytest.fixture
def cluster(tmp_path: Any, pg_server: Any) -> Iterator[Cluster]:
    redis = RedisServer()
    try:
        rig = Cluster(tmp_path, pg_server, redis, nodes=2)
        try:
            yield rig
            for node in rig.servers:
                assert "Traceback" not in rig.log_of(node), rig.log_of(node)
        finally:
            rig.close()
    finally:
        redis.close()


def test_an_owner_stopped_past_its_lease_loses_the_table_and_writes_nothing_after(cluster: Cluster) -> None:
    at = table_of_one(cluster, "Eva")
    player, owner = at.player, at.owner
    _, epoch = cluster.owner(at.table)
    fenced = cluster.metric(owner, "capicua_fenced_appends_total")
    proc = cluster.servers[owner].proc
    try:
        os.kill(proc.pid, signal.SIGSTOP)
        try:
            # To the stopped owner: nothing answers. Once the owner's lease ran out her
            # gateway takes the table over and says her hello there.
            player.send({"type": "say", "phrase": "agua"})
            player.until(lambda f: f["type"] == "welcome")
            assert cluster.owner(at.table) == (at.gateway, epoch + 1)
            plays_on(player)  # play goes on, from the new owner
            # Her turn again (the neighbours played): the new owner is quiet.
            drive_on(player, lambda f: f["type"] == "events" and player.my_turn())
            # Awake, the old owner acts on its copy: her "agua" waits in its stream. Its
            # lease renewal would find the lease lost and drop the copy without a word;
            # with the leases held here both wait, so the append is made, and refused.
            with cluster.leases_locked() as let_go:
                os.kill(proc.pid, signal.SIGCONT)
                until(lambda: cluster.waiting(owner, "FOR SHARE"), "the old owner's append waits on the lease")
                let_go()
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        until(lambda: cluster.metric(owner, "capicua_fenced_appends_total") == fenced + 1, "the append is fenced")
        dropped = re.compile(rf"table {at.table}: its lease was (taken|lost)")
        until(lambda: dropped.search(cluster.log_of(owner)), "the old owner dropped its copy")
        # The spectator on the old owner's process follows the table to its new owner.
        plays_on(player)
        catch_up([at.watcher], player.seq)
        log = held_to_the_log(cluster, at)  # while they are here: a seat is logged gone once they leave
    finally:
        at.close()
    assert "say" not in log.ops()  # the stopped owner's copy wrote nothing
    assert not any(f["type"] == "said" and f.get("by") == "player" for c in (player, at.watcher) for f in c.frames)
    assert cluster.owner(at.table)[0] == at.gateway
