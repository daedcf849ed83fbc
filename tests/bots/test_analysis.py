"""The experto's analysis of a finished hand (capicua.bots.analysis; docs/analysis.md):
what a decision is, determinism, no peeking at hidden tiles, a clearly worse
move flagged as the costliest, the precision figure, and the bots' entry point
(evaluate) agreeing with the move the experto plays."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from capicua.bots import analysis, decide, evaluate
from capicua.bots.public import public_state
from capicua.bots.search import distinct_moves, solve_root
from capicua.engine import Match, Play, RecordError, make_rules, parse_action
from capicua.engine.compact import FastState
from capicua.engine.record import hand_positions

BUDGET = 10.0  # ms per decision: the code path of the default budget, quicker
Policy = Callable[[Match, int, dict[str, Any]], dict[str, Any]]


def botagorda(seed: int) -> Policy:
    rng = random.Random(seed)
    return lambda m, seat, view: decide("botagorda", view, rng.randrange(1 << 30))


def play_hand(match: Match, policies: dict[int, Policy], default: Policy) -> None:
    """Play the current hand to its end, each seat by its policy."""
    while match.phase == "play":
        seat = match.turn
        assert seat is not None
        view = match.view(seat)
        action = policies.get(seat, default)(match, seat, view)
        match.apply(seat, parse_action(action, match.rules.max_pip))


def finished_hand(seed: str, policies: dict[int, Policy] | None = None) -> dict[str, Any]:
    match = Match(make_rules("cubano"), seed)
    match.start_hand()
    play_hand(match, policies or {}, botagorda(len(seed)))
    return match.record()


def experto_as_analysed(table: str, match_no: int, hand: int, budget: float | None = BUDGET) -> Policy:
    """Play the move the analysis will call best (the same search, seed and budget)."""

    def policy(m: Match, seat: int, view: dict[str, Any]) -> dict[str, Any]:
        h = m.hand
        assert h is not None
        if len(distinct_moves(view)) < 2:
            return dict(view["legal"][0])
        return decide("experto", view, analysis.decision_seed(table, match_no, hand, len(h.actions)), budget)

    return policy


# ------------------------------------------------------------ decisions


def test_forced_moves_and_passes_are_not_decisions() -> None:
    record = finished_hand("an-forced-1")
    expected, forced = [], 0
    for index, position in hand_positions(record, 1):
        if position.turn != 0:
            continue
        n = len(distinct_moves(position.view(0)))
        if n >= 2:
            expected.append(index)
        else:
            forced += 1
    passes = sum(1 for a in record["hands"][0]["actions"] if a["seat"] == 0 and a.get("pass"))
    print(f"seat 0: {len(expected)} decisions, {forced} forced plays, {passes} passes")
    assert forced >= 1 and expected  # the hand has both kinds, or the test says nothing
    found = analysis.decisions(record, 1, [0])
    assert [d.index for d in found] == expected
    result = analysis.analyse_hand(record, 1, [0], budget_ms=BUDGET)[0]
    assert [d["index"] for d in result["decisions"]] == expected
    for d in result["decisions"]:
        assert len(d["moves"]) >= 2 and d["lost"] >= 0
        assert record["hands"][0]["actions"][d["index"]]["seat"] == 0


def test_the_played_move_is_the_recorded_one_and_best_is_the_highest() -> None:
    record = finished_hand("an-played-2")
    result = analysis.analyse_hand(record, 1, [1, 3], budget_ms=BUDGET)
    assert [r["seat"] for r in result] == [1, 3]
    for r in result:
        for d in r["decisions"]:
            entry = record["hands"][0]["actions"][d["index"]]
            assert sorted(d["played"]["tile"]) == sorted(entry["play"])
            values = {json.dumps(m["action"]): m["value"] for m in d["moves"]}
            assert values[json.dumps(d["best"])] == max(values.values())
            assert d["lost"] == pytest.approx(values[json.dumps(d["best"])] - values[json.dumps(d["played"])], abs=0.011)


def test_choices_of_a_stand_in_are_not_judged() -> None:
    record = finished_hand("an-standin-3")
    chosen = [a for a in record["hands"][0]["actions"] if "play" in a]
    by = ["stand_in" if a["seat"] == 0 and i % 2 else "human" if a["seat"] == 0 else "bot" for i, a in enumerate(chosen)]
    everyone = analysis.decisions(record, 1, [0])
    judged = analysis.decisions(record, 1, [0], chosen_by=by)
    human_indices = {
        i for i, a in enumerate(record["hands"][0]["actions"]) if "play" in a and by[chosen.index(a)] == "human"
    }
    assert {d.index for d in judged} == {d.index for d in everyone} & human_indices
    assert len(judged) < len(everyone)


# ------------------------------------------------------------ determinism


def test_the_same_record_gives_the_same_analysis() -> None:
    record = finished_hand("an-determinism-4")
    a = analysis.analyse_hand(record, 1, [0, 2], table="t_x", match=2, budget_ms=BUDGET)
    b = analysis.analyse_hand(json.loads(json.dumps(record)), 1, [0, 2], table="t_x", match=2, budget_ms=BUDGET)
    assert a == b
    assert analysis.decision_seed("t_x", 2, 1, 5) == analysis.decision_seed("t_x", 2, 1, 5)
    assert len({analysis.decision_seed("t_x", 2, 1, i) for i in range(40)}) == 40


def test_evaluate_values_the_move_the_experto_plays_highest() -> None:
    rng = random.Random("an-evaluate")
    checked = 0
    for g in range(12):
        match = Match(make_rules("cubano"), f"an-evaluate-{g}")
        match.start_hand()
        for _ in range(rng.randrange(0, 30)):
            if match.phase != "play":
                break
            seat = match.turn
            assert seat is not None
            match.apply(seat, parse_action(decide("botagorda", match.view(seat), 1), 9))
        if match.phase != "play":
            continue
        view = match.view(match.turn)  # type: ignore[arg-type]
        if len(distinct_moves(view)) < 2:
            continue
        seed = rng.randrange(1 << 30)
        values = evaluate("experto", view, seed, BUDGET)
        best = max(values, key=lambda av: av[1])[0]
        assert decide("experto", view, seed, BUDGET) == best
        assert [a for a, _ in values] == distinct_moves(view)
        checked += 1
    assert checked >= 5


# ------------------------------------------------------------ no peeking


def hidden_permuted(record: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any] | None:
    """The same hand with the tiles ``seat`` never saw (the others' tiles left at the
    end and the sleeping ones) dealt differently, every pass still honoured: the
    same public history, other hidden hands. None when no such deal is found."""
    rules = make_rules("cubano")
    played = Match(rules, record["seed"])
    played.start_hand()
    for a in record["hands"][0]["actions"]:
        if "play" in a:
            played.apply(a["seat"], Play((a["play"][0], a["play"][1]), a["end"]))
    hand = played.hand
    assert hand is not None
    passed = [set(p) for p in hand.passed_on]
    slots = [s for s in range(rules.players) if s != seat for _ in hand.hands[s]] + [-1] * len(hand.boneyard)
    hidden = [t for s in range(rules.players) if s != seat for t in hand.hands[s]] + list(hand.boneyard)
    for _ in range(200):
        shuffled = hidden[:]
        rng.shuffle(shuffled)
        pairs = zip(slots, shuffled, strict=True)
        if shuffled == hidden or any(s >= 0 and (t[0] in passed[s] or t[1] in passed[s]) for s, t in pairs):
            continue
        swap = dict(zip(hidden, shuffled, strict=True))
        deal = hand.deals[-1]
        other = Match(rules, record["seed"])
        other.start_hand_with_deal(
            [[swap.get(tuple(t), tuple(t)) for t in h] for h in deal["hands"]],  # type: ignore[misc]
            [swap.get(tuple(t), tuple(t)) for t in deal["sleeping"]],  # type: ignore[misc]
            opener=hand.opener,
        )
        for a in record["hands"][0]["actions"]:
            if "play" in a:
                other.apply(a["seat"], Play((a["play"][0], a["play"][1]), a["end"]))
        return other.record()
    return None


def test_hidden_tiles_never_change_the_analysis() -> None:
    """tests/bots/test_bots_no_peek.py applied to the analysis: another deal of the tiles
    the seat could not see, with the same public history, gives byte-identical
    views at every decision and the same analysis."""
    rng = random.Random("an-nopeek")
    compared = 0
    for g in range(6):
        record = finished_hand(f"an-nopeek-{g}")
        other = hidden_permuted(record, 0, rng)
        if other is None:
            continue
        mine = [(i, json.dumps(p.view(0), sort_keys=True)) for i, p in hand_positions(record, 1) if p.turn == 0]
        theirs = [(i, json.dumps(p.view(0), sort_keys=True)) for i, p in hand_positions(other, 1) if p.turn == 0]
        assert mine == theirs
        h_a, h_b = record["hands"][0]["deal"], other["hands"][0]["deal"]
        assert h_a["hands"][0] == h_b["hands"][0] and h_a != h_b  # the hidden tiles really moved
        a = analysis.analyse_hand(record, 1, [0], table="t_np", budget_ms=BUDGET)
        b = analysis.analyse_hand(other, 1, [0], table="t_np", budget_ms=BUDGET)
        assert a == b and a[0]["decisions"]
        compared += 1
        if compared == 3:
            break
    assert compared >= 2


def test_default_budget_does_not_peek() -> None:
    rng = random.Random("an-nopeek-default")
    record = finished_hand("an-nopeek-default")
    other = hidden_permuted(record, 2, rng)
    assert other is not None
    assert analysis.analyse_hand(record, 1, [2]) == analysis.analyse_hand(other, 1, [2])


# ------------------------------------------------------------ a clearly worse move


def test_a_clearly_worse_move_is_the_costliest() -> None:
    """Seat 0 plays the experto's own move (as the analysis will search it) at every
    decision but one, late in the hand, where it plays a move that gives up at
    least 10 points with every hand face up (an exact solve of the true deal):
    that decision is the hand's costliest, with a positive loss, and the only one."""
    table, budget = "t_costly", BUDGET
    best_policy = experto_as_analysed(table, 1, 1, budget)
    for g in range(40):
        seed = f"an-costly-{g}"
        target: dict[str, Any] = {}

        def chooser(m: Match, seat: int, view: dict[str, Any], target: dict[str, Any] = target) -> dict[str, Any]:
            moves = distinct_moves(view)
            if not target and len(moves) >= 2 and sum(view["counts"]) <= 14:
                pub = public_state(view)
                truth = solve_root(FastState.from_match(m), [pub.move_of(a) for a in moves], pub.r.team_of[seat])
                worst = min(range(len(moves)), key=lambda i: truth[i])
                if max(truth) - truth[worst] >= 10:
                    h = m.hand
                    assert h is not None
                    target.update(index=len(h.actions), move=moves[worst], gap=max(truth) - truth[worst])
                    return moves[worst]
            return best_policy(m, seat, view)

        record = finished_hand(seed, {0: chooser})
        if not target:
            continue
        result = analysis.analyse_hand(record, 1, [0], table=table, budget_ms=budget)[0]
        worst = next(d for d in result["decisions"] if d["index"] == target["index"])
        print(f"{seed}: decision {target['index']} gives up {target['gap']:.0f} points with the hands face up, "
              f"{worst['lost']:.2f} by the analysis; precision {result['precision']}")
        assert worst["played"] == target["move"]
        assert worst["lost"] > 0
        assert result["costliest"] == [target["index"]]
        assert all(d["lost"] == 0 for d in result["decisions"] if d["index"] != target["index"])
        assert result["precision"] is not None and result["precision"] < 100
        return
    pytest.fail("no position with a clearly worse move was found")


