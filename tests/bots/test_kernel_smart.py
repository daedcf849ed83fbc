"""The heuristic ("medio-like") rollout policy of the numba kernel
(``playout_batch_smart`` / ``evaluate_moves_smart``), against a Python
re-implementation on :class:`capicua.engine.compact.FastState`.

* With ``q = 1`` the policy is deterministic: the kernel's hand must equal the
  one the Python reference plays, move by move, from fresh and mid-hand
  positions of several line presets (partnerships, individual games, drawing,
  in-play scoring), with and without root passes.
* ``evaluate_moves_smart`` scores each first move exactly as the reference
  playout after that move; every chosen move is legal (the reference asserts
  it at every step).
* The existing p-policy entry points are untouched: ``evaluate_moves`` gives
  the same numbers as before the new policy existed (checked against a
  fixed-seed reproduction of itself via ``playout_batch``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import pytest

from capicua.bots.kernel.evaluate import evaluate_moves_smart
from capicua.bots.kernel.fresh_deals import random_hands_smart
from capicua.bots.kernel.params import (
    KIND_DOMINO,
    KIND_TIE,
    KIND_TRANQUE,
    MAX_TEAMS,
    kernel_rules,
    position,
)
from capicua.bots.kernel.playout import playout_batch_smart
from capicua.bots.kernel.policies import MODEL_SIZE, SMART_WEIGHTS, passed_masks
from capicua.engine import Rules, make_rules
from capicua.engine.compact import (
    FastResult,
    FastRules,
    FastState,
    Move,
    fast_rules,
)

pytestmark = pytest.mark.xdist_group("numba-kernel")

CASES: list[tuple[str, dict[str, object]]] = [
    ("cubano", {}),
    ("caribe", {}),
    ("la-plaza", {}),
    ("mano-a-mano", {}),
    ("block", {"players": 3, "partnership": False}),
    ("draw", {}),
    ("fives-and-threes", {}),
]

WEIGHT_SETS = [
    SMART_WEIGHTS,
    (0.5, 3.0, 7.0, 2.0, 1.0, 6.0, 5.0, 2.5),
]


def _score(r: FastRules, W: Sequence[float], pm: list[int], seat: int, h: int, t: int, end: int,
           ends: list[int]) -> float:
    """The kernel's ``_smart_score``, written out in Python."""
    n = r.players
    a, b = r.tile_a[t], r.tile_b[t]
    rest = h & ~(1 << t)
    if end == -1:
        opened = (1 << a) | (1 << b)
        after = opened
        data = (rest & r.num_mask[a]).bit_count() + ((rest & r.num_mask[b]).bit_count() if b != a else 0)
    else:
        inner, other = ends[end], ends[1 - end]
        outer = b if a == inner else a
        opened = 1 << outer
        after = opened | (1 << other)
        data = (rest & r.num_mask[outer]).bit_count()
    s = W[0] * (a + b) + W[1] * data
    me = r.team_of[seat]
    nxt = (seat + 1) % n
    if r.team_of[nxt] == me:
        nxt = -1
    prv = (seat - 1) % n
    if r.team_of[prv] == me or prv == nxt:
        prv = -1
    partner = (seat + 2) % n if (n == 4 and r.teams == 2) else -1
    if partner >= 0:
        if opened & pm[partner]:
            s -= W[2]
        if after & ~pm[partner] == 0:
            s -= W[6]
    if nxt >= 0:
        if opened & pm[nxt]:
            s += W[3]
        if after & ~pm[nxt] == 0:
            s += W[5]
    if prv >= 0 and opened & pm[prv]:
        s += W[4]
    if a == b:
        s += W[7]
    return s


def _model_score(r: FastRules, W: Sequence[float], pm: list[int], om: list[int], tmask: int, seat: int, h: int,
                 t: int, end: int, ends: list[int]) -> float:
    """The play model's score (``playmodel.move_score``) from the masks the kernel keeps."""
    from capicua.bots.playmodel import move_score
    from capicua.bots.public import Context

    tc = [sum(1 for u in range(r.n_tiles) if (tmask >> u) & 1 and v in (r.tile_a[u], r.tile_b[u]))
          for v in range(r.max_pip + 1)]
    hand = [u for u in range(r.n_tiles) if (h >> u) & 1]
    ctx = Context(seat, ends[0], ends[1], pm, om, tc)
    return move_score(r, ctx, hand, t, end, tuple(W))


