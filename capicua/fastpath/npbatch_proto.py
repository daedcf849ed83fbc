"""Measurement prototype, not used by the product: cubano random playouts as
numpy batches (N games in lockstep). It exists so that the comparison in
docs/bots-kernel.md can be reproduced: ``python -m capicua.fastpath.npbatch_proto``.
It skips the five-doubles redeal and computes only kind / winner / pips."""

from __future__ import annotations

import time

import numpy as np

from capicua.engine import make_rules
from capicua.engine.fast import fast_rules

r = fast_rules(make_rules("cubano"))
NUM = np.array(r.num_mask, dtype=np.int64)
TA = np.array(r.tile_a, dtype=np.int64)
TB = np.array(r.tile_b, dtype=np.int64)
TP = np.array(r.tile_pips, dtype=np.int64)
DM = np.int64(r.doubles_mask)


def batch(N, rng):
    # deal
    keys = rng.random((N, 55))
    order = np.argsort(keys, axis=1)
    bitv = np.left_shift(np.int64(1), order)
    hands = np.stack(
        [np.bitwise_or.reduce(bitv[:, 10 * s : 10 * s + 10], axis=1) for s in range(4)], axis=1
    )
    # (five-doubles redeal ignored in the prototype)
    left = np.full(N, -1, np.int64)
    right = np.full(N, -1, np.int64)
    turn = rng.integers(0, 4, N)
    passes = np.zeros(N, np.int64)
    active = np.ones(N, bool)
    kind = np.zeros(N, np.int64)
    winner = np.full(N, -1)
    ar = np.arange(N)
    while active.any():
        idx = ar[active]
        t = turn[idx]
        h = hands[idx, t]
        L = left[idx]
        R = right[idx]
        first = L < 0
        ml = np.where(first, h, h & NUM[np.maximum(L, 0)])
        mr = np.where(first, 0, h & NUM[np.maximum(R, 0)])
        nl = np.bitwise_count(ml).astype(np.int64)
        n = nl + np.bitwise_count(mr)
        pas = n == 0
        # passes
        pi = idx[pas]
        passes[pi] += 1
        blocked = pi[passes[pi] >= 4]
        active[blocked] = False
        kind[blocked] = 1
        turn[pi] = (turn[pi] + 1) % 4
        # plays
        go = ~pas
        gi = idx[go]
        h = h[go]
        ml = ml[go]
        mr = mr[go]
        nl = nl[go]
        n = n[go]
        L = L[go]
        R = R[go]
        t = t[go]
        k = (rng.random(len(gi)) * n).astype(np.int64)
        useR = k >= nl
        m = np.where(useR, mr, ml)
        k = np.where(useR, k - nl, k)
        for j in range(10):
            m = np.where(j < k, m & (m - 1), m)
        low = m & -m
        tile = np.frexp(low.astype(np.float64))[1].astype(np.int64) - 1
        a = TA[tile]
        b = TB[tile]
        h2 = h ^ low
        hands[gi, t] = h2
        passes[gi] = 0
        f = L < 0
        inner = np.where(useR, R, L)
        outer = np.where(a == inner, b, a)
        newL = np.where(f, a, np.where(useR, L, outer))
        newR = np.where(f, b, np.where(useR, outer, R))
        left[gi] = newL
        right[gi] = newR
        out = h2 == 0
        oi = gi[out]
        active[oi] = False
        kind[oi] = 0
        winner[oi] = t[out]
        turn[gi] = (t + 1) % 4
    # scoring: pip totals
    pips = np.zeros((N, 4), np.int64)
    for i in range(55):
        pips += ((hands >> i) & 1) * TP[i]
    return kind, winner, pips


def main() -> None:
    rng = np.random.default_rng(1)
    batch(1000, rng)
    for N in (10_000, 100_000):
        t0 = time.perf_counter()
        kind, w, p = batch(N, rng)
        dt = time.perf_counter() - t0
        print(N, "games", N / dt, "playouts/s; domino share", (kind == 0).mean())


if __name__ == "__main__":
    main()
