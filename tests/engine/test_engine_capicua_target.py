"""A capicúa on the tile that ends the match (RULES.md §3, All Fives): when a
seat's last tile both fits the two different open ends and scores the in-play
points that reach the target, the match ends at that moment (``target``) and
the capicúa still counts: the record, the event, the sheet and the compact copy
the bots search on all say so.

The deal was found by a seeded search and written out: two All Fives hands of
test_engine_fixes' AF deal take the seats to 40-40, then a third hand in which
seat 1 goes out with 1-5 on ends 1 and 5, and the open ends (5 and 5) make 10.
"""

from __future__ import annotations

import json
import random

import pytest

from capicua.engine import Match, Play, RecordError, dumps, replay
from capicua.engine.compact import FastState, policy_playout
from capicua.engine.tiles import canonical, tile_index

try:
    from tests.helpers_deals import assert_replays, given, kinds, next_given, run
except ImportError:  # tests/ on sys.path
    from helpers_deals import assert_replays, given, kinds, next_given, run  # type: ignore[no-redef]

AF_B = "1-6 1-3 0-3 0-2 4-4"
AF_A = "6-6 1-1 3-3 0-0 2-3"
AF_SCRIPT = [
    (1, "6-6", None), (0, "1-6", "right"), (1, "1-1", "right"), (0, "1-3", "right"),
    (1, "3-3", "right"), (0, "0-3", "right"), (1, "0-0", "right"), (0, "0-2", "right"),
    (1, "2-3", "right"),
]
AF_MIRRORED = [(1 - seat, t, end) for seat, t, end in AF_SCRIPT]
THIRD = ["3-4 0-1 4-6 5-6 3-3", "1-5 0-5 1-2 0-2 4-5"]
THIRD_SCRIPT = [
    (0, "3-4", None), (1, "4-5", "right"), (0, "5-6", "right"), (1, "0-3", "left"),
    (0, "4-6", "right"), (1, "0-0", "left"), (0, "0-1", "left"), (1, "1-2", "left"),
    (0, "0-4", "right"), (1, "0-2", "left"), (0, "0-6", "right"), (1, "0-5", "left"),
    (0, "1-6", "right"),
]
LAST = (1, "1-5", "right")


def _before_the_last_tile() -> Match:
    m = given("all-fives", [AF_B, AF_A], players=2, target=50)
    run(m, AF_SCRIPT)
    next_given(m, [AF_A, AF_B])
    run(m, AF_MIRRORED)
    assert m.scores == [40, 40]
    next_given(m, THIRD)
    run(m, THIRD_SCRIPT)
    hand = m.hand
    assert hand is not None
    assert m.turn == 1 and hand.hands[1] == [(1, 5)]
    assert sorted(hand.ends.values()) == [1, 5]
    return m


def test_a_match_ending_last_tile_that_fits_both_ends_is_a_capicua() -> None:
    m = _before_the_last_tile()
    events = run(m, [LAST])
    assert kinds(events) == ["play", "score", "capicua", "hand_end", "match_end"]
    assert events[1]["points"] == 10 and m.scores == [45, 50]
    res = m.hand.result if m.hand else None
    assert res is not None
    assert (res["kind"], res["seat"], res["team"], res["points"], res["capicua"]) == ("target", 1, 1, 0, True)
    assert events[-2]["result_kind"] == "target" and events[-2]["capicua"] is True
    assert m.sheet[-1]["capicua"] is True
    assert m.match_result is not None and m.match_result["winner"] == 1
    assert m.view(0)["result"]["capicua"] is True
    again = assert_replays(m)
    assert again.hand is not None and again.hand.result is not None and again.hand.result["capicua"] is True


def test_reaching_the_target_with_tiles_left_is_no_capicua() -> None:
    """The same position one tile earlier in the other seat's place: seat 0 reaching
    the target mid-hand with tiles in hand makes no capicúa (AF's third hand)."""
    m = given("all-fives", [AF_B, AF_A], players=2, target=50)
    run(m, AF_SCRIPT)
    next_given(m, [AF_A, AF_B])
    run(m, AF_MIRRORED)
    next_given(m, [AF_B, AF_A])
    events = run(m, AF_SCRIPT[:4])
    assert "capicua" not in kinds(events)
    assert m.hand is not None and m.hand.result is not None and m.hand.result["capicua"] is False


def test_the_compact_copy_agrees() -> None:
    """engine/fast.py (what the bots search on) says capicúa too, through apply,
    play and a playout from the position before the last tile."""
    m = _before_the_last_tile()
    seat, text, end = LAST
    a, b = (int(x) for x in text.split("-"))
    hand = m.hand
    assert hand is not None
    move = (tile_index(canonical(a, b), m.rules.max_pip), hand.arm_order.index(end))
    applied = FastState.from_match(m)
    applied.apply(move)
    played = FastState.from_match(m)
    played.play(move)
    # The playout's hot loop: 1-5 on the other end (5) leaves ends 1 and 1 (no score),
    # a dominó with 15 points; on this end it reaches the target. Both are capicúas.
    outcomes = set()
    for seed in range(12):
        res = policy_playout(FastState.from_match(m), random.Random(seed), 0.0)
        outcomes.add((res.kind, res.seat, res.team, res.points, res.capicua))
    assert outcomes == {("target", 1, 1, 0, True), ("domino", 1, 1, 15, True)}
    m.apply(seat, Play((a, b), end))
    for done in (applied.result, played.result):
        assert done is not None
        assert (done.kind, done.seat, done.team, done.points, done.capicua) == ("target", 1, 1, 0, True)
    assert applied.snapshot() == FastState.from_match(m).snapshot()


def test_records_of_earlier_engines_still_replay() -> None:
    """A record written before the fix says ``capicua: false`` for that hand: it
    replays (nothing else about the hand may differ), and the replay says capicúa."""
    m = _before_the_last_tile()
    run(m, [LAST])
    rec = json.loads(dumps(m))
    rec["hands"][-1]["result"]["capicua"] = False
    again = replay(rec)
    assert again.hand is not None and again.hand.result is not None and again.hand.result["capicua"] is True
    rec["hands"][-1]["result"]["points"] = 5
    with pytest.raises(RecordError):
        replay(rec)
