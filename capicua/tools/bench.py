"""``capicua bench``: random-playout throughput on one core.

Every figure is a random playout *from a fresh deal to the end of the hand*,
measured in this one process, one after the other:

* ``kernel`` — the numba kernel (:func:`capicua.bots.kernel.fresh_deals.random_hands`),
  after a warm-up that compiles it or loads it from numba's cache (its time
  is reported separately, never counted);
* ``fast`` — the pure-Python fast path (:class:`capicua.engine.compact.FastState`
  dealt with :meth:`~capicua.engine.compact.FastState.deal`, then
  :func:`~capicua.engine.compact.random_playout`);
* ``baseline`` — the naive way: a rich :class:`capicua.engine.Match` per deal
  (``Match(rules, seed)``, ``start_hand()``), a uniform random legal move
  until the hand is over.

Ratios are against the baseline measured in the same run. The fast path's
apply/undo rate (one ``apply`` + one ``undo`` per operation, from random
mid-hand positions) is reported too. Performance is printed, never asserted.

Usage: ``capicua bench [--seconds S] [--presets cubano,la-plaza] [--json] [--skip-cold-compile]``.
The kernel's compile time is measured in a fresh process with an empty numba
cache; the in-process warm-up (a cache load once compiled) is reported too.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

from capicua.engine import Match, make_rules
from capicua.engine.compact import FastState, random_playout

TARGET_CUBANO = 30_000


def _rate(run: Callable[[int], int], seconds: float, first: int = 1) -> tuple[float, int, float]:
    """Call ``run(n)`` (it plays n hands, returns how many) with growing n until
    ``seconds`` have passed; returns (per second, count, elapsed)."""
    n = first
    done = 0
    t0 = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        done += run(n)
        elapsed = time.perf_counter() - t0
        if elapsed < seconds / 4:
            n *= 2
    return done / elapsed, done, elapsed


def bench_baseline(preset: str, seconds: float, seed: int = 1) -> dict[str, Any]:
    rules = make_rules(preset)
    rng = random.Random(seed)
    counter = [0]

    def run(n: int) -> int:
        for _ in range(n):
            counter[0] += 1
            match = Match(rules, seed=f"bench-{seed}-{counter[0]}")
            match.start_hand()
            while match.phase == "play":
                moves = match.legal_moves()
                seat = match.turn
                assert seat is not None
                match.apply(seat, moves[rng.randrange(len(moves))])
        return n

    per_s, count, elapsed = _rate(run, seconds)
    return {"playouts_per_s": per_s, "playouts": count, "seconds": elapsed}


def bench_fast(preset: str, seconds: float, seed: int = 2) -> dict[str, Any]:
    rules = make_rules(preset)
    rng = random.Random(seed)

    def run(n: int) -> int:
        for _ in range(n):
            random_playout(FastState.deal(rules, rng), rng)
        return n

    per_s, count, elapsed = _rate(run, seconds, first=16)
    return {"playouts_per_s": per_s, "playouts": count, "seconds": elapsed}


def bench_apply_undo(preset: str, seconds: float, seed: int = 3) -> dict[str, Any]:
    """apply+undo pairs per second on the fast path, over random mid-hand positions."""
    rules = make_rules(preset)
    rng = random.Random(seed)
    positions: list[tuple[FastState, list[tuple[int, int]]]] = []
    while len(positions) < 200:
        st = FastState.deal(rules, rng)
        for _ in range(rng.randrange(12)):
            if st.result is not None:
                break
            moves = st.legal_moves()
            st.play(moves[rng.randrange(len(moves))])
        if st.result is None:
            positions.append((st, st.legal_moves()))

    def run(n: int) -> int:
        ops = 0
        for _ in range(n):
            for st, moves in positions:
                for m in moves:
                    st.undo(st.apply(m))
                    ops += 1
        return ops

    per_s, count, elapsed = _rate(run, seconds)
    return {"apply_undo_per_s": per_s, "operations": count, "seconds": elapsed}


def bench_kernel(preset: str, seconds: float, seed: int = 4, p: float = 0.0) -> dict[str, Any]:
    from capicua.bots.kernel.fresh_deals import random_hands
    from capicua.bots.kernel.params import kernel_rules

    R = kernel_rules(make_rules(preset))
    calls = [0]

    def run(n: int) -> int:
        calls[0] += 1
        random_hands(R, n, seed + calls[0], p)
        return n

    per_s, count, elapsed = _rate(run, seconds, first=1024)
    return {"playouts_per_s": per_s, "playouts": count, "seconds": elapsed}


def cold_compile_seconds() -> float:
    """Kernel warm-up in a fresh process with an empty numba cache (a true compile)."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        code = (
            "from capicua.bots.kernel.fresh_deals import warmup; "
            "from capicua.bots.kernel.warmup import warmup_playouts; print(warmup_playouts() + warmup())"
        )
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        return float(out.stdout.strip().splitlines()[-1])


