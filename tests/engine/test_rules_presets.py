"""Hand-written deals for the presets of RULES.md §3 (and the draw,
in-play scoring and spinner rules they bring), preset shapes, and refused
rule combinations. Expected numbers are worked out by hand in the comments."""

from __future__ import annotations

import pytest

from capicua.engine import IllegalActionError, Match, Play, RulesError, full_set, make_rules
from capicua.engine.state import _round5
from capicua.engine.tiles import hand_pips

try:
    from tests.helpers_deals import assert_replays, given, kinds, moves, play, run, tile, tiles
except ImportError:  # tests/ as a plain directory
    from helpers_deals import (  # type: ignore[no-redef]
        assert_replays,
        given,
        kinds,
        moves,
        play,
        run,
        tile,
        tiles,
    )


# ------------------------------------------------------------ preset shapes
@pytest.mark.parametrize(
    ("preset", "options", "max_pip", "players", "hand", "sleeping", "partnership", "drawing"),
    [
        ("cubano", {}, 9, 4, 10, 15, True, False),
        ("cubano-clasico", {}, 9, 4, 10, 15, True, False),
        ("caribe", {}, 9, 4, 10, 15, True, False),
        ("la-plaza", {}, 6, 4, 7, 0, True, False),
        ("fid", {}, 6, 4, 7, 0, True, False),
        ("mano-a-mano", {}, 6, 2, 7, 14, False, True),
        ("block", {}, 6, 4, 6, 4, True, False),
        ("block", {"players": 2}, 6, 2, 8, 12, False, False),
        ("block", {"players": 3}, 6, 3, 6, 10, False, False),
        ("block", {"players": 4, "partnership": False}, 6, 4, 6, 4, False, False),
        ("block", {"players": 5}, 6, 5, 5, 3, False, False),
        ("block", {"max_pip": 9}, 9, 4, 9, 19, True, False),
        ("block", {"max_pip": 12}, 12, 4, 12, 43, True, False),
        ("draw", {"players": 2}, 6, 2, 7, 14, False, True),
        ("draw", {"players": 3}, 6, 3, 5, 13, False, True),
        ("draw", {}, 6, 4, 4, 12, True, True),
        ("draw", {"players": 5}, 6, 5, 3, 13, False, True),
        ("all-fives", {}, 6, 4, 5, 8, False, True),
        ("all-fives", {"players": 2}, 6, 2, 5, 18, False, True),
        ("all-fives", {"players": 3}, 6, 3, 5, 13, False, True),
        ("fives-and-threes", {}, 6, 4, 5, 8, False, True),
        ("cross", {}, 6, 4, 4, 12, True, True),
        ("double-nine-cross", {}, 9, 4, 5, 35, True, True),
        ("double-nine-cross", {"players": 2}, 9, 2, 7, 41, False, True),
        ("double-nine-cross", {"players": 3}, 9, 3, 7, 34, False, True),
        ("double-nine-cross", {"max_pip": 12}, 12, 4, 5, 71, True, True),
    ],
)
def test_preset_shapes(preset, options, max_pip, players, hand, sleeping, partnership, drawing):
    rules = make_rules(preset, **options)
    assert (rules.max_pip, rules.players, rules.hand_size, rules.sleeping) == (max_pip, players, hand, sleeping)
    assert (rules.partnership, rules.drawing) == (partnership, drawing)
    assert rules.tile_count == {6: 28, 9: 55, 12: 91}[max_pip]
    m = Match(rules, "shape")
    m.start_hand()
    assert [len(h) for h in m.hand.hands] == [hand] * players
    assert len(m.hand.boneyard) == sleeping
    assert sorted([t for h in m.hand.hands for t in h] + m.hand.boneyard) == full_set(max_pip)


def test_preset_fixed_options():
    assert make_rules("cubano-clasico").first_opener == "team_draw"
    assert make_rules("cubano-clasico").next_opener_after_tranque == "other_team_on_tie"
    lp = make_rules("la-plaza")
    assert (lp.first_opener, lp.domino_scoring, lp.tranque_winner, lp.tranque_scoring) == (
        "must_play_top_double", "all_hands", "lowest_team", "all_hands")
    assert lp.next_opener_after_tranque == "blocker"
    fid = make_rules("fid")
    assert (fid.first_opener, fid.capicua_bonus, fid.domino_scoring) == ("fid_rotation", 0, "all_hands")
    assert make_rules("caribe").capicua_bonus == 25
    assert make_rules("all-fives").draw_reserve == 2
    assert make_rules("fives-and-threes").in_play_scoring == "fives_and_threes"
    assert make_rules("block").tranque_scoring == "difference"
    for target in (50, 100, 200):
        assert make_rules("la-plaza", target=target).target == target


