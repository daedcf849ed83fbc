"""Hand-written deals, one (at least) per rule and option of RULES.md §1-§2.

Every expected number here was worked out by hand from the deal written in
the test (pip sums are spelled out in the comments); nothing is computed by
the engine and then copied.
"""

from __future__ import annotations

import pytest

from capicua.engine import Play, RedealAnswer, make_rules
from capicua.engine.tiles import hand_pips

try:  # tests/ is a package (tests/__init__.py) ...
    from tests.helpers_deals import (
        assert_replays,
        given,
        kinds,
        moves,
        next_given,
        play,
        run,
        tile,
        tiles,
    )
except ImportError:  # ... or a plain directory on sys.path
    from helpers_deals import (  # type: ignore[no-redef]
        assert_replays,
        given,
        kinds,
        moves,
        next_given,
        play,
        run,
        tile,
        tiles,
    )

# ---------------------------------------------------------------------------
# Deal D: a 37-play cubano hand in which seat 0 (South) goes out. Every tile
# goes on the right end; the left end shows 9 from the opening [9, 0] to the
# end, and the last tile 8-9 fits both ends (8 and 9): a capicúa.
D_S0 = "0-9 1-2 3-4 6-6 8-8 0-2 1-8 0-7 0-8 8-9"
D_S1 = "0-0 2-2 4-5 6-7 4-8 2-4 1-3 0-3 2-8 9-9"  # leftover 9-9 = 18
D_S2 = "0-1 2-3 5-5 7-7 4-4 4-6 3-5 3-6 2-5 1-4"  # leftover 1-4 = 5
D_S3 = "1-1 3-3 5-6 7-8 0-4 6-8 5-7 0-6 5-8 7-9"  # leftover 7-9 = 16
D_HANDS = [D_S0, D_S1, D_S2, D_S3]
D_CHAIN = [
    "0-0", "0-1", "1-1", "1-2", "2-2", "2-3", "3-3", "3-4", "4-5", "5-5", "5-6", "6-6",
    "6-7", "7-7", "7-8", "8-8", "4-8", "4-4", "0-4", "0-2", "2-4", "4-6", "6-8", "1-8",
    "1-3", "3-5", "5-7", "0-7", "0-3", "3-6", "0-6", "0-8", "2-8", "2-5", "5-8",
]
D_SCRIPT: list[tuple[int, str, str | None]] = [(0, "9-0", None)]
D_SCRIPT += [((i + 1) % 4, t, "right") for i, t in enumerate(D_CHAIN)]
D_SCRIPT += [(0, "8-9", "right")]
# D2: the same hand, but seat 0's last tile is 3-8 (fits the right end only).
D2_HANDS = [D_S0.replace("8-9", "3-8"), D_S1, D_S2, D_S3]
D2_SCRIPT = D_SCRIPT[:-1] + [(0, "3-8", "right")]
# Opponents of team 0 keep 9-9 (18) and 7-9 (16): 34; partner keeps 1-4 (5).


def play_d(preset: str = "cubano", hands: list[str] = D_HANDS, script=D_SCRIPT, **options):
    m = given(preset, hands, opener=0, **options)
    events = run(m, script)
    return m, events


def test_deal_d_is_what_the_comments_say():
    assert hand_pips(tiles("9-9 7-9")) == 34
    assert hand_pips(tiles("1-4")) == 5
    assert len(D_SCRIPT) == 37


def test_domino_scoring_opponents_default_partner_never_counts():
    m, events = play_d(hands=D2_HANDS, script=D2_SCRIPT)
    res = m.hand.result
    assert (res["kind"], res["seat"], res["team"], res["points"]) == ("domino", 0, 0, 34)
    assert res["capicua"] is False
    assert res["pip_totals"] == [0, 18, 5, 16]
    assert m.scores == [34, 0]
    assert "domino" in kinds(events) and "capicua" not in kinds(events)
    assert m.phase == "hand_over"
    assert_replays(m)


def test_domino_scoring_all_hands_counts_partner():
    m, _ = play_d(hands=D2_HANDS, script=D2_SCRIPT, domino_scoring="all_hands")
    assert m.hand.result["points"] == 39  # 18 + 16 + 5
    assert m.scores == [39, 0]