def _reference(st: FastState, W: Sequence[float], pm: list[int], first: Move | None = None, gorda: int = 0,
               om: list[int] | None = None, tmask: int = 0) -> tuple[FastResult, FastState]:
    """Finish ``st`` (a copy) with the q=1 heuristic policy; passes update ``pm``.
    Seats in the bit mask ``gorda`` play their heaviest tile instead (the
    lowest tile index among equals, on the left end when it fits there).
    With ``MODEL_SIZE`` weights the score is the play model's, which also
    reads ``om`` (numbers each seat opened) and ``tmask`` (tiles on the table)."""
    st = st.copy()
    pm = list(pm)
    om = list(om or [0] * st.r.players)
    model = len(W) == MODEL_SIZE
    r = st.r
    n = r.players
    while st.result is None:
        seat = st.turn
        legal = st.legal_moves()
        assert legal
        if first is not None:
            mv = first
            assert mv in legal
            first = None
        elif len(legal) == 1:
            mv = legal[0]
        elif (gorda >> seat) & 1:
            t = min((t for t, _ in legal), key=lambda t: (-(r.tile_a[t] + r.tile_b[t]), t))
            mv = min(m for m in legal if m[0] == t)
        else:
            ends = list(st.ends[:2]) if st.center >= 0 else [-1, -1]
            best, best_move = -1e300, None
            for t, end in legal:
                if model:
                    sc = _model_score(r, W, pm, om, tmask, seat, st.hands[seat], t, end, ends)
                else:
                    sc = _score(r, W, pm, seat, st.hands[seat], t, end, ends)
                if sc > best:
                    best, best_move = sc, (t, end)
            assert best_move is not None
            mv = best_move
        t, end = mv
        a, b = r.tile_a[t], r.tile_b[t]
        om[seat] |= ((1 << a) | (1 << b)) if st.center < 0 else 1 << (b if a == st.ends[end] else a)
        tmask |= 1 << t
        st.play(mv)
        if st.result is None:
            s = (seat + 1) % n
            while s != st.turn:  # every seat skipped passed on the ends now open
                pm[s] |= (1 << st.ends[0]) | (1 << st.ends[1])
                s = (s + 1) % n
    res = st.result
    return res, st


def _row(res: FastResult, st: FastState) -> list[int]:
    kinds = {"domino": KIND_DOMINO, "tranque": KIND_TRANQUE, "tie": KIND_TIE}
    in_play = list(res.in_play) + [0] * (MAX_TEAMS - len(res.in_play))
    return [
        kinds[res.kind],
        -1 if res.seat is None else res.seat,
        -1 if res.team is None else res.team,
        res.points,
        int(res.capicua),
        *in_play,
    ]


def _positions(rules: Rules, count: int, seed: str) -> list[tuple[FastState, list[int]]]:
    rng = random.Random(seed)
    out: list[tuple[FastState, list[int]]] = []
    while len(out) < count:
        st = FastState.deal(fast_rules(rules), rng)
        for _ in range(rng.randrange(8)):
            if st.result is not None:
                break
            legal = st.legal_moves()
            st.play(legal[rng.randrange(len(legal))])
        if st.result is None:
            pm = [0] * rules.players
            for s in range(rules.players):  # arbitrary root passes, as a view may report
                if rng.random() < 0.3:
                    pm[s] = 1 << rng.randrange(rules.max_pip + 1)
            out.append((st, pm))
    return out


@pytest.mark.parametrize(("preset", "options"), CASES)
@pytest.mark.parametrize("wi", range(len(WEIGHT_SETS)))
def test_smart_playout_matches_python_reference(preset: str, options: dict[str, object], wi: int) -> None:
    rules = make_rules(preset, **options)
    R = kernel_rules(rules)
    W = WEIGHT_SETS[wi]
    for i, (st, pm) in enumerate(_positions(rules, 40, f"smart-{preset}-{wi}")):
        pos = position(st)
        out = playout_batch_smart(R, pos.hands, pos.table, pos.turn, pos.passes, pos.opener, pos.required,
                                    pos.boneyard, pos.bpos, 2, seed=i, q=1.0, weights=W, passed=pm)
        res, end = _reference(st, W, pm)
        want = _row(res, end)
        base_in_play = list(st.in_play) + [0] * (MAX_TEAMS - len(st.in_play))
        want[5:] = [x - y for x, y in zip(want[5:], base_in_play, strict=True)]
        assert [int(x) for x in out[0]] == want, (preset, i)
        assert [int(x) for x in out[1]] == want  # deterministic at q = 1


