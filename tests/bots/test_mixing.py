"""The swap chain (``capicua.bots.kernel.mixing.mix_deals``) against exact enumeration.

A small hidden-tile problem -- three seats and a boneyard, each seat allowed
only some tiles -- has few enough consistent deals to list them all, so the
exact chance of every (tile, holder) pair under the uniform posterior is
known. A greedy deal (most constrained seat first, first allowed tiles of a
shuffle, as the search's sampler draws them) is far from it; the same deals
after the chain are within sampling noise of it.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np

from capicua.bots.kernel.mixing import mix_deals

TILES = list(range(10))
NEED = {1: 3, 2: 2, 3: 2}  # seat 0 decides and holds nothing hidden
BONES = 3
ALLOWED = {  # seat 1 lacks the low tiles, seat 3 holds only a few
    1: {4, 5, 6, 7, 8, 9},
    2: set(TILES),
    3: {0, 1, 2, 7},
}


def _consistent_deals() -> list[dict[int, tuple[int, ...]]]:
    out = []
    for h1 in itertools.combinations(sorted(ALLOWED[1]), NEED[1]):
        rest1 = [t for t in TILES if t not in h1]
        for h3 in itertools.combinations([t for t in rest1 if t in ALLOWED[3]], NEED[3]):
            rest3 = [t for t in rest1 if t not in h3]
            for h2 in itertools.combinations([t for t in rest3 if t in ALLOWED[2]], NEED[2]):
                bone = tuple(t for t in rest3 if t not in h2)
                out.append({1: h1, 2: h2, 3: h3, 4: bone})
    return out


def _greedy(rng: random.Random) -> dict[int, list[int]]:
    order = sorted(NEED, key=lambda s: len(ALLOWED[s]) - NEED[s])
    while True:
        pool = TILES[:]
        rng.shuffle(pool)
        hands: dict[int, list[int]] = {}
        taken: set[int] = set()
        for s in order:
            got = [t for t in pool if t not in taken and t in ALLOWED[s]][: NEED[s]]
            taken.update(got)
            hands[s] = got
        if all(len(hands[s]) == NEED[s] for s in NEED):
            hands[4] = [t for t in pool if t not in taken]
            return hands


def _arrays(deals: list[dict[int, list[int]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    masks = np.zeros((len(deals), 4), dtype=np.int64)
    bones = np.zeros((len(deals), BONES), dtype=np.int64)
    allowed = np.zeros((len(deals), 4), dtype=np.int64)
    for i, d in enumerate(deals):
        for s in NEED:
            masks[i, s] = sum(1 << t for t in d[s])
            allowed[i, s] = sum(1 << t for t in ALLOWED[s])
        bones[i] = d[4]
    return masks, bones, allowed


def _frequencies(masks: np.ndarray, bones: np.ndarray) -> Counter[tuple[int, int]]:
    freq: Counter[tuple[int, int]] = Counter()
    for i in range(masks.shape[0]):
        for s in NEED:
            for t in TILES:
                if int(masks[i, s]) >> t & 1:
                    freq[(t, s)] += 1
        for t in bones[i]:
            freq[(int(t), 4)] += 1
    return freq


def test_chain_reaches_the_uniform_posterior_and_keeps_every_constraint() -> None:
    exact_deals = _consistent_deals()
    exact: Counter[tuple[int, int]] = Counter()
    for d in exact_deals:
        for h, ts in d.items():
            for t in ts:
                exact[(t, h)] += 1
    rng = random.Random(3)
    n = 20000
    greedy = [_greedy(rng) for _ in range(n)]
    masks, bones, allowed = _arrays(greedy)
    before = _frequencies(masks, bones)
    mix_deals(masks, bones, allowed, 0, 200, 11)
    after = _frequencies(masks, bones)
    keys = set(exact) | set(before) | set(after)
    off_before = max(abs(before[k] / n - exact[k] / len(exact_deals)) for k in keys)
    off_after = max(abs(after[k] / n - exact[k] / len(exact_deals)) for k in keys)
    assert off_before > 0.05  # the greedy sampler is biased here
    assert off_after < 0.015  # ~4 standard errors of a frequency over 20,000 deals
    for i in range(n):
        seen: list[int] = [int(t) for t in bones[i]]
        for s in NEED:
            hand = [t for t in TILES if int(masks[i, s]) >> t & 1]
            assert len(hand) == NEED[s] and set(hand) <= ALLOWED[s]
            seen += hand
        assert sorted(seen) == TILES
        assert masks[i, 0] == 0  # the deciding seat is left alone


def test_chain_is_seeded_and_zero_steps_changes_nothing() -> None:
    rng = random.Random(5)
    deals = [_greedy(rng) for _ in range(200)]
    a = _arrays(deals)
    b = _arrays(deals)
    c = _arrays(deals)
    mix_deals(a[0], a[1], a[2], 0, 100, 7)
    mix_deals(b[0], b[1], b[2], 0, 100, 7)
    assert (a[0] == b[0]).all() and (a[1] == b[1]).all()
    untouched = c[0].copy()
    mix_deals(c[0], c[1], c[2], 0, 0, 7)
    assert (c[0] == untouched).all()