def test_domino_ends_the_hand_at_once():
    m, _ = play_d(hands=D2_HANDS, script=D2_SCRIPT)
    assert m.turn is None and m.legal_moves() == []
    assert [len(h) for h in m.hand.hands] == [0, 1, 1, 1]


def test_capicua_event_without_bonus_by_default():
    m, events = play_d()
    assert m.hand.result["capicua"] is True
    assert m.hand.result["points"] == 34
    assert kinds(events)[-4:] == ["play", "capicua", "domino", "hand_end"]
    assert events[-1]["result_kind"] == "domino"


@pytest.mark.parametrize(("bonus", "points"), [(0, 34), (25, 59), (30, 64)])
def test_capicua_bonus_values(bonus, points):
    m, _ = play_d(capicua_bonus=bonus)
    assert m.hand.result["points"] == points
    assert m.scores == [points, 0]


def test_capicua_bonus_25():
    m, _ = play_d("caribe")
    assert m.hand.result["points"] == 59


def test_capicua_bonus_not_paid_without_capicua():
    m, _ = play_d("caribe", hands=D2_HANDS, script=D2_SCRIPT)
    assert m.hand.result["points"] == 34 and m.hand.result["capicua"] is False


def test_next_opener_after_win_winner():
    m, _ = play_d()
    assert m.hand.result["next_opener"] == 0
    m.start_hand()
    assert m.hand.opener == 0


def test_next_opener_after_win_rotate():
    m, _ = play_d(next_opener_after_win="rotate")
    assert m.hand.result["next_opener"] == 1


def test_next_opener_after_win_other_team_on_tie_preset_goes_to_winner():
    m, _ = play_d("cubano-clasico")
    assert m.hand.result["next_opener"] == 0


def test_domino_by_another_seat_rotated_deal():
    # Deal D turned one seat: East opens and goes out; its opponents are
    # South (7-9 = 16) and North (9-9 = 18).
    hands = [D_S3, D_S0, D_S1, D_S2]
    script = [((s + 1) % 4, t, e) for s, t, e in D2_SCRIPT]
    hands[1] = D2_HANDS[0]
    m = given("cubano", hands, opener=1)
    run(m, script)
    res = m.hand.result
    assert (res["seat"], res["team"], res["points"], res["next_opener"]) == (1, 1, 34, 1)
    assert m.scores == [0, 34]


# ------------------------------------------------------------------ match end
def test_pollona():
    m, _ = play_d(hands=D2_HANDS, script=D2_SCRIPT, target=50)
    assert m.phase == "hand_over" and m.scores == [34, 0]
    next_given(m, D2_HANDS)  # the winner (seat 0) opens again
    assert m.hand.opener == 0
    events = run(m, D2_SCRIPT)
    assert m.scores == [68, 0]
    assert m.phase == "match_over"
    assert m.match_result == {"winner": 0, "scores": [68, 0], "pollona": True, "viajera": False}
    assert events[-1]["kind"] == "match_end" and events[-1]["pollona"] is True
    assert_replays(m)


def test_viajera():
    # caribe: capicúa 34 + 25 = 59 >= 50 in the first hand, opponents at 0.
    m, _ = play_d("caribe", target=50)
    assert m.phase == "match_over"
    assert m.match_result == {"winner": 0, "scores": [59, 0], "pollona": True, "viajera": True}


def test_no_pollona_when_the_losers_scored():
    hands = [D_S3, D2_HANDS[0], D_S1, D_S2]
    script = [((s + 1) % 4, t, e) for s, t, e in D2_SCRIPT]
    m = given("cubano", hands, opener=1, target=50)
    run(m, script)
    assert m.scores == [0, 34]
    next_given(m, D2_HANDS, opener=0)
    run(m, D2_SCRIPT)
    assert m.scores == [34, 34] and m.phase == "hand_over"
    next_given(m, D2_HANDS)
    run(m, D2_SCRIPT)
    assert m.phase == "match_over"
    assert m.match_result == {"winner": 0, "scores": [68, 34], "pollona": False, "viajera": False}
    assert_replays(m)


