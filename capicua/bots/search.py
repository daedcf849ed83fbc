"""Search bots: determinized Monte Carlo (``dificil``, ``experto``) and the
cheating perfect-information twin (``tramposo``).

A decision samples hidden deals consistent with the view (:mod:`.infer`),
plays every candidate move in every sample (the same samples for every
candidate: common random numbers), finishes the hand with a fast rollout
policy or — when few tiles remain — an exact alpha-beta solve, and picks
the move with the best mean point margin (the seat's team minus the
others, counting points scored during play).

Budgets are *deterministic*: ``budget_ms`` is turned into a number of
playouts with a rate calibrated on the reference machine (``RATE``), so the
same view, seed and budget always give the same move.
"""

from __future__ import annotations

import logging
import math
import random
from dataclasses import dataclass
from typing import Any, NamedTuple

from capicua.bots.infer import Knowledge
from capicua.bots.public import PublicState, public_state
from capicua.engine.compact import (
    FastRules,
    FastState,
    Move,
    bits,
    margin,
    policy_playout,
)

log = logging.getLogger("capicua.bots")

# Calibrated on the reference machine (2-core VM, CPython 3.11), microseconds.
# Python playout ~= BASE_US + PER_TILE_US * tiles still in hands.
BASE_US = 6.0
PER_TILE_US = 1.5
# JIT kernel playout ~= K_BASE_US + K_TILE_US * tiles still in hands.
K_BASE_US = 0.2
K_TILE_US = 0.02
# Per drawn deal: drawing it (capicua.bots.kernel.sampler) and scoring its play-model
# likelihood (capicua.bots.kernel.playlik) -- 1.1 and 2.0 us measured against a
# model playout's 1.5 us in the same process; in the units of the playout
# constants below, whose model playout counts 3.2 us at 30 tiles. The
# "botar la gorda" soft likelihood (Config.beta) is Python: LIKELIHOOD_US more.
SAMPLE_US = 7.0
LIKELIHOOD_US = 10.0
# Per swap-chain proposal (capicua.bots.kernel.mixing; 400 measured at 7.7 us a deal).
MIX_US = 0.04
# Exact endgame: alpha-beta positions visited per millisecond.
NODES_PER_MS = 150.0
# The heuristic ("smart") kernel rollout costs this many times a p-policy one.
K_SMART_FACTOR = 2.7
# ... and a play-model one (see kernel.policies._model_score) this many.
K_MODEL_FACTOR = 4.0


@dataclass(frozen=True)
class Config:
    budget_ms: float
    beta: float = 0.0  # weight of the "botar la gorda" play model (0: unweighted samples)
    oversample: int = 1  # draw this many candidates per kept sample when weighting
    endgame_tiles: int = 0  # exact solve when at most this many tiles remain in hands
    endgame_samples: int = 24
    win_bonus: float = 0.0  # bonus for winning the hand at all (value = margin + bonus * sign)
    n_per_sample: int = 2  # kernel playouts per sample and move
    kernel_p: float = 0.75  # rollouts (kernel and Python): heaviest tile with this probability, else uniform
    model_partner: bool = False  # also weight by the partner's plays
    min_ess: float = 0.3  # temper the weights to keep this share of effective samples
    # Kernel rollout policy: "p" (heaviest w.p. kernel_p, else uniform),
    # "smart" (medio-like score w.p. smart_q, else uniform; kernel.evaluate.evaluate_moves_smart),
    # "model" (every move drawn from the fitted play model's softmax, coefficients
    # playmodel.COEFS times model_sharpness) or "model_q" (its best move w.p. smart_q).
    rollout: str = "p"
    model_sharpness: float = 1.0
    smart_q: float = 0.75
    smart_weights: tuple[float, ...] | None = None  # None: kernel.policies.SMART_WEIGHTS
    # Opponent model "botar la gorda" as hard constraints, applied to each
    # sampled deal with the posterior probability of that type (gorda_posteriors).
    gorda: bool = False
    gorda_rollouts: bool = False  # in a deal where a seat is modelled as gorda, its rollouts play heaviest too
    gorda_endgame: bool = False  # ... and in the exact endgame it plays its heaviest tile instead of its best
    gorda_prior: float = 0.5
    gorda_probe: int = 32
    gorda_evidence: float = 1.0  # scale of the log Bayes factor (> 1 sharpens the posterior)
    # The fitted play model (capicua.bots.playmodel): draw ``oversample`` deals
    # per kept one and keep them in proportion to P(observed plays | deal) ** play_model.
    play_model: float = 0.0
    play_model_partner: bool = True  # also weight by the partner's plays
    # Swap-chain proposals per drawn deal (capicua.bots.kernel.mixing): 0 keeps the
    # greedy sampler's deals, which are consistent but not uniform over the
    # consistent deals; a few hundred make them uniform (the true posterior of
    # the passes and exclusions) before the play model weighs them.
    mix_steps: int = 0


