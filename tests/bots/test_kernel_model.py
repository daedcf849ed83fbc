"""The play model as the kernel's rollout policy (``weights`` of
``MODEL_SIZE``): its scores are ``playmodel.move_score``'s and its softmax
draws follow the scores. (Its greedy playouts are checked against the
Python reference in ``test_kernel_smart.py``.)"""

from __future__ import annotations

import random

import numpy as np
import pytest

from capicua.bots.kernel.fresh_deals import random_hands_smart
from capicua.bots.kernel.params import kernel_rules
from capicua.bots.kernel.policies import model_scores
from capicua.bots.playmodel import COEFS, legal_moves, move_score
from capicua.bots.public import public_state
from capicua.engine import Match, make_rules

pytestmark = pytest.mark.xdist_group("numba-kernel")


def _views(preset: str, games: int, seed: str) -> list[dict]:  # type: ignore[type-arg]
    rules = make_rules(preset)
    rng = random.Random(seed)
    out = []
    for g in range(games):
        m = Match(rules, seed=f"{seed}/{g}")
        m.start_hand()
        while m.phase in ("play", "redeal_question"):
            if m.phase == "play":
                out.append(m.view(m.turn))
            m.apply(m.turn, rng.choice(m.legal_moves()))  # type: ignore[arg-type]
    return out


@pytest.mark.parametrize("preset", ["cubano", "la-plaza", "all-fives", "mano-a-mano"])
def test_model_scores_are_the_play_model_scores(preset: str) -> None:
    rules = make_rules(preset)
    R = kernel_rules(rules)
    W = np.array(COEFS) * np.linspace(0.5, 1.5, len(COEFS))  # every weight distinct
    checked = 0
    for v in _views(preset, 4, f"model-{preset}"):
        pub = public_state(v)
        now = pub.now
        hand = pub.mine
        moves = legal_moves(pub.r, now, hand)
        if not moves:
            continue
        got = model_scores(R, W, pub.passed, pub.opened, pub.on_table, now.seat, sum(1 << t for t in hand),
                             now.left, now.right, np.array(moves, dtype=np.int64))
        want = [move_score(pub.r, now, hand, t, e, tuple(W)) for t, e in moves]
        assert got.tolist() == pytest.approx(want, abs=1e-9), (preset, moves)
        checked += len(moves)
    assert checked > 100


def test_soft_model_rollouts_follow_the_scores() -> None:
    """Softmax draws: near-greedy with sharp weights, near-uniform with flat
    ones, and reproducible from the seed."""
    R = kernel_rules(make_rules("cubano"))
    W = np.array(COEFS)
    greedy = random_hands_smart(R, 2000, 9, 1.0, W)
    sharp = random_hands_smart(R, 2000, 9, 1.0, W * 1000.0, soft=True)
    soft = random_hands_smart(R, 2000, 9, 1.0, W, soft=True)
    flat = random_hands_smart(R, 2000, 9, 1.0, W * 0.0, soft=True)
    assert (soft == random_hands_smart(R, 2000, 9, 1.0, W, soft=True)).all()

    def same(x: np.ndarray) -> float:
        return float((x[:, :4] == greedy[:, :4]).all(axis=1).mean())

    assert same(sharp) > 0.9  # ties between equal scores are the only difference
    assert same(flat) < same(soft) < same(sharp)
    # the greedy model team beats uniform play over duplicate deals
    rows = np.array([W, W * 0.0])
    ab = random_hands_smart(R, 3000, 4, 1.0, rows, soft=True)
    ba = random_hands_smart(R, 3000, 4, 1.0, rows[::-1], soft=True)
    wins = int((ab[:, 2] == 0).sum() + (ba[:, 2] == 1).sum())
    losses = int((ab[:, 2] == 1).sum() + (ba[:, 2] == 0).sum())
    assert wins > 1.2 * losses
