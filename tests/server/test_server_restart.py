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
from procgroup import spawn, stop_group

from capicua.engine import replay
from capicua.store import Store

pytestmark = pytest.mark.xdist_group("server")

ROOT = Path(__file__).resolve().parents[2]
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
        self.proc = spawn(cmd, self.log, cwd=self.tmp, env=env)
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
        """``sig`` to the server (SIGKILL: a crash), then its bot pool is ended too:
        the next server starts its own, and nothing outlives the test."""
        assert self.proc is not None
        stop_group(self.proc, sig)


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


def test_stop_mid_hand_and_resume(tmp_path: Path, database_url: str) -> None:
    url = database_url  # SQLite and PostgreSQL
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
    row = store.load_table(t["table_id"])
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


def test_four_players_survive_a_sigkill_mid_hand(tmp_path: Path) -> None:
    """Issue 11: a table of four guests; one drops and misses a few plays; the
    server is killed (SIGKILL) mid-hand and restarted: all four come back to
    the same position, nothing is lost or doubled, and the one who dropped
    gets exactly the events it missed."""
    url = f"sqlite:///{tmp_path / 'capicua.sqlite3'}"
    port = free_port()
    srv = ServerProcess(tmp_path, url, port).start()
    try:
        host = httpx.post(srv.base + "/api/tables", json={"nickname": "Ana", "private": True}, timeout=10).json()
        guests = [host["token"]] + [
            httpx.post(srv.base + "/api/players", json={"nickname": n}, timeout=10).json()["token"]
            for n in ("Beto", "Carla", "Dani")
        ]
        tid = host["table_id"]
        clients = [PatientClient(f"ws://127.0.0.1:{port}/ws") for _ in range(4)]
        clients[0].hello(tid, guests[0])
        for i in (1, 2, 3):
            clients[i].hello(tid, guests[i])
            clients[i].send({"type": "sit", "seat": i})
        for c in clients:
            c.settle()
        clients[0].send({"type": "start"})
        for c in clients:
            c.until(lambda f: f["type"] == "events" and any(e["event"]["kind"] == "hand_start" for e in f["events"]))
            c.settle()

        def play_round(active: list[PatientClient], plays: int) -> None:
            """Whoever is on turn among ``active`` plays its first legal move, ``plays`` times."""
            for _ in range(plays):
                for c in active:
                    c.settle()
                mover = next((c for c in active if c.my_turn()), None)
                if mover is None:
                    return
                mover.send({"type": "play", "seq": mover.seq, **mover.view["legal"][0]})
                mover.until(lambda f: f["type"] in ("events", "error"))

        play_round(clients, 3)
        # Dani's phone drops; the others play on without Dani for as long as it isn't Dani's turn.
        dropped_at = clients[3].seq
        clients[3].close()
        others = clients[:3]
        for _ in range(4):
            for c in others:
                c.settle()
            mover = next((c for c in others if c.my_turn()), None)
            if mover is None:
                break
            mover.send({"type": "play", "seq": mover.seq, **mover.view["legal"][0]})
            mover.until(lambda f: f["type"] in ("events", "error"))
        for c in others:
            c.settle()
        before = {i: (c.seq, c.view) for i, c in enumerate(others)}
        assert before[0][1]["phase"] == "play", "the hand should still be going"
        missed_to = before[0][0]
        assert missed_to > dropped_at, "Dani should have missed some events"
        for c in others:
            c.close()

        srv.stop(signal.SIGKILL)
        srv = ServerProcess(tmp_path, url, port).start()
        back = [PatientClient(f"ws://127.0.0.1:{port}/ws") for _ in range(4)]
        for i, c in enumerate(back):
            last = before[i][0] if i < 3 else dropped_at
            assert c.hello(tid, guests[i], last_seq=last)["seat"] == i
            got = c.until(lambda f: f["type"] in ("sync", "events"))
            if i < 3:
                assert got["type"] == "sync" and got["seq"] == before[i][0] and got["view"] == before[i][1]
            else:  # the events Dani missed, in order, from the log: not a fresh sync
                assert got["type"] == "events" and got["replayed"] is True
                assert [e["seq"] for e in got["events"]] == list(range(dropped_at + 1, missed_to + 1))
                assert got["view"]["seat"] == 3 and got["view"]["history"] == before[0][1]["history"]
        for c in back:
            c.close()
    finally:
        srv.stop(signal.SIGTERM)
    store = Store(url)
    row = store.load_table(tid)
    assert row is not None
    actions = [e for e in row["events"] if e["op"] == "action"]
    # No action lost or doubled: the log's plays are exactly the hand's history.
    plays = [(e["seat"], tuple(e["action"]["tile"])) for e in actions]
    assert len(plays) == len(set(plays))
    history = [(h["seat"], tuple(h["play"])) for h in before[0][1]["history"] if "play" in h]
    assert plays == history
    assert [e["op"] for e in row["events"]].count("reopen") == 1
    store.close()