DIFICIL = Config(budget_ms=40.0)
# Heuristic kernel rollouts: 52.0% vs 50.0% against dificil and 59.3% vs 54.3%
# against botagorda for the p-policy on the same deals (seed 11, 300 duplicate
# hands; overlapping intervals, see docs/bots.md).
# The "botar la gorda" opponent model: 65.3% vs 58.7% against botagorda on the
# same 500 deals (seed 21, 50 ms); 51.8% against dificil (docs/bots.md).
# Strength was flat from 50 to 150 ms then (the deals cost 3 times more).
# The fitted play model (playmodel.py) on top: 53.1% vs 51.8% against dificil
# on the same 500 deals (seed 21; overlapping intervals, docs/bots.md).
# Rollouts drawn from that model's softmax (rollout="model") instead of the
# heuristic: 53.4% vs 52.3% of decided hands against dificil and a margin of
# +3.29 vs +1.93 points per hand on the same 4,000 duplicate deals (seed 1);
# 64.9% vs 64.6% against botagorda (docs/bots.md, "Play-model rollouts").
# Session 8 (1,000 duplicate hands each, seed 1, the same deals): deals made
# uniform over the consistent ones by 400 swap-chain proposals (mix_steps)
# 66.2% against 64.2% vs botagorda; the gorda posterior's evidence doubled
# (gorda_evidence=2) 65.4% vs botagorda but, with uniform deals, a margin of
# 2.0 points per hand less against dificil than evidence 1 ([-0.1, +4.2]),
# so it stays 1; rivals played as gorda in the exact endgame (gorda_endgame)
# 64.3%, paired margin -0.12 [-0.93, +0.69]: off. With deals this cheap the
# 50 ms budget ran 14.8 ms a decision (p95 30 ms), and 200 ms measured 68.5%
# against 65.7% at 50 ms vs botagorda on the same 1,000 deals (evidence 2) at
# a p95 of 107 ms (the ceiling is 150), so 200 is the default: 67.6%
# vs botagorda and 54.3% vs dificil, p95 95-98 ms, 1,000 deals each (docs/bots.md,
# "Uniform deals, one batch sampler, a sharper type test").
# Session 9: no exact endgame. Solving each sampled deal with every hand in
# view plays the rivals and the partner as if they saw every tile; rollouts
# of the play model to the end play them as they do. Against dificil on the
# same 1,000 deals (seed 1), paired by deal: exact up to 22 / 18 / 14 / 0
# tiles at 50 ms gave margins of -1.48 [-2.93, -0.04] / 0 / +1.51 / +1.89
# [+0.74, +3.03] points per hand; at 200 ms, none against 18 tiles +1.05
# [-0.13, +2.22] (55.3% against 54.6% of decided hands), p95 100 against 114 ms
# (docs/bots.md, "The exact endgame, taken out"). On 4,000 duplicate deals:
# 67.3% [66.3, 68.4] against botagorda, 55.4% [54.3, 56.5] against dificil,
# p95 108 / 100 ms; 10 / 50 / 1000 ms measured 65.8% / 65.9% / 68.8% against
# botagorda on 1,000 deals each.
EXPERTO = Config(budget_ms=200.0, n_per_sample=4, rollout="model", gorda=True, play_model=1.0, oversample=3,
                 mix_steps=400)


