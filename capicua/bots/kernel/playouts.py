"""JIT playout kernel for line-layout games (numba ``@njit(cache=True)``).

The bots' hot path: play a position out to the end of the hand thousands of
times per decision. Everything here is int64 arithmetic on bitmasks and runs
without allocating inside the playout loop.

Games: every preset with a line layout and a set up to double-nine (tile
masks fit an int64) — ``cubano``, ``cubano-clasico``, ``caribe``,
``la-plaza``, ``fid``, ``mano-a-mano``, ``block``, ``draw``, ``all-fives``,
``fives-and-threes`` — with or without drawing, with in-play scoring, every
``domino_scoring`` / ``tranque_winner`` / ``tranque_scoring`` value and the
capicúa bonus. Cross layouts and double-twelve are not supported
(:func:`kernel_rules` raises ``ValueError``): use :mod:`capicua.engine.compact`.

Conventions (the same as :mod:`capicua.engine.compact`)
-----------------------------------------------------
* A hand is an int64 mask over tile indices (:func:`capicua.engine.tiles.tile_index`).
* The line is ``table = [left, right, left_is_double, right_is_double, tiles_played]``
  (int64, shape (5,)); ``left = -1`` means no tile has been laid yet.
* A move is ``(tile_index, end)`` with end ``0`` left, ``1`` right, ``-1``
  the opening tile (laid as ``(a, b)``, ``a <= b``: left end ``a``).
* Passes and draws are automatic; draws take ``boneyard[bpos]``, ``bpos+1``...
  while more than ``draw_reserve`` tiles remain.
* Policy ``p``: at each decision with more than one legal move the seat plays
  the heaviest tile (first in legal order among equals: lowest tile index,
  left end before right) with probability ``p``, else a uniform legal move.
  ``p = 0`` is a random playout, ``p = 1`` is deterministic ("botagorda"),
  identical to ``capicua.engine.compact.policy_playout(state, rng, 1.0)``.

One loop, one evaluator, one fresh-deal runner
----------------------------------------------
The rules of a hand (legal ends, draws, passes, in-play scores, the end of
the hand) are written once, in ``_playout_loop``. The rollout policy is a
parameter: an integer code ``POLICY_*`` with a probability ``q`` and per-team
weights ``W``, turned into a move by ``_choose`` alone. ``POLICY_HEAVIEST``
is the ``p`` policy above (``q = p``, no weights); ``POLICY_HEURISTIC`` and
``POLICY_MODEL`` take the best move by a score w.p. ``q``;
``POLICY_MODEL_SOFT`` draws from the play model's softmax. The ``*_smart``
entry points pick the scored policy from the weights' width (and ``soft``);
the others are the heaviest-tile policy. Each pair of entry points runs the
same jitted function: ``_playout_batch``, ``_evaluate_moves``,
``_random_hands``.

Result rows (int64, ``RESULT_COLS`` columns)
--------------------------------------------
``[kind, seat, team, points, capicua, in_play_team0, ..., in_play_team4]``
with kind ``0`` domino, ``1`` tranque, ``2`` tie (seat = team = -1, points 0).
``points`` are the hand points won by ``team``; ``in_play_*`` are the points
each team scored during the rest of the hand (All Fives / Fives-and-Threes).

API
---
``R = kernel_rules(rules)``
    int64 parameter array for a :class:`~capicua.engine.rules.Rules` (cached).
``pos = position(fast_state)``
    a :class:`Position` (hands, table, turn, passes, opener, required_first,
    boneyard, bpos) from a :class:`capicua.engine.compact.FastState`.
``playout_batch(R, hands, table, turn, passes, opener, required, boneyard, bpos, n, seed, p=0.0)``
    -> int64 array (n, RESULT_COLS): n playouts from one position.
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
``playout_batch_smart(..., q=0.75, weights=None, passed=None)`` / ``evaluate_moves_smart(..., q, weights, passed)``
    the same with a heuristic ("medio-like") rollout policy instead of ``p``:
    the best move by a bitmask score (pips, *la data*, numbers the partner /
    the opponents passed on, doubles; weights ``SW_*``, default
    ``SMART_WEIGHTS``) with probability ``q``, else a uniform legal move.
    ``passed`` holds per-seat masks of the numbers each seat passed on at the
    root (:func:`passed_masks` of a view's ``passed_on``); passes during the
    playout are added.
``random_hands(R, n, seed, p=0.0)``
    -> (n, RESULT_COLS): n fresh random deals (redeals and opener as the
    rules' first hand: random seat, or the highest double's holder), each
    played out. This is what ``capicua bench`` times.
``warmup()``
    compiles (or loads from the cache) every kernel; returns seconds spent.

Everything is seeded: the same arguments give the same results.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import lru_cache
from typing import Any, NamedTuple, TypeVar, cast

import numpy as np
from llvmlite import ir
from numba import njit
from numba.extending import intrinsic

from capicua.engine.compact import FastState, fast_rules
from capicua.engine.rules import DEAL_OPENERS, FORCED_DOUBLE_OPENERS, Rules

# ---------------------------------------------------------------- layout of R
P_PLAYERS = 0
P_TEAMS = 1
P_NTILES = 2
P_MAXPIP = 3
P_DRAWING = 4
P_RESERVE = 5
P_INPLAY = 6  # 0 none, 1 fives, 2 fives and threes
P_DSCORE = 7  # 0 opponents, 1 all_hands, 2 muggins
P_TWINNER = 8  # 0 lowest_player, 1 lowest_team
P_TSCORE = 9  # 0 opponents, 1 all_hands, 2 difference, 3 muggins
P_BONUS = 10
P_HANDSIZE = 11
P_REDEAL5 = 12  # 1: automatic redeal on five doubles
P_OPENER = 13  # first-hand opener: 0 random seat, 1 highest double holder, 2 ... forced to lead it
P_DOUBLES = 14  # mask of the doubles
OFF_A = 16
OFF_B = OFF_A + 64
OFF_PIPS = OFF_B + 64
OFF_NUM = OFF_PIPS + 64
OFF_TEAM = OFF_NUM + 16
R_SIZE = OFF_TEAM + 8

MAX_TEAMS = 5
RESULT_COLS = 5 + MAX_TEAMS
KIND_DOMINO, KIND_TRANQUE, KIND_TIE = 0, 1, 2


# ------------------------------------------------------------- bit intrinsics
# numba's @intrinsic wraps its typing function, so mypy reads that function's
# signature (typingctx, src) as the call's, while jitted code calls the
# intrinsic with ``src`` alone. The casts state the real call for mypy; at run
# time each name is numba's intrinsic object, unchanged.
_BitOp = Callable[[Any], Any]


def _cttz_typing(typingctx: Any, src: Any) -> Any:
    """Index of the lowest set bit (src != 0)."""
    sig = src(src)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return sig, codegen


def _popcount_typing(typingctx: Any, src: Any) -> Any:
    """Number of set bits."""
    sig = src(src)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return sig, codegen


def _clz_typing(typingctx: Any, src: Any) -> Any:
    """Number of zero bits above the highest set bit (src != 0)."""
    sig = src(src)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 1))

    return sig, codegen


_cttz = cast(_BitOp, intrinsic(_cttz_typing))
_popcount = cast(_BitOp, intrinsic(_popcount_typing))
_clz = cast(_BitOp, intrinsic(_clz_typing))


# ----------------------------------------------------------------------- rng
@njit(inline="always")
def _next(s: Any) -> Any:
    """splitmix64 step; ``s`` is a uint64 array of one element."""
    z = s[0] + np.uint64(0x9E3779B97F4A7C15)
    s[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(inline="always")
def _below(s: Any, n: Any) -> Any:
    """Uniform int in [0, n) for 0 < n < 2**31."""
    return np.int64(((_next(s) >> np.uint64(33)) * np.uint64(n)) >> np.uint64(31))


@njit(inline="always")
def _uniform(s: Any) -> Any:
    return np.float64(_next(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(inline="always")
def _seed(s: Any, a: Any, b: Any, c: Any) -> None:
    s[0] = np.uint64(a) * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(b) * np.uint64(0xC2B2AE3D27D4EB4F)
    s[0] = s[0] ^ np.uint64(c) * np.uint64(0x165667B19E3779F9)
    _next(s)
    _next(s)


# --------------------------------------------------------------------- scoring
@njit(inline="always")
def _mask_pips(R: Any, m: Any) -> Any:
    total = 0
    while m:
        t = _cttz(m)
        total += R[OFF_PIPS + t]
        m &= m - 1
    return total


@njit(inline="always")
def _arm_ends(arm: Any, left: Any, right: Any) -> Any:
    """(inner, other): the end a tile on ``arm`` (0 left, 1 right) covers, and the one that stays."""
    if arm == 0:
        return left, right
    return right, left


@njit(inline="always")
def _round5(x: Any) -> Any:
    return 5 * ((x + 2) // 5)


@njit(cache=True)
def _end_domino(R: Any, hands: Any, seat: Any, capicua: Any, out: Any, row: Any) -> None:
    n = R[P_PLAYERS]
    team = R[OFF_TEAM + seat]
    mode = R[P_DSCORE]
    points = 0
    for s in range(n):
        t = _mask_pips(R, hands[s])
        if mode == 1:
            points += t
        elif R[OFF_TEAM + s] != team:
            points += t if mode == 0 else _round5(t)
    if capicua:
        points += R[P_BONUS]
    out[row, 0] = KIND_DOMINO
    out[row, 1] = seat
    out[row, 2] = team
    out[row, 3] = points
    out[row, 4] = 1 if capicua else 0


@njit(cache=True)
def _end_tranque(R: Any, hands: Any, opener: Any, totals: Any, tt: Any, out: Any, row: Any) -> None:
    n = R[P_PLAYERS]
    nt = R[P_TEAMS]
    for k in range(nt):
        tt[k] = 0
    for s in range(n):
        totals[s] = _mask_pips(R, hands[s])
        tt[R[OFF_TEAM + s]] += totals[s]
    win = -1
    if R[P_TWINNER] == 0:
        low = totals[0]
        for s in range(1, n):
            if totals[s] < low:
                low = totals[s]
        for s in range(n):
            if totals[s] == low:
                team = R[OFF_TEAM + s]
                if win == -1:
                    win = team
                elif win != team:
                    win = -2
    else:
        low = tt[0]
        for k in range(1, nt):
            if tt[k] < low:
                low = tt[k]
        for k in range(nt):
            if tt[k] == low:
                win = k if win == -1 else -2
    out[row, 4] = 0
    if win < 0:
        out[row, 0] = KIND_TIE
        out[row, 1] = -1
        out[row, 2] = -1
        out[row, 3] = 0
        return
    seat = -1
    for i in range(n):  # seats in order from the opener: the first lowest wins ties
        s = (opener + i) % n
        if R[OFF_TEAM + s] == win and (seat < 0 or totals[s] < totals[seat]):
            seat = s
    mode = R[P_TSCORE]
    points = 0
    if mode == 0:
        for s in range(n):
            if R[OFF_TEAM + s] != win:
                points += totals[s]
    elif mode == 1:
        for s in range(n):
            points += totals[s]
    elif mode == 2:
        for k in range(nt):
            if k != win and tt[k] > tt[win]:
                points += tt[k] - tt[win]
    else:
        for s in range(n):
            if R[OFF_TEAM + s] != win and totals[s] > totals[seat]:
                points += _round5(totals[s] - totals[seat])
    out[row, 0] = KIND_TRANQUE
    out[row, 1] = seat
    out[row, 2] = win
    out[row, 3] = points


_Jitted = TypeVar("_Jitted", bound=Callable[..., Any])


def _njit_without_refcounts(func: _Jitted) -> _Jitted:
    """``njit(cache=True)`` without numba's reference counting (its ``_nrt``
    option, which the typed signature of ``njit`` does not list)."""
    options: dict[str, Any] = {"cache": True, "_nrt": False}
    return cast(_Jitted, njit(**options)(func))


# ----------------------------------------------------------- rollout policies
# One playout loop serves every rollout policy; the policy is an integer code
# (with ``q`` and the weights ``W``) and :func:`_choose` is the one place that
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
        data = _popcount(rest & R[OFF_NUM + a])
        if b != a:
            data += _popcount(rest & R[OFF_NUM + b])
    else:
        inner, other = _arm_ends(arm, left, right)
        outer = b if a == inner else a
        opened = np.int64(1) << outer
        after = opened | (np.int64(1) << other)
        data = _popcount(rest & R[OFF_NUM + outer])
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
        data = _popcount(rest & (R[OFF_NUM + a] | R[OFF_NUM + b]))
        data_other = 0
        inner_bit = np.int64(0)
        same = False
        tc = _popcount(tmask & R[OFF_NUM + a])
        near = R[OFF_NUM + a] | R[OFF_NUM + b]
    else:
        inner, other = _arm_ends(arm, left, right)
        outer = b if a == inner else a
        opened = one << outer
        after = opened | (one << other)
        data = _popcount(rest & R[OFF_NUM + outer])
        data_other = _popcount(rest & R[OFF_NUM + other])
        inner_bit = one << inner
        same = outer == other
        tc = _popcount(tmask & R[OFF_NUM + outer]) + 1
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


@njit(cache=True)
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
        i = _cttz(w)
        if R[OFF_PIPS + i] > best:
            best = R[OFF_PIPS + i]
            t = i
            arm = 0 if (ml >> i) & 1 else 1
        w &= w - 1
    return t, arm


@njit(inline="always")
def _uniform_move(rng: Any, nmoves: Any, u: Any, ml: Any, mr: Any) -> Any:
    """(tile, arm) of a uniform legal move: the k-th in legal order."""
    k = _below(rng, nmoves)
    t = -1
    arm = 0
    w = u
    while True:
        i = _cttz(w)
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
@_njit_without_refcounts
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
        i = _cttz(w)
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


@_njit_without_refcounts
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
        i = _cttz(w)
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
    x = _uniform(rng) * z
    j = 0
    while j < m - 1 and x >= buf[j]:
        x -= buf[j]
        j += 1
    return ibuf[j] >> 1, ibuf[j] & 1


@njit(inline="always")
def _choose(R: Any, policy: Any, q: Any, W: Any, pm: Any, om: Any, tmask: Any, gs: Any, buf: Any, ibuf: Any,
            rng: Any, turn: Any, n: Any, pairs: Any, h: Any, ml: Any, mr: Any, left: Any, right: Any) -> Any:
    """The rollout policy's (tile, arm) for seat ``turn`` with the legal
    masks ``ml`` (left end, or the opening) and ``mr`` (right end), not both
    empty (see the comment at the top of this section)."""
    u = ml | mr
    nmoves = _popcount(ml) + _popcount(mr)
    if nmoves == 1:
        if ml:
            return _cttz(ml), 0
        return _cttz(mr), 1
    if (gs >> turn) & 1:
        return _heaviest(R, u, ml)
    if policy == POLICY_MODEL_SOFT:
        return _soft_model_move(R, W, pm, om, tmask, turn, n, pairs, h, u, ml, mr, left, right, buf, ibuf, rng)
    if q >= 1.0 or (q > 0.0 and _uniform(rng) < q):
        if policy == POLICY_HEAVIEST:
            return _heaviest(R, u, ml)
        return _best_scored(R, policy == POLICY_MODEL, W, pm, om, tmask, turn, n, pairs, h, u, ml, mr, left,
                            right)
    return _uniform_move(rng, nmoves, u, ml, mr)


# --------------------------------------------------------------------- playout
# The loop is inlined (twice, see :func:`_playout`) into the three jitted
# entry points below (a batch from one position, the move evaluator, fresh
# deals), and they run without numba's reference counting (``_nrt=False``):
# the policy functions take arrays, and counting references to them at every
# decision cost more than the decision (heaviest-tile playouts ran four times
# slower). So the entry points allocate nothing: the Python wrappers pass
# the result arrays and the scratch (:func:`_scratch`) in.
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
    ``W``, seats ``gs`` playing their heaviest tile; see :func:`_choose`) and
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
                _end_tranque(R, hands, opener, totals, tt, out, row)
                return
            turn = turn + 1 if turn + 1 < n else 0
            continue
        # ---- choose a move (t, arm)
        if forced_t >= 0:
            t = forced_t
            arm = forced_arm if left >= 0 else 0
            forced_t = -1
        else:
            t, arm = _choose(R, policy, q, W, pm, om, tm[0], gs, buf, ibuf, rng, turn, n, pairs, h, ml, mr,
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
            inner, other = _arm_ends(arm, left, right)
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
            _end_domino(R, hands, turn, capicua, out, row)
            return
        turn = turn + 1 if turn + 1 < n else 0


@njit(inline="always")
def _playout(
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


@_njit_without_refcounts
def _playout_batch(
    R: Any, hands: Any, table: Any, turn: Any, passes: Any, opener: Any, required: Any,
    bone: Any, bpos: Any, n: Any, seed: Any, policy: Any, q: Any, W: Any, passed: Any, opened: Any, tmask: Any,
    out: Any, work: Any, pm: Any, om: Any, tm: Any, buf: Any, ibuf: Any, totals: Any, tt: Any, rng: Any,
) -> None:
    """``n`` playouts from one position into ``out`` (n, RESULT_COLS)."""
    players = R[P_PLAYERS]
    _seed(rng, seed, 0x51, 0)
    nb = bone.shape[0]
    for i in range(n):
        for s in range(players):
            work[s] = hands[s]
            pm[s] = passed[s]
            om[s] = opened[s]
        tm[0] = tmask
        _playout(R, work, bone, nb, bpos, table, turn, passes, opener, required, policy, q, W, pm, om, tm,
                 buf, ibuf, 0, -1, 0, rng, totals, tt, out, i)


@_njit_without_refcounts
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
                _seed(rng, seed, s + 1, k + 1)  # same stream for every move
                for x in range(players):
                    work[x] = samples[s, x]
                    pm[x] = passed[x]
                    om[x] = opened[x]
                tm[0] = tmask
                _playout(
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


# ------------------------------------------------------------------ fresh deals
@njit(cache=True)
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
            k = _below(rng, j + 1)
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
            nd = _popcount(m & dmask)
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
        opener = _below(rng, players)
    else:
        opener = 0
        best = -1
        for s in range(players):
            d = hands[s] & dmask
            if d != 0:
                top = 63 - _clz(d)
                if top > best:
                    best = top
                    opener = s
        if opener_rule == 2:
            required = best
    return opener, required


@_njit_without_refcounts
def _random_hands(
    R: Any, n: Any, seed: Any, policy: Any, q: Any, W: Any, order: Any, table: Any, play_rng: Any,
    out: Any, hands: Any, pm: Any, om: Any, tm: Any, buf: Any, ibuf: Any, totals: Any, tt: Any, deal_rng: Any,
) -> None:
    """``n`` fresh deals played out into ``out`` (n, RESULT_COLS); ``order``
    holds the tile indices (shuffled into each deal), ``table`` an empty line."""
    players = R[P_PLAYERS]
    _seed(deal_rng, seed, 0xDEA1, 0)
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
        _seed(rng, seed, 0xDEA2, 0)
    bone = order[players * R[P_HANDSIZE]:]  # a view: re-filled by every shuffle
    nb = bone.shape[0]
    for i in range(n):
        opener, required = _deal(R, deal_rng, order, hands)
        for s in range(players):
            pm[s] = 0
            om[s] = 0
        tm[0] = 0
        _playout(R, hands, bone, nb, 0, table, opener, 0, opener, required, policy, q, W, pm, om, tm,
                 buf, ibuf, 0, -1, 0, rng, totals, tt, out, i)


# ------------------------------------------------------------------ Python API
@lru_cache(maxsize=64)
def _kernel_rules(rules: Rules) -> np.ndarray:
    if rules.layout != "line":
        raise ValueError(f"the kernel plays line layouts only (not {rules.layout!r}); use capicua.engine.compact")
    r = fast_rules(rules)
    if r.n_tiles > 63:
        raise ValueError("the kernel holds hands in int64 masks: sets up to double-nine")
    if r.teams > MAX_TEAMS:
        raise ValueError(f"at most {MAX_TEAMS} teams")
    R = np.zeros(R_SIZE, dtype=np.int64)
    R[P_PLAYERS] = r.players
    R[P_TEAMS] = r.teams
    R[P_NTILES] = r.n_tiles
    R[P_MAXPIP] = r.max_pip
    R[P_DRAWING] = 1 if r.drawing else 0
    R[P_RESERVE] = r.draw_reserve
    R[P_INPLAY] = r.in_play
    R[P_DSCORE] = r.domino_scoring
    R[P_TWINNER] = r.tranque_winner
    R[P_TSCORE] = r.tranque_scoring
    R[P_BONUS] = r.capicua_bonus
    R[P_HANDSIZE] = rules.hand_size
    R[P_REDEAL5] = 1 if rules.redeal_five_doubles == "automatic" else 0
    if rules.first_opener in FORCED_DOUBLE_OPENERS:
        R[P_OPENER] = 2
    elif rules.first_opener in DEAL_OPENERS:
        R[P_OPENER] = 1
    R[P_DOUBLES] = r.doubles_mask
    for i in range(r.n_tiles):
        R[OFF_A + i] = r.tile_a[i]
        R[OFF_B + i] = r.tile_b[i]
        R[OFF_PIPS + i] = r.tile_pips[i]
    for v in range(r.max_pip + 1):
        R[OFF_NUM + v] = r.num_mask[v]
    for s in range(r.players):
        R[OFF_TEAM + s] = r.team_of[s]
    R.setflags(write=False)
    return R


def kernel_rules(rules: Rules) -> np.ndarray:
    """The int64 parameter array of ``rules`` (read-only, cached).
    Raises ``ValueError`` for a cross layout or a set past double-nine."""
    return _kernel_rules(rules)


class Position(NamedTuple):
    """A position as the kernel takes it (see the module docstring)."""

    hands: np.ndarray  # int64 (players,)
    table: np.ndarray  # int64 (5,): left, right, left double, right double, tiles played
    turn: int
    passes: int
    opener: int
    required: int  # tile the opener must lead, or -1
    boneyard: np.ndarray  # int64 (B,)
    bpos: int


def position(state: FastState) -> Position:
    """The kernel's view of a line-layout :class:`FastState` whose hand is not over."""
    if state.result is not None:
        raise ValueError("the hand is over")
    if state.r.layout != 0:
        raise ValueError("the kernel plays line layouts only")
    table = np.array([-1, -1, 0, 0, 0], dtype=np.int64)
    if state.center >= 0:
        table[0], table[1] = state.ends
        table[2] = int(state.end_double[0])
        table[3] = int(state.end_double[1])
        table[4] = state.arm_tiles + 1
    return Position(
        np.array(state.hands, dtype=np.int64),
        table,
        state.turn,
        state.passes,
        state.opener,
        state.required_first,
        np.array(state.boneyard, dtype=np.int64),
        state.bpos,
    )


