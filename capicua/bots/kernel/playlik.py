"""JIT likelihood of observed plays under the play model of
:mod:`capicua.bots.playmodel`, for a batch of sampled deals.

For every deal and every modelled play, the seat's hand at the time is its
sampled hand plus the tiles it played from then on; its legal moves then are
scored (public part precomputed per play and open number, hand part — the
*data* counts and a double that fits next — computed here) and the play adds
``score(played) - logsumexp(scores)`` to that seat's log-likelihood.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from capicua.bots.kernel.bits import cttz, popcount
from capicua.bots.kernel.jit import cached_njit


@cached_njit()
def _play_loglik(
    hands: Any, seat: Any, later: Any, left: Any, right: Any, tile: Any, end: Any, public: Any,
    tile_score: Any, coefs: Any, ta: Any, tb: Any, num: Any, dbl: Any,
) -> Any:
    S = hands.shape[0]
    n = hands.shape[1]
    J = seat.shape[0]
    out = np.zeros((S, n), dtype=np.float64)
    scores = np.empty(2 * ta.shape[0] + 2, dtype=np.float64)
    c_data = coefs[0]
    c_other = coefs[1]
    c_dnext = coefs[2]
    for i in range(S):
        for j in range(J):
            s = seat[j]
            h = hands[i, s] | later[j]
            lv = left[j]
            rv = right[j]
            k = 0
            chosen = 0.0
            if lv < 0:
                w = h
                while w:
                    u = cttz(w)
                    w &= w - 1
                    rest = h ^ (np.int64(1) << u)
                    m = num[ta[u]] | num[tb[u]]
                    sc = tile_score[u] + c_data * popcount(rest & m)
                    if rest & dbl & m:
                        sc += c_dnext
                    scores[k] = sc
                    k += 1
                    if u == tile[j]:
                        chosen = sc
            else:
                for e in range(2):
                    if e == 1 and rv == lv:
                        break  # both ends show one number: one move per tile
                    inner = lv if e == 0 else rv
                    other = rv if e == 0 else lv
                    w = h & num[inner]
                    while w:
                        u = cttz(w)
                        w &= w - 1
                        outer = tb[u] if ta[u] == inner else ta[u]
                        rest = h ^ (np.int64(1) << u)
                        sc = (tile_score[u] + public[j, e, outer] + c_data * popcount(rest & num[outer])
                              + c_other * popcount(rest & num[other]))
                        if rest & dbl & (num[outer] | num[other]):
                            sc += c_dnext
                        scores[k] = sc
                        k += 1
                        if u == tile[j] and (e == end[j] or rv == lv):
                            chosen = sc
            if k <= 1:
                continue
            top = scores[0]
            for x in range(1, k):
                if scores[x] > top:
                    top = scores[x]
            z = 0.0
            for x in range(k):
                z += np.exp(scores[x] - top)
            out[i, s] += chosen - top - np.log(z)
    return out


def play_log_likelihoods(hands: Any, prepared: Any, ta: Any, tb: Any, num: Any, dbl: int) -> np.ndarray:
    """(S, n) log-likelihood of each seat's modelled plays in each deal.

    ``hands``: (S, n) int64 masks of the seats' current hands (sampled);
    ``prepared``: :class:`capicua.bots.playmodel.Prepared`; ``ta``/``tb``:
    the tiles' numbers; ``num[v]``: mask of the tiles holding number v;
    ``dbl``: mask of the doubles."""
    p = prepared
    return _play_loglik(  # type: ignore[no-any-return]
        np.ascontiguousarray(hands, dtype=np.int64), p.seat, p.later, p.left, p.right, p.tile, p.end,
        p.public, p.tile_score, p.coefs, ta, tb, num, np.int64(dbl),
    )


def warmup() -> None:
    """Compile (or load from numba's cache) :func:`_play_loglik`."""
    z = np.zeros(1, dtype=np.int64)
    _play_loglik(np.zeros((1, 4), dtype=np.int64), z, z, z - 1, z - 1, z, z - 1,
                 np.zeros((1, 2, 10), dtype=np.float64), np.zeros(55), np.zeros(3), np.zeros(55, dtype=np.int64),
                 np.zeros(55, dtype=np.int64), np.zeros(10, dtype=np.int64), np.int64(0))
