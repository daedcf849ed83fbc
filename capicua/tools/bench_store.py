"""``capicua bench-store``: the event log's writes, on the database you name.

``--tables`` tables append to their logs at once, ``--appends`` times each, one
append after another as a table does (it waits for its append before the next,
then ``--pace`` seconds on average: 0, the default, is a storm; a second or so is
a table at a human pace), every ``--projection-every``-th append carrying a
projection (new scores, as at a hand's end). Each configuration of ``--writers`` runs on fresh tables in the same
process, one after the other; the first (by default ``1``: one writer thread for
every table, the StoreLog before issue 12) is the named baseline the others are
compared with. Measured: appends per second (all tables together, wall time) and
each append's latency (from the call to its commit being known) p50/p99.

Progress goes to stderr; the table of results to stdout (``--json`` for JSON).
The database gets the schema (``migrate``) and keeps the tables it wrote.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from capicua.server.adapters.sql import StoreLog, default_writers
from capicua.store import Store, tablelogs
from capicua.table.log import Action, Open, Projection


@dataclass(slots=True)
class Run:
    writers: int
    appends: int
    seconds: float
    cpu_s: float  # this process's CPU (every thread) during the run
    latencies_ms: list[float]

    @property
    def per_s(self) -> float:
        return self.appends / self.seconds

    def quantile(self, q: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    def as_json(self) -> dict[str, Any]:
        return {"writers": self.writers, "appends": self.appends, "seconds": round(self.seconds, 3),
                "appends_per_s": round(self.per_s, 1), "p50_ms": round(self.quantile(0.50), 2),
                "p99_ms": round(self.quantile(0.99), 2), "mean_ms": round(statistics.fmean(self.latencies_ms), 2),
                "cpu_us_per_append": round(1e6 * self.cpu_s / self.appends, 1)}


def _seats() -> list[dict[str, Any]]:
    return [{"seat": s, "kind": "bot", "name": n, "level": "random", "character": n.lower()}
            for s, n in enumerate(("Fefa", "Cuca", "Pancho", "Yoli"))]


def _make_tables(store: Store, count: int) -> list[str]:
    ids = [f"b_{secrets.token_hex(6)}" for _ in range(count)]
    for tid in ids:
        tablelogs.create_table(store, Open(tid, "cubano", {}, "bench", tuple(_seats())).to_json(), "seed", 2)
    return ids


async def _table(
    log: StoreLog, table_id: str, appends: int, every: int, pace_s: float, lat: list[float], tick: Any
) -> None:
    rng = random.Random(table_id)
    if pace_s:
        await asyncio.sleep(rng.uniform(0, pace_s))  # the tables do not all start at once
    for n in range(1, appends + 1):
        if pace_s:
            await asyncio.sleep(rng.uniform(0.5 * pace_s, 1.5 * pace_s))
        entry = Action(n % 4, {"play": [n % 10, 9], "end": "left"}, "human").to_json()
        projection = Projection("playing", [n, 0], 1, None, None) if every and n % every == 0 else None
        t0 = time.perf_counter()
        await log.append(table_id, n, [entry], projection, epoch=1)
        lat.append(1000 * (time.perf_counter() - t0))
        tick()


def run_once(store: Store, writers: int, tables: int, appends: int, every: int, pace_s: float, bar: Any) -> Run:
    ids = _make_tables(store, tables)
    log = StoreLog(store, writers=writers)
    lat: list[float] = []

    async def main() -> float:
        t0 = time.perf_counter()
        await asyncio.gather(*(_table(log, t, appends, every, pace_s, lat, lambda: bar.update(1)) for t in ids))
        return time.perf_counter() - t0

    cpu = time.process_time()
    try:
        seconds = asyncio.run(main())
        cpu = time.process_time() - cpu
    finally:
        log.close()
    return Run(writers, len(lat), seconds, cpu, lat)


def main(argv: list[str] | None = None) -> int:
    from tqdm import tqdm

    p = argparse.ArgumentParser(prog="capicua bench-store", description=__doc__.split("\n\n")[0])
    p.add_argument("--database-url", help="SQLAlchemy URL (default: a new SQLite file in a temp directory)")
    p.add_argument("--tables", type=int, default=64, help="tables appending at once (default 64)")
    p.add_argument("--appends", type=int, default=50, help="appends per table (default 50)")
    p.add_argument("--projection-every", type=int, default=10, help="every Nth append has a projection (0: none)")
    p.add_argument("--pace", type=float, default=0.0,
                   help="seconds a table waits between appends, on average (default 0: as fast as it can)")
    p.add_argument("--writers", default=None,
                   help="writer thread counts to compare, the first the baseline (default: 1 and the database's default)")
    p.add_argument("--repeat", type=int, default=1, help="runs of each configuration, alternating (default 1)")
    p.add_argument("--json", action="store_true", help="print JSON")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="capicua-bench-store-") as tmp:
        url = a.database_url or f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        store = Store(url)
        store.migrate()
        counts = [int(w) for w in a.writers.split(",")] if a.writers else sorted({1, default_writers(store)})
        runs: list[Run] = []
        total = len(counts) * a.repeat * a.tables * a.appends
        with tqdm(total=total, unit="append", file=sys.stderr, desc=store.engine.dialect.name) as bar:
            for _ in range(a.repeat):
                for w in counts:
                    runs.append(run_once(store, w, a.tables, a.appends, a.projection_every, a.pace, bar))
        store.close()
    report = {"database": store.engine.dialect.name, "tables": a.tables, "appends_per_table": a.appends, "pace_s": a.pace,
              "baseline_writers": counts[0], "runs": [r.as_json() for r in runs]}
    if a.json:
        print(json.dumps(report, indent=2))
        return 0
    base = [r for r in runs if r.writers == counts[0]]
    base_rate = statistics.fmean(r.per_s for r in base)
    pace = f", one every {a.pace:g} s" if a.pace else ""
    print(f"{report['database']}: {a.tables} tables x {a.appends} appends{pace}; baseline = {counts[0]} writer(s)")
    print(f"{'writers':>8} {'appends/s':>10} {'vs base':>8} {'p50 ms':>8} {'p99 ms':>8} {'CPU us/append':>14}")
    for r in runs:
        label = f"{r.writers}" + (" (base)" if r.writers == counts[0] else "")
        print(f"{label:>8} {r.per_s:>10.0f} {r.per_s / base_rate:>7.2f}x {r.quantile(0.5):>8.2f} {r.quantile(0.99):>8.2f} {1e6 * r.cpu_s / r.appends:>14.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