def _i64(a: Any, ndim: int) -> np.ndarray:
    arr = np.ascontiguousarray(a, dtype=np.int64)
    if arr.ndim != ndim:
        if ndim == 2 and arr.size == 0:
            return arr.reshape(arr.shape[0] if arr.ndim else 0, 0)
        raise ValueError(f"expected a {ndim}-d array, got shape {arr.shape}")
    return arr


class _Rollout(NamedTuple):
    """A rollout policy as the jitted functions take it (see :func:`_choose`)."""

    policy: int  # POLICY_*
    q: float  # probability of the policy's best move (unused by POLICY_MODEL_SOFT)
    weights: np.ndarray  # float64 (MAX_TEAMS, SW_SIZE or MODEL_SIZE): one row per team
    passed: np.ndarray  # int64 (players,): numbers each seat passed on at the root
    opened: np.ndarray  # int64 (players,): numbers each seat opened at the root


def _heaviest_rollout(R: np.ndarray, p: float) -> _Rollout:
    """The ``p`` policy: the heaviest tile w.p. ``p``, else a uniform move."""
    nobody = np.zeros(int(R[P_PLAYERS]), dtype=np.int64)
    # The heaviest tile reads no weights and no public state: zeros of the
    # scored policies' shapes, so that every policy runs the same compiled code.
    return _Rollout(POLICY_HEAVIEST, float(p), np.zeros((MAX_TEAMS, SW_SIZE)), nobody, nobody)