@pytest.mark.parametrize(("target", "hands_to_win"), [(50, 2), (100, 3)])
def test_target_reached_ends_the_match(target, hands_to_win):
    m, _ = play_d(hands=D2_HANDS, script=D2_SCRIPT, target=target)
    for _ in range(hands_to_win - 1):
        assert m.phase == "hand_over"
        next_given(m, D2_HANDS)
        run(m, D2_SCRIPT)
    assert m.phase == "match_over"
    assert m.scores == [34 * hands_to_win, 0]
    with pytest.raises(Exception) as exc:
        m.start_hand()
    assert type(exc.value).__name__ == "PhaseError"


@pytest.mark.parametrize("target", [50, 100, 150, 200, 500, 121])
def test_target_option_values(target):
    assert make_rules("cubano", target=target).target == target


def test_target_default_100_and_odd_target_refused():
    assert make_rules("cubano").target == 100
    with pytest.raises(ValueError, match="target"):
        make_rules("cubano", target=75)


# ---------------------------------------------------------------------------
# Tranque deals T: seat 0 opens [9, 0], seat 1 plays 0-1, seat 2 plays 1-9 on
# the right: both ends show 9, and every other 9 sleeps. Then all four pass.
A41 = "0-0 0-2 1-6 0-4 0-5 1-4 1-5 2-4 3-3"  # 0+2+7+4+5+5+6+6+6 = 41
B41 = "1-1 1-2 1-3 2-2 2-3 0-6 0-7 0-3 2-5"  # 2+3+4+4+5+6+7+3+7 = 41
A43 = "0-0 0-2 1-6 0-4 2-5 1-4 1-5 2-4 3-3"  # A41 with 0-5 -> 2-5: 43
B39 = "1-1 1-2 1-3 2-2 2-3 0-6 0-7 0-3 0-5"  # B41 with 2-5 -> 0-5: 39
H75 = "3-4 0-8 1-7 2-6 3-5 1-8 2-7 3-6 4-5"  # 7 + 4*8 + 4*9 = 75
H105 = "4-4 2-8 3-7 4-6 5-5 3-8 4-7 5-6 4-8 5-7"  # 8 + 4*10 + 3*11 + 2*12 = 105
T_SCRIPT: list[tuple[int, str, str | None]] = [(0, "9-0", None), (1, "0-1", "right"), (2, "1-9", "right")]

T1 = ["0-9 " + H75, "0-1 " + A41, "1-9 " + B41, H105]  # 75, 41, 41, 105: tie
T2 = ["0-9 " + H75, "0-1 " + A43, "1-9 " + B39, H105]  # 75, 43, 39, 105


def play_t(hands, preset: str = "cubano", **options):
    m = given(preset, hands, opener=0, **options)
    events = run(m, T_SCRIPT)
    return m, events


def test_tranque_deals_are_what_the_comments_say():
    for text, total in [(A41, 41), (B41, 41), (A43, 43), (B39, 39), (H75, 75), (H105, 105)]:
        assert hand_pips(tiles(text)) == total


def test_tranque_all_four_pass_in_a_row():
    m, events = play_t(T2)
    assert kinds(events)[-8:-2] == ["play", "pass", "pass", "pass", "pass", "tranque"]
    assert [e["seat"] for e in events if e["kind"] == "pass"] == [3, 0, 1, 2]
    assert m.hand.result["kind"] == "tranque"
    assert m.hand.result["pip_totals"] == [75, 43, 39, 105]


def test_tranque_lowest_player_wins_for_team_scores_opponents():
    m, _ = play_t(T2)
    res = m.hand.result
    assert (res["kind"], res["seat"], res["team"], res["points"]) == ("tranque", 2, 0, 148)  # 43 + 105
    assert m.scores == [148, 0]
    assert_replays(m)


def test_tranque_lowest_player_tie_between_teams_scores_nothing():
    m, events = play_t(T1)
    res = m.hand.result
    assert (res["kind"], res["team"], res["points"]) == ("tie", None, 0)
    assert m.scores == [0, 0]
    assert m.sheet[-1]["kind"] == "tie"


def test_tranque_lowest_shared_by_partners_their_team_wins():
    # North and South both keep 41; East 75, West 105.
    hands = ["0-9 " + A41, "0-1 " + H75, "1-9 " + B41, H105]
    m, _ = play_t(hands)
    res = m.hand.result
    assert (res["kind"], res["team"], res["points"]) == ("tranque", 0, 180)


