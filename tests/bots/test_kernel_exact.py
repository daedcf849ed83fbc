"""The numba kernel's playouts against the engine's compact core
(:class:`capicua.engine.compact.FastState`) under a deterministic policy.

Every seat plays its heaviest tile (the first in legal order among equal
pips: lowest tile index, left end before right), on both sides. For every
line preset (the only layout the kernel plays), scoring options, in-play
scoring and drawing games, hundreds of deals are played to the end of the
hand by both, from the deal and from mid-hand positions; each hand must end
the same way: kind, seat, team, points, capicúa, each team's in-play points
and so each team's score.

The kernel compiles its one playout loop twice (the heaviest-tile policy
with the policy as a constant, the scored policies with it at run time);
both copies are held to the same hands: the first through ``playout_batch``
at ``p = 1``, the second through ``evaluate_moves_smart`` with every seat
playing its heaviest tile (``gorda_seats``) and through a heuristic whose
only weight is the pips.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_kernel import KINDS, LINE_CASES

from capicua.bots.kernel.evaluate import evaluate_moves_smart
from capicua.bots.kernel.fresh_deals import random_hands, random_hands_smart
from capicua.bots.kernel.params import KIND_TIE, MAX_TEAMS, kernel_rules, position
from capicua.bots.kernel.playout import playout_batch
from capicua.engine import make_rules
from capicua.engine.compact import (
    FastResult,
    FastState,
    Move,
    fast_rules,
)

pytestmark = pytest.mark.xdist_group("numba-kernel")

# The kernel suite's line cases, and a few more rule sets the exact check covers.
CASES: list[tuple[str, dict[str, object]]] = LINE_CASES + [
    ("la-plaza", {"tranque_scoring": "all_hands"}),
    ("draw", {"players": 2}),
    ("fives-and-threes", {"players": 3, "partnership": False}),
]
DEALS = 300
PIPS_ONLY = (1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)  # the heuristic reduced to the tile's pips


def _case_id(case: tuple[str, dict[str, object]]) -> str:
    preset, options = case
    return preset + "".join(f"-{k}={v}" for k, v in sorted(options.items()))


def _heaviest(st: FastState, legal: list[Move]) -> Move:
    pips = st.r.tile_pips
    best = legal[0]
    for move in legal:
        if pips[move[0]] > pips[best[0]]:
            best = move
    return best


def _finish_heaviest(st: FastState, first: Move | None = None) -> FastState:
    """A copy of ``st`` played to the end of the hand by the heaviest-tile
    policy (``first``, if given, is the first move)."""
    st = st.copy()
    while st.result is None:
        legal = st.legal_moves()
        if first is not None:
            assert first in legal
            move, first = first, None
        else:
            move = _heaviest(st, legal)
        st.play(move)
    return st


def _expected_row(start: FastState, end: FastState) -> list[int]:
    """The kernel's result row for the hand ``start`` -> ``end``."""
    res = end.result
    assert isinstance(res, FastResult)
    assert res.kind in KINDS, res  # from zero scores no in-play total reaches the match target
    in_play = [after - before for after, before in zip(res.in_play, start.in_play, strict=True)]
    return [
        KINDS[res.kind],
        -1 if res.seat is None else res.seat,
        -1 if res.team is None else res.team,
        res.points,
        int(res.capicua),
        *in_play,
        *[0] * (MAX_TEAMS - len(in_play)),
    ]


def _scores_from_row(start: FastState, row: list[int]) -> list[int]:
    """Each team's score after the hand, from the kernel's row."""
    return [
        start.scores[t] + row[5 + t] + (row[3] if row[2] == t else 0) for t in range(start.r.teams)
    ]


def _positions(rules_case: tuple[str, dict[str, object]], count: int) -> list[FastState]:
    """``count`` hands not yet over: fresh deals, and every other one a few
    random moves in (so that the kernel also starts with tiles on the table,
    passes behind it and a boneyard partly drawn)."""
    preset, options = rules_case
    r = fast_rules(make_rules(preset, **options))
    rng = random.Random(f"exact-{_case_id(rules_case)}")
    out: list[FastState] = []
    while len(out) < count:
        st = FastState.deal(r, rng)
        if len(out) % 2:
            for _ in range(rng.randrange(1, 9)):
                if st.result is not None:
                    break
                legal = st.legal_moves()
                st.play(legal[rng.randrange(len(legal))])
        if st.result is None:
            out.append(st)
    return out


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_heaviest_tile_playouts_equal_the_compact_core(case: tuple[str, dict[str, object]]) -> None:
    R = kernel_rules(make_rules(case[0], **case[1]))
    for i, st in enumerate(_positions(case, DEALS)):
        end = _finish_heaviest(st)
        want = _expected_row(st, end)
        pos = position(st)
        out = playout_batch(R, pos.hands, pos.table, pos.turn, pos.passes, pos.opener, pos.required,
                              pos.boneyard, pos.bpos, 2, seed=i, p=1.0)
        got = [int(x) for x in out[0]]
        assert got == want, (case, i)
        assert [int(x) for x in out[1]] == want  # no randomness at p = 1
        assert _scores_from_row(st, got) == end.scores, (case, i)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_scored_policy_copy_with_every_seat_heaviest_equals_the_compact_core(
    case: tuple[str, dict[str, object]],
) -> None:
    """``evaluate_moves_smart`` with every seat in ``gorda_seats`` plays every
    candidate first move and then the heaviest tile: each move's value is the
    one of the core's hand after that move (one sample, so the means are the
    hand's own numbers)."""
    rules = make_rules(case[0], **case[1])
    R = kernel_rules(rules)
    teams = rules.teams
    everyone = np.array([(1 << rules.players) - 1], dtype=np.int64)
    for i, st in enumerate(_positions(case, DEALS // 6)):
        pos = position(st)
        moves = st.legal_moves()
        res = evaluate_moves_smart(R, pos.hands[None, :], pos.boneyard[None, :], pos.table, pos.turn,
                                     pos.passes, pos.opener, pos.required, pos.bpos,
                                     np.array(moves, dtype=np.int64), 2, i, q=0.5, gorda_seats=everyone)
        me = st.r.team_of[st.turn]
        for m, move in enumerate(moves):
            row = _expected_row(st, _finish_heaviest(st, first=move))
            mine = row[5 + me] + (row[3] if row[2] == me else 0)
            others = sum(row[5 + t] for t in range(teams) if t != me) + (row[3] if row[2] not in (me, -1) else 0)
            assert res[m, 0] == pytest.approx(mine - others / max(1, teams - 1)), (case, i, move)
            assert res[m, 1] == (1.0 if row[2] == me else 0.0)
            assert res[m, 2] == (1.0 if row[0] == KIND_TIE else 0.0)
            assert res[m, 3] == (row[3] if row[2] == me else 0)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_both_compiled_copies_play_the_same_fresh_deals(case: tuple[str, dict[str, object]]) -> None:
    """Fresh deals: the heaviest tile at ``p = 1`` and the heuristic whose
    only weight is the pips play the same hands (at q = p = 1 neither draws a
    random number for the play, so both runners see the same deals)."""
    R = kernel_rules(make_rules(case[0], **case[1]))
    heaviest = random_hands(R, 2000, 17, 1.0)
    pips_heuristic = random_hands_smart(R, 2000, 17, 1.0, PIPS_ONLY)
    assert (heaviest == pips_heuristic).all()
    assert len({tuple(row) for row in heaviest.tolist()}) > 20  # many different hands
