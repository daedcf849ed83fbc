"""What a seat knows about the hidden tiles, and deals consistent with it.

From a view a seat knows: its own tiles, every tile on the table, how many
tiles every other seat holds, how many lie in the boneyard (the 15 sleeping
tiles in the Cuban game), and every pass — a seat that passed holds neither
number that was open (it cannot have gained tiles since, except by drawing,
and a pass only happens once drawing is over). :class:`Knowledge` turns that
into per-seat allowed tiles and samples hidden deals that respect all of it.

``likelihood`` scores a sampled deal by how probable the other seats' observed
plays are under a "botar la gorda" softmax model (players tend to shed heavy
tiles), used by ``experto`` to weight samples.
"""

from __future__ import annotations

import math
import random

from capicua.engine.fast import FastState, bits

from .public import PublicState


class Knowledge:
    """The hidden-tile constraints of one seat's view (its :class:`PublicState`)."""

    def __init__(self, pub: PublicState) -> None:
        r = pub.r
        self.pub = pub
        self.r = r
        self.me = pub.me
        self.mine = pub.mine
        self.unknown = pub.unseen
        self.need = pub.need
        self.boneyard = pub.boneyard
        self.forbidden = pub.passed_on
        ta, tb = r.tile_a, r.tile_b
        self.allowed: list[list[int]] = []
        for s in range(r.players):
            f = self.forbidden[s]
            self.allowed.append([t for t in self.unknown if ta[t] not in f and tb[t] not in f])
        # Most constrained seats first: fewest spare allowed tiles.
        others = [s for s in range(r.players) if s != self.me and self.need[s] > 0]
        self.order = sorted(others, key=lambda s: len(self.allowed[s]) - self.need[s])
        self._plays = _observed_plays(pub)
        self._exp_cache: dict[float, list[float]] = {}

    def sample(self, rng: random.Random, excluded: list[frozenset[int]] | None = None) -> list[list[int]]:
        """A random assignment of the unknown tiles: hands[s] for every seat
        (own hand included) and, last, the boneyard (in draw order: its first
        tile is drawn first).

        ``excluded[s]`` are tiles seat ``s`` must not hold (a play model's
        hard constraints, see :meth:`gorda_exclusions`); when they cannot be
        met together with the passes, the sample ignores them."""
        r = self.r
        ta, tb = r.tile_a, r.tile_b
        none: frozenset[int] = frozenset()
        excl = excluded if excluded is not None else [none] * r.players
        order = self.order
        if excluded is not None:
            order = sorted(order, key=lambda s: len(self.allowed[s]) - len(excl[s]) - self.need[s])
        for _attempt in range(40):
            rand = rng.random
            pool = sorted(self.unknown, key=lambda _t: rand())  # a shuffle, cheaper than rng.shuffle
            taken: set[int] = set()
            hands: list[list[int]] = [[] for _ in range(r.players)]
            ok = True
            for s in order:
                need = self.need[s]
                f = self.forbidden[s]
                x = excl[s]
                got = hands[s]
                for t in pool:
                    if t in taken or ta[t] in f or tb[t] in f or t in x:
                        continue
                    got.append(t)
                    taken.add(t)
                    if len(got) == need:
                        break
                if len(got) < need:
                    ok = False
                    break
            if ok:
                hands[self.me] = self.mine[:]
                bone = [t for t in pool if t not in taken]
                bone.reverse()
                hands.append(bone)
                return hands
        if excluded is not None:
            hands = self._sample_matching(rng, excl)
            if all(len(hands[s]) == self.need[s] for s in range(r.players) if s != self.me):
                return hands
        return self._sample_matching(rng)

    def _sample_matching(self, rng: random.Random, excl: list[frozenset[int]] | None = None) -> list[list[int]]:
        """Fallback: a feasible assignment by augmenting paths (always exists:
        the true deal is one), randomised by shuffling."""
        n = self.r.players
        slots: list[int] = []  # seat of each slot; boneyard slots are seat n
        for s in range(n):
            slots += [s] * self.need[s]
        slots += [n] * self.boneyard
        pool = self.unknown[:]
        rng.shuffle(pool)
        ta, tb = self.r.tile_a, self.r.tile_b

        def fits(t: int, s: int) -> bool:
            if s == n:
                return True
            f = self.forbidden[s]
            return ta[t] not in f and tb[t] not in f and (excl is None or t not in excl[s])

        owner: dict[int, int] = {}  # slot -> tile
        slot_of: dict[int, int] = {}  # tile -> slot

        def augment(t: int, seen: set[int]) -> bool:
            for j in range(len(slots)):
                if j in seen or not fits(t, slots[j]):
                    continue
                seen.add(j)
                if j not in owner or augment(owner[j], seen):
                    owner[j] = t
                    slot_of[t] = j
                    return True
            return False

        for t in pool:
            augment(t, set())
        hands: list[list[int]] = [[] for _ in range(n + 1)]
        for j, t in owner.items():
            hands[slots[j]].append(t)
        hands[n].reverse()
        hands[self.me] = self.mine[:]
        return hands

    def to_state(self, hands: list[list[int]]) -> FastState:
        """The view's position completed by the deal ``hands`` (as :meth:`sample` gives it)."""
        n = self.r.players
        masks = [0] * n
        for s in range(n):
            m = 0
            for t in hands[s]:
                m |= 1 << t
            masks[s] = m
        return self.pub.base.with_hidden(masks, tuple(hands[n]))

    def log_likelihood(self, hands: list[list[int]], beta: float, skip: tuple[int, ...] = ()) -> float:
        """log P(observed plays of the other seats | deal) under a softmax over
        the legal tiles with weight exp(beta * pips). Seats in ``skip`` (and
        the seat itself) are not modelled. Draw games are not weighted (0.0)."""
        if beta == 0.0:
            return 0.0
        per_seat = self.seat_log_likelihoods(hands, beta)
        return sum(x for s, x in enumerate(per_seat) if s not in skip)

    def seat_log_likelihoods(self, hands: list[list[int]], beta: float) -> list[float]:
        """Per seat, log P(its observed plays | deal) under a softmax over the
        tiles that fitted the ends, with weight exp(beta * pips) (0.0 for seats
        with no modelled play, and in draw games)."""
        n = self.r.players
        out = [0.0] * n
        if self.r.drawing or not self._plays:
            return out
        table = self._exp_table(beta)
        held = [set(h) for h in hands[:n]]
        log = math.log
        for seat, t, fits in self._plays:
            h = held[seat]
            h.add(t)
            legal = h & fits if fits is not None else h
            if len(legal) <= 1:
                continue
            z = 0.0
            for u in legal:
                z += table[u]
            out[seat] += log(table[t] / z)
        return out

    def gorda_exclusions(self) -> list[frozenset[int] | None]:
        """The "botar la gorda" hypothesis as hard constraints: for every other
        seat, the unknown tiles it cannot hold if every play it made was its
        heaviest playable tile (a heavier tile that fitted the ends then would
        have been played). None when the seat's own later plays refute the
        hypothesis (it kept a heavier tile that fitted and played it later),
        or when the constraints leave it too few tiles."""
        n = self.r.players
        tp = self.r.tile_pips
        out: list[frozenset[int] | None] = [frozenset() for _ in range(n)]
        later: list[set[int]] = [set() for _ in range(n)]
        excl: list[set[int]] = [set() for _ in range(n)]
        unknown = self.unknown
        for seat, t, fits in self._plays:  # newest first
            if out[seat] is None:
                continue
            p = tp[t]
            if any(tp[u] > p and (fits is None or u in fits) for u in later[seat]):
                out[seat] = None
                continue
            for u in unknown:
                if tp[u] > p and (fits is None or u in fits):
                    excl[seat].add(u)
            later[seat].add(t)
        for s in range(n):
            if out[s] is None or s == self.me:
                out[s] = None if s != self.me else frozenset()
                continue
            allowed = self.allowed[s]
            if sum(1 for u in allowed if u not in excl[s]) < self.need[s]:
                out[s] = None
            else:
                out[s] = frozenset(excl[s])
        return out

    def gorda_log_prob(self, excl: frozenset[int], seat: int) -> float:
        """log of the chance that a uniformly dealt hand of ``seat`` (from the
        tiles its passes allow) avoids ``excl``: hypergeometric, ignoring the
        other seats' constraints."""
        a = len(self.allowed[seat])
        e = sum(1 for u in self.allowed[seat] if u in excl)
        k = self.need[seat]
        if a - e < k:
            return -math.inf
        return math.lgamma(a - e + 1) - math.lgamma(a - e - k + 1) - math.lgamma(a + 1) + math.lgamma(a - k + 1)

    def _exp_table(self, beta: float) -> list[float]:
        cached = self._exp_cache.get(beta)
        if cached is None:
            top = max(self.r.tile_pips)
            cached = [math.exp(beta * (p - top)) for p in self.r.tile_pips]
            self._exp_cache[beta] = cached
        return cached


def _observed_plays(pub: PublicState) -> list[tuple[int, int, frozenset[int] | None]]:
    """Plays of the other seats, newest first, with the set of tiles that fitted
    the ends they were made on (None for the opening tile: any tile). Line
    layouts only (a cross has no plays in ``pub.plays``: no weighting there)."""
    from .playmodel import forced_opening

    r = pub.r
    forced = forced_opening(r)
    with_num = [frozenset(bits(m)) for m in r.num_mask]
    out = []
    for ctx, t, e in pub.plays:
        if ctx.seat == pub.me or (e < 0 and forced):
            continue
        fits = None if ctx.left < 0 else with_num[ctx.left] | with_num[ctx.right]
        out.append((ctx.seat, t, fits))
    out.reverse()
    return out
