"""The play model: features, the JIT likelihood against the Python reference, and what it infers."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from capicua.bots import decide
from capicua.bots.infer import Knowledge
from capicua.bots.kernel.playlik import play_log_likelihoods
from capicua.bots.playmodel import (
    COEFS,
    FEATURES,
    forced_opening,
    legal_moves,
    model_move,
    move_features,
    move_score,
    prepare,
    tile_arrays,
)
from capicua.bots.public import PublicState, public_state
from capicua.engine import Match, Rules, make_rules, parse_action
from capicua.engine.tiles import canonical, tile_index


def log_likelihoods_reference(pub: PublicState, hands: list[list[int]], seats: set[int],
                              coefs: tuple[float, ...] = COEFS) -> list[float]:
    """Per seat, log P(its observed plays | deal) in plain Python (the
    reference the JIT function is tested against)."""
    r = pub.r
    forced = forced_opening(r)
    held = [set(h) for h in hands[: r.players]]
    out = [0.0] * r.players
    for ctx, t, e in reversed(pub.plays):
        s = ctx.seat
        held[s].add(t)
        if s not in seats or (e < 0 and forced):
            continue
        hand = sorted(held[s])
        moves = legal_moves(r, ctx, hand)
        if len(moves) <= 1:
            continue
        sc = {m: move_score(r, ctx, hand, m[0], m[1], coefs) for m in moves}
        top = max(sc.values())
        z = sum(math.exp(v - top) for v in sc.values())
        out[s] += sc[model_move(ctx, t, e)] - top - math.log(z)
    return out

def _line_view(rules: Rules, history: list[dict[str, Any]], turn: int) -> dict[str, Any]:
    """A seat's view of a line game holding just ``history`` (the table, the passes and
    the counts follow from it; the seat's own hand is empty)."""
    ends: list[int] = []
    arms: dict[str, list[list[int]]] = {"left": [], "right": []}
    passed: list[set[int]] = [set() for _ in range(rules.players)]
    center = None
    for a in history:
        if a.get("pass"):
            passed[a["seat"]].update(ends)
        elif a["end"] is None:
            center = a["play"]
            ends = list(a["play"])
        else:
            i = 0 if a["end"] == "left" else 1
            x, y = a["play"]
            outer = y if x == ends[i] else x
            arms[a["end"]].append([ends[i], outer])
            ends[i] = outer
    return {
        "rules": rules.describe(), "seat": turn, "turn": turn, "opener": 0, "hand": [], "legal": [],
        "history": history, "center": center, "arms": arms,
        "ends": [{"end": e, "value": v, "double": False, "playable": True}
                 for e, v in zip(("left", "right"), ends, strict=False)],
        "counts": [0] * rules.players, "boneyard": 0, "scores": [0] * rules.teams,
        "passed_on": [sorted(p) for p in passed],
    }


def _index(rules: Rules, t: tuple[int, int]) -> int:
    return tile_index(canonical(*t), rules.max_pip)


def _positions(
    preset: str, level: str, hands: int, seed: str, budget_ms: float | None = None
) -> Iterator[tuple[Match, dict[str, Any]]]:
    """(match, view of the seat to play) at every play decision of ``hands`` hands of ``level``."""
    rules = make_rules(preset)
    for h in range(hands):
        m = Match(rules, seed=f"{seed}/{h}")
        m.start_hand()
        k = 0
        while m.phase in ("play", "redeal_question"):
            s = m.turn
            assert s is not None
            v = m.view(s)
            if m.phase == "play":
                yield m, v
            m.apply(s, parse_action(decide(level, v, k, budget_ms), rules.max_pip))
            k += 1


def _views(preset: str, level: str, hands: int, seed: str) -> list[dict[str, Any]]:
    return [v for _m, v in _positions(preset, level, hands, seed)]


def test_coefficients_match_the_features() -> None:
    assert len(COEFS) == len(FEATURES)


@pytest.mark.parametrize("preset", ["cubano", "la-plaza"])
def test_jit_likelihood_matches_the_reference(preset: str) -> None:
    views = _views(preset, "medio", 3, "pm")
    rng = random.Random(5)
    checked = 0
    for v in views[::3]:
        pub = public_state(v)
        n = pub.r.players
        kn = Knowledge(pub)
        seats = {s for s in range(n) if s != kn.me}
        prep = prepare(pub, seats)
        if prep is None:
            continue
        deals = [kn.sample(rng) for _ in range(4)]
        masks = np.array([[sum(1 << t for t in d[s]) for s in range(n)] for d in deals], dtype=np.int64)
        ta, tb, num, dbl = tile_arrays(pub.r)
        got = play_log_likelihoods(masks, prep, ta, tb, num, dbl)
        for i, d in enumerate(deals):
            want = log_likelihoods_reference(pub, d, seats)
            assert got[i].tolist() == pytest.approx(want, abs=1e-9)
            checked += 1
    assert checked > 20