# ------------------------------------------------------------ figures


def decision(index: int, values: list[float], played: int) -> dict[str, Any]:
    moves = [({"tile": [0, i], "end": "left"}, v) for i, v in enumerate(values)]
    d = analysis.Decision(index, 0, moves[played][0], {}, 0)
    return analysis.judge(d, moves)


def test_precision_and_costliest() -> None:
    perfect = [decision(0, [3.0, 1.0], 0), decision(4, [2.0, 2.0], 1)]
    assert analysis.precision(perfect) == 100.0 and analysis.costliest(perfect) == []
    mixed = [decision(0, [10.0, 0.0], 1), decision(4, [4.0, 0.0, 2.0], 2), decision(8, [1.0, 0.9], 1)]
    assert [d["lost"] for d in mixed] == [10.0, 2.0, 0.1]
    # 12.1 points given up of 14.1 at stake (10 + 4 + 0.1)
    assert analysis.precision(mixed) == pytest.approx(100 * (1 - 12.1 / 14.1), abs=0.05)
    assert analysis.costliest(mixed) == [0, 4]  # 0.1 is below MIN_COSTLY: noise
    many = [decision(i, [float(i + 1), 0.0], 1) for i in range(5)]
    assert analysis.costliest(many) == [4, 3, 2]
    assert analysis.precision([]) is None
    assert analysis.precision([decision(0, [1.0, 1.0], 1)]) == 100.0