def test_tranque_winner_lowest_team():
    # South 97 + North 39 = 136 against East 43 + West 83 = 126: the lowest
    # player (North) is on the heavier team.
    hands = [
        "0-9 3-8 4-7 5-6 4-8 5-7 2-8 3-7 4-6 5-5",  # 33 + 24 + 40 = 97
        "0-1 " + A43,
        "1-9 " + B39,
        "3-4 0-8 1-7 2-6 3-5 4-4 1-8 2-7 3-6 4-5",  # 7 + 40 + 36 = 83
    ]
    m, _ = play_t(hands)
    assert (m.hand.result["team"], m.hand.result["points"]) == (0, 126)
    m, _ = play_t(hands, tranque_winner="lowest_team")
    assert (m.hand.result["team"], m.hand.result["points"]) == (1, 136)
    m, _ = play_t(hands, tranque_winner="lowest_team", tranque_scoring="difference")
    assert (m.hand.result["team"], m.hand.result["points"]) == (1, 10)


def test_tranque_lowest_team_tie_scores_nothing():
    # Teams 131 each: South 90 + North 41, East 41 + West 90.
    hands = [
        "0-9 4-8 5-7 4-7 5-6 3-5 1-8 2-7 3-6 4-5",  # 12+12+11+11+8+9+9+9+9 = 90
        "0-1 " + A41,
        "1-9 " + B41,
        "4-4 2-8 3-7 4-6 5-5 3-8 3-4 2-6 0-8 1-7",  # 8+10+10+10+10+11+7+8+8+8 = 90
    ]
    m, _ = play_t(hands, tranque_winner="lowest_team")
    assert (m.hand.result["kind"], m.hand.result["points"]) == ("tie", 0)


def test_tranque_scoring_all_hands():
    m, _ = play_t(T2, tranque_scoring="all_hands")
    assert m.hand.result["points"] == 262  # 75 + 43 + 39 + 105


def test_tranque_scoring_difference():
    m, _ = play_t(T2, tranque_scoring="difference")
    assert m.hand.result["points"] == 34  # (43 + 105) - (75 + 39)


def test_tranque_with_lowest_team_and_opponents_scoring():
    m, _ = play_t(T1, tranque_winner="lowest_team")
    assert (m.hand.result["team"], m.hand.result["points"]) == (0, 146)  # 116 vs 146


def test_next_opener_after_tranque_same_opener():
    m, _ = play_t(T2)
    assert m.hand.result["next_opener"] == 0  # North won, South opened
    m2, _ = play_t(T1)
    assert m2.hand.result["next_opener"] == 0  # tied: South again
    m2.start_hand()
    assert m2.hand.opener == 0


def test_next_opener_after_tranque_blocker():
    # North played 1-9, the tile that blocked; East won (38 against 75 + 44).
    hands = [
        "0-9 " + H75,
        "0-1 0-0 0-2 1-6 0-4 0-5 1-4 1-5 2-4 0-3",  # 0+2+7+4+5+5+6+6+3 = 38
        "1-9 1-1 1-2 1-3 2-2 2-3 0-6 0-7 3-3 2-5",  # 2+3+4+4+5+6+7+6+7 = 44
        H105,
    ]
    m, _ = play_t(hands, next_opener_after_tranque="blocker")
    res = m.hand.result
    assert (res["team"], res["points"], res["next_opener"]) == (1, 119, 2)


def test_next_opener_after_tranque_other_team_on_tie_tied_player_opens():
    # East (41) and North (41) tie; South opened, so East, the tied player of
    # the other team, opens the next hand.
    m, _ = play_t(T1, next_opener_after_tranque="other_team_on_tie")
    assert m.hand.result["next_opener"] == 1
    m, _ = play_t(T1, "cubano-clasico")
    assert m.hand.result["next_opener"] == 1
    m.start_hand()
    assert m.hand.opener == 1


