"""How strong players choose among their legal moves: a fitted model, and the
likelihood of the plays a seat has seen under it, for every sampled deal.

The model is a softmax over a seat's legal moves (a move is a tile and the
end it goes on; moves that leave the same ends are one move) of a linear
score of ``FEATURES``. Its coefficients ``COEFS`` were fitted by maximum
likelihood (conditional logit) to 7,576 decisions with two or more moves made
by ``experto`` and ``dificil`` in 180 duplicate cubano hands against each
other (``docs/bots.md``, "The play model"). On held-out decisions it explains
0.27 nats per decision over a uniform choice, against 0.12 for the best
pip-only softmax.

What it says is what club players say: a player leaves open the number it
holds most of (*la data*: +0.51 per tile), sheds doubles (+2.0) and heavy
tiles (+0.22 per pip), closes both ends on one number (+1.4), and avoids
the numbers its partner passed on (-1.4). For inference the useful part is
the first: the numbers a seat opens tell which numbers it still holds.

``experto`` uses it to weight its sampled deals (``capicua.bots.search``):
a deal in which the seats' observed plays are likely is drawn more often.
The likelihood of every deal of a batch is one call of the JIT function
:func:`capicua.bots.kernel.playlik.play_log_likelihoods`; :func:`prepare` turns
a view into that function's arrays once per decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from capicua.bots.public import Context, PublicState
from capicua.engine.compact import FastRules
from capicua.engine.tiles import canonical, tile_index

FEATURES = (
    "pips",  # pips of the tile
    "data",  # tiles left in hand holding the number the move leaves open (opening: either number)
    "data_other",  # tiles left in hand holding the other open number
    "double",  # the tile is a double
    "partner_passed",  # the number left open is one the partner passed on
    "partner_blocked",  # the partner passed on every number open after the move
    "next_passed",  # the number left open is one the next seat passed on
    "next_forced",  # the next seat passed on every number open after the move
    "prev_passed",  # the number left open is one the previous seat passed on
    "table_count",  # tiles of the number left open on the table after the move
    "partner_showed",  # the number left open is one the partner opened earlier
    "opp_showed",  # ... one an opponent opened earlier
    "covers_partner",  # the move covers a number the partner opened
    "covers_opp",  # ... a number an opponent opened
    "same_ends",  # both ends show the same number after the move
    "double_next",  # a double left in hand fits an end after the move
)
# Fitted coefficients, in FEATURES order (raw units: per pip, per tile, per flag).
COEFS = (0.2217, 0.5127, 0.105, 2.0456, -1.4075, 0.2548, 0.7001, 1.0022, -0.4833, 0.2822,
         -0.3003, -0.2843, -0.1574, -0.0426, 1.4081, 0.2704)
# The features that depend on the rest of the hand (the others are public).
HAND_FEATURES = (1, 2, 15)


def forced_opening(r: FastRules) -> bool:
    """Whether the rules can force the opening tile (the highest double): such
    an opening says nothing about the hand and is not modelled."""
    rules = r.rules
    return any(
        o in ("highest_double", "must_play_top_double")
        for o in (rules.first_opener, rules.next_opener_after_win, rules.next_opener_after_tranque)
    )


def legal_moves(r: FastRules, ctx: Context, hand: list[int]) -> list[tuple[int, int]]:
    """The moves of ``hand`` in ``ctx`` that the model tells apart (every tile
    of ``hand`` before the first tile is down; the model skips forced openings).

    The model reads a play by the numbers it leaves open, so a tile that fits
    both ends when they show one number is one move, on the left end
    (:func:`model_move`). Where the open count does not score, these are the
    compact core's moves less equivalent ones
    (:meth:`capicua.engine.compact.FastState.distinct_moves`, the one rule);
    where it scores, the core also tells a double end from a plain one, which
    the model does not read (``tests/bots/test_model_moves.py`` holds both)."""
    if ctx.left < 0:
        return [(t, -1) for t in hand]
    out = []
    for t in hand:
        a, b = r.tile_a[t], r.tile_b[t]
        if ctx.left in (a, b):
            out.append((t, 0))
        if ctx.right in (a, b) and ctx.right != ctx.left:
            out.append((t, 1))
    return out


def model_move(ctx: Context, tile: int, end: int) -> tuple[int, int]:
    """The move of :func:`legal_moves` that the play of ``tile`` on ``end`` is."""
    if end == 1 and ctx.left == ctx.right:
        return (tile, 0)
    return (tile, end)


def move_features(r: FastRules, ctx: Context, hand: list[int], t: int, end: int) -> list[float]:
    """``FEATURES`` of playing tile ``t`` on ``end`` from ``hand`` (which holds ``t``)."""
    n = r.players
    me = ctx.seat
    partner = r.rules.partner_of(me)  # None outside partnership games: no partner terms
    nxt, prv = (me + 1) % n, (me + n - 1) % n
    a, b = r.tile_a[t], r.tile_b[t]
    rest = [u for u in hand if u != t]
    ta, tb = r.tile_a, r.tile_b

    def holding(v: int) -> int:
        return sum(1 for u in rest if ta[u] == v or tb[u] == v)

    if end < 0:
        opened = (1 << a) | (1 << b)
        after = opened
        data = sum(1 for u in rest if ta[u] in (a, b) or tb[u] in (a, b))
        data_other = 0
        inner = -1
        outer = a
        other = -1
        table_count = ctx.table_count[outer]
    else:
        inner = ctx.left if end == 0 else ctx.right
        other = ctx.right if end == 0 else ctx.left
        outer = b if a == inner else a
        opened = 1 << outer
        after = opened | (1 << other)
        data = holding(outer)
        data_other = holding(other)
        table_count = ctx.table_count[outer] + 1
    pp = ctx.passed[partner] if partner is not None else 0
    p_opened = ctx.opened[partner] if partner is not None else 0
    np_, vp = ctx.passed[nxt], ctx.passed[prv]
    opp_opened = ctx.opened[nxt] | ctx.opened[prv]
    inner_bit = (1 << inner) if inner >= 0 else 0
    double_next = any(ta[u] == tb[u] and (after >> ta[u]) & 1 for u in rest)
    f = [
        a + b, data, data_other, a == b,
        bool(opened & pp), partner is not None and (after & ~pp) == 0,
        bool(opened & np_), (after & ~np_) == 0, bool(opened & vp),
        table_count, bool(opened & p_opened), bool(opened & opp_opened),
        bool(inner_bit & p_opened), bool(inner_bit & opp_opened), outer == other,
        double_next,
    ]
    return [float(x) for x in f]


def move_score(r: FastRules, ctx: Context, hand: list[int], t: int, end: int,
               coefs: tuple[float, ...] = COEFS) -> float:
    return sum(c * x for c, x in zip(coefs, move_features(r, ctx, hand, t, end), strict=True))


@dataclass
class Prepared:
    """A view's observed plays as the arrays of
    :func:`capicua.bots.kernel.playlik.play_log_likelihoods` (numpy int64 / float64)."""

    seat: Any  # (J,) the seat that played
    later: Any  # (J,) mask of the tiles that seat played from this play on (this one included)
    left: Any  # (J,) ends before the play (-1: the opening tile)
    right: Any
    tile: Any  # (J,) the tile played
    end: Any  # (J,) its end (0, 1; -1 opening)
    public: Any  # (J, 2, max_pip + 1) public score of leaving number v open on end e
    tile_score: Any  # (NT,) pips and double part of the score
    coefs: Any  # (3,) data, data_other, double_next coefficients


def prepare(pub: PublicState, seats: set[int], coefs: tuple[float, ...] = COEFS) -> Prepared | None:
    """The plays of ``seats`` in the view, ready for the likelihood; None
    when there is none. Forced openings (the highest double) are skipped."""
    import numpy as np

    r = pub.r
    mp = r.max_pip
    forced = forced_opening(r)
    later = [0] * r.players
    rows: list[tuple[int, int, int, int, int, int, list[list[float]]]] = []
    for ctx, t, e in reversed(pub.plays):
        s = ctx.seat
        later[s] |= 1 << t
        if s not in seats or (e < 0 and forced):
            continue
        public = [[0.0] * (mp + 1) for _ in range(2)]
        if e >= 0:
            for end in (0, 1):
                inner = ctx.left if end == 0 else ctx.right
                for v in range(mp + 1):
                    # any tile (inner, v) stands for the public part: drop its pips/double terms
                    u = tile_index(canonical(inner, v), mp)
                    f = move_features(r, ctx, [u], u, end)
                    public[end][v] = sum(coefs[k] * f[k] for k in range(len(f))
                                         if k not in HAND_FEATURES and k not in (0, 3))
        rows.append((s, later[s], ctx.left, ctx.right, t, e, public))
    if not rows:
        return None
    ta, tb = r.tile_a, r.tile_b
    tile_score = np.array([coefs[0] * (ta[u] + tb[u]) + coefs[3] * (ta[u] == tb[u]) for u in range(r.n_tiles)])
    return Prepared(
        seat=np.array([x[0] for x in rows], dtype=np.int64),
        later=np.array([x[1] for x in rows], dtype=np.int64),
        left=np.array([x[2] for x in rows], dtype=np.int64),
        right=np.array([x[3] for x in rows], dtype=np.int64),
        tile=np.array([x[4] for x in rows], dtype=np.int64),
        end=np.array([x[5] for x in rows], dtype=np.int64),
        public=np.array([x[6] for x in rows], dtype=np.float64),
        tile_score=tile_score.astype(np.float64),
        coefs=np.array([coefs[k] for k in HAND_FEATURES], dtype=np.float64),
    )


@lru_cache(maxsize=64)
def tile_arrays(r: FastRules) -> tuple[Any, Any, Any, int]:
    """(ta, tb, num, dbl) for :func:`capicua.bots.kernel.playlik.play_log_likelihoods`."""
    import numpy as np

    return (np.array(r.tile_a, dtype=np.int64), np.array(r.tile_b, dtype=np.int64),
            np.array(r.num_mask, dtype=np.int64), r.doubles_mask)
