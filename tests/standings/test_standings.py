"""Standings, pure: results from finished records, ratings against openskill's own
numbers, the neighbours' fixed anchors, the leaver rule, levels and achievements."""

from __future__ import annotations

from dataclasses import replace

import pytest
from openskill.models import PlackettLuce
from standings_helpers import find, play

from capicua import bots
from capicua.standings import achievements as ach
from capicua.standings.levels import LEVELS, level_of, level_xp, next_xp, xp_of
from capicua.standings.ratings import (
    BOT_ANCHORS,
    BOT_SIGMA,
    NEW_RATING,
    Rating,
    boards_of,
    bot_rating,
    rate_match,
)
from capicua.standings.results import SeatAtTable, SeatResult, leavers_of, match_results
from capicua.table.log import Open, read_log

GUEST_VS_BOTS = [SeatAtTable(0, "human", "p_a", "botagorda"), SeatAtTable(1, "bot", None, "experto"),
                 SeatAtTable(2, "bot", None, "medio"), SeatAtTable(3, "bot", None, "experto")]


def _row(seat: int, team: int, won: bool, player: str | None = None, level: str | None = None,
         left: bool = False) -> SeatResult:
    return SeatResult(seat, player, level, team, 100 if won else 40, won, False, False, 0, 0, 0, 0,
                      5 if won else 3, 3 if won else 5, 8, left)


def test_results_from_a_record_follow_the_hands() -> None:
    record = find(lambda r: r["result"]["winner"] == 1 and any(h["result"]["kind"] == "tranque" for h in r["hands"]))
    rows = match_results(record, GUEST_VS_BOTS, frozenset())
    hands = [h["result"] for h in record["hands"]]
    assert [r.team for r in rows] == [0, 1, 0, 1]
    assert [r.won for r in rows] == [False, True, False, True]
    assert rows[1].points == record["scores"][1] and rows[0].points == record["scores"][0]
    assert rows[0].player == "p_a" and rows[0].bot_level is None and rows[1].bot_level == "experto"
    assert rows[1].tranques_won == sum(1 for h in hands if h["kind"] == "tranque" and h["team"] == 1)
    assert rows[1].hands_won == sum(1 for h in hands if h["team"] == 1) == rows[0].hands_lost
    assert sum(r.dominoes for r in rows) == sum(1 for h in hands if h["kind"] == "domino")
    assert rows[1].pollona == record["result"]["pollona"] and not rows[0].pollona


def test_only_a_human_seat_leaves_and_the_last_controller_entry_tells() -> None:
    log = read_log([Open("t_1", "cubano", {}, "s", ()).to_json(), {"op": "controller", "seat": 0, "to": "stand_in"},
                    {"op": "controller", "seat": 0, "to": "human"}, {"op": "controller", "seat": 2, "to": "stand_in"},
                    {"op": "presence", "seat": 0, "online": False}])
    assert leavers_of(log) == frozenset({2})
    rows = match_results(play("leave"), GUEST_VS_BOTS, frozenset({0, 1}))
    assert [r.left_for_good for r in rows] == [True, False, False, False]


def test_a_rating_update_is_openskills_own() -> None:
    model = PlackettLuce()
    rows = [_row(0, 0, True, "p_a"), _row(1, 1, False, level="dificil"), _row(2, 0, True, "p_b"),
            _row(3, 1, False, level="experto")]
    before = {"p_a": Rating(27.0, 5.0, 3, 2)}
    after = rate_match(rows, before)
    teams = [[model.rating(mu=27.0, sigma=5.0), model.rating(mu=NEW_RATING.mu, sigma=NEW_RATING.sigma)],
             [model.rating(mu=BOT_ANCHORS["dificil"], sigma=BOT_SIGMA), model.rating(mu=BOT_ANCHORS["experto"], sigma=BOT_SIGMA)]]
    (a, b), _ = model.rate(teams, ranks=[0.0, 1.0])
    assert after["p_a"].mu == pytest.approx(a.mu) and after["p_a"].sigma == pytest.approx(a.sigma)
    assert after["p_b"].mu == pytest.approx(b.mu) and after["p_b"].sigma == pytest.approx(b.sigma)
    assert (after["p_a"].matches, after["p_a"].won, after["p_b"].matches, after["p_b"].won) == (4, 3, 1, 1)
    assert set(after) == {"p_a", "p_b"}  # the neighbours are never updated
    print("p_a", before["p_a"], "->", after["p_a"])


