"""The exact endgame solver (``search.solve_root``, alpha-beta over distinct moves)
against a plain minimax over every legal move, on thousands of small endgames.

The brute force knows nothing of the solver: no pruning, no move ordering, no
equivalent moves, and its value is counted from the match scores (``team``'s
gain minus the mean of the other teams' gains), not with ``fast.margin``.
Every layout (line, cross, double-nine cross), drawing games, a capicúa bonus,
in-play scoring, and in-play scores that reach the target mid-hand.
"""

from __future__ import annotations

import random

import pytest

from capicua.bots.search import solve_root
from capicua.engine import make_rules
from capicua.engine.compact import FastState, fast_rules


def _gain_margin(st: FastState, team: int, root_scores: list[int]) -> float:
    gains = [st.scores[t] - root_scores[t] for t in range(len(root_scores))]
    others = [g for t, g in enumerate(gains) if t != team]
    return gains[team] - sum(others) / len(others)


def _minimax(st: FastState, team: int, root_scores: list[int]) -> float:
    if st.result is not None:
        return _gain_margin(st, team, root_scores)
    values = []
    for m in st.legal_moves():
        c = st.copy()
        c.play(m)
        values.append(_minimax(c, team, root_scores))
    return max(values) if st.r.team_of[st.turn] == team else min(values)


def _endgames(preset: str, options: dict[str, object], n: int, max_tiles: int) -> list[FastState]:
    """``n`` positions with at most ``max_tiles`` tiles in hands and at most two in
    the boneyard: random play to a random depth, then tiles taken out of the
    fullest hands and the boneyard (as if they had been played elsewhere) -- a
    layout's table with a small endgame on it. The seat on turn has a move."""
    rules = make_rules(preset, **options)
    r = fast_rules(rules)
    rng = random.Random(f"endgame-{preset}-{sorted(options.items())}")
    out: list[FastState] = []
    while len(out) < n:
        st = FastState.deal(r, rng)
        if r.in_play and rng.random() < 0.5:
            st.scores = [r.target - rng.randrange(1, 30) for _ in range(r.teams)]  # a score may end the match
        for _ in range(rng.randrange(1, 30)):
            if st.result is not None:
                break
            moves = st.legal_moves()
            st.play(moves[rng.randrange(len(moves))])
        if st.result is not None:
            continue
        limit = rng.randrange(r.players + 1, max_tiles + 1)
        while sum(h.bit_count() for h in st.hands) > limit:
            s = max(range(r.players), key=lambda x: (st.hands[x].bit_count(), rng.random()))
            held = [t for t in range(r.n_tiles) if st.hands[s] >> t & 1]
            st.hands[s] &= ~(1 << rng.choice(held))
        st.boneyard = st.boneyard[st.bpos : st.bpos + rng.randrange(3)]
        st.bpos = 0
        if all(st.hands) and st.fitting(st.turn):
            out.append(st)
    return out


CASES: list[tuple[str, dict[str, object], int, int]] = [
    ("cubano", {}, 500, 15),
    ("caribe", {}, 300, 15),  # capicúa bonus
    ("la-plaza", {}, 300, 15),
    ("mano-a-mano", {}, 300, 11),  # two players, drawing
    ("all-fives", {}, 400, 13),  # in-play scoring, drawing, the target
    ("fives-and-threes", {"players": 2}, 300, 10),
    ("cross", {}, 300, 13),
    ("double-nine-cross", {}, 300, 12),
    ("double-nine-cross", {"players": 2, "partnership": False}, 200, 9),
]


@pytest.mark.parametrize(("preset", "options", "n", "max_tiles"), CASES, ids=[c[0] for c in CASES])
def test_solver_equals_brute_force(preset: str, options: dict[str, object], n: int, max_tiles: int) -> None:
    kinds: set[str] = set()
    for st in _endgames(preset, options, n, max_tiles):
        team = st.r.team_of[st.turn]
        root = list(st.scores)
        before = st.snapshot()
        distinct = st.distinct_moves()
        solved = solve_root(st, distinct, team)
        assert st.snapshot() == before  # the solver leaves the position alone
        value = dict(zip(distinct, solved, strict=True))
        for m in st.legal_moves():
            c = st.copy()
            c.play(m)
            want = _minimax(c, team, root)
            same = next(d for d in distinct if st.equivalence_key(d) == st.equivalence_key(m))
            assert value[same] == pytest.approx(want), (preset, m, same)
            if c.result is not None:
                kinds.add(c.result.kind)
    assert "domino" in kinds
    if make_rules(preset, **options).in_play_scoring != "none":
        assert "target" in kinds, kinds


def test_win_bonus_counts_the_sign_of_the_margin() -> None:
    for st in _endgames("cubano", {}, 40, 7):
        team = st.r.team_of[st.turn]
        moves = st.distinct_moves()
        plain = solve_root(st, moves, team)
        bonus = solve_root(st, moves, team, win_bonus=5.0)
        for p, b in zip(plain, bonus, strict=True):
            # with best play the sign of the margin is kept, and the bonus adds to its size
            assert (p > 0) == (b > 0) and (p < 0) == (b < 0)
            assert abs(b) >= abs(p)


def _against_gorda(st: FastState, team: int, root_scores: list[int], gorda: int) -> float:
    """The brute force with the seats of ``gorda`` playing their heaviest tile,
    every legal move of that weight equally likely (botagorda's rule)."""
    if st.result is not None:
        return _gain_margin(st, team, root_scores)
    moves = st.legal_moves()
    if (gorda >> st.turn) & 1:
        top = max(st.r.tile_pips[t] for t, _ in moves)
        heavy = [m for m in moves if st.r.tile_pips[m[0]] == top]
        total = 0.0
        for m in heavy:
            c = st.copy()
            c.play(m)
            total += _against_gorda(c, team, root_scores, gorda)
        return total / len(heavy)
    values = []
    for m in moves:
        c = st.copy()
        c.play(m)
        values.append(_against_gorda(c, team, root_scores, gorda))
    return max(values) if st.r.team_of[st.turn] == team else min(values)


@pytest.mark.parametrize("preset", ["cubano", "la-plaza", "caribe"])
def test_solver_against_gorda_seats_equals_brute_force(preset: str) -> None:
    """With rivals modelled as "botar la gorda", the value is the best reply to
    that player (a chance between tiles of equal weight), and with a perfect
    rival it is never above it -- the gorda rival can only be worse for its team."""
    tested = 0
    for st in _endgames(preset, {}, 200, 12):
        team = st.r.team_of[st.turn]
        rivals = [s for s in range(st.r.players) if st.r.team_of[s] != team]
        gorda = sum(1 << s for s in rivals if (st.turn + s) % 3)  # one rival or both, varying
        root = list(st.scores)
        distinct = st.distinct_moves()
        solved = solve_root(st, distinct, team, gorda=gorda)
        perfect = solve_root(st, distinct, team)
        for m, v, p in zip(distinct, solved, perfect, strict=True):
            c = st.copy()
            c.play(m)
            # equivalent legal moves lead to equal games, so the distinct move stands for them
            assert v == pytest.approx(_against_gorda(c, team, root, gorda)), (preset, m)
            assert v >= p - 1e-9
            tested += 1
    assert tested > 200