def test_next_opener_after_tranque_other_team_on_tie_is_the_tied_player_not_the_next_seat():
    # South (45) and West (45) tie; the tied player of the team that did not
    # open is West, not East (the seat after the opener).
    hands = [
        "0-9 0-0 0-2 2-3 0-6 1-5 2-4 3-3 1-6 2-5",  # 0+2+5+6+6+6+6+7+7 = 45
        "0-1 3-4 1-7 2-6 3-5 4-4 1-8 2-7 3-6 4-5",  # 75
        "1-9 2-8 3-7 4-6 5-5 3-8 4-7 5-6 4-8 5-7",  # 97
        "0-8 1-1 0-3 1-2 0-4 1-3 2-2 0-5 1-4 0-7",  # 8+2+3+3+4+4+4+5+5+7 = 45
    ]
    m, _ = play_t(hands, "cubano-clasico")
    res = m.hand.result
    assert res["pip_totals"] == [45, 75, 97, 45]
    assert (res["kind"], res["points"], res["next_opener"]) == ("tie", 0, 3)


def test_next_opener_after_tranque_other_team_on_tie_won_tranque_goes_to_winner():
    m, _ = play_t(T2, "cubano-clasico")
    assert m.hand.result["next_opener"] == 2


def test_next_opener_after_tranque_blocker_on_tie():
    m, _ = play_t(T1, next_opener_after_tranque="blocker")
    assert m.hand.result["next_opener"] == 2


# ------------------------------------------------------------------- turns
def test_automatic_pass_only_when_nothing_fits_and_pass_information():
    # After [9, 0], 0-1 and 1-1 the ends are 9 and 1: West holds neither.
    m = given("cubano", T2, opener=0)
    events = run(m, [(0, "9-0", None), (1, "0-1", "right"), (2, "1-1", "right")])
    assert kinds(events)[-2:] == ["play", "pass"]
    assert events[-1] == {"kind": "pass", "seat": 3, "numbers": [1, 9]}
    assert m.hand.passed_on[3] == {1, 9}
    assert m.view(0)["passed_on"] == [[], [], [], [1, 9]]
    assert m.turn == 0  # South holds 1-7 and 1-8
    assert moves(m) == {(tile("1-7"), "right"), (tile("1-8"), "right")}
    assert m.hand.actions[-1] == {"seat": 3, "pass": True}


def test_a_tile_fitting_two_ends_is_two_moves():
    m = given("cubano", T2, opener=0)
    run(m, T_SCRIPT[:2])  # ends 9 and 1
    assert (tile("1-9"), "left") in moves(m) and (tile("1-9"), "right") in moves(m)
    # North: 1-9 both ends, and the 1s on the right.
    assert moves(m) == {
        (tile("1-9"), "left"), (tile("1-9"), "right"), (tile("1-1"), "right"),
        (tile("1-2"), "right"), (tile("1-3"), "right"),
    }
    play(m, 2, "1-9", "left")  # left becomes 1, right stays 1
    assert [(e["end"], e["value"]) for e in m.view(None)["ends"]] == [("left", 1), ("right", 1)]


def test_first_tile_names_left_and_right():
    m = given("cubano", T2, opener=0)
    play(m, 0, "9-0")
    assert m.view(None)["center"] == [9, 0]
    assert [(e["end"], e["value"]) for e in m.view(None)["ends"]] == [("left", 9), ("right", 0)]
    assert m.hand.actions[0] == {"seat": 0, "play": [9, 0], "end": None}
    m = given("cubano", T2, opener=0)
    play(m, 0, "0-9")
    assert [(e["end"], e["value"]) for e in m.view(None)["ends"]] == [("left", 0), ("right", 9)]


def test_opener_may_open_with_any_tile():
    m = given("cubano", T2, opener=0)
    assert moves(m) == {(t, None) for t in tiles("0-9 " + H75)}


def test_double_matches_only_its_number_and_leaves_it_open():
    m = given("cubano", T2, opener=0)
    run(m, [(0, "9-0", None), (1, "0-0", "right")])
    assert [(e["value"], e["double"]) for e in m.view(None)["ends"]] == [(9, False), (0, True)]


# ---------------------------------------------------------------- openers
def test_first_opener_random_seat_ignores_nine_nine():
    m = given("cubano", D_HANDS)  # East holds 9-9
    assert m.setup["kind"] == "random_seat"
    assert m.hand.opener == m.setup["opener"]
    assert len(moves(m)) == 10
    seen = {given("cubano", D_HANDS, seed=f"s{i}").hand.opener for i in range(40)}
    assert seen == {0, 1, 2, 3}


