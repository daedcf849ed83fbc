"""Differential test: the fast path (capicua.engine.compact) against the rich engine.

Random hands of every preset (and of every scoring / opener option) are
played by the rich ``Match`` and by a ``FastState`` side by side with the
same random choices. At every step: the fast state equals a fresh
``FastState.from_match`` of the rich match, the legal moves are the same
(mapped to (tile_index, end_index)), apply/undo restores the state exactly,
and at the end the results agree (kind, seat, team, points, capicúa,
in-play points, pip totals, next opener, scores).
"""

from __future__ import annotations

import random

import pytest

from capicua.engine import Match, Play, make_rules
from capicua.engine.compact import (
    FastState,
    choose,
    fast_rules,
    heaviest,
    policy_playout,
    random_playout,
)
from capicua.engine.rules import PRESETS
from capicua.engine.tiles import canonical, tile_index

# (preset, overrides, hands): every preset, plus the options whose scoring or
# opener logic the fast path re-implements.
CASES: list[tuple[str, dict[str, object], int]] = [(p, {}, 500) for p in PRESETS] + [
    ("cubano", {"domino_scoring": "all_hands"}, 240),
    ("cubano", {"tranque_winner": "lowest_team"}, 240),
    ("cubano", {"tranque_scoring": "all_hands"}, 240),
    ("cubano", {"tranque_scoring": "difference"}, 240),
    ("cubano", {"capicua_bonus": 30, "next_opener_after_tranque": "blocker"}, 320),
    ("cubano", {"redeal_five_doubles": "off", "next_opener_after_tranque": "other_team_on_tie"}, 240),
    ("caribe", {"first_opener": "fid_rotation"}, 160),
    ("la-plaza", {"tranque_winner": "lowest_player", "tranque_scoring": "opponents"}, 240),
    ("la-plaza", {"domino_scoring": "opponents", "capicua_bonus": 25}, 240),
    ("block", {"players": 2, "partnership": False}, 240),
    ("block", {"players": 3, "partnership": False}, 240),
    ("block", {"players": 5, "partnership": False}, 240),
    ("block", {"partnership": False}, 240),
    ("block", {"max_pip": 9}, 160),
    ("block", {"max_pip": 12}, 80),
    ("draw", {"players": 2, "partnership": False}, 240),
    ("draw", {"players": 3, "partnership": False}, 240),
    ("draw", {"players": 5, "partnership": False}, 240),
    ("all-fives", {"players": 2}, 240),
    ("all-fives", {"players": 3}, 160),
    ("fives-and-threes", {"players": 2}, 240),
    ("cross", {"players": 2, "partnership": False}, 160),
    ("double-nine-cross", {"players": 2, "partnership": False}, 160),
    ("double-nine-cross", {"max_pip": 12, "players": 4}, 80),
    ("mano-a-mano", {"domino_scoring": "muggins", "tranque_scoring": "muggins"}, 240),
]


def _ids() -> list[str]:
    return [p + "".join(f"-{k}={v}" for k, v in o.items()) for p, o, _ in CASES]


def fast_move(match: Match, play: Play) -> tuple[int, int]:
    hand = match.hand
    assert hand is not None
    t = tile_index(canonical(*play.tile), match.rules.max_pip)
    return (t, -1 if play.end is None else hand.arm_order.index(play.end))


def rich_result(match: Match) -> tuple[object, ...]:
    hand = match.hand
    assert hand is not None and hand.result is not None
    res = hand.result
    return (
        res["kind"],
        res["seat"],
        res["team"],
        res["points"],
        res["capicua"],
        res["in_play_points"],
        tuple(res["pip_totals"]),
        res["next_opener"],
        tuple(match.scores),
    )


def fast_result(st: FastState) -> tuple[object, ...]:
    res = st.result
    assert res is not None
    return (
        res.kind,
        res.seat,
        res.team,
        res.points,
        res.capicua,
        sum(res.in_play),
        res.pip_totals,
        res.next_opener,
        tuple(st.scores),
    )


def play_side_by_side(match: Match, rng: random.Random, kinds: dict[str, int]) -> None:
    """Play the match's current hand in both engines with the same choices."""
    st = FastState.from_match(match)
    r = st.r
    while match.phase == "play":
        assert st.snapshot() == FastState.from_match(match).snapshot()
        rich_moves = match.legal_moves()
        plays = [m for m in rich_moves if isinstance(m, Play)]
        assert len(plays) == len(rich_moves)
        moves = st.legal_moves()
        assert moves == [fast_move(match, m) for m in plays]
        assert match.turn == st.turn
        # Every other seat has no move; the seat on turn passes only without a fit.
        assert st.fitting(st.turn) != 0
        # apply/undo returns to the identical state, on a random legal move
        before = st.snapshot()
        token = st.apply(moves[rng.randrange(len(moves))])
        st.undo(token)
        assert st.snapshot() == before
        k = rng.randrange(len(moves))
        seat = match.turn
        assert seat is not None
        match.apply(seat, plays[k])
        token = st.apply(moves[k])
        if rng.random() < 0.2:
            after = st.snapshot()
            st.undo(token)
            assert st.snapshot() == before
            st.play(moves[k])
            assert st.snapshot() == after
    assert match.phase in ("hand_over", "match_over")
    assert st.result is not None
    assert fast_result(st) == rich_result(match)
    assert st.snapshot() == FastState.from_match(match).snapshot()
    kinds[st.result.kind] = kinds.get(st.result.kind, 0) + 1
    if st.result.capicua:
        kinds["capicua"] = kinds.get("capicua", 0) + 1
    del r


