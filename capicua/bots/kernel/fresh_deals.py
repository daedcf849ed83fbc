"""Fresh deals played out: ``n`` random deals of the rules' first hand (its
redeals and its opener: a random seat, or the highest double's holder), each
played to the end of the hand. This is what ``capicua bench`` times.

For the benchmark and the tests only: no bot plays a fresh deal, so no bot
worker imports this module or compiles it (:func:`capicua.bots.kernel.warmup.warmup`
leaves it out; ``capicua bench`` calls :func:`warmup`). Its deal restates the
engine's for speed (numba); ``tests/bots/test_fresh_deals.py`` holds it to
:mod:`capicua.engine.deal` (the deals the rules void, the opener, the
required opening tile).

``random_hands(R, n, seed, p=0.0)`` -> int64 (n, RESULT_COLS), the
heaviest-tile policy; ``random_hands_smart(R, n, seed, q, weights, soft)``
the scored policies, each team with its own row of ``weights`` (duplicate
deals: the deals depend on the seed only).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from capicua.bots.kernel.bits import clz, popcount
from capicua.bots.kernel.jit import cached_njit
from capicua.bots.kernel.params import (
    P_DOUBLES,
    P_HANDSIZE,
    P_NTILES,
    P_OPENER,
    P_PLAYERS,
    P_REDEAL5,
    RESULT_COLS,
)
from capicua.bots.kernel.playout import playout, scratch
from capicua.bots.kernel.policies import POLICY_HEAVIEST, Rollout, heaviest_rollout, scored_rollout
from capicua.bots.kernel.rng import below, seed63, seed_stream


@cached_njit()
def _deal(R: Any, rng: Any, order: Any, hands: Any) -> Any:
    """Shuffle ``order`` into a fresh deal (re-dealt while it is void under the
    rules), fill ``hands`` with the seats' masks (the boneyard is
    ``order[players * size:]``) and return (opener, required opening tile or -1)."""
    players = R[P_PLAYERS]
    ntiles = R[P_NTILES]
    size = R[P_HANDSIZE]
    dmask = R[P_DOUBLES]
    opener_rule = R[P_OPENER]
    while True:
        for j in range(ntiles - 1, 0, -1):
            k = below(rng, j + 1)
            x = order[j]
            order[j] = order[k]
            order[k] = x
        ok = True
        anydouble = False
        for s in range(players):
            m = np.int64(0)
            for j in range(s * size, (s + 1) * size):
                m |= np.int64(1) << order[j]
            hands[s] = m
            nd = popcount(m & dmask)
            if nd > 0:
                anydouble = True
            if R[P_REDEAL5] and nd >= 5:
                ok = False
        if opener_rule != 0 and not anydouble:
            ok = False
        if ok:
            break
    required = -1
    if opener_rule == 0:
        opener = below(rng, players)
    else:
        opener = 0
        best = -1
        for s in range(players):
            d = hands[s] & dmask
            if d != 0:
                top = 63 - clz(d)
                if top > best:
                    best = top
                    opener = s
        if opener_rule == 2:
            required = best
    return opener, required


@cached_njit(nrt=False)
def _random_hands(
    R: Any, n: Any, seed: Any, policy: Any, q: Any, W: Any, order: Any, table: Any, play_rng: Any,
    out: Any, hands: Any, pm: Any, om: Any, tm: Any, buf: Any, ibuf: Any, totals: Any, tt: Any, deal_rng: Any,
) -> None:
    """``n`` fresh deals played out into ``out`` (n, RESULT_COLS); ``order``
    holds the tile indices (shuffled into each deal), ``table`` an empty line."""
    players = R[P_PLAYERS]
    seed_stream(deal_rng, seed, 0xDEA1, 0)
    if policy == POLICY_HEAVIEST:
        # The p-policy runner has always drawn deals and play from one stream
        # (its seeded results, which capicua bench and older numbers rest on,
        # stay the same); a deal then depends on how the previous hands went.
        rng = deal_rng
    else:
        # Deals and play draw from separate streams, so the deals depend on
        # the seed only: swapping the teams' weight rows replays every deal
        # with the policies exchanged (duplicate deals).
        rng = play_rng
        seed_stream(rng, seed, 0xDEA2, 0)
    bone = order[players * R[P_HANDSIZE]:]  # a view: re-filled by every shuffle
    nb = bone.shape[0]
    for i in range(n):
        opener, required = _deal(R, deal_rng, order, hands)
        for s in range(players):
            pm[s] = 0
            om[s] = 0
        tm[0] = 0
        playout(R, hands, bone, nb, 0, table, opener, 0, opener, required, policy, q, W, pm, om, tm,
                buf, ibuf, 0, -1, 0, rng, totals, tt, out, i)


def random_hands(R: np.ndarray, n: int, seed: int, p: float = 0.0) -> np.ndarray:
    """``n`` fresh random deals, each played out -> int64 (n, RESULT_COLS)."""
    return _fresh_deals(R, n, seed, heaviest_rollout(R, p))


def random_hands_smart(R: np.ndarray, n: int, seed: int, q: float = 1.0, weights: Any = None,
                       soft: bool = False) -> np.ndarray:
    """``n`` fresh random deals played out by the heuristic policy
    (:func:`~capicua.bots.kernel.playout.playout_batch_smart`), each team with its own row of ``weights``
    -> int64 (n, RESULT_COLS). The deals depend on ``seed`` only, not on the
    play, so two calls with the same seed and the rows swapped replay every
    deal with the teams' policies exchanged (duplicate deals)."""
    return _fresh_deals(R, n, seed, scored_rollout(R, q, weights, None, None, soft))


def _fresh_deals(R: np.ndarray, n: int, seed: int, rollout: Rollout) -> np.ndarray:
    out = np.zeros((int(n), RESULT_COLS), dtype=np.int64)
    empty_line = np.array([-1, -1, 0, 0, 0], dtype=np.int64)
    _random_hands(
        R, int(n), seed63(seed), rollout.policy, rollout.q, rollout.weights,
        np.arange(int(R[P_NTILES]), dtype=np.int64), empty_line, np.empty(1, dtype=np.uint64),
        out, *scratch(int(R[P_PLAYERS])),
    )
    return out


def warmup() -> float:
    """Compile (or load from numba's cache) both runners; returns the seconds it took."""
    from capicua.bots.kernel.params import kernel_rules
    from capicua.engine import make_rules

    t0 = time.perf_counter()
    R = kernel_rules(make_rules("cubano"))
    random_hands(R, 2, 1)
    random_hands_smart(R, 2, 1)
    return time.perf_counter() - t0