@pytest.mark.parametrize("preset", ["cubano", "la-plaza", "draw", "all-fives"])
def test_greedy_model_playout_matches_python_reference(preset: str) -> None:
    """The play-model policy (MODEL_SIZE weights) at q = 1, with root masks of
    opened numbers and table tiles, plays the reference's hand."""
    from capicua.bots.playmodel import COEFS

    rules = make_rules(preset)
    R = kernel_rules(rules)
    rng = random.Random(f"model-ref-{preset}")
    for i, (st, pm) in enumerate(_positions(rules, 30, f"model-{preset}")):
        om = [rng.getrandbits(rules.max_pip + 1) if rng.random() < 0.5 else 0 for _ in range(rules.players)]
        held = sum(st.hands)
        tmask = sum(1 << u for u in range(st.r.n_tiles) if not (held >> u) & 1 and rng.random() < 0.5)
        pos = position(st)
        out = playout_batch_smart(R, pos.hands, pos.table, pos.turn, pos.passes, pos.opener, pos.required,
                                    pos.boneyard, pos.bpos, 1, seed=i, q=1.0, weights=COEFS, passed=pm,
                                    opened=om, table_mask=tmask)
        res, end = _reference(st, COEFS, pm, om=om, tmask=tmask)
        assert [int(x) for x in out[0, :5]] == _row(res, end)[:5], (preset, i)


@pytest.mark.parametrize("preset", ["cubano", "draw", "all-fives"])
def test_evaluate_moves_smart_matches_reference_per_move(preset: str) -> None:
    rules = make_rules(preset)
    R = kernel_rules(rules)
    W = SMART_WEIGHTS
    teams = rules.teams
    for st, pm in _positions(rules, 12, f"smart-eval-{preset}"):
        moves = st.legal_moves()
        pos = position(st)
        res = evaluate_moves_smart(R, pos.hands[None, :], pos.boneyard[pos.bpos:][None, :], pos.table,
                                     pos.turn, pos.passes, pos.opener, pos.required, 0,
                                     np.array(moves, dtype=np.int64), 3, 7, q=1.0, weights=W, passed=pm)
        me = st.r.team_of[st.turn]
        for m, mv in enumerate(moves):
            r, end = _reference(st, W, pm, first=mv)
            mine = end.in_play[me] - st.in_play[me]
            others = sum(end.in_play[t] - st.in_play[t] for t in range(teams) if t != me)
            if r.team == me:
                mine += r.points
            elif r.team is not None:
                others += r.points
            want = mine - others / max(1, teams - 1)
            assert res[m, 0] == pytest.approx(want), (preset, mv)
            assert res[m, 1] == (1.0 if r.team == me else 0.0)


@pytest.mark.parametrize("preset", ["cubano", "la-plaza"])
def test_evaluate_moves_smart_gorda_seats_play_heaviest(preset: str) -> None:
    """With a seat mask per sample, the masked seats play their heaviest tile in
    the rollouts (the experto opponent model); the others keep the heuristic."""
    rules = make_rules(preset)
    R = kernel_rules(rules)
    W = SMART_WEIGHTS
    differs = 0
    for i, (st, pm) in enumerate(_positions(rules, 12, f"smart-gorda-{preset}")):
        moves = st.legal_moves()
        pos = position(st)
        me = st.r.team_of[st.turn]
        mask = sum(1 << s for s in range(rules.players) if st.r.team_of[s] != me) if i % 3 else 0b1111
        res = evaluate_moves_smart(R, pos.hands[None, :], pos.boneyard[pos.bpos:][None, :], pos.table,
                                     pos.turn, pos.passes, pos.opener, pos.required, 0,
                                     np.array(moves, dtype=np.int64), 2, 7, q=1.0, weights=W, passed=pm,
                                     gorda_seats=np.array([mask], dtype=np.int64))
        for m, mv in enumerate(moves):
            r, _end = _reference(st, W, pm, first=mv, gorda=mask)
            plain, _ = _reference(st, W, pm, first=mv)
            differs += (r.points, r.team) != (plain.points, plain.team)
            assert res[m, 1] == (1.0 if r.team == me else 0.0), (preset, i, mv)
            if r.team == me:
                assert res[m, 3] == r.points
    assert differs > 0  # the mask really changes how the hands go
    with pytest.raises(ValueError):
        evaluate_moves_smart(R, pos.hands[None, :], pos.boneyard[pos.bpos:][None, :], pos.table,
                               pos.turn, pos.passes, pos.opener, pos.required, 0,
                               np.array(moves, dtype=np.int64), 2, 7, gorda_seats=np.zeros(3, dtype=np.int64))


