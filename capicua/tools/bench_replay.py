"""``python -m capicua.tools.bench_replay``: what replays cost the other tables.

A replay of a long match is megabytes of views to build, serialise and gzip.
This starts a real server process (SQLite, ``python -m capicua.server``) on a
database holding ``--matches`` finished matches to ``--target`` points
(about 20 hands each at 500) (logs written as a table writes them: a guest and three neighbours,
played by the engine), opens one more table with a guest over a websocket and
measures that guest's ``ping`` round trip:

- idle (nothing else asked);
- while all the replays are asked at once, none built yet (cold);
- while they are asked at once again, ``--rounds`` times (the server may keep
  what it built).

Each row prints as its step ends: the round trips (p50, p95, max) and how long
the slowest replay took to arrive, with its size on the wire.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from capicua.engine import Match, make_rules
from capicua.store import Store, default_database_url, tablelogs
from capicua.table.log import Action, Entry, Open, Start, StartHand, match_seed, write_log


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ------------------------------------------------------------------ the matches


def guest_and_neighbours(player: str) -> list[dict[str, Any]]:
    """The seats of a table against the neighbours: guest ``player`` at seat 0."""
    return [
        {"seat": 0, "kind": "human", "name": "Ana", "player": player, "level": "medio", "character": "mima"},
        *({"seat": i, "kind": "bot", "name": ch.title(), "level": "botagorda", "character": ch}
          for i, ch in ((1, "cuca"), (2, "pancho"), (3, "yoli"))),
    ]


def play_match(opening: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The log entries after ``opening`` that play the table's first match to its end, as
    the table writes them (a private table's host starts it first), every choice a random
    legal move; and the match's record."""
    humans = [s["seat"] for s in opening["seats"] if s["kind"] == "human"]
    seed = opening.get("seed") or match_seed(opening["secret"], 1)
    match = Match(make_rules(opening["preset"], **opening["options"]), seed)
    rng = random.Random(seed)
    entries: list[Entry] = [Start()] if opening.get("private") else []
    while match.phase != "match_over":
        if match.hand is None or match.phase == "hand_over":
            entries.append(StartHand(tuple(humans)))
            match.start_hand(frozenset(humans))
            continue
        seat = match.turn
        assert seat is not None
        moves = match.legal_moves()
        move = moves[rng.randrange(len(moves))]
        entries.append(Action(seat, move.to_json(), "human" if seat in humans else "bot"))
        match.apply(seat, move)
    return write_log(entries), match.record()


def store_finished(store: Store, opening: dict[str, Any]) -> dict[str, Any]:
    """A table whose log is ``opening`` and its first match played to the end: its record."""
    entries, record = play_match(opening)
    seed = opening.get("seed") or match_seed(opening["secret"], 1)
    tablelogs.create_table(store, opening, seed, len(record["scores"]))
    append = tablelogs.Append(opening["table"], 2, entries, status="finished", scores=list(record["scores"]),
                              match_number=1, record=record)
    assert tablelogs.append_many(store, [append]) == [None]
    return record


def store_matches(url: str, count: int, target: int) -> list[tuple[str, int]]:
    """``count`` finished tables, matches to ``target``: ``[(table_id, hands)]``."""
    store = Store(url)
    store.migrate()
    made = []
    try:
        player, _ = store.create_player("Ana")
        for i in range(count):
            table_id = f"t_benchreplay{i:04d}"
            seed = f"bench-replay-{i}"
            opening = Open(table_id, "cubano", {"target": target}, "bench-secret-" + seed,
                           tuple(guest_and_neighbours(player)), seed=seed).to_json()
            record = store_finished(store, opening)
            made.append((table_id, len(record["hands"])))
    finally:
        store.close()
    return made


# ------------------------------------------------------------------ the server


class Server:
    """``python -m capicua.server`` in a process of its own."""

    def __init__(self, url: str, log_path: Path) -> None:
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws"
        cmd = [sys.executable, "-m", "capicua.server", "--port", str(self.port), "--database", url,
               "--bot-delay", "0", "--log-level", "warning"]
        self.log = open(log_path, "ab")  # noqa: SIM115 - closed in stop()
        env = dict(os.environ, CAPICUA_RATE_LIMIT="1000,1")  # the probe pings faster than a player plays
        self.proc = subprocess.Popen(cmd, env=env, stdout=self.log, stderr=subprocess.STDOUT)

    async def wait(self, client: Any) -> None:
        for _ in range(600):
            with contextlib.suppress(Exception):  # not listening yet: asked again
                if (await client.get(self.base + "/healthz")).status_code == 200:
                    return
            if self.proc.poll() is not None:
                raise RuntimeError("the server did not start")
            await asyncio.sleep(0.1)
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        self.proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=20)
        if self.proc.poll() is None:
            self.proc.kill()
        self.log.close()


