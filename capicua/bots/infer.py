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
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from capicua.bots.public import PublicState
from capicua.engine.compact import bits

if TYPE_CHECKING:
    from capicua.bots.kernel.sampler import Deals


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
        # The same as bit masks, the sampler's input.
        self.allowed_masks = [tile_mask(a) for a in self.allowed]
        self._words = (len(r.tile_a) + 63) // 64  # int64 words per tile mask
        self._sampler_inputs: tuple[Any, Any, Any, Any] | None = None
        # Where each seat's hand lies in a deal's ``tiles`` (the seat's own: nowhere).
        ends = [sum(self.need[: s + 1]) for s in range(r.players)]
        self._hand_slices = [(e - self.need[s], e) for s, e in enumerate(ends)]
        self._plays = _observed_plays(pub)
        self._exp_cache: dict[float, list[float]] = {}

    def sample(self, rng: random.Random, excluded: list[frozenset[int]] | None = None) -> list[list[int]]:
        """A random assignment of the unknown tiles: hands[s] for every seat
        (own hand included) and, last, the boneyard (in draw order: its first
        tile is drawn first). A batch of one of the sampler of
        :meth:`sample_masks`.

        ``excluded[s]`` are tiles seat ``s`` must not hold (a play model's
        hard constraints, see :meth:`gorda_exclusions`); when they cannot be
        met together with the passes, the sample ignores them."""
        import numpy as np

        from capicua.bots.kernel.sampler import mask_words

        words = self._words
        if excluded is None:
            allowed = self._arrays()[2][None]
        else:
            allowed = np.array(
                [[mask_words(m & ~tile_mask(e), words) for m, e in zip(self.allowed_masks, excluded, strict=True)]],
                dtype=np.int64,
            )
        deals = self._draw(rng, allowed)
        dealt = deals.tiles[0].tolist()
        hands = [dealt[a:b] for a, b in self._hand_slices]
        hands[self.me] = self.mine[:]
        hands.append(dealt[self._hand_slices[-1][1] :])
        return hands

    def sample_masks(self, rng: random.Random, allowed: Any) -> Deals:
        """``len(allowed)`` deals at once (:func:`capicua.bots.kernel.sampler.draw_deals`):
        ``allowed[d][s]`` is the int64 bit mask of the tiles seat ``s`` may
        hold in deal ``d`` (:meth:`allowed_per_deal`, or ``[allowed_masks] *
        k`` for no exclusions). ``Deals.masks`` is (k, players). The deals'
        randomness is one draw from ``rng``. Tile sets up to 64 tiles (up to
        double-nine, the kernel's games); :meth:`sample` takes any."""
        import numpy as np

        if self._words != 1:
            raise ValueError("more than 64 tiles: tile masks do not fit an int64")
        deals = self._draw(rng, np.asarray(allowed, dtype=np.int64)[:, :, None])
        return deals._replace(masks=np.ascontiguousarray(deals.masks[:, :, 0]))

    def allowed_per_deal(self, excluded: Sequence[frozenset[int] | None], chosen: Any) -> Any:
        """int64 (len(chosen), players): per deal, the tiles each seat may hold
        — those its passes allow, minus ``excluded[s]`` in the deals whose bit
        ``s`` is set in ``chosen`` (an int array; a seat whose ``excluded`` is
        None is never restricted). Tile sets up to 64 tiles."""
        import numpy as np

        n = self.r.players
        fallback = np.array(self.allowed_masks, dtype=np.int64)
        restricted = np.array(
            [m & ~tile_mask(e) if e is not None else m for m, e in zip(self.allowed_masks, excluded, strict=True)],
            dtype=np.int64,
        )
        on = ((np.asarray(chosen, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)) & 1) == 1
        return np.where(on, restricted, fallback)

    def _draw(self, rng: random.Random, allowed: Any) -> Deals:
        from capicua.bots.kernel.sampler import draw_deals

        unknown, need, fallback, mine = self._arrays()
        return draw_deals(unknown, need, allowed, fallback, self.boneyard, self.me, mine, rng.getrandbits(63))

    def _arrays(self) -> tuple[Any, Any, Any, Any]:
        """The sampler's fixed inputs: unknown tiles, needs, passes-only masks, own hand (words)."""
        arrays = self._sampler_inputs
        if arrays is None:
            import numpy as np

            from capicua.bots.kernel.sampler import mask_words

            words = self._words
            arrays = self._sampler_inputs = (
                np.array(self.unknown, dtype=np.int64),
                np.array(self.need, dtype=np.int64),
                np.array([mask_words(m, words) for m in self.allowed_masks], dtype=np.int64),
                np.array(mask_words(tile_mask(self.mine), words), dtype=np.int64),
            )
        return arrays

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


def tile_mask(tiles: Iterable[int]) -> int:
    """The bit mask of tile indices ``tiles``."""
    m = 0
    for t in tiles:
        m |= 1 << t
    return m


def _observed_plays(pub: PublicState) -> list[tuple[int, int, frozenset[int] | None]]:
    """Plays of the other seats, newest first, with the set of tiles that fitted
    the ends they were made on (None for the opening tile: any tile). Line
    layouts only (a cross has no plays in ``pub.plays``: no weighting there)."""
    from capicua.bots.playmodel import forced_opening

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