def test_first_opener_highest_double_must_open_with_it():
    # 9-9, 8-8, 7-7, 6-6 sleep; West holds 5-5 and 4-4, the highest doubles dealt.
    m = given("cubano", T2, first_opener="highest_double")
    assert m.hand.opener == 3
    assert m.legal_moves() == [Play((5, 5), None)]
    with pytest.raises(Exception) as exc:
        play(m, 3, "4-4")
    assert type(exc.value).__name__ == "IllegalActionError"


def test_first_opener_must_play_top_double():
    m = given("cubano", D_HANDS, first_opener="must_play_top_double")  # East holds 9-9
    assert m.hand.opener == 1
    assert m.legal_moves() == [Play((9, 9), None)]


def test_first_opener_team_draw():
    for i in range(20):
        m = given("cubano-clasico", D_HANDS, seed=f"draw{i}")
        setup = m.setup
        assert setup["kind"] == "team_draw"
        last = setup["draws"][-1]
        drawers, drawn = last["drawers"], last["tiles"]
        assert {drawers[0] % 2, drawers[1] % 2} == {0, 1}  # one drawer per team
        pips = [a + b for a, b in drawn]
        assert pips[0] != pips[1]
        assert setup["opener"] == drawers[pips.index(max(pips))]
        assert m.hand.opener == setup["opener"]
        for earlier in setup["draws"][:-1]:  # equal draws are drawn again
            assert sum(earlier["tiles"][0]) == sum(earlier["tiles"][1])


def test_first_opener_parity_guess():
    for i in range(20):
        m = given("cubano", D_HANDS, seed=f"parity{i}", first_opener="parity_guess")
        s = m.setup
        assert s["drawer"] % 2 != s["guesser"] % 2
        right = (sum(s["tile"]) % 2 == 0) == (s["guess"] == "even")
        assert s["opener"] == (s["guesser"] if right else s["drawer"])
        assert m.hand.opener == s["opener"]


def test_first_opener_fid_rotation_moves_one_seat_every_hand():
    m = given("fid", LP_D, opener=0)
    run(m, LP_D_SCRIPT)
    assert m.hand.result["seat"] == 0 and m.hand.result["next_opener"] == 1
    m.start_hand()
    assert m.hand.opener == 1


def test_opener_substitution_partner_of_drawn_bot():
    m = given("cubano", D_HANDS, seed="subst")
    drawn = m.setup["opener"]
    partner = (drawn + 2) % 4
    m = given("cubano", D_HANDS, seed="subst", present={partner})
    assert (m.hand.opener_drawn, m.hand.opener) == (drawn, partner)
    assert_replays(m)
    m = given("cubano", D_HANDS, seed="subst", present={drawn, partner})
    assert m.hand.opener == drawn
    m = given("cubano", D_HANDS, seed="subst", present={(drawn + 1) % 4})
    assert m.hand.opener == drawn  # the partner is a bot too


# ------------------------------------------------------------- redeals
FIVE_DOUBLES = [
    "0-9 1-9 2-9 3-9 4-9 5-9 6-9 7-9 8-9 9-9",
    "0-1 0-2 0-3 0-4 0-5 0-6 0-7 0-8 1-2 1-3",
    "0-0 1-1 2-2 3-3 4-4 1-4 1-5 1-6 1-7 1-8",  # North: five doubles
    "2-3 2-4 2-5 2-6 2-7 2-8 3-4 3-5 3-6 3-7",
]


def test_redeal_five_doubles_automatic():
    m = given("cubano", FIVE_DOUBLES, opener=0)
    assert m.hand.voided == [{"reason": "five_doubles", "seat": 2}]
    assert len(m.hand.deals) >= 2
    assert m.phase == "play"
    for h in m.hand.hands:
        assert sum(1 for a, b in h if a == b) < 5
    assert m.hand.hands != [sorted(tiles(h)) for h in FIVE_DOUBLES]
    rec = assert_replays(m).record()
    assert rec["hands"][0]["deal_source"] == "given"