def _scored_rollout(R: np.ndarray, q: float, weights: Any, passed: Any, opened: Any, soft: bool) -> _Rollout:
    """The heuristic policy (SW_SIZE weights) or the play model's (MODEL_SIZE
    weights; drawn from its softmax if ``soft``)."""
    players = int(R[P_PLAYERS])
    W = _weights(weights)
    if W.shape[1] == MODEL_SIZE:
        policy = POLICY_MODEL_SOFT if soft else POLICY_MODEL
    else:
        policy = POLICY_HEURISTIC
    return _Rollout(policy, float(q), W, _passed(passed, players), _passed(opened, players))


def _seed63(seed: int) -> int:
    return int(seed) & 0x7FFFFFFFFFFFFFFF


def _scratch(players: int) -> tuple[np.ndarray, ...]:
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
    boneyard: Any, bpos: int, n: int, seed: int, rollout: _Rollout, table_mask: int,
) -> np.ndarray:
    out = np.zeros((int(n), RESULT_COLS), dtype=np.int64)
    _playout_batch(
        R, _i64(hands, 1), _i64(table, 1), int(turn), int(passes), int(opener), int(required),
        _i64(boneyard, 1), int(bpos), int(n), _seed63(seed), rollout.policy, rollout.q, rollout.weights,
        rollout.passed, rollout.opened, int(table_mask), out, *_scratch(int(R[P_PLAYERS])),
    )
    return out