# ------------------------------------------------------------------ measuring


class Probe:
    """Another table's guest: pings over its websocket and keeps each round trip."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.trips: list[float] = []

    async def ping(self) -> None:
        start = time.perf_counter()
        await self.ws.send(json.dumps({"type": "ping"}))
        while True:
            frame = json.loads(await asyncio.wait_for(self.ws.recv(), 120))
            if frame.get("type") == "pong":
                break
            if frame.get("type") == "error":
                raise RuntimeError(f"the probe's ping was refused: {frame}")
        self.trips.append((time.perf_counter() - start) * 1000)

    async def run(self, stop: asyncio.Event, every: float) -> None:
        while not stop.is_set():
            await self.ping()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), every)


async def _replays(client: Any, base: str, tables: list[tuple[str, int]]) -> tuple[float, int, list[int]]:
    """Ask every replay at once: (seconds until the last arrived, bytes on the wire, statuses)."""
    start = time.perf_counter()

    async def one(table_id: str) -> tuple[int, int]:
        # Read as it comes, not unzipped nor parsed: the probe shares this process's loop.
        url = f"{base}/api/replay/{table_id}/1"
        async with client.stream("GET", url, headers={"Accept-Encoding": "gzip"}) as r:
            size = 0
            async for chunk in r.aiter_raw():
                size += len(chunk)
            return r.status_code, size

    got = await asyncio.gather(*(one(t) for t, _ in tables))
    return time.perf_counter() - start, sum(n for _, n in got), [s for s, _ in got]


def _row(name: str, trips: list[float], extra: str = "") -> str:
    ordered = sorted(trips)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return (f"{name:<28} round trip p50 {statistics.median(ordered):7.1f} ms  p95 {p95:7.1f} ms  "
            f"max {ordered[-1]:7.1f} ms  ({len(ordered)} pings){extra}")


async def measure(
    server: Server, tables: list[tuple[str, int]], every: float, idle_s: float, rounds: int
) -> None:
    import httpx
    import websockets

    async with httpx.AsyncClient(timeout=120) as client:
        await server.wait(client)
        created = (await client.post(server.base + "/api/tables", json={"nickname": "Probe"})).json()
        async with websockets.connect(server.ws_url, max_size=2**24) as ws:
            await ws.send(json.dumps({"type": "hello", "table": created["table_id"], "token": created["token"]}))
            probe = Probe(ws)
            await probe.ping()  # the welcome and the first frames are read on the way
            probe.trips.clear()

            stop = asyncio.Event()
            task = asyncio.create_task(probe.run(stop, every))
            await asyncio.sleep(idle_s)
            stop.set()
            await task
            print(_row("idle", probe.trips), flush=True)

            for name, bursts in (("replays asked, cold", 1), (f"replays asked again ×{rounds}", rounds)):
                probe.trips.clear()
                stop = asyncio.Event()
                task = asyncio.create_task(probe.run(stop, every))
                took, size, statuses = [], 0, set()
                for _ in range(bursts):
                    seconds, wire, answers = await _replays(client, server.base, tables)
                    took.append(seconds)
                    size += wire
                    statuses.update(answers)
                stop.set()
                await task
                extra = (f"  · {len(tables)} replays in {max(took) * 1000:.0f} ms at most, "
                         f"{size / bursts / 1e6:.2f} MB on the wire")
                if statuses != {200}:
                    extra += f", statuses {sorted(statuses)}"
                print(_row(name, probe.trips, extra), flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m capicua.tools.bench_replay", description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", type=int, default=10, help="finished matches, all asked at once (default 10)")
    p.add_argument("--target", type=int, default=500, help="each match's target (default 500: about 20 hands)")
    p.add_argument("--every", type=float, default=0.02, help="seconds between the probe's pings (default 0.02)")
    p.add_argument("--idle", type=float, default=2.0, help="seconds of idle round trips first (default 2)")
    p.add_argument("--rounds", type=int, default=10, help="times all are asked again, built (default 10)")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="capicua-benchreplay-") as tmp:
        url = default_database_url(tmp)
        started = time.perf_counter()
        tables = store_matches(url, a.matches, a.target)
        hands = [n for _, n in tables]
        print(f"{len(tables)} finished matches of {min(hands)}-{max(hands)} hands stored "
              f"in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
        server = Server(url, Path(tmp) / "server.log")
        try:
            asyncio.run(measure(server, tables, a.every, a.idle, a.rounds))
        finally:
            server.stop()
            if os.environ.get("CAPICUA_BENCH_SERVER_LOG"):
                Path(os.environ["CAPICUA_BENCH_SERVER_LOG"]).write_bytes((Path(tmp) / "server.log").read_bytes())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