@pytest.mark.parametrize(("preset", "options", "hands"), CASES, ids=_ids())
def test_fast_matches_rich_engine(preset: str, options: dict[str, object], hands: int) -> None:
    rules = make_rules(preset, **options)
    rng = random.Random(f"diff/{preset}/{sorted(options.items())}")
    kinds: dict[str, int] = {}
    played = 0
    m = 0
    while played < hands:
        match = Match(rules, seed=f"{preset}-{m}")
        m += 1
        match.start_hand()
        while played < hands:
            if match.phase == "redeal_question":
                # on_request redeals are not the fast path's business: answer no
                from capicua.engine import RedealAnswer

                seat = match.turn
                assert seat is not None
                match.apply(seat, RedealAnswer(False))
                continue
            play_side_by_side(match, rng, kinds)
            played += 1
            if match.phase == "match_over":
                break
            match.start_hand()
    # the cases must reach both ways a hand ends
    assert kinds.get("domino", 0) > 0, kinds
    if not rules.drawing:
        assert kinds.get("tranque", 0) + kinds.get("tie", 0) > 0, kinds
    if rules.in_play_scoring != "none":
        # ... and the third: an in-play score reaches the target and ends the match mid-hand
        assert kinds.get("target", 0) > 0, kinds


def _rich_policy_hand(match: Match, rng: random.Random, p: float) -> None:
    """Finish the current hand in the rich engine with the policy of ``fast.choose``."""
    while match.phase == "play":
        plays = [m for m in match.legal_moves() if isinstance(m, Play)]
        n = len(plays)
        if n == 1:
            k = 0
        elif p >= 1.0 or (p > 0.0 and rng.random() < p):
            best = max(m.tile[0] + m.tile[1] for m in plays)
            k = next(i for i, m in enumerate(plays) if m.tile[0] + m.tile[1] == best)
        else:
            k = int(rng.random() * n)
        seat = match.turn
        assert seat is not None
        match.apply(seat, plays[k])


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0])
def test_playouts_replay_rich_engine(preset: str, p: float) -> None:
    """random_playout / policy_playout draw the same numbers as a rich-engine
    game driven the documented way, from the deal and from mid-hand."""
    rules = make_rules(preset)
    for i in range(25):
        match = Match(rules, seed=f"playout-{preset}-{i}")
        match.start_hand()
        # walk a few random moves in first, sometimes
        walk = random.Random(i)
        for _ in range(walk.randrange(4) if i % 2 else 0):
            if match.phase != "play":
                break
            moves = match.legal_moves()
            seat = match.turn
            assert seat is not None
            match.apply(seat, moves[walk.randrange(len(moves))])
        if match.phase != "play":
            continue
        st = FastState.from_match(match)
        before = st.snapshot()
        seed = f"{preset}/{i}/{p}"
        res = random_playout(st, random.Random(seed)) if p == 0.0 else policy_playout(st, random.Random(seed), p)
        assert st.snapshot() == before  # playouts leave the state alone
        _rich_policy_hand(match, random.Random(seed), p)
        hand = match.hand
        assert hand is not None and hand.result is not None
        got = (res.kind, res.seat, res.team, res.points, res.capicua, sum(res.in_play), res.pip_totals)
        want = (
            hand.result["kind"],
            hand.result["seat"],
            hand.result["team"],
            hand.result["points"],
            hand.result["capicua"],
            hand.result["in_play_points"],
            tuple(hand.result["pip_totals"]),
        )
        assert got == want


def test_heaviest_and_choose() -> None:
    r = fast_rules(make_rules("cubano"))
    i = tile_index
    moves = [(i((0, 9), 9), 0), (i((4, 5), 9), 1), (i((5, 5), 9), 0), (i((5, 5), 9), 1)]
    assert heaviest(r, moves) == (i((5, 5), 9), 0)
    assert choose(r, moves[:1], random.Random(0), 0.0) == moves[0]
    assert choose(r, moves, random.Random(0), 1.0) == (i((5, 5), 9), 0)


def test_deal_respects_rules() -> None:
    for preset in ("cubano", "la-plaza", "block", "mano-a-mano", "all-fives", "double-nine-cross"):
        rules = make_rules(preset)
        r = fast_rules(rules)
        rng = random.Random(preset)
        for _ in range(200):
            st = FastState.deal(r, rng)
            assert sum(h.bit_count() for h in st.hands) + len(st.boneyard) == r.n_tiles
            assert all(h.bit_count() == rules.hand_size for h in st.hands)
            union = 0
            for h in st.hands:
                assert union & h == 0
                union |= h
            for t in st.boneyard:
                assert not union >> t & 1
            if rules.redeal_five_doubles == "automatic":
                assert all((h & r.doubles_mask).bit_count() < 5 for h in st.hands)
            if rules.first_opener in ("must_play_top_double", "highest_double"):
                top = max(t for h in st.hands for t in range(r.n_tiles) if h >> t & 1 and t in
                          [x for x in range(r.n_tiles) if r.doubles_mask >> x & 1])
                assert st.required_first == top and st.hands[st.turn] >> top & 1
            res = random_playout(st, rng)
            assert res.kind in ("domino", "tranque", "tie")