@pytest.mark.parametrize(
    ("preset", "options", "message"),
    [
        ("nope", {}, "unknown preset"),
        ("cubano", {"colour": "red"}, "unknown option"),
        ("cubano", {"capicua_bonus": 10}, "capicua_bonus"),
        ("cubano", {"target": True}, "target"),
        ("cubano", {"players": 2, "partnership": True, "hand_size": 10}, "partnerships need exactly 4"),
        ("cubano", {"players": 3}, "no standard hand size"),
        ("la-plaza", {"hand_size": 8}, "need 32 tiles"),
        ("cross", {"first_opener": "random_seat"}, "starts from a double"),
        ("cross", {"capicua_bonus": 25}, "capicúa"),
        ("cubano", {"first_opener": "fid_rotation", "next_opener_after_win": "winner"}, "fid_rotation"),
        ("all-fives", {"partnership": True}, "individual"),
        ("all-fives", {"players": 5}, "2 to 4 players"),
        ("draw", {"redeal_five_doubles": "automatic"}, "five doubles"),
        ("block", {"players": 6}, "players"),
        ("cubano", {"hand_size": 0}, "hand_size"),
    ],
)
def test_impossible_rule_combinations_refused_with_a_message(preset, options, message):
    with pytest.raises(RulesError, match=message):
        make_rules(preset, **options)


# ------------------------------------------------------------- mano-a-mano
def test_mano_a_mano_first_opener_each_player_turns_a_tile():
    for i in range(10):
        m = Match(make_rules("mano-a-mano"), f"mm{i}")
        last = m.setup["draws"][-1]
        assert sorted(last["drawers"]) == [0, 1]
        pips = [a + b for a, b in last["tiles"]]
        assert m.setup["opener"] == last["drawers"][pips.index(max(pips))]
        m.start_hand()
        assert m.hand.opener == m.setup["opener"] and len(m.legal_moves()) == 7


MM_SIXES = "0-6 1-6 2-6 3-6 4-6 5-6 6-6"
MM_OTHER = "0-0 0-1 0-2 0-3 0-4 0-5 1-1"


def test_mano_a_mano_draws_until_playable():
    m = given("mano-a-mano", ["0-6 1-6 2-6 3-6 4-6 6-6 1-2", MM_OTHER], sleeping="2-2 5-6 3-3", opener=0)
    events = play(m, 0, "6-6")
    assert kinds(events) == ["play", "draw", "draw"]
    assert m.turn == 1 and len(m.hand.boneyard) == 12
    assert moves(m) == {(tile("5-6"), "left"), (tile("5-6"), "right")}
    assert m.hand.actions[1:] == [{"seat": 1, "draw": [2, 2]}, {"seat": 1, "draw": [5, 6]}]
    # Hidden draws: the rival sees that a tile was drawn, not which.
    assert m.view(0)["history"][1:] == [{"seat": 1, "draw": True}, {"seat": 1, "draw": True}]
    assert m.view(None)["history"][1:] == [{"seat": 1, "draw": True}, {"seat": 1, "draw": True}]
    assert m.view(1)["history"][1:] == [{"seat": 1, "draw": [2, 2]}, {"seat": 1, "draw": [5, 6]}]
    assert_replays(m)


def test_mano_a_mano_passes_only_when_the_boneyard_is_empty():
    m = given("mano-a-mano", [MM_SIXES, MM_OTHER], opener=0)
    events = play(m, 0, "6-6")
    assert kinds(events) == ["play"] + ["draw"] * 14 + ["pass"]
    assert len(m.hand.hands[1]) == 21 and m.hand.boneyard == []
    assert m.turn == 0 and m.hand.passed_on[1] == {6}


