"""The JIT deal sampler (capicua.bots.kernel.sampler, through Knowledge).

Every deal must respect the view (tile counts, passes, the deal's
exclusions unless they are infeasible with the passes, every unknown tile
dealt once); the deals' distribution must match the Python sampler the bots
used before (kept below as the reference: greedy walks over shuffled pools,
most constrained seat first, then an augmenting-path matching); draws are
seeded; and a sampler fed a view cannot tell two hidden deals with that view
apart.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import combinations
from typing import Any

import numpy as np
import pytest

from capicua.bots import decide
from capicua.bots.infer import Knowledge, tile_mask
from capicua.bots.kernel import sampler
from capicua.bots.public import public_state
from capicua.engine import Match, Play, RedealAnswer, make_rules, parse_action
from capicua.engine.compact import bits

N_DEALS = 20_000
FREQ_TOLERANCE = 0.025  # about 5 standard deviations of the difference of two 20,000-deal frequencies


# ------------------------------------------------------------------ reference
def reference_sample(kn: Knowledge, rng: random.Random, excluded: list[frozenset[int]] | None) -> list[list[int]]:
    """The Python sampler the bots used before the JIT one (one deal)."""
    r = kn.r
    ta, tb = r.tile_a, r.tile_b
    none: frozenset[int] = frozenset()
    excl = excluded if excluded is not None else [none] * r.players
    others = [s for s in range(r.players) if s != kn.me and kn.need[s] > 0]
    order = sorted(others, key=lambda s: len(kn.allowed[s]) - kn.need[s])
    if excluded is not None:
        order = sorted(order, key=lambda s: len(kn.allowed[s]) - len(excl[s]) - kn.need[s])
    for _attempt in range(40):
        rand = rng.random
        pool = sorted(kn.unknown, key=lambda _t: rand())
        taken: set[int] = set()
        hands: list[list[int]] = [[] for _ in range(r.players)]
        ok = True
        for s in order:
            f = kn.forbidden[s]
            got = hands[s]
            for t in pool:
                if t in taken or ta[t] in f or tb[t] in f or t in excl[s]:
                    continue
                got.append(t)
                taken.add(t)
                if len(got) == kn.need[s]:
                    break
            if len(got) < kn.need[s]:
                ok = False
                break
        if ok:
            hands[kn.me] = kn.mine[:]
            bone = [t for t in pool if t not in taken]
            bone.reverse()
            hands.append(bone)
            return hands
    if excluded is not None:
        hands = reference_matching(kn, rng, excl)
        if all(len(hands[s]) == kn.need[s] for s in range(r.players) if s != kn.me):
            return hands
    return reference_matching(kn, rng)


def reference_matching(kn: Knowledge, rng: random.Random, excl: list[frozenset[int]] | None = None) -> list[list[int]]:
    n = kn.r.players
    slots: list[int] = []
    for s in range(n):
        slots += [s] * kn.need[s]
    slots += [n] * kn.boneyard
    pool = kn.unknown[:]
    rng.shuffle(pool)
    ta, tb = kn.r.tile_a, kn.r.tile_b

    def fits(t: int, s: int) -> bool:
        if s == n:
            return True
        f = kn.forbidden[s]
        return ta[t] not in f and tb[t] not in f and (excl is None or t not in excl[s])

    owner: dict[int, int] = {}

    def augment(t: int, seen: set[int]) -> bool:
        for j in range(len(slots)):
            if j in seen or not fits(t, slots[j]):
                continue
            seen.add(j)
            if j not in owner or augment(owner[j], seen):
                owner[j] = t
                return True
        return False

    for t in pool:
        augment(t, set())
    hands: list[list[int]] = [[] for _ in range(n + 1)]
    for j, t in owner.items():
        hands[slots[j]].append(t)
    hands[n].reverse()
    hands[kn.me] = kn.mine[:]
    return hands


# ------------------------------------------------------------------ positions
def _view(preset: str, seed: str, plies: int) -> dict[str, Any]:
    """The view of the seat on turn after ``plies`` botagorda moves."""
    rules = make_rules(preset)
    rng = random.Random(seed)
    m = Match(rules, seed=seed)
    m.start_hand()
    for _ in range(plies):
        if m.phase == "redeal_question":
            m.apply(m.turn, RedealAnswer(False))  # type: ignore[arg-type]
            continue
        seat = m.turn
        assert seat is not None and m.phase == "play"
        m.apply(seat, parse_action(decide("botagorda", m.view(seat), rng.randrange(1 << 30)), rules.max_pip))
    assert m.phase == "play" and m.turn is not None
    return m.view(m.turn)


# Early and late, with and without passes; the draw game's boneyard is drawn from.
POSITIONS = [("cubano", "deals-c1", 9), ("cubano", "deals-c2", 17), ("cubano", "deals-p2", 28),
             ("la-plaza", "deals-p1", 10), ("la-plaza", "deals-c3", 10), ("draw", "deals-d1", 8)]
IDS = [f"{preset}-{plies}-{seed}" for preset, seed, plies in POSITIONS]


def _knowledge(preset: str, seed: str, plies: int) -> Knowledge:
    return Knowledge(public_state(_view(preset, seed, plies)))


def _exclusions(kn: Knowledge) -> list[frozenset[int]]:
    """The gorda exclusions of the seats that have them (none for the others)."""
    return [e if e is not None else frozenset() for e in kn.gorda_exclusions()]


def _feasible(kn: Knowledge, excluded: list[frozenset[int]]) -> bool:
    hands = reference_matching(kn, random.Random(0), excluded)
    return all(len(hands[s]) == kn.need[s] for s in range(kn.r.players) if s != kn.me)


# ---------------------------------------------------------------------- tests
def test_positions_have_passes_or_exclusions() -> None:
    """The positions constrain the deals (else the checks below prove little)."""
    constrained = 0
    for p in POSITIONS:
        kn = _knowledge(*p)
        passes = sum(1 for f in kn.forbidden if f)
        constrained += passes >= 2 and any(_exclusions(kn))
    assert constrained >= 3


@pytest.mark.parametrize("position", POSITIONS, ids=IDS)
def test_every_deal_respects_the_view(position: tuple[str, str, int]) -> None:
    kn = _knowledge(*position)
    n = kn.r.players
    excl = _exclusions(kn)
    chosen = np.array([random.Random(i).randrange(1 << n) for i in range(2000)], dtype=np.int64)
    allowed = kn.allowed_per_deal(excl, chosen)
    batch = kn.sample_masks(random.Random(position[1]), allowed)
    assert batch.masks.shape == (len(chosen), n) and batch.bones.shape == (len(chosen), kn.boneyard)
    # The kernels that take them are compiled for C-contiguous int64 arrays.
    assert batch.masks.flags.c_contiguous and batch.bones.flags.c_contiguous and batch.masks.dtype == np.int64
    unknown = tile_mask(kn.unknown)
    for d in range(len(chosen)):
        masks = [int(m) for m in batch.masks[d]]
        bone = [int(t) for t in batch.bones[d]]
        assert masks[kn.me] == tile_mask(kn.mine)
        seen = 0
        for s in range(n):
            if s == kn.me:
                continue
            assert bin(masks[s]).count("1") == kn.need[s]
            assert masks[s] & ~kn.allowed_masks[s] == 0, "a seat holds a number it passed on"
            assert seen & masks[s] == 0
            seen |= masks[s]
        assert len(set(bone)) == len(bone) and seen & tile_mask(bone) == 0
        assert seen | tile_mask(bone) == unknown, "every unknown tile is dealt exactly once"
        by_holder = [t for s in range(n) if s != kn.me for t in bits(masks[s])] + bone
        assert [int(t) for t in batch.tiles[d]] == by_holder
        respected = all(masks[s] & ~int(allowed[d, s]) == 0 for s in range(n) if s != kn.me)
        assert respected != bool(batch.dropped[d])
        if batch.dropped[d]:
            on = [excl[s] if (int(chosen[d]) >> s) & 1 else frozenset() for s in range(n)]
            assert not _feasible(kn, on), "exclusions dropped although they could be met"


def test_exclusions_are_dropped_only_when_infeasible() -> None:
    kn = _knowledge("cubano", "deals-c2", 17)
    n = kn.r.players
    seat = max((s for s in range(n) if s != kn.me), key=lambda s: kn.need[s])
    # Leave the seat one tile fewer than it holds: infeasible with any passes.
    keep = kn.allowed[seat][: kn.need[seat] - 1]
    impossible: list[frozenset[int]] = [frozenset() for _ in range(n)]
    impossible[seat] = frozenset(kn.allowed[seat]) - frozenset(keep)
    # Leave it exactly the tiles it needs: feasible, and those must be its hand.
    exact: list[frozenset[int]] = [frozenset() for _ in range(n)]
    exact_hand = kn.allowed[seat][: kn.need[seat]]
    exact[seat] = frozenset(kn.allowed[seat]) - frozenset(exact_hand)
    chosen = np.full(300, 1 << seat, dtype=np.int64)
    bad = kn.sample_masks(random.Random(1), kn.allowed_per_deal(impossible, chosen))
    assert bad.dropped.all()
    assert all(int(m) & ~kn.allowed_masks[seat] == 0 for m in bad.masks[:, seat])
    good = kn.sample_masks(random.Random(2), kn.allowed_per_deal(exact, chosen))
    assert not good.dropped.any()
    assert all(int(m) == tile_mask(exact_hand) for m in good.masks[:, seat])


def _brute_feasible(u: int, need: list[int], n_bone: int, allowed: list[int]) -> bool:
    """Whether tiles 0..u-1 can be dealt: every assignment tried."""

    def place(s: int, left: int) -> bool:
        if s == len(need):
            return bin(left).count("1") == n_bone
        for hand in combinations(bits(left & allowed[s]), need[s]):
            if place(s + 1, left & ~tile_mask(hand)):
                return True
        return False

    return place(0, (1 << u) - 1)


def test_matching_is_maximum_on_small_instances() -> None:
    """The augmenting-path fallback fills every seat exactly when some deal does."""
    rng = random.Random("deals-match")
    full = 0
    for _ in range(400):
        u = rng.randrange(3, 10)
        n = rng.randrange(2, 4)
        need = [0] * n
        for _t in range(u - rng.randrange(0, 3)):
            need[rng.randrange(n)] += 1
        n_bone = u - sum(need)
        allowed = [rng.randrange(1 << u) for _ in range(n)]
        pool = np.array(rng.sample(range(u), u), dtype=np.int64)
        hand = np.zeros((n + 1, 1), dtype=np.int64)
        scratch = [np.zeros(n + 1, dtype=np.int64) for _ in range(4)]
        ok = sampler._match(pool, np.array(need, dtype=np.int64), np.array(allowed, dtype=np.int64)[:, None],
                          n_bone, hand, *scratch)
        assert ok == _brute_feasible(u, need, n_bone, allowed)
        if ok:
            full += 1
            got = [int(h) for h in hand[:, 0]]
            assert sum(got) == (1 << u) - 1 and all(got[s] & ~allowed[s] == 0 for s in range(n))
            assert [bin(g).count("1") for g in got] == need + [n_bone]
    assert 50 < full < 390


def _frequencies(deal_list: list[list[list[int]]], n: int) -> Counter[tuple[int, int]]:
    """(tile, holder) counts; holder n is the boneyard, n + 1 its first tile."""
    c: Counter[tuple[int, int]] = Counter()
    for hands in deal_list:
        for s in range(n + 1):
            for t in hands[s]:
                c[t, s] += 1
        if hands[n]:
            c[hands[n][0], n + 1] += 1
    return c


def _batch_hands(kn: Knowledge, batch: sampler.Deals) -> list[list[list[int]]]:
    return [[bits(int(m)) for m in row] + [[int(t) for t in b]] for row, b in zip(batch.masks, batch.bones, strict=True)]


@pytest.mark.parametrize("with_exclusions", [False, True])
@pytest.mark.parametrize("position", POSITIONS, ids=IDS)
def test_distribution_matches_the_python_sampler(position: tuple[str, str, int], with_exclusions: bool) -> None:
    kn = _knowledge(*position)
    n = kn.r.players
    excl = _exclusions(kn) if with_exclusions else None
    if with_exclusions and not any(excl or ()):
        pytest.skip("no exclusions in this position")
    rng = random.Random(f"freq-{position[1]}")
    ref = [reference_sample(kn, rng, excl) for _ in range(N_DEALS)]
    chosen = np.full(N_DEALS, (1 << n) - 1 if with_exclusions else 0, dtype=np.int64)
    batch = kn.sample_masks(rng, kn.allowed_per_deal(excl or [None] * n, chosen))
    got = _batch_hands(kn, batch)
    f_ref, f_got = _frequencies(ref, n), _frequencies(got, n)
    worst = max(abs(f_ref[key] - f_got[key]) / N_DEALS for key in set(f_ref) | set(f_got))
    assert worst < FREQ_TOLERANCE, worst
    # One deal at a time (Knowledge.sample) is the same sampler.
    one = [kn.sample(rng, excl) for _ in range(N_DEALS // 4)]
    f_one = _frequencies(one, n)
    worst_one = max(abs(f_ref[key] / N_DEALS - 4 * f_one[key] / N_DEALS) for key in set(f_ref) | set(f_one))
    assert worst_one < 2 * FREQ_TOLERANCE, worst_one


def test_draws_are_seeded() -> None:
    kn = _knowledge("cubano", "deals-c1", 9)
    allowed = [kn.allowed_masks] * 50
    a = kn.sample_masks(random.Random(7), allowed)
    b = kn.sample_masks(random.Random(7), allowed)
    c = kn.sample_masks(random.Random(8), allowed)
    assert (a.masks == b.masks).all() and (a.bones == b.bones).all()
    assert not (a.masks == c.masks).all()
    assert kn.sample(random.Random(3)) == kn.sample(random.Random(3))


def test_double_twelve_deals_use_two_words() -> None:
    rules = make_rules("block", max_pip=12)
    m = Match(rules, seed="deals-d12")
    m.start_hand()
    assert m.turn is not None
    kn = Knowledge(public_state(m.view(m.turn)))
    assert max(kn.unknown) >= 64
    for i in range(200):
        hands = kn.sample(random.Random(i))
        assert sorted(t for s, h in enumerate(hands) if s != kn.me for t in h) == sorted(kn.unknown)
        assert all(len(hands[s]) == kn.need[s] for s in range(kn.r.players) if s != kn.me)
    with pytest.raises(ValueError):
        kn.sample_masks(random.Random(0), [kn.allowed_masks])


def test_the_sampler_cannot_see_the_hidden_hands() -> None:
    """Two deals giving the seat the same view give the same samples: two
    opponents swap tiles they have not played (no one has passed yet)."""
    rules = make_rules("cubano")
    rng = random.Random("deals-nopeek")
    match = Match(rules, seed="deals-nopeek")
    match.start_hand()
    for _ in range(3):
        seat = match.turn
        assert seat is not None
        match.apply(seat, parse_action(decide("botagorda", match.view(seat), rng.randrange(1 << 30)), rules.max_pip))
    me = match.turn
    assert me is not None
    hand = match.hand
    assert hand is not None
    view = match.view(me)
    a, b = [s for s in range(rules.players) if s != me][:2]
    deal = hand.deals[-1]
    swapped = [[tuple(t) for t in h] for h in deal["hands"]]
    ta, tb = hand.hands[a][0], hand.hands[b][0]  # still in their hands: not played
    ia, ib = swapped[a].index(ta), swapped[b].index(tb)
    swapped[a][ia], swapped[b][ib] = tb, ta
    other = Match(rules, seed=match.seed)
    other.start_hand_with_deal(swapped, [tuple(t) for t in deal["sleeping"]], opener=hand.opener)
    for act in hand.actions:
        if "play" in act:
            other.apply(act["seat"], Play(tuple(act["play"]), act["end"]))
        elif "redeal" in act:
            other.apply(act["seat"], RedealAnswer(act["redeal"]))
    assert other.hand is not None and other.hand.hands != hand.hands
    view_b = other.view(me)
    assert json.dumps(view, sort_keys=True) == json.dumps(view_b, sort_keys=True)
    kn_a, kn_b = Knowledge(public_state(view)), Knowledge(public_state(view_b))
    excl = _exclusions(kn_a)
    chosen = np.arange(64, dtype=np.int64) % (1 << rules.players)
    x = kn_a.sample_masks(random.Random(5), kn_a.allowed_per_deal(excl, chosen))
    y = kn_b.sample_masks(random.Random(5), kn_b.allowed_per_deal(excl, chosen))
    assert (x.masks == y.masks).all() and (x.bones == y.bones).all()
