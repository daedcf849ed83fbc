"""Engine fixes of issue 10: the first to reach the target wins at that moment
(All Fives, Fives-and-Threes), Fives-and-Threes scores hands point for point,
a blocked 1 v 1 hand pays every pip left, a declined five-doubles redeal is an
event, and a deal loop that finds no deal stops with a NoDealError.

The hand-written deals reuse test_rules_presets' All Fives hand (AF): its
in-play points are worked out there, play by play.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from capicua.cli import main
from capicua.engine import Match, PhaseError, Play, RedealAnswer, make_rules
from capicua.engine.errors import EngineError, NoDealError

try:
    from tests.helpers_deals import assert_replays, given, kinds, next_given, run
except ImportError:  # tests/ on sys.path
    from helpers_deals import assert_replays, given, kinds, next_given, run  # type: ignore[no-redef]

AF_B = "1-6 1-3 0-3 0-2 4-4"  # keeps 4-4 = 8 at the end of the hand
AF_A = "6-6 1-1 3-3 0-0 2-3"  # holds the highest double: opens
# The AF hand of test_rules_presets: the opener (6-6) scores 15 with its last
# tile, the other seat scores 15 with its second tile (1-3: 12 + 3 = 15).
AF_SCRIPT = [
    (1, "6-6", None), (0, "1-6", "right"), (1, "1-1", "right"), (0, "1-3", "right"),
    (1, "3-3", "right"), (0, "0-3", "right"), (1, "0-0", "right"), (0, "0-2", "right"),
    (1, "2-3", "right"),
]
AF_MIRRORED = [(1 - seat, t, end) for seat, t, end in AF_SCRIPT]


def test_all_fives_first_to_reach_the_target_wins_in_the_middle_of_a_hand() -> None:
    m = given("all-fives", [AF_B, AF_A], players=2, target=50)
    run(m, AF_SCRIPT)  # seat 0: 15 in play; seat 1: 15 in play + 8 rounded to 10
    assert m.scores == [15, 25] and m.phase == "hand_over"
    next_given(m, [AF_A, AF_B])  # the same hand with the seats swapped
    run(m, AF_MIRRORED)
    assert m.scores == [40, 40] and m.phase == "hand_over"
    next_given(m, [AF_B, AF_A])
    events = run(m, AF_SCRIPT[:4])  # seat 0's 1-3 scores 15: 40 + 15 = 55 >= 50
    # The match ends at that moment: seat 1 would have gone out and scored 15 + 10 (65).
    assert kinds(events)[-4:] == ["play", "score", "hand_end", "match_end"]
    assert m.phase == "match_over" and m.turn is None and m.legal_moves() == []
    assert m.scores == [55, 40]
    assert m.match_result == {"winner": 0, "scores": [55, 40], "pollona": False, "viajera": False}
    res = m.hand.result
    # A cut-short hand: a result of its own kind, no hand-end points, nobody opens next.
    assert (res["kind"], res["seat"], res["team"], res["points"], res["next_opener"]) == ("target", 0, 0, 0, None)
    assert res["pip_totals"] == [3 + 2 + 8, 6 + 0 + 5]  # 0-3 0-2 4-4 | 3-3 0-0 2-3
    assert events[-2]["result_kind"] == "target" and events[-1]["winner"] == 0
    assert m.sheet[-1] == {"hand": 3, "kind": "target", "team": 0, "points": 0, "capicua": False, "scores": [55, 40]}
    view = m.view(1)
    assert view["phase"] == "match_over" and view["result"]["kind"] == "target"
    assert view["revealed"] == [[[0, 2], [0, 3], [4, 4]], [[0, 0], [2, 3], [3, 3]]]
    with pytest.raises(PhaseError):
        m.apply(1, Play((3, 3), "right"))
    with pytest.raises(PhaseError):
        m.start_hand()
    assert_replays(m)


def _first_to_reach(record: dict, target: int) -> tuple[int, int, int] | None:
    """(team, hand index, action index or -1 for the hand end) where a score first reaches
    the target, worked out from the record's own numbers (in-play scores, hand points)."""
    rules = make_rules(record["rules"]["preset"], **record["rules"]["options"])
    scores = [0] * rules.teams
    for h_index, hand in enumerate(record["hands"]):
        for a_index, action in enumerate(hand["actions"]):
            if "score" in action:
                team = rules.team_of(action["seat"])
                scores[team] += action["score"]
                if scores[team] >= target:
                    return team, h_index, a_index
        result = hand["result"]
        if result and result["team"] is not None:
            scores[result["team"]] += result["points"]
            if scores[result["team"]] >= target:
                return result["team"], h_index, -1
    return None


