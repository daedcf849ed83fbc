"""The playout loop: a position played out to the end of the hand, and the
batch of playouts from one position.

The bots' hot path: play a position out to the end of the hand thousands of
times per decision. Everything here is int64 arithmetic on bitmasks and runs
without allocating inside the loop.

The rules of a hand (legal ends, draws, passes, in-play scores, the end of
the hand) are written once, in ``_playout_loop``; the rollout policy is a
parameter (:mod:`capicua.bots.kernel.policies`). Three jitted runners sit on
it: the batch from one position here, the move evaluator
(:mod:`capicua.bots.kernel.evaluate`) and the fresh deals
(:mod:`capicua.bots.kernel.fresh_deals`).

``playout_batch(R, hands, table, turn, passes, opener, required, boneyard, bpos, n, seed, p=0.0)``
    -> int64 array (n, RESULT_COLS): n playouts from one position
    (:mod:`capicua.bots.kernel.params` for ``R``, the position and the rows),
    each seat playing its heaviest tile w.p. ``p``, else a uniform move.
``playout_batch_smart(..., q=0.75, weights=None, passed=None, opened=None, table_mask=0, soft=False)``
    the same with the heuristic or the play model's policy.

Everything is seeded: the same arguments give the same results.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from capicua.bots.kernel.jit import cached_njit
from capicua.bots.kernel.params import (
    MAX_TEAMS,
    OFF_A,
    OFF_B,
    OFF_NUM,
    OFF_TEAM,
    P_DRAWING,
    P_INPLAY,
    P_PLAYERS,
    P_RESERVE,
    P_TEAMS,
    RESULT_COLS,
    int64_array,
)
from capicua.bots.kernel.policies import (
    POLICY_HEAVIEST,
    POLICY_MODEL,
    POLICY_MODEL_SOFT,
    Rollout,
    choose,
    heaviest_rollout,
    scored_rollout,
)
from capicua.bots.kernel.rng import seed63, seed_stream
from capicua.bots.kernel.scoring import arm_ends, end_domino, end_tranque


# The loop is inlined (twice, see :func:`playout`) into the three jitted
# runners (the batch from one position below, the move evaluator, fresh
# deals), and they run without numba's reference counting (``_nrt=False``):
# the policy functions take arrays, and counting references to them at every
# decision cost more than the decision (heaviest-tile playouts ran four times
# slower). So the entry points allocate nothing: the Python wrappers pass
# the result arrays and the scratch (:func:`scratch`) in.
@njit(inline="always")
def _playout_loop(
    R: Any,
    hands: Any,
    bone: Any,
    nb: Any,
    bpos: Any,
    table: Any,
    turn: Any,
    passes: Any,
    opener: Any,
    required: Any,
    policy: Any,
    q: Any,
    W: Any,
    pm: Any,
    om: Any,
    tm: Any,
    buf: Any,
    ibuf: Any,
    gs: Any,
    forced_t: Any,
    forced_arm: Any,
    rng: Any,
    totals: Any,
    tt: Any,
    out: Any,
    row: Any,
) -> None:
    """Play to the end of the hand with the rollout policy (``policy``, ``q``,
    ``W``, seats ``gs`` playing their heaviest tile; see :func:`choose`) and
    write the result to ``out[row]``. The first decision plays (forced_t,
    forced_arm) if forced_t >= 0. ``hands`` is scratch (changed), and so
    are the policy's public state: ``pm`` (per-seat masks of the numbers
    passed on, updated on every pass), ``om`` (per-seat masks of the numbers
    opened) and ``tm[0]`` (the mask of tiles on the table), both updated on
    every play under the play model's policies, which read them;
    ``buf`` / ``ibuf`` are scratch for the softmax."""
    n = R[P_PLAYERS]
    drawing = R[P_DRAWING]
    reserve = R[P_RESERVE]
    in_play = R[P_INPLAY]
    pairs = n == 4 and R[P_TEAMS] == 2
    model = policy == POLICY_MODEL or policy == POLICY_MODEL_SOFT
    for k in range(MAX_TEAMS):
        out[row, 5 + k] = 0
    left = table[0]
    right = table[1]
    dl = table[2] != 0
    dr = table[3] != 0
    while True:
        h = hands[turn]
        if left < 0:
            if required >= 0:
                ml = h & (np.int64(1) << required)
            else:
                ml = h
            mr = np.int64(0)
        else:
            ml = h & R[OFF_NUM + left]
            mr = h & R[OFF_NUM + right]
        if (ml | mr) == 0:
            if drawing and nb - bpos > reserve:
                hands[turn] = h | (np.int64(1) << bone[bpos])
                bpos += 1
                continue
            if left >= 0 and policy != POLICY_HEAVIEST:  # only the scored policies read pm
                pm[turn] |= (np.int64(1) << left) | (np.int64(1) << right)
            passes += 1
            if passes >= n:
                end_tranque(R, hands, opener, totals, tt, out, row)
                return
            turn = turn + 1 if turn + 1 < n else 0
            continue
        # ---- choose a move (t, arm)
        if forced_t >= 0:
            t = forced_t
            arm = forced_arm if left >= 0 else 0
            forced_t = -1
        else:
            t, arm = choose(R, policy, q, W, pm, om, tm[0], gs, buf, ibuf, rng, turn, n, pairs, h, ml, mr,
                            left, right)
        # ---- play it
        h ^= np.int64(1) << t
        hands[turn] = h
        passes = 0
        a = R[OFF_A + t]
        b = R[OFF_B + t]
        capicua = False
        if model:
            tm[0] |= np.int64(1) << t
        if left < 0:
            left = a
            right = b
            dl = a == b
            dr = dl
            count = a + b
            if model:
                om[turn] |= (np.int64(1) << a) | (np.int64(1) << b)
        else:
            inner, other = arm_ends(arm, left, right)
            outer = b if a == inner else a
            capicua = outer == other and inner != other
            if arm == 0:
                left = outer
                dl = a == b
            else:
                right = outer
                dr = a == b
            count = (2 * left if dl else left) + (2 * right if dr else right)
            if model:
                om[turn] |= np.int64(1) << outer
        if in_play != 0:
            if count > 0 and (count % 5 == 0 or (in_play == 2 and count % 3 == 0)):
                out[row, 5 + R[OFF_TEAM + turn]] += count
        if h == 0:
            end_domino(R, hands, turn, capicua, out, row)
            return
        turn = turn + 1 if turn + 1 < n else 0


@njit(inline="always")
def playout(
    R: Any, hands: Any, bone: Any, nb: Any, bpos: Any, table: Any, turn: Any, passes: Any, opener: Any,
    required: Any, policy: Any, q: Any, W: Any, pm: Any, om: Any, tm: Any, buf: Any, ibuf: Any, gs: Any,
    forced_t: Any, forced_arm: Any, rng: Any, totals: Any, tt: Any, out: Any, row: Any,
) -> None:
    """:func:`_playout_loop`, compiled twice: for the heaviest-tile policy
    with ``policy`` a constant, so that the scored policies' branches drop out
    of its machine code (it runs as fast as a loop written for it alone), and
    for the scored policies, which branch on ``policy`` at run time (their
    scores cost far more than the branch; one more copy per policy would only
    lengthen numba's compile)."""
    if policy == POLICY_HEAVIEST:
        _playout_loop(R, hands, bone, nb, bpos, table, turn, passes, opener, required, POLICY_HEAVIEST, q, W,
                      pm, om, tm, buf, ibuf, gs, forced_t, forced_arm, rng, totals, tt, out, row)
    else:
        _playout_loop(R, hands, bone, nb, bpos, table, turn, passes, opener, required, policy, q, W,
                      pm, om, tm, buf, ibuf, gs, forced_t, forced_arm, rng, totals, tt, out, row)


@cached_njit(nrt=False)
def _playout_batch(
    R: Any, hands: Any, table: Any, turn: Any, passes: Any, opener: Any, required: Any,
    bone: Any, bpos: Any, n: Any, seed: Any, policy: Any, q: Any, W: Any, passed: Any, opened: Any, tmask: Any,
    out: Any, work: Any, pm: Any, om: Any, tm: Any, buf: Any, ibuf: Any, totals: Any, tt: Any, rng: Any,
) -> None:
    """``n`` playouts from one position into ``out`` (n, RESULT_COLS)."""
    players = R[P_PLAYERS]
    seed_stream(rng, seed, 0x51, 0)
    nb = bone.shape[0]
    for i in range(n):
        for s in range(players):
            work[s] = hands[s]
            pm[s] = passed[s]
            om[s] = opened[s]
        tm[0] = tmask
        playout(R, work, bone, nb, bpos, table, turn, passes, opener, required, policy, q, W, pm, om, tm,
                buf, ibuf, 0, -1, 0, rng, totals, tt, out, i)


def scratch(players: int) -> tuple[np.ndarray, ...]:
    """Scratch for one playout at a time: hands, the policy's public state
    (numbers passed on, numbers opened, tiles on the table), the softmax's
    scores and moves, pip totals per seat and per team, the random stream."""
    return (
        np.empty(players, dtype=np.int64),
        np.empty(players, dtype=np.int64),
        np.empty(players, dtype=np.int64),
        np.empty(1, dtype=np.int64),
        np.empty(128, dtype=np.float64),
        np.empty(128, dtype=np.int64),
        np.empty(players, dtype=np.int64),
        np.empty(MAX_TEAMS, dtype=np.int64),
        np.empty(1, dtype=np.uint64),
    )


def _batch(
    R: np.ndarray, hands: Any, table: Any, turn: int, passes: int, opener: int, required: int,
    boneyard: Any, bpos: int, n: int, seed: int, rollout: Rollout, table_mask: int,
) -> np.ndarray:
    out = np.zeros((int(n), RESULT_COLS), dtype=np.int64)
    _playout_batch(
        R, int64_array(hands, 1), int64_array(table, 1), int(turn), int(passes), int(opener), int(required),
        int64_array(boneyard, 1), int(bpos), int(n), seed63(seed), rollout.policy, rollout.q, rollout.weights,
        rollout.passed, rollout.opened, int(table_mask), out, *scratch(int(R[P_PLAYERS])),
    )
    return out


def playout_batch(
    R: np.ndarray,
    hands: Any,
    table: Any,
    turn: int,
    passes: int,
    opener: int,
    required: int,
    boneyard: Any,
    bpos: int,
    n: int,
    seed: int,
    p: float = 0.0,
) -> np.ndarray:
    """``n`` playouts from one position -> int64 (n, RESULT_COLS)."""
    return _batch(R, hands, table, turn, passes, opener, required, boneyard, bpos, n, seed,
                  heaviest_rollout(R, p), 0)


def playout_batch_smart(
    R: np.ndarray, hands: Any, table: Any, turn: int, passes: int, opener: int, required: int,
    boneyard: Any, bpos: int, n: int, seed: int, q: float = 0.75, weights: Any = None, passed: Any = None,
    opened: Any = None, table_mask: int = 0, soft: bool = False,
) -> np.ndarray:
    """:func:`playout_batch` with the heuristic ("medio-like") rollout policy:
    the best-scoring move w.p. ``q``, else a uniform one (see ``SW_*``).
    With MODEL_SIZE ``weights`` the score is the play model's; ``opened``
    (per-seat masks of the numbers each seat opened) and ``table_mask`` (the
    tiles on the table) give its public state at the root, and ``soft`` draws
    every move from the model's softmax (``q`` unused)."""
    return _batch(R, hands, table, turn, passes, opener, required, boneyard, bpos, n, seed,
                  scored_rollout(R, q, weights, passed, opened, soft), table_mask)
