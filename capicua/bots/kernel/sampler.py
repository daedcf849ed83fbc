"""JIT deal sampler: batches of hidden deals consistent with a seat's view.

The search bots draw hundreds of deals per decision (:mod:`capicua.bots.search`
via :meth:`capicua.bots.infer.Knowledge.sample_masks`); drawing them one by one
in Python cost three quarters of a decision. :func:`draw_deals` draws a whole
batch in one numba call.

Inputs are what a seat knows (:class:`capicua.bots.infer.Knowledge`): the
unknown tiles, how many of them each seat holds, and per deal the tiles each
seat may hold (a bit mask in int64 words: the numbers it passed on and that
deal's play-model exclusions already removed), plus per seat the masks with the
passes alone. Nothing else: the sampler cannot see a hidden hand.

Per deal, the algorithm the Python sampler used:

1. up to :data:`GREEDY_ATTEMPTS` times: shuffle the unknown tiles, then walk
   the other seats most constrained first (fewest spare allowed tiles in that
   deal; ties by fewest spare tiles under the passes alone, then by seat) and
   give each the first tiles of the shuffled pool it may hold; the first walk
   that fills every seat is the deal, the rest of the pool the boneyard (the
   pool's last tile drawn first);
2. else a maximum matching of tiles to seats by augmenting paths (always
   complete when the deal's masks are feasible), tiles in shuffled order;
3. else the same matching with the passes-only masks, and the deal's
   ``dropped`` flag set: its exclusions could not be met together with the
   passes. (The true deal satisfies the passes, so this one always succeeds
   for a real view.)
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from capicua.bots.kernel.bits import cttz, popcount
from capicua.bots.kernel.jit import cached_njit
from capicua.bots.kernel.rng import below, seed_stream

GREEDY_ATTEMPTS = 40


class Deals(NamedTuple):
    """A batch of ``k`` deals."""

    masks: Any  # int64 (k, players, words): every seat's hand as a tile bit mask, the deciding seat's included
    bones: Any  # int64 (k, boneyard): the boneyard's tiles in draw order (first drawn first)
    tiles: Any  # int64 (k, unknown): the unknown tiles by holder: seat 0's, seat 1's... (ascending), then ``bones``
    dropped: Any  # bool (k,): the deal ignores its exclusions (infeasible together with the passes)


@njit(inline="always")
def _shuffle(pool: Any, rng: Any) -> None:
    for i in range(pool.shape[0] - 1, 0, -1):
        j = below(rng, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t


@njit(inline="always")
def _spare(mask: Any, need: Any) -> Any:
    total = 0
    for w in range(mask.shape[0]):
        total += popcount(mask[w])
    return total - need


@cached_njit()
def _match(
    pool: Any, need: Any, allowed: Any, n_bone: Any, hand: Any, count: Any, parent_seat: Any, parent_tile: Any,
    queue: Any,
) -> Any:
    """Assign the tiles of ``pool`` (in its order) to seats ``0..n-1`` (``need[s]``
    tiles each, those of ``allowed[s]``) and the boneyard (seat ``n``, any tile,
    ``n_bone`` of them) by augmenting paths; ``hand`` (n + 1, words) receives
    the masks. True when every seat and the boneyard are full."""
    n = need.shape[0]
    words = hand.shape[1]
    hand[:] = 0
    count[:] = 0
    for i in range(pool.shape[0]):
        t = pool[i]
        tw = t >> 6
        bit = np.int64(1) << (t & 63)
        # Breadth-first search over seats for one with room: a tile of a full
        # seat moves on to another seat that may hold it, and so on.
        parent_seat[:] = -2  # not reached
        head = 0
        tail = 0
        for s in range(n + 1):
            if s == n or allowed[s, tw] & bit:
                parent_seat[s] = -1  # tile t enters s directly
                parent_tile[s] = t
                queue[tail] = s
                tail += 1
        found = -1
        while head < tail:
            s = queue[head]
            head += 1
            if count[s] < (n_bone if s == n else need[s]):
                found = s
                break
            for w in range(words):
                rest = hand[s, w]
                while rest:
                    ub = rest & -rest
                    rest ^= ub
                    for s2 in range(n + 1):
                        if parent_seat[s2] == -2 and (s2 == n or allowed[s2, w] & ub):
                            parent_seat[s2] = s
                            parent_tile[s2] = (w << 6) + cttz(ub)
                            queue[tail] = s2
                            tail += 1
        if found < 0:
            continue  # no room for t anywhere: the matching stays short
        s = found
        count[s] += 1
        while s >= 0:
            u = parent_tile[s]
            moved = np.int64(1) << (u & 63)
            hand[s, u >> 6] |= moved
            prev = parent_seat[s]
            if prev >= 0:
                hand[prev, u >> 6] &= ~moved
            s = prev
    for s in range(n + 1):
        if count[s] != (n_bone if s == n else need[s]):
            return False
    return True


@cached_njit()
def _draw_deals(
    unknown: Any, need: Any, allowed: Any, fallback: Any, n_bone: Any, me: Any, mine: Any, seed: Any
) -> Any:
    k = allowed.shape[0]
    n = allowed.shape[1]
    words = allowed.shape[2]
    u = unknown.shape[0]
    if u != need.sum() + n_bone:
        raise ValueError("the unknown tiles are not the seats' needs plus the boneyard")
    masks = np.zeros((k, n, words), dtype=np.int64)
    tiles = np.zeros((k, u), dtype=np.int64)
    dealt = u - n_bone  # the boneyard's tiles come after the hands'
    dropped = np.zeros(k, dtype=np.bool_)
    rng = np.zeros(1, dtype=np.uint64)
    seed_stream(rng, seed, 0xDEA15, 0)
    pool = unknown.copy()
    hand = np.zeros((n + 1, words), dtype=np.int64)
    taken = np.zeros(words, dtype=np.int64)
    count = np.zeros(n + 1, dtype=np.int64)
    parent_seat = np.zeros(n + 1, dtype=np.int64)
    parent_tile = np.zeros(n + 1, dtype=np.int64)
    queue = np.zeros(n + 1, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)
    spare = np.zeros(n, dtype=np.int64)
    spare_base = np.zeros(n, dtype=np.int64)
    for s in range(n):
        spare_base[s] = _spare(fallback[s], need[s])
    for d in range(k):
        # Most constrained seat first (insertion sort: stable, at most 4 seats).
        n_order = 0
        for s in range(n):
            if s == me or need[s] == 0:
                continue
            spare[s] = _spare(allowed[d, s], need[s])
            j = n_order
            while j > 0 and (
                spare[order[j - 1]] > spare[s]
                or (spare[order[j - 1]] == spare[s] and spare_base[order[j - 1]] > spare_base[s])
            ):
                order[j] = order[j - 1]
                j -= 1
            order[j] = s
            n_order += 1
        done = False
        for _attempt in range(GREEDY_ATTEMPTS):
            _shuffle(pool, rng)
            taken[:] = 0
            ok = True
            for o in range(n_order):
                s = order[o]
                want = need[s]
                hand[s, :] = 0
                got = 0
                for i in range(u):
                    t = pool[i]
                    w = t >> 6
                    bit = np.int64(1) << (t & 63)
                    if allowed[d, s, w] & bit and not taken[w] & bit:
                        hand[s, w] |= bit
                        taken[w] |= bit
                        got += 1
                        if got == want:
                            break
                if got < want:
                    ok = False
                    break
            if ok:
                for o in range(n_order):
                    masks[d, order[o]] = hand[order[o]]
                j = dealt
                for i in range(u - 1, -1, -1):
                    t = pool[i]
                    if not taken[t >> 6] & (np.int64(1) << (t & 63)):
                        tiles[d, j] = t
                        j += 1
                done = True
                break
        if not done:
            _shuffle(pool, rng)
            if not _match(pool, need, allowed[d], n_bone, hand, count, parent_seat, parent_tile, queue):
                dropped[d] = True
                if not _match(pool, need, fallback, n_bone, hand, count, parent_seat, parent_tile, queue):
                    raise ValueError("no deal is consistent with the passes")
            for s in range(n):
                masks[d, s] = hand[s]
            # The matching leaves the boneyard's order to its search; the
            # shuffled pool's order is a uniform one.
            j = dealt
            for i in range(u):
                t = pool[i]
                if hand[n, t >> 6] & (np.int64(1) << (t & 63)):
                    tiles[d, j] = t
                    j += 1
        j = 0
        for s in range(n):
            if s == me:
                continue
            for i in range(u):
                t = unknown[i]
                if masks[d, s, t >> 6] & (np.int64(1) << (t & 63)):
                    tiles[d, j] = t
                    j += 1
        masks[d, me] = mine
    return masks, tiles, dropped


def draw_deals(
    unknown: Any, need: Any, allowed: Any, fallback: Any, n_bone: int, me: int, mine: Any, seed: int
) -> Deals:
    """``len(allowed)`` deals of the tiles ``unknown`` (int64 array).

    Tile sets are bit masks of ``words`` int64 words (tile ``t`` is bit
    ``t % 64`` of word ``t // 64``; one word up to double-nine, two for
    double-twelve). ``need`` (int64 (players,)): tiles to deal each seat (0
    for ``me``); ``allowed`` (int64 (k, players, words)): per deal, the tiles
    each seat may hold; ``fallback`` (int64 (players, words)): the tiles each
    seat may hold under its passes alone; ``n_bone``: the boneyard's size
    (``len(unknown) - sum(need)``); ``mine`` (int64 (words,)): ``me``'s own
    hand, copied into every deal. ``Deals.masks`` is (k, players, words).
    ``unknown`` must be ascending for ``Deals.tiles``' hands to be.
    Seeded: the same arguments give the same deals."""
    masks, tiles, dropped = _draw_deals(
        unknown, need, np.ascontiguousarray(allowed), fallback, n_bone, me, mine, seed
    )
    # A copy: the kernels that read the boneyard are compiled for C-contiguous arrays.
    return Deals(masks, np.ascontiguousarray(tiles[:, len(unknown) - n_bone :]), tiles, dropped)


def mask_words(mask: int, words: int) -> list[int]:
    """A Python int tile mask as ``words`` signed int64 words (low word first)."""
    if words == 1:
        return [mask]  # up to double-nine: bit 63 is never set
    out = []
    for _ in range(words):
        w = mask & 0xFFFFFFFFFFFFFFFF
        out.append(w - (1 << 64) if w >> 63 else w)
        mask >>= 64
    return out


def warmup() -> None:
    """Compile (or load from numba's cache) the sampler."""
    one = np.zeros((1, 2, 1), dtype=np.int64)
    draw_deals(np.zeros(0, dtype=np.int64), np.zeros(2, dtype=np.int64), one, one[0], 0, 0, one[0, 0], 1)