def test_smart_random_part_plays_legal_hands() -> None:
    """q < 1 mixes in uniform moves: hands still end properly and totals add up."""
    rules = make_rules("cubano")
    R = kernel_rules(rules)
    st, pm = _positions(rules, 1, "smart-mixed")[0]
    pos = position(st)
    out = playout_batch_smart(R, pos.hands, pos.table, pos.turn, pos.passes, pos.opener, pos.required,
                                pos.boneyard, pos.bpos, 2000, seed=3, q=0.75, passed=pm)
    assert set(np.unique(out[:, 0])) <= {KIND_DOMINO, KIND_TRANQUE, KIND_TIE}
    assert (out[:, 3] >= 0).all()
    again = playout_batch_smart(R, pos.hands, pos.table, pos.turn, pos.passes, pos.opener, pos.required,
                                  pos.boneyard, pos.bpos, 2000, seed=3, q=0.75, passed=pm)
    assert (out == again).all()
    with pytest.raises(ValueError):
        playout_batch_smart(R, pos.hands, pos.table, pos.turn, pos.passes, pos.opener, pos.required,
                              pos.boneyard, pos.bpos, 1, seed=3, weights=(1.0, 2.0))


def test_passed_masks() -> None:
    assert passed_masks([[0, 3], [], [9], [3, 3]]).tolist() == [9, 0, 512, 8]


@pytest.mark.parametrize("rollout", ["smart", "model", "model_q"])
def test_experto_rollout_policies_return_legal_moves(rollout: str) -> None:
    """experto with each kernel rollout policy (heuristic, play model drawn
    from its softmax, play model best w.p. q) picks a legal move, the same
    one again from the same generator state."""
    from dataclasses import replace

    from capicua.bots.public import public_state
    from capicua.bots.search import EXPERTO, decide_public
    from capicua.engine import Match

    cfg = replace(EXPERTO, budget_ms=10.0, rollout=rollout, endgame_tiles=0)
    rng = random.Random(5)
    for g in range(6):
        match = Match(make_rules("cubano"), seed=f"smart-experto-{g}")
        match.start_hand()
        for _ in range(rng.randrange(0, 20)):
            if match.phase != "play":
                break
            match.apply(match.turn, rng.choice(match.legal_moves()))  # type: ignore[arg-type]
        if match.phase != "play":
            continue
        view = match.view(match.turn)
        action = decide_public(public_state(view), random.Random(g), cfg)
        assert action in view["legal"]
        assert decide_public(public_state(view), random.Random(g), cfg) == action


def test_random_hands_smart_takes_one_weight_row_per_team() -> None:
    R = kernel_rules(make_rules("cubano"))
    W = np.array(SMART_WEIGHTS)
    one = random_hands_smart(R, 300, 4, 1.0, W)
    assert (random_hands_smart(R, 300, 4, 1.0, np.array([W, W])) == one).all()
    heavy = np.array([1.0, 0, 0, 0, 0, 0, 0, 0])
    ab = random_hands_smart(R, 3000, 4, 1.0, np.array([W, heavy]))
    ba = random_hands_smart(R, 3000, 4, 1.0, np.array([heavy, W]))
    assert not (ab[:300] == one).all()
    # duplicate deals: the heuristic team beats pure "botar la gorda" over both seatings
    wins = int((ab[:, 2] == 0).sum() + (ba[:, 2] == 1).sum())
    losses = int((ab[:, 2] == 1).sum() + (ba[:, 2] == 0).sum())
    assert wins > losses
    with pytest.raises(ValueError):
        random_hands_smart(R, 1, 1, 1.0, np.zeros((2, 3)))
