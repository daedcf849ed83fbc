"""A smoke test of the tournament harness (few hands; strength is measured by the documented runs)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from capicua.tools.tournament import (
    estimate_match_win,
    main,
    merge,
    run,
    wilson,
)


def test_run_counts_add_up() -> None:
    out = run("cubano", "medio", "botagorda", hands=3, seed="t")
    assert out["hands_played"] == 6
    assert out["a_wins"] + out["b_wins"] + out["ties"] == 6
    lo, hi = out["a_win_rate_ci95"]
    assert 0.0 <= lo <= hi <= 1.0
    assert out["decision_time_a"]["decisions"] > 0 and out["decision_time_b"]["decisions"] > 0
    assert out["a_points_per_hand"] - out["b_points_per_hand"] == pytest.approx(out["a_margin_per_hand"], abs=1e-2)


def test_duplicate_deals_cancel_luck() -> None:
    """The same deterministic level on both sides: every deal is won once by each side or tied twice."""
    out = run("cubano", "medio", "medio", hands=10, seed="dup")
    assert out["a_wins"] == out["b_wins"]
    assert out["a_margin_per_hand"] == 0


def test_two_workers_give_the_same_result() -> None:
    one = run("la-plaza", "random", "botagorda", hands=6, seed="w")
    two = run("la-plaza", "random", "botagorda", hands=6, seed="w", workers=2)
    for key in ("a_wins", "b_wins", "ties", "a_points_per_hand", "b_points_per_hand"):
        assert one[key] == two[key]


def test_main_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--preset", "all-fives", "--a", "dificil", "--b", "random", "--hands", "2", "--seed", "3",
                 "--budget-ms-a", "5", "--matches", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["preset"] == "all-fives" and out["hands_played"] == 4
    assert out["matches_played"] == 1


def test_per_hand_points_are_in_deal_order_and_add_up() -> None:
    out = run("cubano", "medio", "botagorda", hands=3, seed="t", per_hand=True)
    pts = out["hand_points"]
    assert len(pts) == 6
    assert sum(1 for a, b in pts if a > b) == out["a_wins"]
    assert sum(1 for a, b in pts if b > a) == out["b_wins"]
    same = run("cubano", "medio", "botagorda", hands=3, seed="t", workers=2, per_hand=True)
    assert same["hand_points"] == pts
    assert "hand_points" not in run("cubano", "medio", "botagorda", hands=1, seed="t")


def test_main_refuses_unknown_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--a", "nobody", "--b", "random", "--hands", "1"]) == 2


def test_wilson_and_match_estimate() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert estimate_match_win([(10, 0)], 100, n=50) == 1.0
    assert estimate_match_win([(0, 10)], 100, n=50) == 0.0


def test_search_options_change_the_bot_and_are_reported(capsys: pytest.CaptureFixture[str]) -> None:
    """--option-a overrides a field of the search Config: reported in the JSON,
    and it really changes play (gorda model off plays other moves on some deal)."""
    assert main(["--a", "experto", "--b", "botagorda", "--hands", "3", "--seed", "o",
                 "--budget-ms-a", "5", "--option-a", "gorda=false", "--option-a", "endgame_tiles=0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["options_a"] == {"gorda": False, "endgame_tiles": 0} and out["options_b"] is None
    base = run("cubano", "experto", "botagorda", hands=3, seed="o", budget_a=5)
    again = run("cubano", "experto", "botagorda", hands=3, seed="o", budget_a=5,
                options_a={"gorda": False, "endgame_tiles": 0})
    assert again["a_margin_per_hand"] == out["a_margin_per_hand"]
    assert base["options_a"] is None
    assert _some_choice_differs({"gorda": False})


def _some_choice_differs(options: dict[str, object]) -> bool:
    from capicua.bots import decide
    from capicua.engine import Match, make_rules, parse_action

    rules = make_rules("cubano")
    for d in range(6):
        m = Match(rules, seed=f"opt/{d}")
        m.start_hand()
        k = 0
        while m.phase == "play":
            seat = m.turn
            assert seat is not None
            view = m.view(seat)
            if decide("experto", view, k, 5) != decide("experto", view, k, 5, options):
                return True
            m.apply(seat, parse_action(decide("botagorda", view, k), rules.max_pip))
            k += 1
    return False


@pytest.mark.parametrize("bad", [["--a", "medio", "--option-a", "gorda=false"],
                                 ["--a", "experto", "--option-a", "no_such=1"],
                                 ["--a", "experto", "--option-a", "gorda=3"],
                                 ["--a", "experto", "--option-a", "gorda"]])
def test_bad_search_options_are_refused(bad: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*bad, "--b", "botagorda", "--hands", "1"]) == 2
    assert "capicua tournament:" in capsys.readouterr().err


def test_shards_merge_into_the_whole_run(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """Deals 0-1 and 2-4 played apart and merged give the summary of deals 0-4 played at once."""
    whole = run("cubano", "medio", "botagorda", hands=5, seed="sh", per_hand=True)
    first = run("cubano", "medio", "botagorda", hands=2, seed="sh", per_hand=True)
    rest = run("cubano", "medio", "botagorda", hands=3, seed="sh", per_hand=True, first_deal=2)
    assert rest["first_deal"] == 2 and rest["hand_points"] == whole["hand_points"][4:]
    merged = merge([rest, first])  # in any order
    for key in ("hand_points", "a_wins", "b_wins", "ties", "duplicate_hands", "a_win_rate_decided", "a_win_rate_ci95",
                "a_points_per_hand", "a_margin_per_hand", "a_margin_per_hand_ci95", "a_match_win_rate_estimated",
                "first_deal", "seed"):
        assert merged[key] == whole[key], key
    assert merged["decision_time_a"]["decisions"] == whole["decision_time_a"]["decisions"]
    assert merged["merged_from"] == 2
    # The command line: shards on disk in, the merged JSON out.
    paths = []
    for i, shard in enumerate((first, rest)):
        paths.append(tmp_path / f"s{i}.json")
        paths[-1].write_text(json.dumps(shard))
    assert main(["--merge", *map(str, paths)]) == 0
    assert json.loads(capsys.readouterr().out)["hand_points"] == whole["hand_points"]


def test_merge_refuses_shards_of_different_runs(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    first = run("cubano", "random", "botagorda", hands=1, seed="m", per_hand=True)
    third = run("cubano", "random", "botagorda", hands=1, seed="m", per_hand=True, first_deal=2)
    other_seed = run("cubano", "random", "botagorda", hands=1, seed="n", per_hand=True, first_deal=1)
    with pytest.raises(ValueError, match="contiguous"):
        merge([first, third])
    with pytest.raises(ValueError, match="seed"):
        merge([first, other_seed])
    with pytest.raises(ValueError, match="--per-hand"):
        merge([first, run("cubano", "random", "botagorda", hands=1, seed="m", first_deal=1)])
    broken = dict(third, first_deal=1, hand_points=[["x", 1], [0, 0]])
    with pytest.raises(ValueError, match="malformed"):
        merge([first, broken])
    for damaged in (dict(third, first_deal=1, hand_points=third["hand_points"][:1]),  # odd: half a deal
                    {k: v for k, v in third.items() if k != "decision_seconds_b"},
                    dict(third, first_deal=None)):
        with pytest.raises(ValueError, match="malformed"):
            merge([first, damaged])
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["--merge", str(bad)]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["--hands", "1"]) == 2  # neither levels nor --merge