def _evaluate(
    R: np.ndarray, samples: Any, boneyards: Any, table: Any, turn: int, passes: int, opener: int,
    required: int, bpos: int, moves: Any, n_per_sample: int, seed: int, rollout: _Rollout,
    gorda_seats: Any, table_mask: int,
) -> np.ndarray:
    samples = _i64(samples, 2)
    boneyards = np.ascontiguousarray(boneyards, dtype=np.int64)
    if boneyards.ndim == 1 and boneyards.size == 0:
        boneyards = np.zeros((samples.shape[0], 0), dtype=np.int64)
    if boneyards.ndim != 2 or boneyards.shape[0] != samples.shape[0]:
        raise ValueError("boneyards must be (S, B), one row per sample")
    moves = _i64(moves, 2)
    if moves.ndim != 2 or moves.shape[1] != 2:
        raise ValueError("moves must be (M, 2)")
    gs = np.zeros(samples.shape[0], dtype=np.int64) if gorda_seats is None else _i64(gorda_seats, 1)
    if gs.shape[0] != samples.shape[0]:
        raise ValueError("gorda_seats must hold one mask per sample")
    res = np.zeros((moves.shape[0], 4), dtype=np.float64)
    _evaluate_moves(
        R, samples, boneyards, _i64(table, 1), int(turn), int(passes), int(opener), int(required),
        int(bpos), moves, int(n_per_sample), _seed63(seed), rollout.policy, rollout.q, rollout.weights,
        rollout.passed, gs, rollout.opened, int(table_mask),
        res, np.zeros((1, RESULT_COLS), dtype=np.int64), *_scratch(int(R[P_PLAYERS])),
    )
    return res


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
                  _heaviest_rollout(R, p), 0)


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
                     seed, _heaviest_rollout(R, p), None, 0)


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
                  _scored_rollout(R, q, weights, passed, opened, soft), table_mask)


