"""The move evaluator: the value of each candidate move of the seat on turn,
played out over sampled deals (what the search bots call at a decision).

``evaluate_moves(R, samples, boneyards, table, turn, passes, opener, required, bpos, moves, n_per_sample, seed, p=0.0)``
    ``samples`` (S, players) int64 hand masks (one determinization per row;
    the seat on turn holds the same hand in all), ``boneyards`` (S, B) int64
    (B may be 0), ``moves`` (M, 2) int64 candidate moves of the seat on
    turn. Plays every move in every sample ``n_per_sample`` times and returns
    float64 (M, 4): ``[mean net points, P(win), P(tie), mean hand points won]``
    for the team of the seat on turn, where net = own team's hand points +
    in-play points minus the mean over the other teams. Common random
    numbers: playout ``k`` of sample ``s`` uses the same random stream for
    every move, so differences between moves are not drowned in noise.
``evaluate_moves_smart(..., q=0.75, weights=None, passed=None, gorda_seats=None, opened=None, table_mask=0, soft=False)``
    the same with the heuristic or the play model's rollout policy
    (:mod:`capicua.bots.kernel.policies`); ``gorda_seats``: per sample, the
    seats that play their heaviest tile whatever the policy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from capicua.bots.kernel.jit import cached_njit
from capicua.bots.kernel.params import OFF_TEAM, P_PLAYERS, P_TEAMS, RESULT_COLS, int64_array
from capicua.bots.kernel.playout import playout, scratch
from capicua.bots.kernel.policies import Rollout, heaviest_rollout, scored_rollout
from capicua.bots.kernel.rng import seed63, seed_stream


@cached_njit(nrt=False)
def _evaluate_moves(
    R: Any, samples: Any, boneyards: Any, table: Any, turn: Any, passes: Any, opener: Any,
    required: Any, bpos: Any, moves: Any, n_per: Any, seed: Any, policy: Any, q: Any, W: Any, passed: Any,
    gseats: Any, opened: Any, tmask: Any,
    res: Any, out: Any, work: Any, pm: Any, om: Any, tm: Any, buf: Any, ibuf: Any, totals: Any, tt: Any, rng: Any,
) -> None:
    """The value of each move into ``res`` (M, 4), zeros on entry; ``out``
    is (1, RESULT_COLS) scratch for one playout's result."""
    S = samples.shape[0]
    M = moves.shape[0]
    players = R[P_PLAYERS]
    nteams = R[P_TEAMS]
    me = R[OFF_TEAM + turn]
    nb = boneyards.shape[1]
    for s in range(S):
        bone = boneyards[s]
        for k in range(n_per):
            for m in range(M):
                seed_stream(rng, seed, s + 1, k + 1)  # same stream for every move
                for x in range(players):
                    work[x] = samples[s, x]
                    pm[x] = passed[x]
                    om[x] = opened[x]
                tm[0] = tmask
                playout(
                    R, work, bone, nb, bpos, table, turn, passes, opener, required, policy, q, W, pm, om, tm,
                    buf, ibuf, gseats[s], moves[m, 0], moves[m, 1], rng, totals, tt, out, 0,
                )
                mine = out[0, 5 + me]
                others = 0
                for x in range(nteams):
                    if x != me:
                        others += out[0, 5 + x]
                won = 0
                if out[0, 2] == me:
                    mine += out[0, 3]
                    won = out[0, 3]
                    res[m, 1] += 1.0
                elif out[0, 2] >= 0:
                    others += out[0, 3]
                else:
                    res[m, 2] += 1.0
                res[m, 0] += mine - others / max(1, nteams - 1)
                res[m, 3] += won
    total = max(1, S * n_per)
    for m in range(M):
        for c in range(4):
            res[m, c] /= total


def _evaluate(
    R: np.ndarray, samples: Any, boneyards: Any, table: Any, turn: int, passes: int, opener: int,
    required: int, bpos: int, moves: Any, n_per_sample: int, seed: int, rollout: Rollout,
    gorda_seats: Any, table_mask: int,
) -> np.ndarray:
    samples = int64_array(samples, 2)
    boneyards = np.ascontiguousarray(boneyards, dtype=np.int64)
    if boneyards.ndim == 1 and boneyards.size == 0:
        boneyards = np.zeros((samples.shape[0], 0), dtype=np.int64)
    if boneyards.ndim != 2 or boneyards.shape[0] != samples.shape[0]:
        raise ValueError("boneyards must be (S, B), one row per sample")
    moves = int64_array(moves, 2)
    if moves.ndim != 2 or moves.shape[1] != 2:
        raise ValueError("moves must be (M, 2)")
    gs = np.zeros(samples.shape[0], dtype=np.int64) if gorda_seats is None else int64_array(gorda_seats, 1)
    if gs.shape[0] != samples.shape[0]:
        raise ValueError("gorda_seats must hold one mask per sample")
    res = np.zeros((moves.shape[0], 4), dtype=np.float64)
    _evaluate_moves(
        R, samples, boneyards, int64_array(table, 1), int(turn), int(passes), int(opener), int(required),
        int(bpos), moves, int(n_per_sample), seed63(seed), rollout.policy, rollout.q, rollout.weights,
        rollout.passed, gs, rollout.opened, int(table_mask),
        res, np.zeros((1, RESULT_COLS), dtype=np.int64), *scratch(int(R[P_PLAYERS])),
    )
    return res


def evaluate_moves(
    R: np.ndarray,
    samples: Any,
    boneyards: Any,
    table: Any,
    turn: int,
    passes: int,
    opener: int,
    required: int,
    bpos: int,
    moves: Any,
    n_per_sample: int,
    seed: int,
    p: float = 0.0,
) -> np.ndarray:
    """Value of each candidate move over sampled deals -> float64 (M, 4), see the module docstring."""
    return _evaluate(R, samples, boneyards, table, turn, passes, opener, required, bpos, moves, n_per_sample,
                     seed, heaviest_rollout(R, p), None, 0)


def evaluate_moves_smart(
    R: np.ndarray, samples: Any, boneyards: Any, table: Any, turn: int, passes: int, opener: int,
    required: int, bpos: int, moves: Any, n_per_sample: int, seed: int, q: float = 0.75,
    weights: Any = None, passed: Any = None, gorda_seats: Any = None,
    opened: Any = None, table_mask: int = 0, soft: bool = False,
) -> np.ndarray:
    """:func:`evaluate_moves` with the heuristic rollout policy of
    :func:`~capicua.bots.kernel.playout.playout_batch_smart`; ``passed``: per-seat masks of the numbers each
    seat has passed on at the root (:func:`~capicua.bots.kernel.policies.passed_masks`); ``gorda_seats``: per
    sample, a bit mask of the seats that play their heaviest tile instead
    (the opponent model of ``capicua.bots.search``; None: no seat);
    ``opened``, ``table_mask``, ``soft``: as :func:`~capicua.bots.kernel.playout.playout_batch_smart`."""
    return _evaluate(R, samples, boneyards, table, turn, passes, opener, required, bpos, moves, n_per_sample,
                     seed, scored_rollout(R, q, weights, passed, opened, soft), gorda_seats, table_mask)
