"""The restart promise: a REAL server process is stopped in the middle of a
hand (SIGKILL, then SIGTERM) and started again on the same database; the
same token resumes the same match at the same position with the same tiles."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import WSClient, drive, free_port

from capicua.engine import replay
from capicua.store import Store

pytestmark = pytest.mark.xdist_group("server")

ROOT = Path(__file__).resolve().parent.parent
PATIENT = 120.0  # seconds: a guard against hangs, not a timed assertion


class PatientClient(WSClient):
    """A client that waits longer for each frame: the first neighbour's move of a fresh
    server process waits for its bot pool to start (a forkserver that imports the bots
    and loads their JIT kernel), which takes well over 20 s on a loaded machine."""

    def recv(self, timeout: float = PATIENT) -> dict[str, Any]:
        return super().recv(timeout)


class ServerProcess:
    def __init__(self, tmp: Path, database_url: str, port: int) -> None:
        self.tmp = tmp
        self.url = database_url
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = tmp / "server.log"

    def start(self) -> ServerProcess:
        env = dict(os.environ, PYTHONPATH=str(ROOT), CAPICUA_BOT_DELAY="0", CAPICUA_RATE_LIMIT="1000000,1")
        cmd = [sys.executable, "-m", "capicua.server.app", "--port", str(self.port), "--database", self.url,
               "--log-level", "warning"]
        self.proc = subprocess.Popen(cmd, cwd=self.tmp, env=env, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60  # a guard against hangs
        while True:
            try:
                if httpx.get(self.base + "/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the server did not start:\n" + self.log.read_text())
            time.sleep(0.05)

    def stop(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)
        self.proc.wait(timeout=30)


def plays_done(c: PatientClient, n: int) -> None:
    """Play seat 0's turns until it has played ``n`` tiles in this hand and is on turn again."""
    count = 0

    def stop(f: dict[str, Any]) -> bool:
        nonlocal count
        if f["type"] == "events":
            count += sum(1 for e in f["events"] if e["event"]["kind"] == "play" and e["event"]["seat"] == 0)
        return count >= n

    drive(c, stop)
    if not c.my_turn():
        c.until(lambda f: bool(f.get("view")) and (c.my_turn() or f["view"]["phase"] != "play"))
    c.settle()


def test_stop_mid_hand_and_resume(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'capicua.sqlite3'}"
    port = free_port()
    srv = ServerProcess(tmp_path, url, port).start()
    try:
        t = httpx.post(srv.base + "/api/tables", json={"nickname": "Ana"}, timeout=10).json()
        c = PatientClient(f"ws://127.0.0.1:{port}/ws")
        c.hello(t["table_id"], t["token"])
        plays_done(c, 2)
        before_seq, before = c.seq, c.view
        assert before["phase"] == "play" and before["turn"] == 0, "the hand should still be going"
        assert before["hand"] and sum(before["counts"]) < 40
        c.close()

        # 1. SIGKILL: no chance to clean up.
        srv.stop(signal.SIGKILL)
        srv = ServerProcess(tmp_path, url, port).start()
        c = PatientClient(f"ws://127.0.0.1:{port}/ws")
        assert c.hello(t["table_id"], t["token"], last_seq=before_seq)["type"] == "welcome"
        sync = c.until(lambda f: f["type"] in ("sync", "events"))
        assert sync["type"] == "sync"  # nothing was missed: the client is up to date
        assert sync["seq"] == before_seq
        assert sync["view"] == before  # same match, same position, same tiles
        summary = httpx.get(f"{srv.base}/api/tables/{t['table_id']}", timeout=10).json()
        assert summary["status"] == "playing"

        # Go on playing, then 2. SIGTERM (graceful) mid-hand.
        plays_done(c, 1)
        mid_seq, mid = c.seq, c.view
        c.close()
        srv.stop(signal.SIGTERM)
        srv = ServerProcess(tmp_path, url, port).start()
        c = PatientClient(f"ws://127.0.0.1:{port}/ws")
        c.hello(t["table_id"], t["token"], last_seq=mid_seq)
        sync = c.until(lambda f: f["type"] in ("sync", "events"))
        assert sync["type"] == "sync" and sync["seq"] == mid_seq and sync["view"] == mid

        # The resumed match plays on to the end of the hand, and the log replays.
        if mid["phase"] == "play":
            drive(c, lambda f: f["type"] == "events" and any(e["event"]["kind"] == "hand_end" for e in f["events"]))
        c.close()
    finally:
        srv.stop(signal.SIGTERM)
    store = Store(url)
    row = store.load_match(t["table_id"])
    assert row["record"] is not None and row["record"]["hands"][0]["result"] is not None
    m = replay(row["record"])
    # The hand's deal in the stored record is the deal the player saw.
    dealt = [tuple(x) for x in row["record"]["hands"][0]["deal"]["hands"][0]]
    assert {tuple(x) for x in before["hand"]} <= set(dealt)
    entries = [e for e in row["events"] if e["op"] == "action"]
    plays = [{"seat": a["seat"], "tile": a["play"], "end": a["end"]} for h in m.hands for a in h.actions if "play" in a]
    logged = [{"seat": e["seat"], **e["action"]} for e in entries]
    # The record is written at each hand end; the log may already hold the next hand's first plays.
    assert logged[: len(plays)] == plays and len(plays) >= 10
    store.close()
