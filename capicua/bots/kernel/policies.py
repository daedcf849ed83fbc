"""The rollout policies: how a seat picks its move in a playout.

The playout loop (:mod:`capicua.bots.kernel.playout`) asks :func:`choose`
for every move with more than one legal choice; the policy is a code
``POLICY_*`` with a probability ``q`` and per-team weights ``W``:

* ``POLICY_HEAVIEST``: the heaviest tile (first in legal order among equals:
  lowest tile index, left end before right) with probability ``q`` (the
  ``p`` of the plain entry points), else a uniform legal move. ``p = 0`` is a
  random playout, ``p = 1`` is deterministic ("botagorda"), identical to
  ``capicua.engine.compact.policy_playout(state, rng, 1.0)``.
* ``POLICY_HEURISTIC``: the best move by a bitmask score (pips, *la data*,
  numbers the partner / the opponents passed on, doubles; weights ``SW_*``,
  default ``SMART_WEIGHTS``) with probability ``q``, else a uniform move.
* ``POLICY_MODEL``: the same with the fitted play model's score
  (:mod:`capicua.bots.playmodel`, ``MODEL_SIZE`` weights).
* ``POLICY_MODEL_SOFT``: a move drawn from the play model's softmax.

The Python side builds a :class:`Rollout` (:func:`heaviest_rollout`,
:func:`scored_rollout`) that the entry points pass to the jitted runners.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from capicua.bots.kernel.bits import cttz, popcount
from capicua.bots.kernel.jit import cached_njit
from capicua.bots.kernel.params import (
    MAX_TEAMS,
    OFF_A,
    OFF_B,
    OFF_NUM,
    OFF_PIPS,
    OFF_TEAM,
    P_DOUBLES,
    P_PLAYERS,
    P_TEAMS,
    int64_array,
)
from capicua.bots.kernel.rng import below, uniform
from capicua.bots.kernel.scoring import arm_ends

# One playout loop serves every rollout policy; the policy is an integer code
# (with ``q`` and the weights ``W``) and :func:`choose` is the one place that
# turns it into a move. At a decision with more than one legal move:
#
# * a seat in the ``gs`` bit mask plays its heaviest tile ("botar la gorda",
#   the opponent model of ``capicua.bots.search``), whatever the policy;
# * POLICY_MODEL_SOFT draws the move from the play model's softmax;
# * otherwise, with probability ``q``, the best move under the policy's score
#   (the first in legal order among equals): the tile's pips for
#   POLICY_HEAVIEST, :func:`_smart_score` for POLICY_HEURISTIC,
#   :func:`_model_score` for POLICY_MODEL; else a uniform legal move.
#
# ``q >= 1`` draws no random number for the choice, ``0 < q < 1`` draws one
# (and a second for a uniform move), ``q <= 0`` only the uniform one.
POLICY_HEAVIEST = 0
POLICY_HEURISTIC = 1
POLICY_MODEL = 2
POLICY_MODEL_SOFT = 3

# The heuristic ("medio-like") score only uses what the seat could know at a
# real table: its own hand and the numbers every seat has passed on (given at
# the root in ``pm``, a per-seat mask of numbers, and updated whenever a seat
# passes during the playout). Weights ``W`` (float64, SW_SIZE):
SW_PIPS = 0  # x pips of the tile (shed heavy tiles)
SW_DATA = 1  # x tiles left in hand holding the number(s) the move leaves open ("la data")
SW_PARTNER_PASSED = 2  # - if the number left open is one the partner passed on
SW_NEXT_PASSED = 3  # + if it is one the next seat (an opponent) passed on
SW_PREV_PASSED = 4  # + if it is one the previous seat (an opponent) passed on
SW_FORCE_PASS = 5  # + if the next opponent passed on every end after the move
SW_PARTNER_BLOCKED = 6  # - if the partner passed on every end after the move
SW_DOUBLE = 7  # + for playing a double
SW_SIZE = 8
SMART_WEIGHTS = (1.0, 2.0, 3.0, 3.0, 1.5, 4.0, 4.0, 4.0)


@njit(inline="always")
def _smart_score(R: Any, W: Any, pm: Any, seat: Any, partner: Any, nxt: Any, prv: Any,
                 h: Any, t: Any, arm: Any, left: Any, right: Any) -> Any:
    a = R[OFF_A + t]
    b = R[OFF_B + t]
    rest = h ^ (np.int64(1) << t)
    if left < 0:
        opened = (np.int64(1) << a) | (np.int64(1) << b)
        after = opened
        data = popcount(rest & R[OFF_NUM + a])
        if b != a:
            data += popcount(rest & R[OFF_NUM + b])
    else:
        inner, other = arm_ends(arm, left, right)
        outer = b if a == inner else a
        opened = np.int64(1) << outer
        after = opened | (np.int64(1) << other)
        data = popcount(rest & R[OFF_NUM + outer])
    s = W[SW_PIPS] * (a + b) + W[SW_DATA] * data
    if partner >= 0:
        pp = pm[partner]
        if opened & pp:
            s -= W[SW_PARTNER_PASSED]
        if (after & ~pp) == 0:
            s -= W[SW_PARTNER_BLOCKED]
    if nxt >= 0:
        np_ = pm[nxt]
        if opened & np_:
            s += W[SW_NEXT_PASSED]
        if (after & ~np_) == 0:
            s += W[SW_FORCE_PASS]
    if prv >= 0 and (opened & pm[prv]):
        s += W[SW_PREV_PASSED]
    if a == b:
        s += W[SW_DOUBLE]
    return s


# The fitted play model (capicua.bots.playmodel) as a rollout policy: the
# same 16 features (``MODEL_SIZE`` weights in ``playmodel.FEATURES`` order),
# computed from bit masks. ``om`` holds per seat the numbers it opened, ``tmask``
# the tiles on the table; the tests check every score against
# ``playmodel.move_score``.
MODEL_SIZE = 16


@njit(inline="always")
def _model_score(R: Any, W: Any, pm: Any, om: Any, tmask: Any, partner: Any, nxt: Any, prv: Any,
                 h: Any, t: Any, arm: Any, left: Any, right: Any) -> Any:
    a = R[OFF_A + t]
    b = R[OFF_B + t]
    one = np.int64(1)
    rest = h ^ (one << t)
    if left < 0:
        opened = (one << a) | (one << b)
        after = opened
        data = popcount(rest & (R[OFF_NUM + a] | R[OFF_NUM + b]))
        data_other = 0
        inner_bit = np.int64(0)
        same = False
        tc = popcount(tmask & R[OFF_NUM + a])
        near = R[OFF_NUM + a] | R[OFF_NUM + b]
    else:
        inner, other = arm_ends(arm, left, right)
        outer = b if a == inner else a
        opened = one << outer
        after = opened | (one << other)
        data = popcount(rest & R[OFF_NUM + outer])
        data_other = popcount(rest & R[OFF_NUM + other])
        inner_bit = one << inner
        same = outer == other
        tc = popcount(tmask & R[OFF_NUM + outer]) + 1
        near = R[OFF_NUM + outer] | R[OFF_NUM + other]
    s = W[0] * (a + b) + W[1] * data + W[2] * data_other + W[9] * tc
    if a == b:
        s += W[3]
    po = np.int64(0)
    if partner >= 0:
        pp = pm[partner]
        po = om[partner]
        if opened & pp:
            s += W[4]
        if (after & ~pp) == 0:
            s += W[5]
    np_ = pm[nxt]
    if opened & np_:
        s += W[6]
    if (after & ~np_) == 0:
        s += W[7]
    if opened & pm[prv]:
        s += W[8]
    oo = om[nxt] | om[prv]
    if opened & po:
        s += W[10]
    if opened & oo:
        s += W[11]
    if inner_bit & po:
        s += W[12]
    if inner_bit & oo:
        s += W[13]
    if same:
        s += W[14]
    if rest & R[P_DOUBLES] & near:
        s += W[15]
    return s


@cached_njit()
def _model_scores(R: Any, W: Any, pm: Any, om: Any, tmask: Any, turn: Any, h: Any, left: Any, right: Any,
                  moves: Any) -> Any:
    n = R[P_PLAYERS]
    nxt = turn + 1 if turn + 1 < n else 0
    prv = turn - 1 if turn > 0 else n - 1
    partner = -1
    if n == 4 and R[P_TEAMS] == 2:
        partner = turn + 2 if turn + 2 < n else turn + 2 - n
    out = np.empty(moves.shape[0], dtype=np.float64)
    for k in range(moves.shape[0]):
        out[k] = _model_score(R, W, pm, om, tmask, partner, nxt, prv, h, moves[k, 0], max(0, moves[k, 1]),
                              left, right)
    return out


@njit(inline="always")
def _heaviest(R: Any, u: Any, ml: Any) -> Any:
    """(tile, arm) of the heaviest tile in ``u`` (the lowest index among
    equals), on the left end when it fits there."""
    t = -1
    arm = 0
    best = -1
    w = u
    while w:
        i = cttz(w)
        if R[OFF_PIPS + i] > best:
            best = R[OFF_PIPS + i]
            t = i
            arm = 0 if (ml >> i) & 1 else 1
        w &= w - 1
    return t, arm


@njit(inline="always")
def _uniform_move(rng: Any, nmoves: Any, u: Any, ml: Any, mr: Any) -> Any:
    """(tile, arm) of a uniform legal move: the k-th in legal order."""
    k = below(rng, nmoves)
    t = -1
    arm = 0
    w = u
    while True:
        i = cttz(w)
        if (ml >> i) & 1:
            if k == 0:
                t = i
                arm = 0
                break
            k -= 1
        if (mr >> i) & 1:
            if k == 0:
                t = i
                arm = 1
                break
            k -= 1
        w &= w - 1
    return t, arm


# The scored choices are functions of their own, called once per decision
# (not inlined): their scores would otherwise be compiled into every copy of
# the playout loop, and numba's compile time grows much faster than the code.
@cached_njit(nrt=False)
def _best_scored(R: Any, model: Any, W: Any, pm: Any, om: Any, tmask: Any, turn: Any, n: Any, pairs: Any,
                 h: Any, u: Any, ml: Any, mr: Any, left: Any, right: Any) -> Any:
    """(tile, arm) of the best move under the heuristic score, or the play
    model's if ``model``, with the weights of the seat's team (the first in
    legal order among equal scores)."""
    myteam = R[OFF_TEAM + turn]
    Wt = W[myteam]
    partner = -1
    if pairs:
        partner = turn + 2 if turn + 2 < n else turn + 2 - n
    nxt = turn + 1 if turn + 1 < n else 0
    prv = turn - 1 if turn > 0 else n - 1
    if not model:
        # The heuristic's neighbours are opponents only.
        if R[OFF_TEAM + nxt] == myteam:
            nxt = -1
        if R[OFF_TEAM + prv] == myteam or prv == nxt:
            prv = -1
    t = -1
    arm = 0
    best = -1e300
    w = u
    while w:
        i = cttz(w)
        for e in range(2):  # legal order: the left end, then the right
            if ((ml if e == 0 else mr) >> i) & 1:
                if model:
                    sc = _model_score(R, Wt, pm, om, tmask, partner, nxt, prv, h, i, e, left, right)
                else:
                    sc = _smart_score(R, Wt, pm, turn, partner, nxt, prv, h, i, e, left, right)
                if sc > best:
                    best = sc
                    t = i
                    arm = e
        w &= w - 1
    return t, arm


@cached_njit(nrt=False)
def _soft_model_move(R: Any, W: Any, pm: Any, om: Any, tmask: Any, turn: Any, n: Any, pairs: Any,
                     h: Any, u: Any, ml: Any, mr: Any, left: Any, right: Any, buf: Any, ibuf: Any,
                     rng: Any) -> Any:
    """(tile, arm) drawn from the play model's softmax over the distinct
    moves; ``buf`` / ``ibuf`` are scratch for the scores and moves."""
    Wt = W[R[OFF_TEAM + turn]]
    nxt = turn + 1 if turn + 1 < n else 0
    prv = turn - 1 if turn > 0 else n - 1
    partner = -1
    if pairs:
        partner = turn + 2 if turn + 2 < n else turn + 2 - n
    if left == right:
        mr = np.int64(0)  # the same move on either end
    m = 0
    best = -1e300
    w = u
    while w:
        i = cttz(w)
        for e in range(2):  # legal order: the left end, then the right
            if ((ml if e == 0 else mr) >> i) & 1:
                sc = _model_score(R, Wt, pm, om, tmask, partner, nxt, prv, h, i, e, left, right)
                buf[m] = sc
                ibuf[m] = 2 * i + e
                m += 1
                if sc > best:
                    best = sc
        w &= w - 1
    z = 0.0
    for j in range(m):
        buf[j] = np.exp(buf[j] - best)
        z += buf[j]
    x = uniform(rng) * z
    j = 0
    while j < m - 1 and x >= buf[j]:
        x -= buf[j]
        j += 1
    return ibuf[j] >> 1, ibuf[j] & 1


@njit(inline="always")
def choose(R: Any, policy: Any, q: Any, W: Any, pm: Any, om: Any, tmask: Any, gs: Any, buf: Any, ibuf: Any,
           rng: Any, turn: Any, n: Any, pairs: Any, h: Any, ml: Any, mr: Any, left: Any, right: Any) -> Any:
    """The rollout policy's (tile, arm) for seat ``turn`` with the legal
    masks ``ml`` (left end, or the opening) and ``mr`` (right end), not both
    empty (see the comment above ``POLICY_HEAVIEST``)."""
    u = ml | mr
    nmoves = popcount(ml) + popcount(mr)
    if nmoves == 1:
        if ml:
            return cttz(ml), 0
        return cttz(mr), 1
    if (gs >> turn) & 1:
        return _heaviest(R, u, ml)
    if policy == POLICY_MODEL_SOFT:
        return _soft_model_move(R, W, pm, om, tmask, turn, n, pairs, h, u, ml, mr, left, right, buf, ibuf, rng)
    if q >= 1.0 or (q > 0.0 and uniform(rng) < q):
        if policy == POLICY_HEAVIEST:
            return _heaviest(R, u, ml)
        return _best_scored(R, policy == POLICY_MODEL, W, pm, om, tmask, turn, n, pairs, h, u, ml, mr, left,
                            right)
    return _uniform_move(rng, nmoves, u, ml, mr)


class Rollout(NamedTuple):
    """A rollout policy as the jitted functions take it (see :func:`choose`)."""

    policy: int  # POLICY_*
    q: float  # probability of the policy's best move (unused by POLICY_MODEL_SOFT)
    weights: np.ndarray  # float64 (MAX_TEAMS, SW_SIZE or MODEL_SIZE): one row per team
    passed: np.ndarray  # int64 (players,): numbers each seat passed on at the root
    opened: np.ndarray  # int64 (players,): numbers each seat opened at the root


def heaviest_rollout(R: np.ndarray, p: float) -> Rollout:
    """The ``p`` policy: the heaviest tile w.p. ``p``, else a uniform move."""
    nobody = np.zeros(int(R[P_PLAYERS]), dtype=np.int64)
    # The heaviest tile reads no weights and no public state: zeros of the
    # scored policies' shapes, so that every policy runs the same compiled code.
    return Rollout(POLICY_HEAVIEST, float(p), np.zeros((MAX_TEAMS, SW_SIZE)), nobody, nobody)


def scored_rollout(R: np.ndarray, q: float, weights: Any, passed: Any, opened: Any, soft: bool) -> Rollout:
    """The heuristic policy (SW_SIZE weights) or the play model's (MODEL_SIZE
    weights; drawn from its softmax if ``soft``)."""
    players = int(R[P_PLAYERS])
    W = _weights(weights)
    if W.shape[1] == MODEL_SIZE:
        policy = POLICY_MODEL_SOFT if soft else POLICY_MODEL
    else:
        policy = POLICY_HEURISTIC
    return Rollout(policy, float(q), W, _passed(passed, players), _passed(opened, players))


def _weights(W: Any) -> np.ndarray:
    """The policy weights as one row per team, (MAX_TEAMS, width): one
    vector (width,) is every team's; rows (k, width) are teams 0..k-1's. The
    width is SW_SIZE (the heuristic score, ``SW_*``) or MODEL_SIZE (the play
    model's features, ``capicua.bots.playmodel.FEATURES``)."""
    w = np.asarray(SMART_WEIGHTS if W is None else W, dtype=np.float64)
    if w.ndim == 1:
        w = w[None, :]
    if w.ndim != 2 or w.shape[1] not in (SW_SIZE, MODEL_SIZE) or not 1 <= w.shape[0] <= MAX_TEAMS:
        raise ValueError(f"weights must have {SW_SIZE} entries (SW_* constants) or {MODEL_SIZE} "
                         "(play-model features), or one such row per team")
    if w.shape[0] == 1:
        return np.ascontiguousarray(np.repeat(w, MAX_TEAMS, axis=0))
    return np.ascontiguousarray(np.vstack([w, np.repeat(w[-1:], MAX_TEAMS - w.shape[0], axis=0)]))


def _passed(passed: Any, players: int) -> np.ndarray:
    if passed is None:
        return np.zeros(players, dtype=np.int64)
    arr = np.ascontiguousarray(passed, dtype=np.int64)
    if arr.shape != (players,):
        raise ValueError("passed must hold one mask of numbers per seat")
    return arr


def passed_masks(passed_on: Any) -> np.ndarray:
    """Per-seat masks of numbers passed on (bit v: the seat passed on v), from
    a view's ``passed_on`` lists."""
    return np.array([sum(1 << int(v) for v in set(p)) for p in passed_on], dtype=np.int64)


def model_scores(R: np.ndarray, weights: Any, passed: Any, opened: Any, table_mask: int, turn: int,
                 hand: int, left: int, right: int, moves: Any) -> np.ndarray:
    """The rollout policy's play-model score of each of ``moves`` ((M, 2):
    tile, end 0/1, or -1 for the opening) for seat ``turn`` holding the mask
    ``hand``; what the tests compare with ``playmodel.move_score``."""
    players = int(R[P_PLAYERS])
    w = np.ascontiguousarray(weights, dtype=np.float64)
    if w.shape != (MODEL_SIZE,):
        raise ValueError(f"weights must have {MODEL_SIZE} entries")
    return _model_scores(  # type: ignore[no-any-return]
        R, w, _passed(passed, players), _passed(opened, players), int(table_mask), int(turn), int(hand),
        int(left), int(right), int64_array(moves, 2))