def distinct_moves(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The legal plays of ``view`` that differ (:meth:`FastState.distinct_moves`):
    the moves :func:`search_evaluate` values, in legal order."""
    return [dict(a) for a in public_state(view).candidates]


def playouts_for(budget_ms: float, tiles_left: int) -> int:
    per = BASE_US + PER_TILE_US * tiles_left
    return max(1, int(budget_ms * 1000.0 / per))


def _kernel() -> Any:
    """The numba move evaluator (:mod:`capicua.bots.kernel.evaluate`), or None
    when it cannot be imported."""
    global _KERNEL
    if _KERNEL is False:
        try:
            from capicua.bots.kernel import evaluate as k

            _KERNEL = k
        except Exception as exc:  # pragma: no cover - numba missing
            log.warning("the bots' JIT kernel cannot be loaded (%s: %s): they search in pure Python, slower",
                        type(exc).__name__, exc)
            _KERNEL = None
    return _KERNEL


_KERNEL: Any = False


def warmup() -> None:
    """Load the JIT kernel, the likelihood, the deal sampler and the swap chain
    (compiled code comes from numba's on-disk cache)."""
    if _kernel() is not None:
        from capicua.bots.kernel.warmup import warmup as kernel_warmup

        kernel_warmup()


def _use_kernel(r: FastRules) -> bool:
    return r.layout == 0 and r.max_pip <= 9 and _kernel() is not None


def decide_public(pub: PublicState, rng: random.Random, cfg: Config) -> dict[str, Any]:
    """The first distinct legal move of highest value (see :func:`search_evaluate`)."""
    legal = pub.legal
    if not legal:
        raise ValueError("the seat has no choice to make in this view")
    if "redeal" in legal[0]:
        return {"redeal": True}
    cands, scores, _ = _root_scores(pub, rng, cfg)
    best = max(range(len(cands)), key=lambda i: scores[i])
    return dict(cands[best])


def search_evaluate(view: dict[str, Any], rng: random.Random, cfg: Config) -> list[tuple[dict[str, Any], float]]:
    """Every distinct legal move of ``view`` (a move equal to an earlier one --
    the same tile on two ends showing the same number -- is left out) with its
    value: the mean, over the deals the search drew, of the seat's team's point
    margin from here to the end of the hand (its points, in play and at the end,
    minus the rivals'). The same search as :func:`decide_public`, which plays the
    first move of highest value. A single distinct move is not searched: its
    value is 0.0."""
    pub = public_state(view)
    if not pub.legal or "redeal" in pub.legal[0]:
        raise ValueError("the seat has no move to evaluate in this view")
    cands, scores, deals = _root_scores(pub, rng, cfg)
    return [(dict(a), v / deals) for a, v in zip(cands, scores, strict=True)]


def _root_scores(
    pub: PublicState, rng: random.Random, cfg: Config
) -> tuple[list[dict[str, Any]], list[float], int]:
    """The distinct legal moves, their summed values and how many deals were summed."""
    cands_json = pub.candidates
    if len(cands_json) == 1:
        return cands_json, [0.0], 1
    r = pub.r
    kn = Knowledge(pub)
    moves = pub.moves
    team = r.team_of[pub.me]
    left = pub.tiles_left()
    exact = cfg.endgame_tiles > 0 and left <= cfg.endgame_tiles and r.layout == 0 and not r.drawing
    if exact:
        drawn = _samples(kn, rng, cfg.endgame_samples, cfg)
        scores = [0.0] * len(moves)
        nodes = [0]
        cap = cfg.budget_ms * NODES_PER_MS
        done = 0
        for done in range(1, drawn.n_deals + 1):
            gorda = int(drawn.gorda[done - 1]) if cfg.gorda_endgame else 0
            vals = solve_root(drawn.state(kn, done - 1), moves, team, nodes, cfg.win_bonus, gorda)
            for i, v in enumerate(vals):
                scores[i] += v
            if nodes[0] > cap and done >= 8:
                break  # the budget is spent: decide on the deals solved so far
        return cands_json, scores, max(1, done)
    if _use_kernel(r):
        return cands_json, _kernel_scores(kn, rng, cfg, moves, left), 1
    scores, n_samples = _python_scores(kn, rng, cfg, moves, left, team)
    return cands_json, scores, n_samples


def _sample_cost_us(cfg: Config) -> float:
    per = SAMPLE_US + MIX_US * cfg.mix_steps + (LIKELIHOOD_US if cfg.beta > 0 and cfg.oversample > 1 else 0.0)
    return per * max(1, cfg.oversample)


def _play_model_on(kn: Knowledge, cfg: Config) -> bool:
    # The model tells moves apart by the number they leave open alone (playmodel.legal_moves),
    # which is the rule of equivalent moves only where the open count does not score.
    r = kn.r
    return (cfg.play_model > 0.0 and cfg.oversample > 1 and r.layout == 0 and not r.drawing and not r.in_play
            and _one_word(r))


def _kernel_scores(
    kn: Knowledge, rng: random.Random, cfg: Config, moves: list[Move], left: int
) -> list[float]:
    import numpy as np

    from capicua.bots.kernel.params import kernel_rules, position

    k = _kernel()
    pub = kn.pub
    n_per = cfg.n_per_sample
    model = cfg.rollout in ("model", "model_q")
    smart = cfg.rollout == "smart" or model
    factor = K_MODEL_FACTOR if model else K_SMART_FACTOR if smart else 1.0
    per_playout = (K_BASE_US + K_TILE_US * left) * factor
    per_sample = _sample_cost_us(cfg) + len(moves) * n_per * per_playout
    n_samples = max(8, int(cfg.budget_ms * 1000.0 / per_sample))
    drawn = _samples(kn, rng, n_samples, cfg)
    masks, bones = drawn.masks, drawn.bones
    pos = position(pub.base)
    mv = np.array(moves, dtype=np.int64)
    R = kernel_rules(pub.rules)
    if smart:
        if model:
            from capicua.bots.playmodel import COEFS

            passed, opened, tmask = pub.passed, pub.opened, pub.on_table
            weights: Any = [c * cfg.model_sharpness for c in (cfg.smart_weights or COEFS)]
        else:
            passed, opened, tmask = pub.passed, None, 0
            weights = cfg.smart_weights
        res = k.evaluate_moves_smart(
            R, masks, bones, pos.table, pos.turn, pos.passes, pos.opener, -1, 0, mv, n_per,
            rng.getrandbits(62), cfg.smart_q, weights, passed,
            drawn.gorda if cfg.gorda_rollouts else None,
            opened, tmask, cfg.rollout == "model",
        )
    else:
        res = k.evaluate_moves(
            R, masks, bones, pos.table, pos.turn, pos.passes, pos.opener, -1, 0, mv, n_per,
            rng.getrandbits(62), cfg.kernel_p,
        )
    out = []
    for i in range(len(moves)):
        v = float(res[i, 0])
        if cfg.win_bonus:
            v += cfg.win_bonus * (2.0 * float(res[i, 1]) + float(res[i, 2]) - 1.0)
        out.append(v)
    return out


def _python_scores(
    kn: Knowledge, rng: random.Random, cfg: Config, moves: list[Move], left: int, team: int
) -> tuple[list[float], int]:
    """Summed margins of each move over the sampled deals, and how many deals."""
    per_playout = BASE_US + PER_TILE_US * left
    per_sample = _sample_cost_us(cfg) + len(moves) * per_playout
    n_samples = max(4, int(cfg.budget_ms * 1000.0 / per_sample))
    drawn = _samples(kn, rng, n_samples, cfg)
    scores = [0.0] * len(moves)
    before = kn.pub.base.in_play
    for d in range(drawn.n_deals):
        det = drawn.state(kn, d)
        for i, m in enumerate(moves):
            v = _rollout_margin(det, m, rng, cfg.kernel_p, team, before)
            if cfg.win_bonus:
                v += cfg.win_bonus * (1 if v > 0 else -1 if v < 0 else 0)
            scores[i] += v
    return scores, drawn.n_deals


def gorda_posteriors(
    kn: Knowledge, rng: random.Random, probe: int = 32, beta_s: float = 0.3, prior: float = 0.5,
    evidence: float = 1.0, mix_steps: int = 0,
) -> tuple[list[float], list[frozenset[int] | None]]:
    """For every opponent, the posterior probability that it plays "botar la
    gorda" (always its heaviest playable tile) rather than a softer player
    (softmax over pips with weight ``beta_s``), and that hypothesis' hard
    constraints (:meth:`Knowledge.gorda_exclusions`).

    The evidence for the hard type is the chance that a hand dealt at random
    from what the seat may hold avoids every excluded tile (hypergeometric);
    for the soft type it is the mean likelihood of the seat's plays over
    ``probe`` deals consistent with the view (``mix_steps`` as in :func:`_draw`). ``evidence`` scales the log Bayes
    factor: both hypotheses are crude models of real players, and a scale
    above 1 pushes the posterior towards 0 or 1 sooner."""
    r = kn.r
    excl = kn.gorda_exclusions()
    post = [0.0] * r.players
    if r.drawing or prior <= 0.0:
        return post, excl
    partner = r.rules.partner_of(kn.me)
    seats = [s for s in range(r.players) if s != kn.me and s != partner and excl[s] is not None]
    if not seats:
        return post, excl
    import numpy as np

    acc = [0.0] * r.players
    masks, bones, chosen = _draw(kn, rng, probe, [None] * r.players, np.zeros(probe, dtype=np.int64),
                                 mix_steps if _one_word(r) else 0)
    deals = Drawn(masks, bones, chosen)
    for d in range(probe):
        ll = kn.seat_log_likelihoods(deals.hands(d), beta_s)
        for s in seats:
            acc[s] += math.exp(ll[s])
    logit0 = math.log(prior / (1.0 - prior)) if prior < 1.0 else math.inf
    for s in seats:
        e = excl[s]
        assert e is not None
        log_soft = math.log(acc[s] / probe) if acc[s] > 0 else -745.0
        z = logit0 + evidence * (kn.gorda_log_prob(e, s) - log_soft)
        post[s] = 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0
    return post, excl


class Drawn(NamedTuple):
    """Deals drawn for one decision (:func:`_samples`)."""

    masks: Any  # (deals, players): every seat's hand as a tile bit mask (int64 up to 64 tiles, else Python ints)
    bones: Any  # (deals, boneyard) int64: the boneyard's tiles in draw order
    gorda: Any  # (deals,) int64: bit s set where seat s was drawn as "botar la gorda" (its exclusions kept)

    @property
    def n_deals(self) -> int:
        return int(self.masks.shape[0])

    def state(self, kn: Knowledge, d: int) -> FastState:
        """The view's position completed by deal ``d``."""
        return kn.pub.base.with_hidden([int(m) for m in self.masks[d]], tuple(int(t) for t in self.bones[d]))

    def hands(self, d: int) -> list[list[int]]:
        """Deal ``d`` as tile lists: every seat's hand, then the boneyard."""
        return [bits(int(m)) for m in self.masks[d]] + [[int(t) for t in self.bones[d]]]


def _one_word(r: FastRules) -> bool:
    """Whether a tile set fits one int64 mask (up to double-nine): the batch sampler, the chain, the kernels."""
    return r.n_tiles <= 63


def _draw(
    kn: Knowledge, rng: random.Random, n_draw: int, excl: list[frozenset[int] | None], chosen: Any, mix_steps: int
) -> tuple[Any, Any, Any]:
    """``n_draw`` deals consistent with the view, deal ``d`` also keeping
    ``excl[s]`` out of seat ``s``'s hand where bit ``s`` of ``chosen[d]`` is
    set (dropped, and the bit cleared, where that is infeasible), then
    ``mix_steps`` swap-chain proposals each (:mod:`capicua.bots.kernel.mixing`):
    (masks, bones, chosen)."""
    import numpy as np

    r = kn.r
    n = r.players
    if _one_word(r):
        from capicua.bots.kernel.mixing import mix_deals

        allowed = kn.allowed_per_deal(excl, chosen)
        deals = kn.sample_masks(rng, allowed)
        chosen = np.where(deals.dropped, 0, chosen)
        if mix_steps > 0:
            allowed[deals.dropped] = np.array(kn.allowed_masks, dtype=np.int64)
            mix_deals(deals.masks, deals.bones, allowed, kn.me, mix_steps, rng.getrandbits(63))
        return deals.masks, deals.bones, chosen
    # Past double-nine (no kernel there): one deal at a time, masks as Python ints.
    masks = np.empty((n_draw, n), dtype=object)
    bones = np.zeros((n_draw, kn.boneyard), dtype=np.int64)
    none: frozenset[int] = frozenset()
    for d in range(n_draw):
        ex = [e if e is not None and (int(chosen[d]) >> s) & 1 else none for s, e in enumerate(excl)]
        hands = kn.sample(rng, ex)
        for s in range(n):
            masks[d, s] = sum(1 << t for t in hands[s])
        bones[d] = hands[n]
    return masks, bones, chosen


def _samples(kn: Knowledge, rng: random.Random, k: int, cfg: Config) -> Drawn:
    """``k`` deals consistent with the view (with ``cfg.gorda``, drawn under the
    opponent model: each opponent's exclusions kept with its posterior
    probability); with ``cfg.play_model`` (or ``cfg.beta``) > 0, drawn from
    ``k * oversample`` candidates in proportion to the likelihood of the
    observed plays (tempered so that the effective sample size stays at
    least ``cfg.min_ess`` of ``k``)."""
    import numpy as np

    r = kn.r
    n = r.players
    play_model = _play_model_on(kn, cfg)
    weighted = play_model or (cfg.beta > 0.0 and cfg.oversample > 1 and not r.drawing)
    n_draw = k * cfg.oversample if weighted else k
    chosen = np.zeros(n_draw, dtype=np.int64)
    excl: list[frozenset[int] | None] = [None] * n
    if cfg.gorda and not r.drawing:
        post, excl = gorda_posteriors(kn, rng, cfg.gorda_probe, 0.3, cfg.gorda_prior, cfg.gorda_evidence,
                                      cfg.mix_steps)
        draws = np.random.default_rng(rng.getrandbits(63))
        for s in range(n):
            if post[s] > 0.0 and excl[s] is not None:
                chosen |= (draws.random(n_draw) < post[s]).astype(np.int64) << s
    masks, bones, chosen = _draw(kn, rng, n_draw, excl, chosen, cfg.mix_steps if _one_word(r) else 0)
    if not weighted:
        return Drawn(masks, bones, chosen)
    partner = r.rules.partner_of(kn.me)
    if play_model:
        logw = _play_model_log_weights(kn, masks, chosen, cfg, partner)
    else:
        skip = (partner,) if (partner is not None and not cfg.model_partner) else ()
        pool = Drawn(masks, bones, chosen)
        logw = [kn.log_likelihood(pool.hands(d), cfg.beta, skip) for d in range(n_draw)]
    picks = np.array(_resample(logw, k, cfg.min_ess, rng), dtype=np.int64)
    return Drawn(np.ascontiguousarray(masks[picks]), np.ascontiguousarray(bones[picks]), chosen[picks])


def _play_model_log_weights(kn: Knowledge, masks: Any, pool_g: Any, cfg: Config, partner: int | None) -> list[float]:
    """``cfg.play_model`` x log P(observed plays of the modelled seats | deal), per deal of ``pool``.

    A seat drawn as "botar la gorda" in a deal (bit set in ``pool_g``) has
    its plays explained by that type there, so the play model weighs it only
    in the other deals, normalised over them (its mean weight there is 1):
    the two types keep the shares the gorda posterior gave them."""
    import numpy as np

    from capicua.bots import playmodel
    from capicua.bots.kernel.playlik import play_log_likelihoods

    r = kn.r
    seats = {s for s in range(r.players) if s != kn.me and (cfg.play_model_partner or s != partner)}
    prep = playmodel.prepare(kn.pub, seats)
    if prep is None:
        return [0.0] * int(masks.shape[0])
    ta, tb, num, dbl = playmodel.tile_arrays(r)
    ll = cfg.play_model * play_log_likelihoods(masks, prep, ta, tb, num, dbl)
    g = np.asarray(pool_g, dtype=np.int64)
    for s in seats:
        strong = ((g >> s) & 1) == 0
        col = ll[:, s]
        if strong.all():
            continue
        if strong.any():
            x = col[strong]
            top = float(x.max())
            col[strong] = x - (top + float(np.log(np.mean(np.exp(x - top)))))
        col[~strong] = 0.0
    return [float(x) for x in ll.sum(axis=1)]


def _resample(logw: list[float], k: int, min_ess: float, rng: random.Random) -> list[int]:
    """``k`` indices drawn in proportion to exp(alpha * logw) (systematic
    resampling), alpha <= 1 lowered until the effective sample size is at
    least ``min_ess * k``."""
    top = max(logw)
    rel = [x - top for x in logw]
    alpha = 1.0
    for _ in range(12):
        w = [math.exp(alpha * x) for x in rel]
        ess = sum(w) ** 2 / sum(x * x for x in w)
        if ess >= min_ess * k:
            break
        alpha *= 0.6
    total = sum(w)
    step = total / k
    u = rng.random() * step
    out = []
    acc = w[0]
    j = 0
    for i in range(k):
        target = u + i * step
        while acc < target and j < len(w) - 1:
            j += 1
            acc += w[j]
        out.append(j)
    return out


def _rollout_margin(
    det: FastState, move: Move, rng: random.Random, p: float, team: int, before: list[int]
) -> float:
    """``team``'s margin from ``det`` on after ``move`` and a :func:`policy_playout` with ``p``."""
    s = det.copy()
    s.play(move)
    res = s.result if s.result is not None else policy_playout(s, rng, p)
    return margin(res, team, before)


# ------------------------------------------------------------ exact endgame
def solve_root(
    state: FastState, moves: list[Move], team: int, nodes: list[int] | None = None, win_bonus: float = 0.0,
    gorda: int = 0,
) -> list[float]:
    """Exact value (``team``'s margin from ``state`` on with best play by both
    sides, everything visible) of each root move, plus ``win_bonus`` for a won
    hand (minus it for a lost one). ``nodes[0]`` counts the positions visited.

    A seat in the bit mask ``gorda`` does not play its best move but its
    heaviest tile ("botar la gorda"), a tie between tiles of equal weight
    being an even chance: the value is then the best reply to that player,
    not to a perfect one."""
    out = []
    counter = nodes if nodes is not None else [0]
    before = state.in_play[:]
    for m in moves:
        c = state.copy()
        c.play(m)
        out.append(_ab(c, team, -math.inf, math.inf, counter, win_bonus, before, gorda))
    return out


def _ab(
    state: FastState, team: int, alpha: float, beta: float, nodes: list[int], win_bonus: float, before: list[int],
    gorda: int = 0,
) -> float:
    nodes[0] += 1
    res = state.result
    if res is not None:
        v = margin(res, team, before)
        return v + win_bonus * ((v > 0) - (v < 0)) if win_bonus else v
    r = state.r
    moves = state.distinct_moves()
    tp = r.tile_pips
    if (gorda >> state.turn) & 1 and moves:
        top = max(tp[m[0]] for m in moves)
        heavy = [m for m in moves if tp[m[0]] == top]
        if len(heavy) == 1:
            c = state.copy()
            c.play(heavy[0])
            return _ab(c, team, alpha, beta, nodes, win_bonus, before, gorda)
        # A chance node: botagorda draws among its legal plays of that weight, so a
        # distinct move counts as many times as the legal plays it stands for; each
        # child's exact value, so the full window.
        share = [0] * len(heavy)
        keys = [state.equivalence_key(m) for m in heavy]
        for m in state.legal_moves():
            if tp[m[0]] == top:
                share[keys.index(state.equivalence_key(m))] += 1
        total = 0.0
        for m, k in zip(heavy, share, strict=True):
            c = state.copy()
            c.play(m)
            total += k * _ab(c, team, -math.inf, math.inf, nodes, win_bonus, before, gorda)
        return total / sum(share)
    moves.sort(key=lambda m: -tp[m[0]])  # heaviest first: the likely best moves cut the most
    if r.team_of[state.turn] == team:
        v = -math.inf
        for m in moves:
            c = state.copy()
            c.play(m)
            v = max(v, _ab(c, team, alpha, beta, nodes, win_bonus, before, gorda))
            alpha = max(alpha, v)
            if alpha >= beta:
                break
        return v
    v = math.inf
    for m in moves:
        c = state.copy()
        c.play(m)
        v = min(v, _ab(c, team, alpha, beta, nodes, win_bonus, before, gorda))
        beta = min(beta, v)
        if alpha >= beta:
            break
    return v


# ------------------------------------------------------------ tramposo
def cheat_decide(match: Any, seat: int, rng: random.Random, budget_ms: float = 200.0,
                 endgame_tiles: int = 12) -> dict[str, Any]:
    """Perfect information: the true deal, rollouts per move (or an exact solve late)."""
    legal = match.legal_moves()
    if not legal:
        raise ValueError("the seat has no choice to make")
    if match.phase == "redeal_question":
        return {"redeal": True}
    pub = public_state(match.view(seat))
    state = FastState.from_match(match)
    cands, moves = pub.candidates, pub.moves
    if len(cands) == 1:
        return dict(cands[0])
    r = pub.r
    team = r.team_of[seat]
    left = pub.tiles_left()
    if left <= endgame_tiles and r.layout == 0 and not r.drawing:
        vals = solve_root(state, moves, team)
    elif _use_kernel(r):
        import numpy as np

        from capicua.bots.kernel.params import kernel_rules, position

        k = _kernel()
        per = len(moves) * (K_BASE_US + K_TILE_US * left)
        reps = max(4, int(budget_ms * 1000.0 / per))
        pos = position(state)
        res = k.evaluate_moves(
            kernel_rules(pub.rules), pos.hands.reshape(1, -1), pos.boneyard.reshape(1, -1), pos.table,
            pos.turn, pos.passes, pos.opener, -1, 0, np.array(moves, dtype=np.int64), reps,
            rng.getrandbits(62), 0.75,
        )
        vals = [float(res[i, 0]) for i in range(len(moves))]
    else:
        reps = max(2, playouts_for(budget_ms, left) // len(cands))
        before = state.in_play[:]
        vals = [sum(_rollout_margin(state, m, rng, 0.75, team, before) for _ in range(reps)) for m in moves]
    best = max(range(len(cands)), key=lambda i: vals[i])
    return dict(cands[best])