def test_the_anchors_stand_for_every_level_and_order_them() -> None:
    assert set(BOT_ANCHORS) == set(bots.LEVELS)
    mus = [BOT_ANCHORS[level] for level in ("random", "botagorda", "medio", "dificil", "experto")]
    assert mus == sorted(mus) and len(set(mus)) == len(mus)
    # Fitted to docs/bots.md's match-win estimates: openskill predicts them back within 2 points.
    model = PlackettLuce()
    for a, b, estimate in (("experto", "botagorda", 0.804), ("dificil", "botagorda", 0.726),
                           ("medio", "botagorda", 0.654), ("experto", "dificil", 0.570), ("botagorda", "random", 0.7735)):
        team = [[model.rating(mu=bot_rating(x).mu, sigma=BOT_SIGMA)] * 2 for x in (a, b)]
        predicted = model.predict_win(team)[0]
        print(a, b, estimate, round(predicted, 3))
        assert abs(predicted - estimate) < 0.02


def test_the_neighbours_anchors_never_move() -> None:
    anchors = dict(BOT_ANCHORS)
    ratings: dict[str, Rating] = {}
    for i in range(30):  # the guest beats experto rivals thirty times
        rows = [_row(0, 0, True, "p_a"), _row(1, 1, False, level="experto"), _row(2, 0, True, level="medio"),
                _row(3, 1, False, level="experto")]
        ratings = {**ratings, **rate_match(rows, ratings)}
        assert set(ratings) == {"p_a"}, i  # only guests have ratings to keep
    assert BOT_ANCHORS == anchors and bot_rating("experto") == Rating(anchors["experto"], BOT_SIGMA)
    assert ratings["p_a"].mu > anchors["experto"]


def test_beating_experto_counts_more_than_beating_botagorda() -> None:
    def gain(level: str) -> float:
        rows = [_row(0, 0, True, "p_a"), _row(1, 1, False, level=level), _row(2, 0, True, level=level),
                _row(3, 1, False, level=level)]
        return rate_match(rows, {})["p_a"].mu - NEW_RATING.mu

    assert gain("experto") > gain("medio") > gain("botagorda") > gain("random") > 0


def test_a_leaver_loses_and_their_partner_is_not_hurt() -> None:
    before = {p: Rating(25.0, 6.0, 12, 6) for p in ("p_a", "p_b", "p_c", "p_d")}
    lost = [_row(0, 0, False, "p_a", left=True), _row(1, 1, True, "p_c"), _row(2, 0, False, "p_b"), _row(3, 1, True, "p_d")]
    after = rate_match(lost, before)
    plain = rate_match([replace(r, left_for_good=False) for r in lost], before)
    assert after["p_a"] == plain["p_a"] and after["p_a"].mu < 25.0  # the leaver: the loss
    assert (after["p_b"].mu, after["p_b"].sigma) == (25.0, 6.0) and after["p_b"].matches == 13  # unhurt
    assert after["p_c"] == plain["p_c"] and after["p_c"].mu > 25.0  # the rivals: as the match ended
    # The leaver's side won without them (the stand-in played on): the partner wins, the leaver still loses.
    won = [_row(0, 0, True, "p_a", left=True), _row(1, 1, False, "p_c"), _row(2, 0, True, "p_b"), _row(3, 1, False, "p_d")]
    after = rate_match(won, before)
    assert after["p_a"].mu < 25.0 and after["p_a"].won == 6
    assert after["p_b"] == rate_match([replace(r, left_for_good=False) for r in won], before)["p_b"]
    assert after["p_b"].mu > 25.0 and after["p_c"].mu < 25.0