def test_mano_a_mano_tranque_winner_opens_next():
    # Hands of 14 (all 28 dealt, no boneyard) so that the line can close:
    # South plays all seven 6s, the line ends 6 | 6. East keeps 38, South 52.
    south = MM_SIXES + " 1-5 2-5 3-3 3-4 3-5 4-4 5-5"  # keeps 6+7+6+7+8+8+10 = 52
    east = "0-1 2-3 4-5 0-0 0-2 1-1 0-3 1-2 0-4 1-3 2-2 0-5 1-4 2-4"  # keeps 38
    assert hand_pips(tiles(south)[7:]) == 52 and hand_pips(tiles(east)[3:]) == 38
    m = given("mano-a-mano", [south, east], opener=0, hand_size=14)
    events = run(m, [
        (0, "6-6", None), (0, "0-6", "left"), (1, "0-1", "left"), (0, "1-6", "left"),
        (0, "2-6", "left"), (1, "2-3", "left"), (0, "3-6", "left"),
        (0, "4-6", "left"), (1, "4-5", "left"), (0, "5-6", "left"),
    ])
    assert kinds(events)[-4:] == ["pass", "pass", "tranque", "hand_end"]
    res = m.hand.result
    # Seed 001: in 1 v 1 the side with fewer pips "gets every remaining pip, from
    # both sides": East's own 38 and South's 52.
    assert (res["kind"], res["seat"], res["points"]) == ("tranque", 1, 52 + 38)
    assert res["next_opener"] == 1  # "then the hand winner opens"
    m.start_hand()
    assert m.hand.opener == 1


# ------------------------------------------------------------------- block
BLOCK_T = [
    "6-6 0-0 0-2 1-1 0-3 1-2",  # keeps 0+2+2+3+3 = 10
    "0-6 0-4 1-3 2-2 0-5 1-4",  # keeps 4+4+4+5+5 = 22
    "0-1 2-3 1-5 2-4 3-3 2-5",  # keeps 5+6+6+6+7 = 30
    "1-6 3-4 3-5 4-4 4-5 5-5",  # keeps 7+8+8+9+10 = 42
]
BLOCK_T_SCRIPT: list[tuple[int, str, str | None]] = [
    (0, "6-6", None), (1, "0-6", "left"), (2, "0-1", "left"), (3, "1-6", "left"),
]


def test_block_highest_double_opens_and_must_play_it():
    m = given("block", BLOCK_T)
    assert m.hand.opener == 0 and m.legal_moves() == [Play((6, 6), None)]
    # 6-6 asleep: West's 5-5 is the highest double dealt.
    hands = ["2-6 0-0 0-2 1-1 0-3 1-2"] + BLOCK_T[1:]
    m = given("block", hands, sleeping="6-6")
    assert m.hand.opener == 3 and m.legal_moves() == [Play((5, 5), None)]
    with pytest.raises(IllegalActionError):
        play(m, 3, "4-4")


def test_block_no_double_anywhere_reshuffles():
    hands = ["0-1 0-2 0-3 0-4 0-5 0-6 1-2 1-3", "1-4 1-5 1-6 2-3 2-4 2-5 2-6 3-4"]
    m = given("block", hands, players=2)
    assert m.hand.voided[0] == {"reason": "no_double", "seat": None}
    assert len(m.hand.deals) >= 2
    opener_doubles = [t for t in m.hand.hands[m.hand.opener] if t[0] == t[1]]
    highest = max(t for h in m.hand.hands for t in h if t[0] == t[1])
    assert highest in opener_doubles and m.legal_moves() == [Play(highest, None)]
    assert_replays(m)


def test_block_blocked_partnership_lowest_combined_total_scores_difference():
    m = given("block", BLOCK_T)
    run(m, BLOCK_T_SCRIPT)
    res = m.hand.result
    assert res["pip_totals"] == [10, 22, 30, 42]
    # team 0: 10 + 30 = 40; team 1: 22 + 42 = 64; difference 24.
    assert (res["kind"], res["team"], res["points"]) == ("tranque", 0, 24)
    assert res["next_opener"] is None  # the next deal decides (highest double)