@pytest.mark.parametrize("preset", ["all-fives", "fives-and-threes"])
def test_simulated_matches_end_when_the_first_player_reaches_the_target(
    tmp_path: Path, preset: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The match (seed a) had seat 0 reach 100 first in hand 7 and seat 2 declared the winner.
    records = tmp_path / "r.jsonl"
    assert main(["sim", "--preset", preset, "--matches", "6", "--seed", "a", "--records", str(records)]) == 0
    capsys.readouterr()
    cut_short = 0
    for line in records.read_text().splitlines():
        record = json.loads(line)
        first = _first_to_reach(record, 100)
        assert first is not None
        team, h_index, a_index = first
        assert record["result"]["winner"] == team
        assert h_index == len(record["hands"]) - 1  # nothing is played after that
        last = record["hands"][-1]
        if a_index >= 0:
            cut_short += 1
            assert a_index == len(last["actions"]) - 1 and last["result"]["kind"] == "target"
    assert cut_short > 0  # in-play scores end most of these matches


def test_fives_and_threes_hand_end_scores_point_for_point_all_fives_rounds() -> None:
    # The 1 v 1 blocked hand of test_rules_presets (all 28 dealt): East keeps 38, South 52.
    south = "0-6 1-6 2-6 3-6 4-6 5-6 6-6 1-5 2-5 3-3 3-4 3-5 4-4 5-5"
    east = "0-1 2-3 4-5 0-0 0-2 1-1 0-3 1-2 0-4 1-3 2-2 0-5 1-4 2-4"
    script = [
        (0, "6-6", None), (0, "0-6", "left"), (1, "0-1", "left"), (0, "1-6", "left"),
        (0, "2-6", "left"), (1, "2-3", "left"), (0, "3-6", "left"),
        (0, "4-6", "left"), (1, "4-5", "left"), (0, "5-6", "left"),
    ]
    points = {}
    for preset in ("fives-and-threes", "all-fives"):
        m = given(preset, [south, east], opener=0, hand_size=14, players=2)
        run(m, script)
        res = m.hand.result
        assert (res["kind"], res["seat"], res["pip_totals"]) == ("tranque", 1, [52, 38])
        points[preset] = res["points"]
    # Seed 003: the difference 52 - 38 = 14, "point for point"; All Fives rounds it to 15.
    assert points == {"fives-and-threes": 14, "all-fives": 15}
    rules = make_rules("fives-and-threes")
    assert (rules.domino_scoring, rules.tranque_scoring) == ("opponents", "difference")


def test_fives_and_threes_is_an_individual_game_like_all_fives() -> None:
    from capicua.engine import RulesError

    with pytest.raises(RulesError, match="individual"):
        make_rules("fives-and-threes", partnership=True)


def test_mano_a_mano_blocked_hands_pay_every_pip_of_both_hands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The match (seed 1): hand 10 is blocked at [8, 2] and paid 8 instead of 10.
    assert make_rules("mano-a-mano").tranque_scoring == "all_hands"
    records = tmp_path / "r.jsonl"
    assert main(["sim", "--preset", "mano-a-mano", "--matches", "3", "--seed", "1", "--records", str(records)]) == 0
    capsys.readouterr()
    blocked = 0
    for line in records.read_text().splitlines():
        for hand in json.loads(line)["hands"]:
            res = hand["result"]
            if res["kind"] == "tranque":
                blocked += 1
                assert res["points"] == sum(res["pip_totals"]), hand["number"]
    assert blocked > 0


def test_a_declined_redeal_is_an_event() -> None:
    m = Match(make_rules("cubano", redeal_five_doubles="on_request"), "s36")
    m.start_hand(frozenset({0}))
    assert m.phase == "redeal_question" and m.turn == 1
    events = m.apply(1, RedealAnswer(False))
    assert events[0] == {"kind": "redeal_declined", "seat": 1}
    assert m.phase == "play" and m.turn == m.hand.opener
    assert m.hand.actions[0] == {"seat": 1, "redeal": False}
    assert_replays(m)


def test_an_accepted_redeal_deals_again_from_the_same_seed() -> None:
    m = Match(make_rules("cubano", redeal_five_doubles="on_request"), "s36")
    m.start_hand(frozenset({0}))
    shown_deal = m.hand.deals[-1]
    events = m.apply(1, RedealAnswer(True))
    assert events[0]["kind"] == "redeal" and events[0]["reason"] == "five_doubles_shown"
    assert events[0]["seat"] == 1 and len(events[0]["doubles"]) >= 5
    assert m.hand.deals[-1] != shown_deal and m.hand.voided[-1] == {k: v for k, v in events[0].items() if k != "kind"}
    assert_replays(m)


def test_rules_that_void_every_deal_raise_no_deal_and_change_nothing() -> None:
    # 45 tiles each from the double-twelve set: one hand always holds 5 of the 13 doubles.
    rules = make_rules("cubano", players=2, partnership=False, max_pip=12, hand_size=45)
    m = Match(rules, "a")
    before = m.record()
    started = time.perf_counter()
    with pytest.raises(NoDealError, match="no deal stood") as info:
        m.start_hand()
    print(f"gave up after {(time.perf_counter() - started) * 1000:.1f} ms")
    assert isinstance(info.value, EngineError) and info.value.code == "no_deal"
    assert m.phase == "new" and m.hands == [] and m.record() == before


def test_replay_refuses_every_mutation_of_a_record_with_a_record_error() -> None:
    """Any one value of a record replaced (or removed) is refused with a RecordError,
    never another exception, and never accepted."""
    import copy
    import random

    from capicua.engine import RecordError, replay

    m = given("all-fives", [AF_B, AF_A], players=2, target=50)
    run(m, AF_SCRIPT)
    m.start_hand()
    while m.phase == "play":
        m.apply(m.turn, m.legal_moves()[0])
    record = m.record()
    paths: list[tuple[object, ...]] = []

    def walk(obj: object, prefix: tuple[object, ...]) -> None:
        if prefix:
            paths.append(prefix)
        items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
        for key, value in items:
            walk(value, (*prefix, key))

    walk(record, ())
    values = [None, True, False, 0, 1, -1, 10**30, 1.5, "x", [], {}, [1, 2], {"a": 1}, "domino"]
    rng = random.Random(7)
    for _ in range(400):
        path = rng.choice(paths)
        tampered = copy.deepcopy(record)
        parent = tampered
        for key in path[:-1]:
            parent = parent[key]
        original = parent[path[-1]]
        if rng.random() < 0.15:
            del parent[path[-1]]
        else:
            value = rng.choice(values)
            if value == original and type(value) is type(original):
                continue
            parent[path[-1]] = copy.deepcopy(value)
        with pytest.raises(RecordError):
            replay(tampered)
