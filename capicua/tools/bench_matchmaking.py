"""``capicua bench-matchmaking``: the parque's queue under a stream of guests.

Starts a real server process (``bench_server.Server``: SQLite by default, or
``--database-url``), then ``--guests`` new guests press "Jugar con gente" at
``--rate`` per second (new players, or with ratings spread over ``--spread``),
each choosing ``--wait`` before neighbours fill their table, and poll their turn every ``--poll`` seconds as the page does, until the
matcher seats them (or ``--timeout`` passes). Measured: the time from a guest's
join to the poll that finds them seated (what a player waits, the poll's own
interval included), p50/p99/max; the tables opened and how many people each
seats; the join's latency; the server's CPU. One row per ``--rates`` step,
each on a fresh server; ``--json``: one JSON object per line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from capicua.tools.bench_server import Server, install_uvloop, percentile


@dataclass
class Run:
    """What one step measured."""

    joins_ms: list[float] = field(default_factory=list)
    seated_s: list[float] = field(default_factory=list)
    tables: Counter[str] = field(default_factory=Counter)  # table id -> guests seated there
    refused: Counter[str] = field(default_factory=Counter)  # error code -> count
    unseated: int = 0


async def guest(client: Any, base: str, n: int, token: str | None, wait: int | None, poll_s: float, timeout_s: float,
                run: Run) -> None:
    """One guest (``token``: made beforehand with a rating; None: a new guest): join, then poll until seated."""
    t0 = time.perf_counter()
    body: dict[str, Any] = {"nickname": f"g{n}", "preset": "cubano", "wait": wait}
    if token is not None:
        body["token"] = token
    r = await client.post(f"{base}/api/parque/queue", json=body)
    run.joins_ms.append((time.perf_counter() - t0) * 1000)
    if r.status_code != 200:
        run.refused[r.json().get("error", {}).get("code", str(r.status_code))] += 1
        return
    headers = {"Authorization": f"Bearer {r.json()['token']}"}
    while time.perf_counter() - t0 < timeout_s:
        await asyncio.sleep(poll_s)
        state = await client.get(f"{base}/api/parque/queue", headers=headers)
        body = state.json()
        if state.status_code == 200 and body.get("state") == "seated":
            run.seated_s.append(time.perf_counter() - t0)
            run.tables[body["table_id"]] += 1
            return
        if state.status_code != 200:
            run.refused[body.get("error", {}).get("code", str(state.status_code))] += 1
            return
    run.unseated += 1


async def step(args: argparse.Namespace, rate: float) -> dict[str, Any]:
    import httpx

    with tempfile.TemporaryDirectory(prefix="capicua-bench-mm-") as tmp:
        settings = {"CAPICUA_DATABASE_URL": args.database_url} if args.database_url else None
        server = Server("0.6,1.5", Path(tmp), settings=settings)
        try:
            limits = httpx.Limits(max_connections=args.connections, max_keepalive_connections=args.connections)
            async with httpx.AsyncClient(timeout=30.0, limits=limits) as client:
                await server.wait(client)
                tokens = await rated_guests(client, server.base, args, Path(tmp)) if args.spread else {}
                cpu0, run = server.cpu_s(), Run()
                started = time.perf_counter()
                wait = None if args.wait == "never" else int(args.wait)
                tasks = []
                for n in range(args.guests):
                    tasks.append(asyncio.create_task(
                        guest(client, server.base, n, tokens.get(n), wait, args.poll, args.timeout, run)))
                    await asyncio.sleep(max(0.0, started + (n + 1) / rate - time.perf_counter()))
                await asyncio.gather(*tasks)
                elapsed = time.perf_counter() - started
                cpu = server.cpu_s() - cpu0
        finally:
            server.stop()
    sizes = Counter(run.tables.values())
    return {
        "guests": args.guests, "rate": rate, "wait": args.wait, "poll_s": args.poll, "spread": args.spread,
        "seated": len(run.seated_s), "unseated": run.unseated, "refused": dict(run.refused),
        "tables": len(run.tables), "people_per_table": {str(k): v for k, v in sorted(sizes.items())},
        "seated_p50_s": round(percentile(run.seated_s, 50), 2), "seated_p99_s": round(percentile(run.seated_s, 99), 2),
        "seated_max_s": round(max(run.seated_s, default=float("nan")), 2),
        "join_p50_ms": round(percentile(run.joins_ms, 50), 1), "join_p99_ms": round(percentile(run.joins_ms, 99), 1),
        "server_cpu_pct": round(100 * cpu / elapsed, 1),
    }


async def rated_guests(client: Any, base: str, args: argparse.Namespace, tmp: Path) -> dict[int, str]:
    """``--guests`` guests made beforehand, each with a rating (μ on the friends' board) drawn
    uniformly within ``--spread`` of a new player's 25, written to the server's database."""
    from datetime import UTC, datetime

    from capicua.store import Store
    from capicua.store.models import RatingRow

    made = {}
    for n in range(args.guests):
        r = await client.post(f"{base}/api/players", json={"nickname": f"g{n}"})
        made[n] = (r.json()["player"], r.json()["token"])
    rng = random.Random(7)
    store = Store(args.database_url or f"sqlite:///{tmp / 'capicua.sqlite3'}")
    now = datetime.now(UTC).replace(tzinfo=None)
    with store.sessions.begin() as s:
        for player, _ in made.values():
            mu = 25.0 + rng.uniform(-args.spread, args.spread)
            s.add(RatingRow(player_id=player, board="friends", mu=mu, sigma=3.0, score=mu - 9.0, matches=10, won=5,
                            updated_at=now))
    store.close()
    return {n: token for n, (_, token) in made.items()}


def render(row: dict[str, Any]) -> str:
    sizes = " ".join(f"{k}:{v}" for k, v in row["people_per_table"].items())
    return (f"{row['rate']:>6g}/s {row['guests']:>6} {row['seated']:>6} {row['unseated']:>5} {row['tables']:>6}  "
            f"{sizes:<14} {row['seated_p50_s']:>6.2f} {row['seated_p99_s']:>6.2f} {row['seated_max_s']:>6.2f}  "
            f"{row['join_p50_ms']:>6.1f} {row['join_p99_ms']:>6.1f} {row['server_cpu_pct']:>6.1f}"
            + (f"  refused {row['refused']}" if row["refused"] else ""))


HEADER = ("  rate   guests seated  lost tables  people:tables  p50 s  p99 s  max s  join50 join99   cpu%\n"
          "                                                  (time to be seated)    (ms)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="capicua bench-matchmaking", description=__doc__.split("\n\n")[0])
    p.add_argument("--guests", type=int, default=400, help="guests who join the queue per step (default 400)")
    p.add_argument("--rates", type=lambda s: [float(x) for x in s.split(",")], default=[2.0, 10.0, 40.0],
                   help="guests joining per second, one step each on a fresh server (default 2,10,40)")
    p.add_argument("--wait", choices=("30", "60", "120", "never"), default="30",
                   help="the wait each guest chooses before neighbours fill the table (default 30)")
    p.add_argument("--poll", type=float, default=2.0, help="seconds between a guest's polls, as the page (default 2)")
    p.add_argument("--timeout", type=float, default=180.0, help="a guest not seated after this gives up (default 180)")
    p.add_argument("--connections", type=int, default=200, help="the load generator's HTTP connections (default 200)")
    p.add_argument("--spread", type=float, default=0.0,
                   help="ratings drawn within ±SPREAD of a new player's 25 (default 0: every guest is new)")
    p.add_argument("--database-url", default=None, help="the server's database (default: a fresh SQLite)")
    p.add_argument("--json", action="store_true", help="one JSON object per line instead of a table")
    args = p.parse_args(argv)
    install_uvloop()
    if not args.json:
        print(HEADER, flush=True)
    failed = False
    for rate in args.rates:
        row = asyncio.run(step(args, rate))
        failed = failed or row["unseated"] > 0 or bool(row["refused"])
        print(json.dumps(row) if args.json else render(row), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
