"""Duplicate-deal bot tournaments: ``capicua tournament``.

::

    capicua tournament --preset cubano --a dificil --b botagorda --hands 4000 --seed 1 --workers 2

Every deal is played twice, the sides swapping seats, so the luck of the
deal cancels: deal ``d`` comes from the Match seed ``"<S>/<d>"``; in the
first play side A holds seats 0 and 2 (the even seats) and side B seats 1
and 3, in the second play the other way round. ``--hands N`` is the number
of *duplicate hands* (deals), so ``2 N`` hands are played. A level's partner
is the same level. Non-partnership games (mano-a-mano, all-fives…) are
played the same way with the even / odd seats as the sides.

A hand is won by the side that scored more points in it (in-play points
included); equal points (a tied tranque) is a tie. The 95% interval on the
share of decided hands won by A is Wilson's, treating hands as independent
(duplicate pairs are negatively correlated, so this is conservative).

The match-to-target win rate is *estimated* by simulation: whole matches to
the preset's target are resampled from the observed duplicate pairs (each
simulated hand draws one observed hand at random, from either seating).
``--matches M`` additionally plays M real whole matches (sides alternating
seats) and reports their result.

Decision time is CPU time (``time.process_time``) per call of the bot,
including trivial one-move decisions.

While it runs, a progress bar with the time left goes to stderr (deals, then
matches); stdout holds only the JSON.

A long run can be played in shards and merged: deal ``d``'s hands depend only
on the seed, ``d`` and the code, so ``--first-deal 1000 --hands 3000`` plays
exactly the deals 1000–3999 of ``--hands 4000``, and ``--merge`` joins
``--per-hand`` shards (same preset, levels, seed, budgets and options;
contiguous deals) into the summary of the whole run::

    capicua tournament --a experto --b dificil --hands 1000 --seed 1 --per-hand > s0.json
    capicua tournament --a experto --b dificil --hands 3000 --first-deal 1000 --seed 1 --per-hand > s1.json
    capicua tournament --merge s0.json s1.json
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, NamedTuple, TypeVar

from tqdm import tqdm

from capicua.bots import CHEATING_LEVELS, LEVELS, decide, decide_cheating, search_options, warmup
from capicua.engine import Match, make_rules, parse_action


def _seed_int(*parts: Any) -> int:
    return zlib.crc32("/".join(str(p) for p in parts).encode())


Options = dict[str, Any] | None


def _decide(level: str, match: Match, seat: int, seed: int, budget: float | None, options: Options) -> dict[str, Any]:
    if level in CHEATING_LEVELS:
        return decide_cheating(match, seat, seed, budget)
    return decide(level, match.view(seat), seed, budget, options)


def _play_hand(
    match: Match, levels: list[str], budgets: list[float | None], tag: str, times: list[list[float]],
    options: list[Options] | None = None,
) -> list[int]:
    """Play the current hand of ``match``; seat s uses levels[s % 2]. Returns
    points gained per side (even seats, odd seats)."""
    rules = match.rules
    before = list(match.scores)
    k = 0
    while match.phase in ("play", "redeal_question"):
        seat = match.turn
        assert seat is not None
        side = seat % 2
        t0 = time.process_time()
        action = _decide(levels[side], match, seat, _seed_int(tag, k), budgets[side],
                         options[side] if options else None)
        times[side].append(time.process_time() - t0)
        match.apply(seat, parse_action(action, rules.max_pip))
        k += 1
    gained = [0, 0]
    for team in range(rules.teams):
        seat = rules.seats_of_team(team)[0]
        gained[seat % 2] += match.scores[team] - before[team]
    return gained


Job = tuple[str, str, str, str, int, int, float | None, float | None, Options, Options]
# advance(n): n more deals (or matches) are played; a progress bar's update.
Advance = Callable[[int], object]
Result = TypeVar("Result")


def _run_deals(args: Job, advance: Advance | None = None) -> dict[str, Any]:
    preset, a, b, seed, start, stop, budget_a, budget_b, opt_a, opt_b = args
    rules = make_rules(preset)
    pairs = []
    times: dict[str, list[float]] = {"a": [], "b": []}
    for d in range(start, stop):
        pair = []
        for swap in (0, 1):
            match = Match(rules, seed=f"{seed}/{d}")
            match.start_hand()
            if swap == 0:
                levels, budgets, opts = [a, b], [budget_a, budget_b], [opt_a, opt_b]
            else:
                levels, budgets, opts = [b, a], [budget_b, budget_a], [opt_b, opt_a]
            side_times: list[list[float]] = [[], []]
            gained = _play_hand(match, levels, budgets, f"{seed}/{d}/{swap}", side_times, opts)
            if swap == 0:
                pa, pb = gained
                times["a"] += side_times[0]
                times["b"] += side_times[1]
            else:
                pb, pa = gained
                times["a"] += side_times[1]
                times["b"] += side_times[0]
            pair.append((pa, pb))
        pairs.append(pair)
        if advance:
            advance(1)
    return {"pairs": pairs, "times": times}


def _run_matches(args: Job, advance: Advance | None = None) -> list[int]:
    """Whole matches; returns 1 when side A won each."""
    preset, a, b, seed, start, stop, budget_a, budget_b, opt_a, opt_b = args
    rules = make_rules(preset)
    out = []
    for m in range(start, stop):
        swap = m % 2
        levels = [a, b] if swap == 0 else [b, a]
        budgets = [budget_a, budget_b] if swap == 0 else [budget_b, budget_a]
        opts = [opt_a, opt_b] if swap == 0 else [opt_b, opt_a]
        match = Match(rules, seed=f"{seed}/match/{m}")
        times: list[list[float]] = [[], []]
        h = 0
        while match.phase != "match_over":
            match.start_hand()
            _play_hand(match, levels, budgets, f"{seed}/match/{m}/{h}", times, opts)
            h += 1
        assert match.match_result is not None
        winner_seat = rules.seats_of_team(match.match_result["winner"])[0]
        out.append(1 if winner_seat % 2 == swap else 0)
        if advance:
            advance(1)
    return out


def _run_jobs(work: Callable[[Job, Advance | None], Result], jobs: list[Job], workers: int,
              advance: Advance) -> list[Result]:
    """``work`` on every job, the results in the jobs' order. In this process
    ``advance`` follows every deal or match; from worker processes it can only
    follow whole jobs, as their results come back."""
    if workers == 1:
        return [work(job, advance) for job in jobs]
    with ProcessPoolExecutor(max_workers=workers, initializer=warmup) as ex:
        futures = {ex.submit(work, job, None): job for job in jobs}
        for done in as_completed(futures):
            _, _, _, _, start, stop, *_ = futures[done]
            advance(stop - start)
        return [f.result() for f in futures]


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, centre - half), min(1.0, centre + half))


def _stats_ms(xs: list[float]) -> dict[str, float]:
    if not xs:
        return {"mean_ms": 0.0, "p95_ms": 0.0, "max_ms": 0.0, "decisions": 0}
    s = sorted(xs)
    p95 = s[min(len(s) - 1, int(math.ceil(0.95 * len(s))) - 1)]
    return {
        "mean_ms": round(1000 * sum(s) / len(s), 3),
        "p95_ms": round(1000 * p95, 3),
        "max_ms": round(1000 * s[-1], 3),
        "decisions": len(s),
    }


def estimate_match_win(hands: list[tuple[int, int]], target: int, n: int = 20000, seed: int = 0) -> float:
    """Share of simulated matches to ``target`` won by A, each hand drawn at
    random from the observed (points A, points B) hands."""
    if not hands:
        return 0.5
    rng = random.Random(seed)
    wins = 0
    for _ in range(n):
        sa = sb = 0
        for _guard in range(100000):
            pa, pb = hands[rng.randrange(len(hands))]
            sa += pa
            sb += pb
            if (sa >= target or sb >= target) and sa != sb:
                break
        wins += sa > sb
    return wins / n


def run(
    preset: str,
    a: str,
    b: str,
    hands: int,
    seed: str,
    workers: int = 1,
    budget_a: float | None = None,
    budget_b: float | None = None,
    matches: int = 0,
    options_a: Options = None,
    options_b: Options = None,
    per_hand: bool = False,
    progress: bool = False,
    first_deal: int = 0,
) -> dict[str, Any]:
    """Play the tournament and return the JSON-able summary. ``options_a`` /
    ``options_b`` override fields of a search level's Config (experiments).
    ``per_hand`` adds ``hand_points``: [A points, B points] of every hand in
    deal order (deal d's two seatings at 2d and 2d + 1), so that two runs on
    the same seed can be compared deal by deal. ``progress`` shows progress
    bars on stderr. The deals played are ``first_deal`` to ``first_deal + hands - 1``;
    with ``per_hand`` every decision's CPU seconds are kept too, so that shards
    can be merged (:func:`merge`)."""
    for lv in (a, b):
        if lv not in LEVELS and lv not in CHEATING_LEVELS:
            raise ValueError(f"unknown level {lv!r}; levels: {', '.join(LEVELS + CHEATING_LEVELS)}")
    opt_a = search_options(a, options_a) if options_a else None
    opt_b = search_options(b, options_b) if options_b else None
    make_rules(preset)  # an unknown preset is refused before any worker starts
    workers = max(1, workers)
    chunk = max(1, min(25, math.ceil(hands / (4 * workers))))
    stop = first_deal + hands
    jobs: list[Job] = [(preset, a, b, seed, s, min(stop, s + chunk), budget_a, budget_b, opt_a, opt_b)
                       for s in range(first_deal, stop, chunk)]
    t0 = time.time()
    if workers == 1:
        warmup()
    with tqdm(total=hands, desc="deals", unit="deal", file=sys.stderr, disable=not progress) as bar:
        parts = _run_jobs(_run_deals, jobs, workers, bar.update)
    match_results: list[int] = []
    if matches:
        # A cubano match is about five hands: ten matches a job weigh about
        # what 25 deals (50 hands) do, so the bar moves about as often in
        # both phases, even with slow levels.
        mchunk = max(1, min(10, math.ceil(matches / (4 * workers))))
        mjobs: list[Job] = [(preset, a, b, seed, s, min(matches, s + mchunk), budget_a, budget_b, opt_a, opt_b)
                            for s in range(0, matches, mchunk)]
        with tqdm(total=matches, desc="matches", unit="match", file=sys.stderr, disable=not progress) as bar:
            for r in _run_jobs(_run_matches, mjobs, workers, bar.update):
                match_results += r
    wall = time.time() - t0
    played: list[tuple[int, int]] = []
    times: dict[str, list[float]] = {"a": [], "b": []}
    for p in parts:
        for pair in p["pairs"]:
            played += [(int(x[0]), int(x[1])) for x in pair]
        times["a"] += p["times"]["a"]
        times["b"] += p["times"]["b"]
    meta = {"preset": preset, "a": a, "b": b, "seed": seed, "budget_ms_a": budget_a, "budget_ms_b": budget_b,
            "options_a": opt_a, "options_b": opt_b, "first_deal": first_deal}
    out = _summary(meta, played, times, workers, wall, per_hand)
    if matches:
        mw = sum(match_results)
        mlo, mhi = wilson(mw, len(match_results))
        out["matches_played"] = len(match_results)
        out["a_match_win_rate_played"] = round(mw / len(match_results), 4)
        out["a_match_win_rate_played_ci95"] = [round(mlo, 4), round(mhi, 4)]
    return out


def _summary(meta: dict[str, Any], played: list[tuple[int, int]], times: dict[str, list[float]], workers: int,
             wall: float, per_hand: bool) -> dict[str, Any]:
    """The JSON summary of the hands ``played`` (two per deal, in deal order)."""
    rules = make_rules(meta["preset"])
    wa = sum(1 for pa, pb in played if pa > pb)
    wb = sum(1 for pa, pb in played if pb > pa)
    ties = len(played) - wa - wb
    decided = wa + wb
    lo, hi = wilson(wa, decided)
    margins = [pa - pb for pa, pb in played]
    mean_margin = sum(margins) / len(margins) if margins else 0.0
    sd = math.sqrt(sum((m - mean_margin) ** 2 for m in margins) / max(1, len(margins) - 1)) if margins else 0.0
    # Duplicate pairs as the unit for the margin's interval.
    pair_m = [margins[i] + margins[i + 1] for i in range(0, len(margins) - 1, 2)]
    pm = sum(pair_m) / len(pair_m) if pair_m else 0.0
    psd = math.sqrt(sum((x - pm) ** 2 for x in pair_m) / max(1, len(pair_m) - 1)) if pair_m else 0.0
    half = 1.96 * psd / math.sqrt(len(pair_m)) / 2 if pair_m else 0.0
    out: dict[str, Any] = {
        **meta,
        "duplicate_hands": len(played) // 2,
        "hands_played": len(played),
        "a_wins": wa,
        "b_wins": wb,
        "ties": ties,
        "a_win_rate_decided": round(wa / decided, 4) if decided else None,
        "a_win_rate_ci95": [round(lo, 4), round(hi, 4)],
        "a_points_per_hand": round(sum(pa for pa, _ in played) / len(played), 3) if played else 0.0,
        "b_points_per_hand": round(sum(pb for _, pb in played) / len(played), 3) if played else 0.0,
        "a_margin_per_hand": round(mean_margin, 3),
        "a_margin_per_hand_ci95": [round(mean_margin - half, 3), round(mean_margin + half, 3)],
        "margin_sd": round(sd, 3),
        "match_target": rules.target,
        "a_match_win_rate_estimated": round(estimate_match_win(played, rules.target, seed=_seed_int(meta["seed"])), 4),
        "match_win_rate_method": "simulated matches resampling the observed hands (not played)",
        "decision_time_a": _stats_ms(times["a"]),
        "decision_time_b": _stats_ms(times["b"]),
        "workers": workers,
        "wall_seconds": round(wall, 1),
    }
    if per_hand:
        out["hand_points"] = [[pa, pb] for pa, pb in played]
        out["decision_seconds_a"] = [round(x, 6) for x in times["a"]]
        out["decision_seconds_b"] = [round(x, 6) for x in times["b"]]
    return out


MERGE_KEYS = ("preset", "a", "b", "seed", "budget_ms_a", "budget_ms_b", "options_a", "options_b")


class _PerHandPart(NamedTuple):
    """What :func:`merge` reads of one shard, checked."""

    first_deal: int
    hand_points: list[tuple[int, int]]
    seconds_a: list[float]
    seconds_b: list[float]
    workers: int
    wall_seconds: float


def _per_hand_part(sh: dict[str, Any]) -> _PerHandPart:
    """The per-hand data of a shard; ValueError when it is malformed (a
    shard is a file someone may have edited, so nothing here is trusted)."""
    try:
        part = _PerHandPart(int(sh.get("first_deal", 0)),
                            [(int(pa), int(pb)) for pa, pb in sh["hand_points"]],
                            [float(x) for x in sh["decision_seconds_a"]],
                            [float(x) for x in sh["decision_seconds_b"]],
                            int(sh.get("workers", 1)), float(sh.get("wall_seconds", 0.0)))
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"a shard's per-hand data is malformed: {e!r}") from e
    if len(part.hand_points) % 2:
        raise ValueError("a shard's per-hand data is malformed: an odd number of hands (each deal is played twice)")
    return part


def merge(shards: list[dict[str, Any]]) -> dict[str, Any]:
    """One summary of ``--per-hand`` runs of contiguous deals of the same
    tournament: the summary the whole run prints (the same hands; decision
    times to the microsecond; wall seconds summed). Raises ValueError when
    the shards are not parts of one tournament."""
    if not shards:
        raise ValueError("nothing to merge")
    for sh in shards:
        if "hand_points" not in sh or "decision_seconds_a" not in sh:
            raise ValueError("merge needs runs made with --per-hand")
        if "matches_played" in sh:
            raise ValueError("played matches (--matches) are not merged; run them apart")
        for k in MERGE_KEYS:
            if sh.get(k) != shards[0].get(k):
                raise ValueError(f"the shards differ in {k}: {sh.get(k)!r} against {shards[0].get(k)!r}")
    parts = sorted((_per_hand_part(sh) for sh in shards), key=lambda part: part.first_deal)
    deal = parts[0].first_deal
    played: list[tuple[int, int]] = []
    times: dict[str, list[float]] = {"a": [], "b": []}
    for part in parts:
        if part.first_deal != deal:
            raise ValueError(f"the shards are not contiguous: deal {deal} is followed by deal {part.first_deal}")
        played += part.hand_points
        times["a"] += part.seconds_a
        times["b"] += part.seconds_b
        deal += len(part.hand_points) // 2
    meta = {k: shards[0].get(k) for k in MERGE_KEYS} | {"first_deal": parts[0].first_deal}
    out = _summary(meta, played, times, max(part.workers for part in parts),
                   sum(part.wall_seconds for part in parts), per_hand=True)
    out["merged_from"] = len(shards)
    return out


def _parse_options(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ValueError(f"option {item!r} is not KEY=VALUE")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:  # not JSON: the value is the text itself
            out[key] = raw
    return out


def _load_shard(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"cannot read {path}: {e}") from e
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a tournament summary")
    return data


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="capicua tournament", description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="cubano")
    ap.add_argument("--a", help="level of side A")
    ap.add_argument("--b", help="level of side B")
    ap.add_argument("--hands", type=int, default=100, help="duplicate hands (deals); 2x as many hands are played")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--first-deal", type=int, default=0, help="play deals FIRST_DEAL .. FIRST_DEAL + HANDS - 1 (shards)")
    ap.add_argument("--merge", nargs="+", metavar="FILE", help="merge the JSON of --per-hand shards and print it")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--budget-ms-a", type=float, default=None)
    ap.add_argument("--budget-ms-b", type=float, default=None)
    ap.add_argument("--matches", type=int, default=0, help="also play this many whole matches")
    ap.add_argument("--option-a", action="append", default=[], metavar="KEY=VALUE",
                    help="override a search Config field of side A (JSON value), e.g. gorda=false; repeatable")
    ap.add_argument("--option-b", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--per-hand", action="store_true",
                    help="add hand_points, every hand's [A, B] points in deal order, and every decision's CPU seconds "
                         "(for paired comparisons and --merge)")
    ns = ap.parse_args(argv)
    try:
        if ns.merge:
            out = merge([_load_shard(f) for f in ns.merge])
        else:
            if not ns.a or not ns.b:
                raise ValueError("--a and --b are required (or --merge FILE...)")
            if ns.first_deal < 0 or ns.hands < 1:
                raise ValueError("--first-deal must be 0 or more and --hands 1 or more")
            oa, ob = _parse_options(ns.option_a), _parse_options(ns.option_b)
            out = run(ns.preset, ns.a, ns.b, ns.hands, ns.seed, ns.workers, ns.budget_ms_a, ns.budget_ms_b,
                      ns.matches, oa, ob, ns.per_hand, progress=True, first_deal=ns.first_deal)
    except ValueError as e:
        print(f"capicua tournament: {e}", file=sys.stderr)
        return 2
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