def evaluate_moves_smart(
    R: np.ndarray, samples: Any, boneyards: Any, table: Any, turn: int, passes: int, opener: int,
    required: int, bpos: int, moves: Any, n_per_sample: int, seed: int, q: float = 0.75,
    weights: Any = None, passed: Any = None, gorda_seats: Any = None,
    opened: Any = None, table_mask: int = 0, soft: bool = False,
) -> np.ndarray:
    """:func:`evaluate_moves` with the heuristic rollout policy of
    :func:`playout_batch_smart`; ``passed``: per-seat masks of the numbers each
    seat has passed on at the root (:func:`passed_masks`); ``gorda_seats``: per
    sample, a bit mask of the seats that play their heaviest tile instead
    (the opponent model of ``capicua.bots.search``; None: no seat);
    ``opened``, ``table_mask``, ``soft``: as :func:`playout_batch_smart`."""
    return _evaluate(R, samples, boneyards, table, turn, passes, opener, required, bpos, moves, n_per_sample,
                     seed, _scored_rollout(R, q, weights, passed, opened, soft), gorda_seats, table_mask)


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
        int(left), int(right), _i64(moves, 2))


def random_hands(R: np.ndarray, n: int, seed: int, p: float = 0.0) -> np.ndarray:
    """``n`` fresh random deals, each played out -> int64 (n, RESULT_COLS)."""
    return _fresh_deals(R, n, seed, _heaviest_rollout(R, p))