def _pin_one_core() -> int | None:
    """Run on one CPU (the playouts are single-threaded anyway); returns it, or None."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    try:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[-1]})
        return cpus[-1]
    except OSError:  # not allowed to pin here: the run is not pinned (its report says cpu null)
        return None


def run_bench(presets: Sequence[str], seconds: float, cold: bool = False) -> dict[str, Any]:
    report: dict[str, Any] = {"cpu": _pin_one_core(), "seconds_per_figure": seconds, "presets": {}}
    t0 = time.perf_counter()
    from capicua.bots.kernel.fresh_deals import warmup as warmup_fresh_deals
    from capicua.bots.kernel.warmup import warmup_playouts

    report["kernel_import_s"] = time.perf_counter() - t0
    # compile, or load from numba's cache: the bots' playouts and the fresh deals timed here
    report["kernel_warmup_s"] = warmup_playouts() + warmup_fresh_deals()
    if cold:
        report["kernel_cold_compile_s"] = cold_compile_seconds()
    for preset in presets:
        base = bench_baseline(preset, seconds)
        fast = bench_fast(preset, seconds)
        kern = bench_kernel(preset, seconds)
        pol = bench_kernel(preset, seconds, p=0.5)
        undo = bench_apply_undo(preset, seconds)
        b = base["playouts_per_s"]
        report["presets"][preset] = {
            "baseline": base,
            "fast": dict(fast, ratio=fast["playouts_per_s"] / b),
            "kernel": dict(kern, ratio=kern["playouts_per_s"] / b),
            "kernel_policy_p0.5": dict(pol, ratio=pol["playouts_per_s"] / b),
            "fast_apply_undo": undo,
        }
    if "cubano" in report["presets"]:
        k = report["presets"]["cubano"]["kernel"]["playouts_per_s"]
        report["target_cubano_playouts_per_s"] = TARGET_CUBANO
        report["target_met"] = k >= TARGET_CUBANO
    return report


def _readable(report: dict[str, Any]) -> str:
    lines = [
        f"one core (cpu {report['cpu']}), {report['seconds_per_figure']:.1f} s per figure; "
        f"random playouts from a fresh deal to the end of the hand",
        f"kernel import {report['kernel_import_s']:.2f} s, warm-up (compile or cache load) "
        f"{report['kernel_warmup_s']:.2f} s"
        + (f", cold compile {report['kernel_cold_compile_s']:.1f} s" if "kernel_cold_compile_s" in report else ""),
    ]
    for preset, fig in report["presets"].items():
        lines.append(f"\n{preset}")
        lines.append(f"  baseline (rich Match)   {fig['baseline']['playouts_per_s']:>12,.0f} playouts/s   1.0x")
        for key, label in (
            ("fast", "fast path (Python)"),
            ("kernel", "kernel (numba)"),
            ("kernel_policy_p0.5", "kernel, policy p=0.5"),
        ):
            lines.append(f"  {label:<23} {fig[key]['playouts_per_s']:>12,.0f} playouts/s   {fig[key]['ratio']:,.1f}x")
        lines.append(f"  fast apply+undo         {fig['fast_apply_undo']['apply_undo_per_s']:>12,.0f} ops/s")
    if "target_met" in report:
        lines.append(
            f"\ntarget {report['target_cubano_playouts_per_s']:,} cubano playouts/s: "
            + ("met" if report["target_met"] else "NOT met")
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="capicua bench", description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=1.5, help="time per figure (default 1.5)")
    parser.add_argument("--presets", default="cubano,la-plaza", help="comma-separated presets (line layouts)")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    parser.add_argument(
        "--skip-cold-compile",
        action="store_true",
        help="do not time a full compile (a fresh process with an empty numba cache, ~10 s)",
    )
    args = parser.parse_args(list(argv) if argv is not None else None)
    presets = [p.strip() for p in args.presets.split(",") if p.strip()]
    report = run_bench(presets, args.seconds, cold=not args.skip_cold_compile)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(_readable(report))
        print(json.dumps(report))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