def test_block_blocked_individual_lowest_player_scores_differences():
    # Individual play: South (10) is lowest; each other hand pays its
    # difference: (22-10) + (30-10) + (42-10) = 64.
    m = given("block", BLOCK_T, partnership=False)
    run(m, BLOCK_T_SCRIPT)
    res = m.hand.result
    assert (res["seat"], res["team"], res["points"]) == (0, 0, 64)
    assert m.scores == [64, 0, 0, 0]


# -------------------------------------------------------------------- draw
def test_draw_game_draws_until_playable():
    hands = ["6-6 0-1 0-2 0-3", "1-1 1-2 1-3 1-4", "2-2 2-3 2-4 2-5", "3-3 3-4 3-5 4-4"]
    m = given("draw", hands, sleeping="0-0 1-5 3-6")
    assert m.hand.opener == 0
    events = play(m, 0, "6-6")
    assert kinds(events) == ["play", "draw", "draw", "draw"]
    assert m.turn == 1 and len(m.hand.boneyard) == 9
    assert moves(m) == {(tile("3-6"), "left"), (tile("3-6"), "right")}


# ------------------------------------------------------- all fives (muggins)
AF_B = "1-6 1-3 0-3 0-2 4-4"  # seat 0; keeps 4-4 = 8
AF_A = "6-6 1-1 3-3 0-0 2-3"  # seat 1; holds the highest double
AF_SCRIPT: list[tuple[int, str, str | None]] = [
    (1, "6-6", None),  # 12
    (0, "1-6", "right"),  # 6-6 at the left end counts 12, + 1 = 13
    (1, "1-1", "right"),  # 12 + 2 = 14
    (0, "1-3", "right"),  # 12 + 3 = 15
    (1, "3-3", "right"),  # 12 + 6 = 18
    (0, "0-3", "right"),  # 12 + 0 = 12
    (1, "0-0", "right"),  # 12 + 0 = 12
    (0, "0-2", "right"),  # 12 + 2 = 14
    (1, "2-3", "right"),  # 12 + 3 = 15, and seat 1 is out
]


def test_all_fives_highest_double_holder_opens_with_any_tile():
    m = given("all-fives", [AF_B, AF_A], players=2)
    assert m.hand.opener == 1
    assert moves(m) == {(t, None) for t in tiles(AF_A)}


def test_all_fives_in_play_scoring_double_counts_both_halves():
    m = given("all-fives", [AF_B, AF_A], players=2)
    events = run(m, AF_SCRIPT)
    scores = [(e["seat"], e["points"]) for e in events if e["kind"] == "score"]
    assert scores == [(0, 15), (1, 15)]
    res = m.hand.result
    assert (res["kind"], res["seat"], res["points"], res["in_play_points"]) == ("domino", 1, 10, 30)
    assert m.scores == [15, 25]  # seat 1: 15 in play + 8 rounded to 10
    assert m.hand.actions[3] == {"seat": 0, "play": [1, 3], "end": "right", "score": 15}
    assert_replays(m)


def test_all_fives_seed_example_three_and_six_plus_double_six_scores_15():
    # RULES/seed 003: ends 3 and 6, a double six laid on the 6: 3 + 6 + 6 = 15.
    m = given("all-fives", ["3-6 0-1 0-2 0-3 0-4", "6-6 1-1 1-2 1-3 1-4"], players=2, opener=0)
    assert m.hand.opener == 0
    play(m, 0, "3-6")
    events = play(m, 1, "6-6", "right")
    assert [e for e in events if e["kind"] == "score"] == [{"kind": "score", "seat": 1, "team": 1, "points": 15}]


def test_fives_and_threes_scores_multiples_of_three_too():
    m = given("fives-and-threes", [AF_B, AF_A], players=2)
    events = run(m, AF_SCRIPT)
    scores = [(e["seat"], e["points"]) for e in events if e["kind"] == "score"]
    assert scores == [(1, 12), (0, 15), (1, 18), (0, 12), (1, 12), (1, 15)]
    # Seed 003: at the hand end the winner scores the loser's 8 pips point for
    # point (All Fives would round them to 10).
    assert m.scores == [27, 65]  # 15+12; 12+18+12+15 + 8 at the end