def random_hands_smart(R: np.ndarray, n: int, seed: int, q: float = 1.0, weights: Any = None,
                       soft: bool = False) -> np.ndarray:
    """``n`` fresh random deals played out by the heuristic policy
    (:func:`playout_batch_smart`), each team with its own row of ``weights``
    -> int64 (n, RESULT_COLS). The deals depend on ``seed`` only, not on the
    play, so two calls with the same seed and the rows swapped replay every
    deal with the teams' policies exchanged (duplicate deals)."""
    return _fresh_deals(R, n, seed, _scored_rollout(R, q, weights, None, None, soft))


def _fresh_deals(R: np.ndarray, n: int, seed: int, rollout: _Rollout) -> np.ndarray:
    out = np.zeros((int(n), RESULT_COLS), dtype=np.int64)
    empty_line = np.array([-1, -1, 0, 0, 0], dtype=np.int64)
    _random_hands(
        R, int(n), _seed63(seed), rollout.policy, rollout.q, rollout.weights,
        np.arange(int(R[P_NTILES]), dtype=np.int64), empty_line, np.empty(1, dtype=np.uint64),
        out, *_scratch(int(R[P_PLAYERS])),
    )
    return out


def warmup() -> float:
    """Compile (or load from numba's cache) every kernel; returns the seconds it took."""
    from capicua.engine import make_rules

    t0 = time.perf_counter()
    R = kernel_rules(make_rules("cubano"))
    random_hands(R, 2, 1)
    random_hands_smart(R, 2, 1)
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


__all__ = [
    "KIND_DOMINO",
    "KIND_TIE",
    "KIND_TRANQUE",
    "MAX_TEAMS",
    "MODEL_SIZE",
    "Position",
    "RESULT_COLS",
    "SMART_WEIGHTS",
    "SW_SIZE",
    "evaluate_moves",
    "evaluate_moves_smart",
    "kernel_rules",
    "model_scores",
    "passed_masks",
    "playout_batch",
    "playout_batch_smart",
    "position",
    "random_hands",
    "random_hands_smart",
    "warmup",
]
