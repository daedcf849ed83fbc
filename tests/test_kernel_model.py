"""The play model as the kernel's rollout policy (``weights`` of
``MODEL_SIZE``): its scores are ``playmodel.move_score``'s, its greedy
playouts are a Python reference's move by move, and its softmax draws follow
the scores."""

from __future__ import annotations

import random

import numpy as np
import pytest

from capicua.bots.playmodel import COEFS, Context, legal_moves, move_score, public_masks, replay
from capicua.bots.sim import static_of
from capicua.engine import Match, make_rules
from capicua.engine.fast import FastState, fast_rules

K = pytest.importorskip("capicua.fastpath.kernel")

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
                out.append(m.view(m.turn))  # type: ignore[arg-type]
            m.apply(m.turn, rng.choice(m.legal_moves()))  # type: ignore[arg-type]
    return out


@pytest.mark.parametrize("preset", ["cubano", "la-plaza", "all-fives", "mano-a-mano"])
def test_model_scores_are_the_play_model_scores(preset: str) -> None:
    rules = make_rules(preset)
    R = K.kernel_rules(rules)
    st = static_of(rules)
    W = np.array(COEFS) * np.linspace(0.5, 1.5, len(COEFS))  # every weight distinct
    checked = 0
    for v in _views(preset, 4, f"model-{preset}"):
        _plays, now = replay(st, v)
        passed, opened, tmask = public_masks(st, v)
        hand = [st.index(tuple(t)) for t in v["hand"]]
        moves = legal_moves(st, now, hand)
        if not moves:
            continue
        got = K.model_scores(R, W, passed, opened, tmask, now.seat, sum(1 << t for t in hand),
                             now.left, now.right, np.array(moves, dtype=np.int64))
        want = [move_score(st, now, hand, t, e, tuple(W)) for t, e in moves]
        assert got.tolist() == pytest.approx(want, abs=1e-9), (preset, moves)
        checked += len(moves)
    assert checked > 100


def _reference(st: FastState, W: tuple[float, ...], pm: list[int], om: list[int], tmask: int):  # type: ignore[no-untyped-def]
    """Finish ``st`` (a copy) playing the best ``playmodel.move_score`` at every decision."""
    st = st.copy()
    r = st.r
    sst = static_of(r.rules)
    n = r.players
    pm, om = list(pm), list(om)
    while st.result is None:
        seat = st.turn
        legal = st.legal_moves()
        if len(legal) == 1:
            mv = legal[0]
        else:
            left, right = (st.ends[0], st.ends[1]) if st.center >= 0 else (-1, -1)
            tc = [sum(1 for u in range(r.n_tiles) if (tmask >> u) & 1 and v in (r.tile_a[u], r.tile_b[u]))
                  for v in range(r.max_pip + 1)]
            ctx = Context(seat, left, right, pm, om, tc)
            hand = [u for u in range(r.n_tiles) if (st.hands[seat] >> u) & 1]
            best, mv = -1e300, None
            for t, end in legal:
                sc = move_score(sst, ctx, hand, t, end, W)
                if sc > best:
                    best, mv = sc, (t, end)
        t, end = mv
        a, b = r.tile_a[t], r.tile_b[t]
        if st.center < 0:
            om[seat] |= (1 << a) | (1 << b)
        else:
            inner = st.ends[end]
            om[seat] |= 1 << (b if a == inner else a)
        tmask |= 1 << t
        st.play(mv)
        if st.result is None:
            s = (seat + 1) % n
            while s != st.turn:  # every seat skipped passed on the ends now open
                pm[s] |= (1 << st.ends[0]) | (1 << st.ends[1])
                s = (s + 1) % n
    return st.result


@pytest.mark.parametrize("preset", ["cubano", "la-plaza", "draw", "all-fives"])
def test_greedy_model_playout_matches_python_reference(preset: str) -> None:
    rules = make_rules(preset)
    R = K.kernel_rules(rules)
    fr = fast_rules(rules)
    assert list(static_of(rules).ta) == list(fr.tile_a)
    rng = random.Random(f"model-ref-{preset}")
    W = tuple(COEFS)
    kinds = {"domino": K.KIND_DOMINO, "tranque": K.KIND_TRANQUE, "tie": K.KIND_TIE}
    done = 0
    while done < 30:
        st = FastState.deal(fr, rng)
        for _ in range(rng.randrange(8)):
            if st.result is not None:
                break
            legal = st.legal_moves()
            st.play(legal[rng.randrange(len(legal))])
        if st.result is not None:
            continue
        n = rules.players
        pm = [(1 << rng.randrange(rules.max_pip + 1)) if rng.random() < 0.3 else 0 for _ in range(n)]
        om = [rng.getrandbits(rules.max_pip + 1) if rng.random() < 0.5 else 0 for _ in range(n)]
        held = sum(st.hands)
        tmask = sum(1 << u for u in range(fr.n_tiles) if not (held >> u) & 1 and rng.random() < 0.5)
        pos = K.position(st)
        out = K.playout_batch_smart(R, pos.hands, pos.table, pos.turn, pos.passes, pos.opener, pos.required,
                                    pos.boneyard, pos.bpos, 1, seed=done, q=1.0, weights=W, passed=pm,
                                    opened=om, table_mask=tmask)
        res = _reference(st, W, pm, om, tmask)
        assert [int(x) for x in out[0, :4]] == [kinds[res.kind], -1 if res.seat is None else res.seat,
                                                -1 if res.team is None else res.team, res.points], (preset, done)
        done += 1


def test_soft_model_rollouts_follow_the_scores() -> None:
    """Softmax draws: near-greedy with sharp weights, near-uniform with flat
    ones, and reproducible from the seed."""
    R = K.kernel_rules(make_rules("cubano"))
    W = np.array(COEFS)
    greedy = K.random_hands_smart(R, 2000, 9, 1.0, W)
    sharp = K.random_hands_smart(R, 2000, 9, 1.0, W * 1000.0, soft=True)
    soft = K.random_hands_smart(R, 2000, 9, 1.0, W, soft=True)
    flat = K.random_hands_smart(R, 2000, 9, 1.0, W * 0.0, soft=True)
    assert (soft == K.random_hands_smart(R, 2000, 9, 1.0, W, soft=True)).all()

    def same(x: np.ndarray) -> float:
        return float((x[:, :4] == greedy[:, :4]).all(axis=1).mean())

    assert same(sharp) > 0.9  # ties between equal scores are the only difference
    assert same(flat) < same(soft) < same(sharp)
    # the greedy model team beats uniform play over duplicate deals
    rows = np.array([W, W * 0.0])
    ab = K.random_hands_smart(R, 3000, 4, 1.0, rows, soft=True)
    ba = K.random_hands_smart(R, 3000, 4, 1.0, rows[::-1], soft=True)
    wins = int((ab[:, 2] == 0).sum() + (ba[:, 2] == 1).sum())
    losses = int((ab[:, 2] == 1).sum() + (ba[:, 2] == 0).sum())
    assert wins > 1.2 * losses