def test_redeal_five_doubles_on_request():
    m = given("cubano", FIVE_DOUBLES, opener=0, redeal_five_doubles="on_request")
    assert m.phase == "redeal_question" and m.turn == 2
    assert m.legal_moves() == [RedealAnswer(True), RedealAnswer(False)]
    with pytest.raises(Exception) as exc:
        play(m, 2, "0-0")
    assert type(exc.value).__name__ == "PhaseError"
    kept = m.clone()
    kept.apply(2, RedealAnswer(False))
    assert kept.phase == "play" and kept.turn == 0
    assert kept.hand.hands[2] == sorted(tiles(FIVE_DOUBLES[2]))
    assert_replays(kept)
    events = m.apply(2, RedealAnswer(True))
    assert events[0]["kind"] == "redeal" and events[0]["reason"] == "five_doubles_shown"
    assert events[0]["doubles"] == [[0, 0], [1, 1], [2, 2], [3, 3], [4, 4]]
    assert m.hand.hands[2] != sorted(tiles(FIVE_DOUBLES[2]))
    assert_replays(m)


def test_redeal_five_doubles_on_request_from_seed_replays():
    rules = make_rules("cubano", redeal_five_doubles="on_request")
    from capicua.engine import Match

    for i in range(400):
        m = Match(rules, f"ask{i}")
        m.start_hand()
        if m.phase == "redeal_question":
            m.apply(m.turn, RedealAnswer(True))
            assert_replays(m)
            return
    pytest.fail("no five-doubles deal in 400 seeds")  # pragma: no cover


def test_redeal_five_doubles_off():
    m = given("cubano", FIVE_DOUBLES, opener=0, redeal_five_doubles="off")
    assert m.phase == "play" and m.hand.voided == []
    assert m.hand.hands[2] == sorted(tiles(FIVE_DOUBLES[2]))


# ------------------------------------------------------------- la-plaza, fid
# LP_T: North opens 6-6; the line closes on 6 at both ends after ten plays,
# the last (5-6) by West, who blocked.
LP_T = [
    "0-1 3-6 0-0 0-2 0-3 1-1 1-2",  # keeps 0+2+3+2+3 = 10
    "1-6 4-6 1-5 2-2 2-4 2-5 3-3",  # keeps 6+4+6+7+6 = 29
    "6-6 2-6 4-5 0-4 0-5 1-3 1-4",  # keeps 4+5+4+5 = 18
    "0-6 2-3 5-6 3-4 3-5 4-4 5-5",  # keeps 7+8+8+10 = 33
]
LP_T_SCRIPT: list[tuple[int, str, str | None]] = [
    (2, "6-6", None), (3, "0-6", "left"), (0, "0-1", "left"), (1, "1-6", "left"),
    (2, "2-6", "right"), (3, "2-3", "right"), (0, "3-6", "right"), (1, "4-6", "left"),
    (2, "4-5", "left"), (3, "5-6", "left"),
]
# LP_D: South opens 6-6 and goes out with 4-6 at the 25th play (right end 4,
# left end 6: a capicúa, worth nothing extra at La Plaza).
LP_D = [
    "6-6 1-1 3-3 5-5 0-4 1-3 4-6",
    "0-6 1-2 3-4 0-5 0-3 3-6 5-6",  # keeps 5-6 = 11
    "0-0 2-2 4-4 0-2 3-5 1-6 2-5",  # keeps 2-5 = 7
    "0-1 2-3 4-5 2-4 1-5 1-4 2-6",  # keeps 2-6 = 8
]
LP_D_CHAIN = [
    "0-6", "0-0", "0-1", "1-1", "1-2", "2-2", "2-3", "3-3", "3-4", "4-4", "4-5", "5-5",
    "0-5", "0-2", "2-4", "0-4", "0-3", "3-5", "1-5", "1-3", "3-6", "1-6", "1-4", "4-6",
]
LP_D_SCRIPT: list[tuple[int, str, str | None]] = [(0, "6-6", None)]
LP_D_SCRIPT += [((i + 1) % 4, t, "right") for i, t in enumerate(LP_D_CHAIN)]


def test_la_plaza_first_hand_top_double_opens():
    m = given("la-plaza", LP_T)
    assert m.hand.opener == 2
    assert m.legal_moves() == [Play((6, 6), None)]


