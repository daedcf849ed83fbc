"""``capicua bench-standings``: the leaderboard and a profile over a database with
``--rows`` results rows (100,000 by default).

Seeds the rows and everything they imply, as the server would have written
them: guests, their tables, the results of matches spread over the last year
(one or two guests against neighbours; some private tables among friends),
the ratings and their history (from :func:`capicua.standings.ratings.rate_match`,
in the order the matches ended), experience and achievements. Then times, in
the same process, a named baseline (a ``SELECT 1`` round trip through a
session) and each query the HTTP API makes: the leaderboard of each board and
period (with the caller's own place) and the profile of the busiest guest and
of a median one. Prints p50/p99 in ms and each as a multiple of the baseline.
Progress goes to stderr; the table to stdout (``--json`` for JSON).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert, text
from tqdm import tqdm

from capicua.standings import achievements as ach
from capicua.standings.levels import level_of, xp_of
from capicua.standings.ratings import Rating, boards_of, rate_board
from capicua.standings.results import SeatResult
from capicua.store import Store, standings
from capicua.store.models import (
    Player,
    PlayerAchievementRow,
    PlayerLevelRow,
    RatingHistoryRow,
    RatingRow,
    ResultRow,
    TableRow,
    TableSeatRow,
)

LEVELS = ("random", "botagorda", "medio", "dificil", "experto")
PRESETS = ("cubano", "cubano", "cubano", "la-plaza")
MATCHES_PER_TABLE = 5
CHUNK = 5000


def _seat_results(rng: random.Random, guests: list[str]) -> list[SeatResult]:
    """One match's four seats: ``guests`` in seats 0 (and 2 or 1), neighbours elsewhere."""
    winner = rng.randrange(2)
    hands = rng.randint(3, 12)
    seats: list[str | None] = [None] * 4
    seats[0] = guests[0]
    if len(guests) > 1:
        seats[rng.choice((1, 2))] = guests[1]
    rivals = rng.choice(LEVELS)
    out = []
    for s in range(4):
        team = s % 2
        won = team == winner
        hands_won = rng.randint(hands // 2 + 1, hands) if won else rng.randint(0, hands // 2)
        dominoes = rng.randint(0, hands_won) // 2
        out.append(SeatResult(
            seat=s, player=seats[s], bot_level=None if seats[s] else (rivals if team == 1 else rng.choice(LEVELS)),
            team=team, points=100 + rng.randint(0, 40) if won else rng.randint(0, 95), won=won,
            pollona=won and rng.random() < 0.05, viajera=False, capicuas=int(rng.random() < 0.2),
            dominoes=dominoes, top_double_out=int(rng.random() < 0.02), tranques_won=int(rng.random() < 0.3),
            hands_won=hands_won, hands_lost=hands - hands_won, hands_played=hands,
            left_for_good=seats[s] is not None and rng.random() < 0.01,
        ))
    return out


def seed(store: Store, rows: int, players: int, rng: random.Random, now: datetime) -> list[str]:
    """``rows`` results rows (4 per match) and what they imply; returns the guests' ids."""
    ids = [f"p_{i:016x}" for i in range(players)]
    weights = [1.0 / (1 + i) ** 0.8 for i in range(players)]  # a few regulars, a long tail
    with store.engine.begin() as conn:
        for i in range(0, players, CHUNK):
            conn.execute(insert(Player), [{"id": p, "nickname": f"Jugador {j}",
                                           "created_at": now - timedelta(days=400)}
                                          for j, p in enumerate(ids[i:i + CHUNK], start=i)])
    matches = rows // 4
    ends = sorted(now - timedelta(seconds=rng.uniform(0, 365 * 86400)) for _ in range(matches))
    ratings: dict[str, dict[str, Rating]] = {"neighbours": {}, "friends": {}}
    xp: dict[str, int] = {}
    totals: dict[str, ach.Totals] = {}
    have: dict[str, set[str]] = {}
    buf: dict[type, list[dict[str, Any]]] = {k: [] for k in (TableRow, TableSeatRow, ResultRow, RatingHistoryRow,
                                                           PlayerAchievementRow)}
    bar = tqdm(total=matches, desc="seeding matches", unit="match", file=sys.stderr)
    for m, at in enumerate(ends):
        number = m % MATCHES_PER_TABLE + 1
        table = f"t_bench{m // MATCHES_PER_TABLE:08d}"
        private = rng.random() < 0.15
        guests = rng.choices(ids, weights, k=2 if private else 1)
        if len(set(guests)) < len(guests):
            guests = guests[:1]
        seat_rows = _seat_results(rng, guests)
        preset = PRESETS[(m // MATCHES_PER_TABLE) % len(PRESETS)]
        if number == 1:
            buf[TableRow].append({"id": table, "preset": preset, "options": {}, "seed": "s", "status": "finished",
                                  "scores": [0, 0], "record": None, "created_at": at, "updated_at": at})
            for r in seat_rows:
                buf[TableSeatRow].append({"table_id": table, "seat": r.seat, "kind": "human" if r.player else "bot",
                                          "player_id": r.player, "name": f"S{r.seat}", "level": r.bot_level,
                                          "character": None})
        humans = len(guests)
        for board in boards_of(private, humans):
            for pid, new in rate_board(board, seat_rows, ratings[board]).items():
                ratings[board][pid] = new
                row = next(r for r in seat_rows if r.player == pid)
                buf[RatingHistoryRow].append({"player_id": pid, "board": board, "table_id": table,
                                              "match_number": number, "at": at, "mu": new.mu, "sigma": new.sigma,
                                              "score": new.score, "won": row.won and not row.left_for_good})
        for r in seat_rows:
            level_before = level_after = None
            gained = 0
            if r.player is not None:
                t = totals.get(r.player, ach.Totals())
                for a in ach.earned(r, seat_rows, t, frozenset(have.setdefault(r.player, set()))):
                    have[r.player].add(a.id)
                    buf[PlayerAchievementRow].append({"player_id": r.player, "achievement": a.id, "table_id": table,
                                                      "match_number": number, "at": at})
                totals[r.player] = ach.Totals(t.dominoes + r.dominoes, t.hands_played + r.hands_played,
                                              t.matches_won + int(r.won and not r.left_for_good))
                level_before = level_of(xp.get(r.player, 0)).number
                gained = xp_of(r)
                xp[r.player] = xp.get(r.player, 0) + gained
                level_after = level_of(xp[r.player]).number
            buf[ResultRow].append({
                "table_id": table, "match_number": number, "seat": r.seat, "player_id": r.player,
                "bot_level": r.bot_level, "team": r.team, "points": r.points, "won": r.won, "pollona": r.pollona,
                "viajera": r.viajera, "capicuas": r.capicuas, "dominoes": r.dominoes,
                "top_double_out": r.top_double_out, "tranques_won": r.tranques_won, "hands_won": r.hands_won,
                "hands_lost": r.hands_lost, "hands_played": r.hands_played, "left_for_good": r.left_for_good,
                "private": private, "humans": humans, "preset": preset, "finished_at": at, "xp": gained,
                "level_before": level_before, "level_after": level_after,
            })
        if len(buf[ResultRow]) >= CHUNK:
            _flush(store, buf)
        bar.update()
    _flush(store, buf)
    bar.close()
    with store.engine.begin() as conn:
        for board, got in ratings.items():
            conn.execute(insert(RatingRow), [
                {"player_id": p, "board": board, "mu": r.mu, "sigma": r.sigma, "score": r.score,
                 "matches": r.matches, "won": r.won, "updated_at": now} for p, r in got.items()
            ] or [])
        if xp:
            conn.execute(insert(PlayerLevelRow), [{"player_id": p, "xp": x, "level": level_of(x).number,
                                                   "updated_at": now} for p, x in xp.items()])
    if store.engine.dialect.name == "postgresql":
        # Fresh statistics and visibility map, as autovacuum keeps them on a live
        # server (it would take a while to notice a bulk load). The store never
        # ANALYZEs SQLite, so neither does the bench: with sqlite_stat1 its planner
        # walks a whole player index to spare a period board's GROUP BY sort (3.8 → 9.8 ms).
        with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("VACUUM ANALYZE"))
    return ids


def _flush(store: Store, buf: dict[type, list[dict[str, Any]]]) -> None:
    with store.engine.begin() as conn:
        for model in (TableRow, TableSeatRow, ResultRow, RatingHistoryRow, PlayerAchievementRow):
            if buf[model]:
                conn.execute(insert(model), buf[model])
                buf[model].clear()


def _time(label: str, fn: Callable[[], Any], repeat: int) -> dict[str, Any]:
    fn()  # warm the caches once
    times = []
    for _ in tqdm(range(repeat), desc=label, file=sys.stderr, leave=False):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {"query": label, "p50_ms": statistics.median(times), "p99_ms": times[min(len(times) - 1, int(0.99 * len(times)))]}


def _board_query(store: Store, board: str, period: str, me: str, now: datetime) -> Callable[[], Any]:
    return lambda: standings.leaderboard(store, board, period, me, now)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="capicua bench-standings", description="the leaderboard and a profile, timed")
    ap.add_argument("--database", default=None, help="SQLAlchemy URL of an empty database (default: SQLite in a temp dir)")
    ap.add_argument("--rows", type=int, default=100_000, help="results rows to seed (100,000)")
    ap.add_argument("--players", type=int, default=3000, help="guests (3,000)")
    ap.add_argument("--repeat", type=int, default=200, help="timed calls per query (200)")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database or f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        store = Store(url)
        store.migrate()
        now = datetime(2026, 12, 1, 12, 0)
        started = time.perf_counter()
        ids = seed(store, args.rows, args.players, random.Random(args.seed), now)
        seeded = time.perf_counter() - started
        with store.sessions() as s:
            counts = {name: s.execute(text(f"SELECT count(*) FROM {name}")).scalar_one()
                      for name in ("results", "ratings", "rating_history", "player_achievements")}
            busiest = s.execute(text("SELECT player_id, count(*) AS n FROM results WHERE player_id IS NOT NULL "
                                     "GROUP BY player_id ORDER BY n DESC, player_id LIMIT 1")).one()
        median_player = ids[len(ids) // 2]

        def ping() -> None:
            with store.sessions() as s:
                s.execute(text("SELECT 1")).scalar_one()

        runs = [_time("baseline: SELECT 1 round trip", ping, args.repeat)]
        for board in ("neighbours", "friends"):
            for period in ("week", "month", "all"):
                runs.append(_time(f"leaderboard {board} {period} (+ my place)",
                                  _board_query(store, board, period, median_player, now), args.repeat))
        runs.append(_time(f"profile, busiest guest ({busiest[1]} matches)",
                          lambda: standings.profile(store, busiest[0]), args.repeat))
        runs.append(_time("profile, a median guest", lambda: standings.profile(store, median_player), args.repeat))
        store.close()
    base = runs[0]["p50_ms"]
    for r in runs:
        r["x_baseline_p50"] = r["p50_ms"] / base if base else None
    report = {"database": url.split(":", 1)[0], "seed_seconds": round(seeded, 1), "rows": counts, "runs": runs}
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"database {report['database']}; seeded in {report['seed_seconds']} s: "
          + ", ".join(f"{v:,} {k}" for k, v in counts.items()))
    print(f"{'query':<48} {'p50 ms':>8} {'p99 ms':>8} {'x SELECT 1':>11}")
    for r in runs:
        print(f"{r['query']:<48} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} {r['x_baseline_p50']:>11.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