def test_boards() -> None:
    assert boards_of(False, 1) == ("neighbours",)
    assert boards_of(False, 2) == ("neighbours",)
    assert boards_of(True, 1) == ("neighbours",)
    assert boards_of(True, 2) == ("neighbours", "friends")


def test_the_level_curve() -> None:
    # A seated newcomer is not a mirón (the table's word for a spectator): issue 21.
    assert LEVELS[0].name == "Recién llegado" and level_of(0) == LEVELS[0]
    assert not any("mir" in lv.name.lower() or "onlooker" in lv.name_en.lower() for lv in LEVELS)
    assert [level_of(level_xp(n)).number for n in range(len(LEVELS))] == list(range(len(LEVELS)))
    assert level_of(level_xp(3) - 1).number == 2
    assert next_xp(LEVELS[-1]) is None and next_xp(LEVELS[0]) == level_xp(1)
    won, lost = _row(0, 0, True, "p_a"), _row(0, 0, False, "p_a")
    assert xp_of(won) > xp_of(lost) > 0 and xp_of(replace(won, left_for_good=True)) == 0
    assert level_of(xp_of(lost)).number == 1  # the first match, even lost, makes a mirón a pichón


def test_achievements_from_scripted_matches() -> None:
    record = find(lambda r: r["result"]["winner"] == 0 and r["result"]["pollona"]
                  and any(h["result"]["capicua"] and h["result"]["seat"] == 0 for h in r["hands"]))
    rows = match_results(record, GUEST_VS_BOTS, frozenset())
    got = {a.id for a in ach.earned(rows[0], rows, ach.Totals(), frozenset())}
    assert {"primera_victoria", "primera_capicua", "primera_pollona", "contra_expertos", "pollona_a_expertos",
            "de_punta_a_punta"} <= got
    assert ach.earned(replace(rows[0], left_for_good=True), rows, ach.Totals(), frozenset()) == []
    # Each is earned once; the counting ones count the earlier matches too.
    assert "primera_capicua" not in {a.id for a in ach.earned(rows[0], rows, ach.Totals(), frozenset({"primera_capicua"}))}
    assert "primera_victoria" not in {a.id for a in ach.earned(rows[0], rows, ach.Totals(matches_won=1), frozenset())}
    ten = {a.id for a in ach.earned(replace(rows[0], dominoes=1), rows, ach.Totals(dominoes=9), frozenset())}
    assert "diez_dominos" in ten
    nine = {a.id for a in ach.earned(replace(rows[0], dominoes=1), rows, ach.Totals(dominoes=8), frozenset())}
    assert "diez_dominos" not in nine
    # Against medio partners of the rivals it is no win against the experts.
    mixed = [*GUEST_VS_BOTS[:3], SeatAtTable(3, "bot", None, "medio")]
    rows = match_results(record, mixed, frozenset())
    assert "contra_expertos" not in {a.id for a in ach.earned(rows[0], rows, ach.Totals(), frozenset())}


def test_going_out_with_the_highest_double() -> None:
    record = find(lambda r: any(h["result"]["kind"] == "domino" and h["result"]["seat"] == 0
                                and [a for a in h["actions"] if a.get("seat") == 0 and "play" in a][-1]["play"] == [9, 9]
                                for h in r["hands"]))
    rows = match_results(record, GUEST_VS_BOTS, frozenset())
    assert rows[0].top_double_out >= 1
    assert "con_la_gorda" in {a.id for a in ach.earned(rows[0], rows, ach.Totals(), frozenset())}
    assert all(r.top_double_out == 0 for r in match_results(play("f0"), GUEST_VS_BOTS, frozenset())
               if r.dominoes == 0)