def test_the_true_deal_is_more_likely_than_a_random_consistent_one() -> None:
    """On the bots' own games the model prefers the real hands: the true deal's
    likelihood beats the median sampled deal's in most positions."""
    rules = make_rules("cubano")
    n = rules.players
    wins = total = 0
    rng = random.Random(3)
    for m, v in _positions("cubano", "dificil", 6, "truth", 10.0):
        if len(v["history"]) < 16:
            continue
        pub = public_state(v)
        kn = Knowledge(pub)
        prep = prepare(pub, {x for x in range(n) if x != kn.me})
        if prep is None:
            continue
        true = [[_index(rules, tuple(t)) for t in m.view(x)["hand"]] for x in range(n)]
        deals = [true] + [kn.sample(rng) for _ in range(40)]
        masks = np.array([[sum(1 << t for t in d[x]) for x in range(n)] for d in deals])
        ll = play_log_likelihoods(masks, prep, *tile_arrays(pub.r)).sum(axis=1)
        if ll[0] != ll[1]:
            total += 1
            wins += ll[0] > float(np.median(ll[1:]))
    assert total > 30
    assert wins / total > 0.7


def test_features_of_a_known_position() -> None:
    rules = make_rules("cubano")
    pub = PublicState(_line_view(rules, [{"seat": 0, "play": [5, 5], "end": None}, {"seat": 1, "pass": True},
                                         {"seat": 2, "play": [5, 3], "end": "right"}], 3))

    def i(t: tuple[int, int]) -> int:
        return _index(rules, t)

    plays, now = pub.plays, pub.now
    assert [(c.seat, t, e) for c, t, e in plays] == [(0, i((5, 5)), -1), (2, i((3, 5)), 1)]
    assert now.left == 5 and now.right == 3 and now.passed[1] == 1 << 5
    hand = [i(t) for t in [(3, 3), (3, 7), (5, 7), (7, 7), (0, 1)]]
    assert sorted(legal_moves(pub.r, now, hand)) == sorted([(i((3, 3)), 1), (i((3, 7)), 1), (i((5, 7)), 0)])
    f = dict(zip(FEATURES, move_features(pub.r, now, hand, i((5, 7)), 0), strict=True))
    # (5,7) on the 5: leaves 7 open (two more 7s in hand), the 3 stays; next seat (0) opened 5.
    assert f["pips"] == 12 and f["data"] == 2 and f["data_other"] == 2 and f["double_next"] == 1
    assert f["table_count"] == 1 and f["covers_opp"] == 1 and f["covers_partner"] == 0
    assert f["partner_passed"] == 0 and f["next_passed"] == 0


def test_the_fit_recovers_known_coefficients() -> None:
    """Decisions drawn from a known softmax: the fitted coefficients come back."""
    from capicua.tools.fit_playmodel import fit, gain

    rng = np.random.default_rng(1)
    true = np.array([0.5, -1.0, 2.0])
    data = []
    for _ in range(3000):
        X = rng.normal(size=(int(rng.integers(2, 6)), 3))
        p = np.exp(X @ true)
        p /= p.sum()
        data.append((X, int(rng.choice(len(X), p=p))))
    w = fit(data, l2=0.01)
    assert w.tolist() == pytest.approx(true.tolist(), abs=0.15)
    assert gain(data, w) > gain(data, np.zeros(3)) + 0.2


def test_decision_records_point_at_the_chosen_move() -> None:
    from capicua.tools.fit_playmodel import decision_record

    checked = 0
    for v in _views("cubano", "medio", 2, "rec"):
        action = decide("medio", v, 0, None)
        rec = decision_record(v, action)
        if rec is None:
            continue
        X, c = rec
        pub = public_state(v)
        now = pub.now
        hand = [_index(pub.rules, tuple(t)) for t in v["hand"]]
        t = _index(pub.rules, tuple(action["tile"]))
        e = -1 if now.left < 0 else (0 if action["end"] == "left" or now.left == now.right else 1)
        assert X[c].tolist() == move_features(pub.r, now, hand, t, e)
        checked += 1
    assert checked > 10


def test_fit_playmodel_command_prints_coefficients(capsys: pytest.CaptureFixture[str]) -> None:
    """The JSON alone on stdout, a progress bar on stderr, and the same output from a second
    run with the same arguments (seeds from sha256, not from the process's hash())."""
    import json

    from capicua.cli import main

    args = ["fit-playmodel", "--a", "dificil", "--b", "random", "--deals", "6", "--seed", "t"]
    assert main(args) == 0
    first = capsys.readouterr()
    out = json.loads(first.out)  # stdout is the JSON document and nothing else
    assert len(out["coefs"]) == len(FEATURES) and out["decisions"] >= 50
    assert set(out["decisions_by_level"]) == {"dificil"}
    assert "6/6" in first.err  # the progress bar, on stderr
    assert main([*args, "--workers", "2"]) == 0
    assert capsys.readouterr().out == first.out  # the same run again, in two processes: the same output


def test_no_partner_terms_outside_partnership_games() -> None:
    rules = make_rules("all-fives")  # four players, each for themselves
    assert rules.partner_of(0) is None
    pub = PublicState(_line_view(rules, [{"seat": 0, "play": [5, 5], "end": None}, {"seat": 1, "pass": True}], 0))
    now = pub.now
    hand = [_index(rules, (5, 6)), _index(rules, (6, 6))]
    f = dict(zip(FEATURES, move_features(pub.r, now, hand, _index(rules, (5, 6)), 0), strict=True))
    assert f["partner_passed"] == 0 and f["partner_blocked"] == 0 and f["partner_showed"] == 0
    assert f["next_passed"] == 0 and f["prev_passed"] == 0  # seat 1 passed on 5, and 6 is left open
