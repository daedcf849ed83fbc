"""The numba playout kernel (capicua.bots.kernel) against the rich engine.

* Deterministic "heaviest tile" playouts (p=1) must give exactly the hand
  result the rich engine gives when driven by the same policy, from fresh
  deals and from mid-hand positions, for every line-layout preset.
* ``evaluate_moves`` with p=1 must score each forced first move exactly as
  the rich engine does after that move.
* Random playouts (p=0) from one deal must match the rich engine's result
  distribution (z-tests on frequencies and mean points), with and without
  drawing, with in-play scoring.

The first run compiles the kernel (~10 s); numba's cache makes later runs fast.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from capicua.bots.kernel.evaluate import evaluate_moves
from capicua.bots.kernel.fresh_deals import random_hands
from capicua.bots.kernel.params import (
    KIND_DOMINO,
    KIND_TIE,
    KIND_TRANQUE,
    MAX_TEAMS,
    RESULT_COLS,
    kernel_rules,
    position,
)
from capicua.bots.kernel.playout import playout_batch
from capicua.engine import Match, Play, make_rules
from capicua.engine.compact import FastState
from capicua.engine.tiles import canonical, tile_index

# One xdist worker loads (and, the first time, compiles) the numba kernel.
pytestmark = pytest.mark.xdist_group("numba-kernel")

LINE_CASES: list[tuple[str, dict[str, object]]] = [
    ("cubano", {}),
    ("cubano-clasico", {}),
    ("caribe", {}),
    ("la-plaza", {}),
    ("fid", {}),
    ("mano-a-mano", {}),
    ("block", {}),
    ("draw", {}),
    ("all-fives", {}),
    ("fives-and-threes", {}),
    ("cubano", {"tranque_scoring": "difference", "domino_scoring": "all_hands"}),
    ("cubano", {"tranque_winner": "lowest_team", "capicua_bonus": 30}),
    ("block", {"players": 3, "partnership": False}),
    ("draw", {"players": 5, "partnership": False}),
    ("all-fives", {"players": 2}),
    ("mano-a-mano", {"domino_scoring": "muggins", "tranque_scoring": "muggins"}),
]
KINDS = {"domino": KIND_DOMINO, "tranque": KIND_TRANQUE, "tie": KIND_TIE}


def _heaviest_index(plays: list[Play]) -> int:
    best = max(m.tile[0] + m.tile[1] for m in plays)
    return next(i for i, m in enumerate(plays) if m.tile[0] + m.tile[1] == best)


def _finish_greedy(match: Match) -> None:
    while match.phase == "play":
        plays = [m for m in match.legal_moves() if isinstance(m, Play)]
        seat = match.turn
        assert seat is not None
        match.apply(seat, plays[_heaviest_index(plays)])


def _row_of(match: Match, in_play_before: list[int]) -> list[int]:
    """The kernel's result row for the rich engine's finished hand."""
    hand = match.hand
    assert hand is not None and hand.result is not None
    res = hand.result
    r = match.rules
    in_play = [0] * MAX_TEAMS
    for a in hand.actions:
        if "score" in a:
            in_play[r.team_of(a["seat"])] += a["score"]
    in_play = [x - y for x, y in zip(in_play, in_play_before + [0] * MAX_TEAMS, strict=False)]
    return [
        KINDS[res["kind"]],
        -1 if res["seat"] is None else res["seat"],
        -1 if res["team"] is None else res["team"],
        res["points"],
        int(res["capicua"]),
        *in_play,
    ]


def _kernel_row(R: np.ndarray, st: FastState, p: float, seed: int = 0) -> list[int]:
    pos = position(st)
    out = playout_batch(R, pos.hands, pos.table, pos.turn, pos.passes, pos.opener, pos.required,
                          pos.boneyard, pos.bpos, 1, seed, p)
    return [int(x) for x in out[0]]


@pytest.mark.parametrize(("preset", "options"), LINE_CASES)
def test_greedy_playouts_match_rich_engine_exactly(preset: str, options: dict[str, object]) -> None:
    rules = make_rules(preset, **options)
    R = kernel_rules(rules)
    walk = random.Random(preset)
    for i in range(60):
        match = Match(rules, seed=f"kernel-{preset}-{i}")
        match.start_hand()
        for _ in range(walk.randrange(6)):  # from a mid-hand position, often
            if match.phase != "play":
                break
            moves = match.legal_moves()
            seat = match.turn
            assert seat is not None
            match.apply(seat, moves[walk.randrange(len(moves))])
        if match.phase != "play":
            continue
        st = FastState.from_match(match)
        got = _kernel_row(R, st, 1.0, seed=i)
        before = list(st.in_play) + [0] * MAX_TEAMS
        _finish_greedy(match)
        assert got == _row_of(match, before[: rules.teams]), (preset, i)


@pytest.mark.parametrize("preset", ["cubano", "la-plaza", "draw", "fives-and-threes"])
def test_evaluate_moves_forced_first_move(preset: str) -> None:
    rules = make_rules(preset)
    R = kernel_rules(rules)
    for i in range(15):
        match = Match(rules, seed=f"eval-{preset}-{i}")
        match.start_hand()
        for _ in range(i % 4):
            seat = match.turn
            assert seat is not None
            match.apply(seat, match.legal_moves()[0])
            if match.phase != "play":
                break
        if match.phase != "play":
            continue
        st = FastState.from_match(match)
        pos = position(st)
        me = rules.team_of(st.turn)
        moves = st.legal_moves()
        res = evaluate_moves(R, pos.hands[None, :], pos.boneyard[None, :], pos.table, pos.turn,
                               pos.passes, pos.opener, pos.required, pos.bpos, np.array(moves), 1, 7, 1.0)
        assert res.shape == (len(moves), 4)
        plays = [m for m in match.legal_moves() if isinstance(m, Play)]
        for k, play in enumerate(plays):
            assert moves[k][0] == tile_index(canonical(*play.tile), rules.max_pip)
            m2 = match.clone()
            before = list(st.in_play)
            seat = m2.turn
            assert seat is not None
            m2.apply(seat, play)
            _finish_greedy(m2)
            row = _row_of(m2, before)
            mine = row[5 + me] + (row[3] if row[2] == me else 0)
            others = sum(row[5 + t] for t in range(rules.teams) if t != me)
            others += row[3] if row[2] not in (me, -1) else 0
            net = mine - others / max(1, rules.teams - 1)
            assert res[k, 0] == pytest.approx(net)
            assert res[k, 1] == (1.0 if row[2] == me else 0.0)
            assert res[k, 2] == (1.0 if row[0] == KIND_TIE else 0.0)


def _z_ok(x: np.ndarray, y: np.ndarray, z: float = 5.0) -> bool:
    """Two-sample test on means: |difference| within z standard errors."""
    se = math.sqrt(x.var() / len(x) + y.var() / len(y)) + 1e-9
    return bool(abs(x.mean() - y.mean()) <= z * se)


@pytest.mark.parametrize("preset", ["cubano", "la-plaza", "draw", "fives-and-threes"])
def test_random_playouts_match_rich_distribution(preset: str) -> None:
    rules = make_rules(preset)
    R = kernel_rules(rules)
    seed = f"dist-{preset}"
    base = Match(rules, seed=seed)
    base.start_hand()
    st = FastState.from_match(base)
    pos = position(st)
    out = playout_batch(R, pos.hands, pos.table, pos.turn, pos.passes, pos.opener, pos.required,
                          pos.boneyard, pos.bpos, 40_000, 11, 0.0)
    rng = random.Random(5)
    rows = []
    for _ in range(500):
        match = Match(rules, seed=seed)
        match.start_hand()
        while match.phase == "play":
            moves = match.legal_moves()
            seat = match.turn
            assert seat is not None
            match.apply(seat, moves[rng.randrange(len(moves))])
        rows.append(_row_of(match, [0] * rules.teams))
    rich = np.array(rows, dtype=np.int64)
    for col in range(5 + rules.teams):
        assert _z_ok(out[:, col].astype(float), rich[:, col].astype(float)), (preset, col)
    for kind in range(3):
        assert _z_ok((out[:, 0] == kind).astype(float), (rich[:, 0] == kind).astype(float)), (preset, kind)
    for team in range(rules.teams):
        assert _z_ok((out[:, 2] == team).astype(float), (rich[:, 2] == team).astype(float)), (preset, team)


def test_random_hands_from_fresh_deals() -> None:
    """Fresh deals in the kernel: tile use, kinds and teams look like the fast path's."""
    rules = make_rules("cubano")
    R = kernel_rules(rules)
    out = random_hands(R, 20_000, 3)
    assert out.shape == (20_000, RESULT_COLS)
    assert set(np.unique(out[:, 0])) <= {0, 1, 2}
    assert (out[out[:, 0] == KIND_TIE, 3] == 0).all()
    assert (out[:, 3] >= 0).all()
    rng = random.Random(9)
    from capicua.engine.compact import random_playout

    fast = [random_playout(FastState.deal(rules, rng), rng) for _ in range(3000)]
    for kind in ("domino", "tranque", "tie"):
        f = np.array([r.kind == kind for r in fast], dtype=float)
        assert _z_ok((out[:, 0] == KINDS[kind]).astype(float), f), kind
    pts = np.array([r.points for r in fast], dtype=float)
    assert _z_ok(out[:, 3].astype(float), pts)
    # same seed, same results
    assert (random_hands(R, 500, 3) == out[:500]).all()


def test_kernel_refuses_what_it_cannot_play() -> None:
    with pytest.raises(ValueError):
        kernel_rules(make_rules("cross"))
    with pytest.raises(ValueError):
        kernel_rules(make_rules("block", max_pip=12))