def test_a_bad_record_is_refused() -> None:
    record = finished_hand("an-bad-5")
    with pytest.raises(RecordError):
        analysis.analyse_hand(record, 2, [0])
    broken = json.loads(json.dumps(record))
    broken["hands"][0]["actions"][3]["play"] = [9, 9]
    with pytest.raises(RecordError):
        analysis.analyse_hand(broken, 1, [0])


def test_cpu_per_hand_is_printed() -> None:
    """Measured, not asserted: CPU seconds for one seat's decisions of a cubano hand at
    the experto's default budget (the issue's bound is 2 s; `capicua analyse --bench`)."""
    record = finished_hand("an-cpu-6")
    start = time.process_time()
    result = analysis.analyse_hand(record, 1, [0])[0]
    print(f"{len(result['decisions'])} decisions: {time.process_time() - start:.2f} s CPU")


# ------------------------------------------------------------ capicua analyse


def test_cli_prints_the_analysis_and_its_timing(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from capicua.cli import main

    record = finished_hand("an-cli-7")
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    args = ["analyse", "--record", str(path), "--hand", "1", "--seats", "0,2", "--table", "t_cli", "--budget-ms", "10"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == analysis.analyse_hand(record, 1, [0, 2], table="t_cli", budget_ms=10)
    assert "decisions" in err and "s CPU" in err
    assert main(["analyse", "--record", str(path), "--hand", "4"]) == 1
    refusal = json.loads(capsys.readouterr().out)
    assert refusal["ok"] is False and refusal["code"] == "bad_record"
    assert main(["analyse", "--record", str(tmp_path / "missing.json")]) == 2
    assert json.loads(capsys.readouterr().out)["code"] == "malformed"
    print(err.strip())


def test_cli_bench_measures_against_the_baseline(capsys: pytest.CaptureFixture[str]) -> None:
    from capicua.cli import main

    assert main(["analyse", "--bench", "--hands", "2", "--budget-ms", "10"]) == 0
    report = json.loads(capsys.readouterr().out)
    print(report)
    assert report["hands"] == 2 and report["baseline"].startswith("experto decide()")
    assert report["analysis_cpu_s"]["max"] >= report["analysis_cpu_s"]["mean"] > 0
    assert report["baseline_cpu_s"]["mean"] > 0


@pytest.mark.parametrize(
    "preset", ["la-plaza", "mano-a-mano", "draw", "all-fives", "fives-and-threes", "cross", "double-nine-cross"]
)
def test_every_preset_can_be_analysed(preset: str) -> None:
    """Drawing games, in-play scoring, two players and the cross layouts too."""
    rules = make_rules(preset)
    match = Match(rules, f"an-preset-{preset}")
    match.start_hand()
    rng = random.Random(preset)
    while match.phase in ("play", "redeal_question"):
        seat = match.turn
        assert seat is not None
        match.apply(seat, parse_action(decide("random", match.view(seat), rng.randrange(1 << 30)), rules.max_pip))
    result = analysis.analyse_hand(match.record(), 1, range(rules.players), budget_ms=5)
    assert [r["seat"] for r in result] == list(range(rules.players))
    assert sum(len(r["decisions"]) for r in result) >= 3
    for r in result:
        for d in r["decisions"]:
            assert len(d["moves"]) >= 2 and d["lost"] >= 0 and d["played"] in [m["action"] for m in d["moves"]]
        assert r["precision"] is None or 0 <= r["precision"] <= 100
