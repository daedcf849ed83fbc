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

import math
import random
from dataclasses import dataclass
from typing import Any

from .infer import Knowledge
from .sim import Sim, Static, move_of_json, playout, sim_from_match, static_of

# Calibrated on the reference machine (2-core VM, CPython 3): microseconds per
# playout ~= BASE_US + PER_TILE_US * tiles still in hands (cubano, heavy policy).
BASE_US = 6.0
PER_TILE_US = 2.2
# Fixed cost per sample (sampling + copying), microseconds.
SAMPLE_US = 25.0


@dataclass(frozen=True)
class Config:
    budget_ms: float
    policy: int = 2  # rollout policy, see sim.playout
    beta: float = 0.0  # weight of the "botar la gorda" play model (0: unweighted samples)
    oversample: int = 1  # draw this many candidates per kept sample when weighting
    endgame_tiles: int = 0  # exact solve when at most this many tiles remain in hands
    endgame_samples: int = 24
    win_bonus: float = 0.0  # match-aware-ish: bonus for winning the hand at all


DIFICIL = Config(budget_ms=40.0, policy=2)
EXPERTO = Config(budget_ms=250.0, policy=2, beta=0.35, oversample=4, endgame_tiles=9, endgame_samples=40)


def _dedupe(st: Static, view: dict[str, Any]) -> list[dict[str, Any]]:
    """Legal actions, dropping moves equivalent to an earlier one (same tile on
    two ends that show the same number and kind)."""
    out = []
    seen: set[tuple[int, int, bool]] = set()
    ends = view.get("ends") or []
    for a in view["legal"]:
        m = (st.index(a["tile"]), -1) if a.get("end") is None else None
        if m is None:
            sim_end = next(e for e in ends if e["end"] == a["end"])
            key = (st.index(a["tile"]), int(sim_end["value"]), bool(sim_end["double"]))
            if key in seen:
                continue
            seen.add(key)
        out.append(a)
    return out


def _tiles_left(view: dict[str, Any]) -> int:
    return int(sum(view["counts"]))


def playouts_for(budget_ms: float, tiles_left: int) -> int:
    per = BASE_US + PER_TILE_US * tiles_left
    return max(1, int(budget_ms * 1000.0 / per))


def search_decide(view: dict[str, Any], rng: random.Random, cfg: Config) -> dict[str, Any]:
    legal = view.get("legal") or []
    if not legal:
        raise ValueError("the seat has no choice to make in this view")
    if "redeal" in legal[0]:
        return {"redeal": True}
    st = static_of(view["rules"])
    kn = Knowledge(view)
    base = kn.base
    cands = [(a, move_of_json(st, base, a)) for a in _dedupe(st, view)]
    if len(cands) == 1:
        return dict(cands[0][0])
    me = kn.me
    team = st.team_of[me]
    left = _tiles_left(view)
    exact = cfg.endgame_tiles > 0 and left <= cfg.endgame_tiles and st.line and not st.drawing
    if exact:
        n_samples = cfg.endgame_samples
    else:
        total = playouts_for(cfg.budget_ms, left)
        per_sample = len(cands) * (BASE_US + PER_TILE_US * left) + SAMPLE_US * cfg.oversample
        n_samples = max(4, int(total * (BASE_US + PER_TILE_US * left) / per_sample))
    samples = _samples(kn, rng, n_samples, cfg)
    scores = [0.0] * len(cands)
    for hands in samples:
        det = kn.to_sim(hands)
        if exact:
            vals = solve_root(det, [m for _, m in cands], team)
            for i, v in enumerate(vals):
                scores[i] += v
            continue
        for i, (_, m) in enumerate(cands):
            s = det.copy()
            s.play(m)
            if not s.over:
                playout(s, rng, cfg.policy)
            v = s.margin(team)
            if cfg.win_bonus:
                v += cfg.win_bonus * (1 if v > 0 else -1 if v < 0 else 0)
            scores[i] += v
    best = max(range(len(cands)), key=lambda i: scores[i])
    return dict(cands[best][0])


def _samples(kn: Knowledge, rng: random.Random, k: int, cfg: Config) -> list[list[list[int]]]:
    if cfg.beta <= 0.0 or cfg.oversample <= 1:
        return [kn.sample(rng) for _ in range(k)]
    pool = [kn.sample(rng) for _ in range(k * cfg.oversample)]
    logw = [kn.log_likelihood(h, cfg.beta) for h in pool]
    top = max(logw)
    w = [math.exp(x - top) for x in logw]
    total = sum(w)
    # Systematic resampling: k deals drawn in proportion to their weights.
    step = total / k
    u = rng.random() * step
    out = []
    acc = 0.0
    j = 0
    for i in range(k):
        target = u + i * step
        while acc + w[j] < target and j < len(w) - 1:
            acc += w[j]
            j += 1
        out.append(pool[j])
    return out


# ------------------------------------------------------------ exact endgame
def solve_root(sim: Sim, moves: list[tuple[int, int]], team: int) -> list[float]:
    """Exact value (team margin with best play by both sides, everything
    visible) of each root move."""
    out = []
    for m in moves:
        c = sim.copy()
        c.play(m)
        out.append(_ab(c, team, -math.inf, math.inf))
    return out


def _ab(sim: Sim, team: int, alpha: float, beta: float) -> float:
    if sim.over:
        return sim.margin(team)
    st = sim.st
    seat = sim.turn
    assert seat is not None
    moves = sim.moves()
    tp = st.tp
    moves.sort(key=lambda m: -tp[m[0]])
    if st.team_of[seat] == team:
        v = -math.inf
        for m in moves:
            c = sim.copy()
            c.play(m)
            v = max(v, _ab(c, team, alpha, beta))
            alpha = max(alpha, v)
            if alpha >= beta:
                break
        return v
    v = math.inf
    for m in moves:
        c = sim.copy()
        c.play(m)
        v = min(v, _ab(c, team, alpha, beta))
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
    view = match.view(seat)
    st = static_of(match.rules)
    sim = sim_from_match(match)
    cands = [(a, move_of_json(st, sim, a)) for a in _dedupe(st, view)]
    if len(cands) == 1:
        return dict(cands[0][0])
    team = st.team_of[seat]
    left = _tiles_left(view)
    if left <= endgame_tiles and st.line and not st.drawing:
        vals = solve_root(sim, [m for _, m in cands], team)
    else:
        reps = max(2, playouts_for(budget_ms, left) // len(cands))
        vals = []
        for _, m in cands:
            acc = 0.0
            for _ in range(reps):
                s = sim.copy()
                s.play(m)
                if not s.over:
                    playout(s, rng, 2)
                acc += s.margin(team)
            vals.append(acc)
    best = max(range(len(cands)), key=lambda i: vals[i])
    return dict(cands[best][0])