def test_la_plaza_tranque_lowest_team_all_hands_blocker_opens():
    m = given("la-plaza", LP_T)
    events = run(m, LP_T_SCRIPT)
    assert kinds(events)[-7:-1] == ["play", "pass", "pass", "pass", "pass", "tranque"]
    res = m.hand.result
    assert res["pip_totals"] == [10, 29, 18, 33]
    # team 0: 10 + 18 = 28 against 29 + 33 = 62; all hands: 90.
    assert (res["kind"], res["team"], res["points"], res["next_opener"]) == ("tranque", 0, 90, 3)
    m.start_hand()
    assert m.hand.opener == 3
    assert len(m.legal_moves()) == 7  # later hands: any tile
    assert_replays(m)


def test_la_plaza_domino_all_hands_no_capicua_bonus():
    m = given("la-plaza", LP_D)
    events = run(m, LP_D_SCRIPT)
    res = m.hand.result
    assert (res["kind"], res["seat"], res["points"], res["capicua"]) == ("domino", 0, 26, True)  # 11 + 7 + 8
    assert "capicua" in kinds(events)
    assert res["next_opener"] == 0
    m.start_hand()
    assert m.hand.opener == 0 and len(m.legal_moves()) == 7


def test_fid_like_la_plaza_with_rotation():
    m = given("fid", LP_T, opener=2)
    assert len(m.legal_moves()) == 7  # no forced 6-6 under fid_rotation
    run(m, LP_T_SCRIPT)
    assert (m.hand.result["team"], m.hand.result["points"]) == (0, 90)
    assert m.hand.result["next_opener"] == 3  # 2 + 1
    m = given("fid", LP_D, opener=0)
    run(m, LP_D_SCRIPT)
    assert (m.hand.result["points"], m.hand.result["next_opener"]) == (26, 1)


def test_la_plaza_a_tile_fitting_both_ends_is_two_moves():
    m = given("la-plaza", LP_D)
    play(m, 0, "6-6")
    assert (tile("0-6"), "left") in moves(m) and (tile("0-6"), "right") in moves(m)


# ------------------------------------------------------------------ errors
def test_errors_are_distinct_and_change_nothing():
    from capicua.engine import (
        IllegalActionError,
        MalformedActionError,
        Match,
        OutOfTurnError,
        PhaseError,
        parse_action,
    )

    fresh = Match(make_rules("cubano"), "e")
    with pytest.raises(PhaseError):
        fresh.apply(0, Play((0, 0), None))
    m = given("cubano", T2, opener=0)
    play(m, 0, "9-0")  # East to play, ends 9 and 0
    cases = [
        (1, Play((10, 0), "right"), MalformedActionError),
        (1, Play((0, 1), "middle"), MalformedActionError),
        (7, Play((0, 1), "right"), MalformedActionError),
        (1, "0-1", MalformedActionError),
        (1, Play((2, 4), "right"), IllegalActionError),  # held, does not fit
        (1, Play((9, 9), "left"), IllegalActionError),  # not held
        (1, Play((0, 1), None), MalformedActionError),  # not the first tile
        (2, Play((1, 9), "left"), OutOfTurnError),
        (1, RedealAnswer(True), PhaseError),
    ]
    for seat, action, cls in cases:
        before = m.record()
        view = m.view(seat if isinstance(seat, int) and 0 <= seat < 4 else None)
        with pytest.raises(cls) as exc:
            m.apply(seat, action)  # type: ignore[arg-type]
        assert type(exc.value) is cls, (seat, action, exc.value)
        assert str(exc.value)
        with pytest.raises(cls):
            m.check(seat, action)  # type: ignore[arg-type]
        assert m.record() == before
        assert m.view(seat if isinstance(seat, int) and 0 <= seat < 4 else None) == view
    for raw in ({"tile": [1]}, {"tile": ["a", 1]}, {"tile": [1, 2], "end": 3}, [], {"redeal": 1}):
        with pytest.raises(MalformedActionError):
            parse_action(raw, 9)
    with pytest.raises(PhaseError):
        m.start_hand()
    run(m, T_SCRIPT[1:])
    assert m.phase == "match_over"  # North's tranque: 148 points
    with pytest.raises(PhaseError):
        m.apply(3, Play((4, 4), "left"))
