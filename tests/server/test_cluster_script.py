"""``make cluster`` (scripts/cluster.sh): the whole cluster starts on this machine (Redis,
two servers, a worker, HAProxy; the database CAPICUA_DATABASE_URL names, here the
tests' PostgreSQL), prints its URL, answers through the balancer from both servers,
and ``make cluster-stop`` (``cluster.sh stop``) stops every process it started."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import free_port
from procgroup import members, spawn, stop_group

pytestmark = pytest.mark.xdist_group("cluster")

ROOT = Path(__file__).resolve().parents[2]
GUARD_S = 120.0  # a guard against hangs, not a timed assertion


def test_make_cluster_starts_everything_and_stops_it(tmp_path: Path, pg_server: Any) -> None:
    url = pg_server.create_database()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAPICUA_")}
    env.update(CAPICUA_DATABASE_URL=url, CAPICUA_CLUSTER_PORT=str(port), CAPICUA_CLUSTER_DIR=str(tmp_path / "c"))
    out = tmp_path / "cluster.out"
    proc = spawn(["bash", "scripts/cluster.sh"], out, cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + GUARD_S
        while "Ctrl-C" not in out.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, out.read_text()
            time.sleep(0.2)
        assert f"http://127.0.0.1:{port}" in out.read_text()
        nodes = {httpx.get(f"http://127.0.0.1:{port}/readyz", headers={"connection": "close"}, timeout=10).json()["node"]
                 for _ in range(8)}
        assert len(nodes) == 2
        t = httpx.post(f"http://127.0.0.1:{port}/api/tables", json={"nickname": "Ana"}, timeout=10)
        assert t.status_code == 200
        stop = subprocess.run(["bash", "scripts/cluster.sh", "stop"], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=GUARD_S)
        assert stop.returncode == 0 and "cluster stopped" in stop.stdout
        proc.wait(timeout=GUARD_S)
        assert members(proc.pid) == []  # redis, the servers and their pools, the worker, haproxy: all gone
        assert "stopped" in out.read_text()
    finally:
        stop_group(proc, signal.SIGKILL)
        pg_server.drop_database(url)
