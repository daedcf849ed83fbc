"""Compile (or load from numba's cache) the kernel's jitted functions, once
per process, so that no decision pays for it (a bot worker calls
:func:`warmup` at start; ``capicua bench`` times :func:`warmup_playouts` and
the fresh deals' own warm-up with an empty cache: the cold compile).
"""

from __future__ import annotations

import time

import numpy as np

from capicua.bots.kernel import mixing, playlik, sampler
from capicua.bots.kernel.evaluate import evaluate_moves, evaluate_moves_smart
from capicua.bots.kernel.params import kernel_rules
from capicua.bots.kernel.playout import playout_batch, playout_batch_smart
from capicua.engine import make_rules


def warmup_playouts() -> float:
    """The playouts the bots run: the batch and the move evaluator; returns the seconds it took.
    (The fresh deals are the benchmark's: :func:`capicua.bots.kernel.fresh_deals.warmup`.)"""
    t0 = time.perf_counter()
    R = kernel_rules(make_rules("cubano"))
    hands = np.zeros(4, dtype=np.int64)
    hands[0] = 1
    table = np.array([-1, -1, 0, 0, 0], dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    playout_batch(R, hands, table, 0, 0, 0, -1, empty, 0, 1, 1)
    evaluate_moves(R, hands[None, :], np.zeros((1, 0), dtype=np.int64), table, 0, 0, 0, -1, 0,
                   np.array([[0, -1]], dtype=np.int64), 1, 1)
    evaluate_moves_smart(R, hands[None, :], np.zeros((1, 0), dtype=np.int64), table, 0, 0, 0, -1, 0,
                         np.array([[0, -1]], dtype=np.int64), 1, 1)
    playout_batch_smart(R, hands, table, 0, 0, 0, -1, empty, 0, 1, 1)
    return time.perf_counter() - t0


def warmup() -> float:
    """Every jitted function: the playouts, the play model's likelihood, the
    deal sampler and the swap chain; returns the seconds it took."""
    t0 = time.perf_counter()
    warmup_playouts()
    playlik.warmup()
    sampler.warmup()
    mixing.warmup()
    return time.perf_counter() - t0
