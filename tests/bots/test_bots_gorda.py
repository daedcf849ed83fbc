"""experto's "botar la gorda" opponent model (capicua.bots.infer / search).

The model turns "this seat always plays its heaviest playable tile" into hard
constraints on the tiles the seat can still hold. These tests check that the
constraints are sound against a real botagorda, that a seat's own later plays
refute them exactly when they should (against a brute-force re-derivation),
that sampling honours them, and that the posterior tells a botagorda from a
random player.
"""

from __future__ import annotations

import random
from typing import Any

from capicua.bots import decide
from capicua.bots.infer import Knowledge
from capicua.bots.public import public_state
from capicua.bots.search import gorda_posteriors
from capicua.engine import Match, make_rules, parse_action
from capicua.engine.tiles import tile_index


def _positions(opponent: str, hands: int, seed: str) -> list[tuple[Match, dict[str, Any]]]:
    """(match copy, view) at every decision of the even seats (random players)
    against ``opponent`` on the odd seats, cubano."""
    rules = make_rules("cubano")
    out = []
    rng = random.Random(seed)
    for d in range(hands):
        m = Match(rules, seed=f"{seed}/{d}")
        m.start_hand()
        while m.phase in ("play", "redeal_question"):
            seat = m.turn
            assert seat is not None
            view = m.view(seat)
            level = "random" if seat % 2 == 0 else opponent
            if seat % 2 == 0 and view["legal"] and "tile" in view["legal"][0]:
                out.append((m.clone(), view))
            m.apply(seat, parse_action(decide(level, view, rng.randrange(1 << 30)), rules.max_pip))
    return out


def _true_hand(match: Match, seat: int) -> set[int]:
    hand = match.hand
    assert hand is not None
    mp = match.rules.max_pip
    return {tile_index((min(t), max(t)), mp) for t in hand.hands[seat]}


def test_exclusions_are_sound_against_botagorda() -> None:
    checked = 0
    for match, view in _positions("botagorda", 25, "gorda-sound"):
        kn = Knowledge(public_state(view))
        excl = kn.gorda_exclusions()
        for s in (1, 3):
            e = excl[s]
            assert e is not None, "a real botagorda is never refuted"
            assert not (e & _true_hand(match, s)), "a botagorda never holds an excluded tile"
            checked += len(e)
    assert checked > 500


def _refuted_brute_force(view: dict[str, Any], seat: int, max_pip: int) -> bool:
    """Some play of ``seat`` kept a heavier tile fitting the ends that the seat played later."""
    plays = []  # (tile pips, tile, numbers open before the play or None)
    left = right = -1
    for a in view["history"]:
        if "play" not in a:
            continue
        x, y = a["play"]
        if int(a["seat"]) == seat:
            plays.append((x + y, (x, y), None if left < 0 else {left, right}))
        if a["end"] is None:
            left, right = x, y
        elif a["end"] == "left":
            left = y if x == left else x
        else:
            right = y if x == right else x
    for i, (p, _t, open_) in enumerate(plays):
        for q, u, _ in plays[i + 1:]:
            fits = open_ is None or u[0] in open_ or u[1] in open_
            if fits and q > p:
                return True
    return False


def test_refutation_matches_brute_force_against_random_players() -> None:
    refuted = kept = 0
    for _match, view in _positions("random", 25, "gorda-refute"):
        kn = Knowledge(public_state(view))
        excl = kn.gorda_exclusions()
        for s in (1, 3):
            brute = _refuted_brute_force(view, s, 9)
            if brute:
                assert excl[s] is None
                refuted += 1
            elif excl[s] is not None:
                kept += 1
    assert refuted > 20 and kept > 20


def test_samples_honour_exclusions() -> None:
    rng = random.Random(3)
    n = 0
    for _match, view in _positions("botagorda", 6, "gorda-sample"):
        kn = Knowledge(public_state(view))
        excl = kn.gorda_exclusions()
        ex = [e if e is not None else frozenset() for e in excl]
        for _ in range(5):
            hands = kn.sample(rng, ex)
            for s in (1, 3):
                assert len(hands[s]) == kn.need[s]
                assert not (set(hands[s]) & ex[s])
                n += 1
    assert n > 100


def test_posterior_tells_botagorda_from_random() -> None:
    def mean_posterior(opponent: str) -> float:
        xs = []
        for i, (_m, view) in enumerate(_positions(opponent, 20, f"gorda-post-{opponent}")):
            if sum(1 for a in view["history"] if "play" in a) < 8:
                continue  # late enough in the hand for the plays to say something
            post, _ = gorda_posteriors(Knowledge(public_state(view)), random.Random(i))
            xs += [post[1], post[3]]
        return sum(xs) / len(xs)

    bg, rnd = mean_posterior("botagorda"), mean_posterior("random")
    assert bg > 0.6, bg
    assert rnd < 0.35, rnd
