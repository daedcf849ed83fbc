"""Fit the play model of :mod:`capicua.bots.playmodel` to bots' decisions.

    capicua fit-playmodel --a experto --b dificil --deals 180 --seed col --workers 2

Plays duplicate cubano hands between two levels, records every decision a
search level makes with two or more distinct moves (the ``FEATURES`` of each
move, from the deciding seat's own view, and which one it chose), fits a
conditional logit (softmax over the moves, L2 penalty, Newton steps) on 70%
of them and prints JSON: the coefficients in ``FEATURES`` order (paste them
into ``playmodel.COEFS``), the number of decisions, and the held-out
log-likelihood gain per decision over a uniform choice — next to the best
pip-only softmax, the model the search used before. A progress bar with the
time left goes to stderr; stdout holds the JSON alone. Every decision's seed
comes from sha256 of the run's seed, the deal, the side and the step, so two
runs with the same arguments print the same JSON (whatever the workers).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

import numpy as np
from tqdm import tqdm

from capicua.bots import decide
from capicua.bots.playmodel import FEATURES, legal_moves, model_move, move_features
from capicua.bots.public import public_state
from capicua.bots.search import warmup
from capicua.engine import Match, make_rules, parse_action

Record = tuple[str, Any, int]  # level, features (moves x FEATURES), index of the chosen move


def decision_record(view: dict[str, Any], action: dict[str, Any]) -> tuple[Any, int] | None:
    """(features of every distinct legal move, index of ``action``), or None
    when the seat had fewer than two distinct moves."""
    pub = public_state(view)
    now, hand = pub.now, pub.mine
    moves = legal_moves(pub.r, now, hand)
    if len(moves) < 2 or "tile" not in action:
        return None
    t = pub.move_of(action)[0]
    e = -1 if action.get("end") is None or now.left < 0 else (0 if action["end"] == "left" else 1)
    X = np.array([move_features(pub.r, now, hand, u, end) for u, end in moves], dtype=np.float64)
    return X, moves.index(model_move(now, t, e))


def decision_seed(seed: str, deal: int, swap: int, step: int) -> int:
    """The seed of one decision: the same on every run and in every process."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{deal}:{swap}:{step}".encode()).digest()[:4], "big")


def _collect(args: tuple[str, str, str, int, int]) -> list[Record]:
    a, b, seed, start, stop = args
    rules = make_rules("cubano")
    out: list[Record] = []
    for d in range(start, stop):
        for swap in (0, 1):
            match = Match(rules, seed=f"{seed}/{d}")
            match.start_hand()
            levels = (a, b) if swap == 0 else (b, a)
            k = 0
            while match.phase in ("play", "redeal_question"):
                seat = match.turn
                assert seat is not None
                view = match.view(seat)
                level = levels[seat % 2]
                action = decide(level, view, decision_seed(seed, d, swap, k), None)
                if match.phase == "play" and level in ("dificil", "experto"):
                    rec = decision_record(view, action)
                    if rec is not None:
                        out.append((level, rec[0], rec[1]))
                match.apply(seat, parse_action(action, rules.max_pip))
                k += 1
    return out


def collect(a: str, b: str, deals: int, seed: str, workers: int = 1) -> list[Record]:
    """The search levels' decisions in ``deals`` duplicate hands of ``a`` against ``b``."""
    chunk = max(1, deals // (4 * max(1, workers)))
    jobs = [(a, b, seed, s, min(deals, s + chunk)) for s in range(0, deals, chunk)]
    parts: list[list[Record]] = [[] for _ in jobs]
    with tqdm(total=deals, unit="deal", desc="fit-playmodel", file=sys.stderr) as bar:
        if workers <= 1:
            warmup()
            for i, job in enumerate(jobs):
                parts[i] = _collect(job)
                bar.update(job[4] - job[3])
        else:
            with ProcessPoolExecutor(max_workers=workers, initializer=warmup) as ex:
                futures = {ex.submit(_collect, job): i for i, job in enumerate(jobs)}
                for fut in as_completed(futures):
                    i = futures[fut]
                    parts[i] = fut.result()
                    bar.update(jobs[i][4] - jobs[i][3])
    return [r for p in parts for r in p]


def fit(data: list[tuple[Any, int]], l2: float = 1.0) -> Any:
    """Maximum-likelihood coefficients (raw feature units) of a softmax over
    each decision's moves; features are standardised for the fit."""
    allX = np.vstack([X for X, _ in data])
    mu, sd = allX.mean(axis=0), allX.std(axis=0) + 1e-9
    d = allX.shape[1]
    w = np.zeros(d)
    for _ in range(50):
        g = -l2 * w
        H = -l2 * np.eye(d)
        for X, c in data:
            Z = (X - mu) / sd
            s = Z @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            m = p @ Z
            g += Z[c] - m
            H -= (Z * p[:, None]).T @ Z - np.outer(m, m)
        step = np.linalg.solve(H, g)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w / sd


def gain(data: list[tuple[Any, int]], coefs: Any) -> float:
    """Mean log-likelihood per decision over a uniform choice, in nats."""
    tot = 0.0
    for X, c in data:
        s = X @ coefs
        s = s - s.max()
        tot += float(s[c] - np.log(np.exp(s).sum())) + float(np.log(len(X)))
    return tot / len(data)


def report(records: list[Record], seed: int = 0) -> dict[str, Any]:
    data = [(X, c) for _lv, X, c in records]
    order = np.random.default_rng(seed).permutation(len(data))
    cut = int(0.7 * len(data))
    train = [data[i] for i in order[:cut]]
    test = [data[i] for i in order[cut:]]
    coefs = fit(train)
    pip_only = max(gain(test, np.eye(len(FEATURES))[0] * beta) for beta in (0.1, 0.2, 0.3, 0.5))
    return {
        "features": list(FEATURES),
        "coefs": [round(float(x), 4) for x in coefs],
        "decisions": len(data),
        "decisions_by_level": {lv: sum(1 for r in records if r[0] == lv) for lv in sorted({r[0] for r in records})},
        "heldout_gain_nats_per_decision": round(gain(test, coefs), 4),
        "train_gain_nats_per_decision": round(gain(train, coefs), 4),
        "pip_only_heldout_gain": round(pip_only, 4),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="capicua fit-playmodel", description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", default="experto")
    ap.add_argument("--b", default="dificil")
    ap.add_argument("--deals", type=int, default=180)
    ap.add_argument("--seed", default="col")
    ap.add_argument("--workers", type=int, default=1)
    ns = ap.parse_args(argv)
    records = collect(ns.a, ns.b, ns.deals, ns.seed, ns.workers)
    if len(records) < 50:
        print("capicua fit-playmodel: too few decisions to fit (play more deals)", file=sys.stderr)
        return 2
    print(json.dumps(report(records), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
