"""Every level returns a legal move in random positions of every preset."""

from __future__ import annotations

import random

import pytest

from capicua.bots import LEVELS, decide, decide_cheating
from capicua.engine import PRESETS, Match, RedealAnswer, make_rules, parse_action

BUDGET_MS = 10


def _positions(preset: str, count: int, seed: str) -> list[Match]:
    rules = make_rules(preset)
    rng = random.Random(seed)
    out = []
    g = 0
    while len(out) < count:
        match = Match(rules, seed=f"{seed}-{g}")
        g += 1
        match.start_hand()
        for _ in range(rng.randrange(0, 30)):
            if match.phase == "redeal_question":
                match.apply(match.turn, RedealAnswer(False))  # type: ignore[arg-type]
            if match.phase != "play":
                break
            seat = match.turn
            assert seat is not None
            match.apply(seat, rng.choice(match.legal_moves()))  # type: ignore[arg-type]
        if match.phase in ("play", "redeal_question"):
            out.append(match)
    return out


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("level", list(LEVELS) + ["tramposo"])
def test_level_returns_a_legal_move(preset: str, level: str) -> None:
    for i, match in enumerate(_positions(preset, 3, f"legal-{preset}")):
        seat = match.turn
        assert seat is not None
        if level == "tramposo":
            action = decide_cheating(match, seat, i, budget_ms=BUDGET_MS)
        else:
            action = decide(level, match.view(seat), i, BUDGET_MS)
        parsed = parse_action(action, match.rules.max_pip)
        match.check(seat, parsed)  # raises if illegal
        assert action in match.view(seat)["legal"]


def test_going_out_is_taken() -> None:
    """With one tile left that fits, every level plays it (a sanity check of search)."""
    rules = make_rules("cubano")
    for g in range(200):
        match = Match(rules, seed=f"out-{g}")
        match.start_hand()
        rng = random.Random(g)
        while match.phase == "play":
            seat = match.turn
            assert seat is not None
            legal = match.legal_moves()
            hand = match.hand
            assert hand is not None
            if len(hand.hands[seat]) == 1 and len(legal) == 1:
                view = match.view(seat)
                for level in LEVELS:
                    assert decide(level, view, 1, BUDGET_MS) == view["legal"][0]
                return
            match.apply(seat, rng.choice(legal))  # type: ignore[arg-type]
    pytest.fail("no position with a last tile to play was found")


def test_unknown_level_is_refused() -> None:
    match = _positions("cubano", 1, "unknown")[0]
    with pytest.raises(ValueError):
        decide("grandmaster", match.view(match.turn), 1)


def test_decide_is_deterministic() -> None:
    for match in _positions("cubano", 4, "det"):
        view = match.view(match.turn)
        for level in LEVELS:
            assert decide(level, view, 3, BUDGET_MS) == decide(level, view, 3, BUDGET_MS)