@pytest.mark.parametrize(("leftover", "points"), [("4-4", 10), ("2-5", 5), ("0-1", 0), ("5-6", 10), ("4-5", 10)])
def test_muggins_rounding(leftover, points):
    # The loser's pips rounded to the nearest multiple of 5: 8 -> 10, 7 -> 5, 1 -> 0, 11 -> 10, 9 -> 10.
    b = AF_B.replace("4-4", leftover)
    m = given("all-fives", [b, AF_A], players=2)
    run(m, AF_SCRIPT)
    assert m.hand.result["points"] == points


def test_muggins_rounding_helper_matches_the_seed_example():
    # Seed 003: winner 3; losers 11, 6, 5 -> 8 -> 10, 3 -> 5, 2 -> 0: 15.
    assert [_round5(11 - 3), _round5(6 - 3), _round5(5 - 3)] == [10, 5, 0]
    assert [_round5(x) for x in (0, 2, 3, 7, 8, 12, 13)] == [0, 0, 5, 5, 10, 10, 15]


def test_all_fives_keeps_two_sleeping():
    a = "6-6 0-6 1-6 2-6 3-6"
    b = "0-0 0-1 0-2 1-1 1-2"
    rest = [t for t in full_set(6) if 6 not in t and t not in tiles(b)]
    order = " ".join(f"{x}-{y}" for x, y in rest) + " 4-6 5-6"
    m = given("all-fives", [b, a], sleeping=order, players=2)
    events = play(m, 1, "6-6")
    assert kinds(events) == ["play"] + ["draw"] * 16 + ["pass"]
    assert m.hand.boneyard == [(4, 6), (5, 6)]
    assert m.turn == 1


# ------------------------------------------------------------- cross layouts
CROSS = ["2-6 1-3 3-3 0-3", "3-6 5-5 0-4 1-2", "6-6 4-6 0-5 1-5", "1-6 0-0 0-2 2-2"]


def test_cross_first_four_plays_on_the_spinner():
    m = given("cross", CROSS)
    assert m.hand.opener == 2 and m.legal_moves() == [Play((6, 6), None)]
    play(m, 2, "6-6")
    assert moves(m) == {(tile("1-6"), e) for e in ("left", "right", "up", "down")}
    play(m, 3, "1-6", "left")
    assert moves(m) == {(tile("2-6"), e) for e in ("right", "up", "down")}
    with pytest.raises(IllegalActionError, match="four sides"):
        play(m, 0, "1-3", "left")
    play(m, 0, "2-6", "right")
    assert moves(m) == {(tile("3-6"), "up"), (tile("3-6"), "down")}  # not 1-2 on the left
    play(m, 1, "3-6", "up")
    assert moves(m) == {(tile("4-6"), "down")}
    play(m, 2, "4-6", "down")
    ends = {e["end"]: e["value"] for e in m.view(None)["ends"]}
    assert ends == {"left": 1, "right": 2, "up": 3, "down": 4}
    assert moves(m) == {(tile("0-2"), "right"), (tile("2-2"), "right")}
    assert_replays(m)


def test_double_nine_cross_double_opens_two_lines():
    hands = [
        "9-9 4-9 0-5 6-6 7-8",
        "1-9 1-1 0-6 5-7 8-8",
        "2-9 1-5 0-0 6-7 5-8",
        "3-9 0-7 5-6 6-8 7-7",
    ]
    m = given("double-nine-cross", hands)
    assert m.hand.opener == 0
    run(m, [(0, "9-9", None), (1, "1-9", "left")])
    assert moves(m) == {(tile("2-9"), e) for e in ("right", "up", "down")}
    run(m, [(2, "2-9", "right"), (3, "3-9", "up"), (0, "4-9", "down"), (1, "1-1", "left")])
    ends = [(e["end"], e["value"]) for e in m.view(None)["ends"]]
    assert ends == [("left", 1), ("right", 2), ("up", 3), ("down", 4), ("arm5", 1), ("arm6", 1)]
    assert moves(m) == {(tile("1-5"), "left"), (tile("1-5"), "arm5"), (tile("1-5"), "arm6")}
    play(m, 2, "1-5", "arm6")
    assert m.view(None)["arms"]["arm6"] == [[1, 5]]
    assert_replays(m)


def test_rules_from_json_refuses_an_option_named_preset():
    from capicua.engine import rules_from_json

    with pytest.raises(RulesError, match="unknown option 'preset'"):
        rules_from_json({"preset": "cubano", "options": {"preset": "la-plaza"}})
