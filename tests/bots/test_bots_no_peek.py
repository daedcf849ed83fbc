"""No peeking, proven: replacing the hidden tiles by another assignment that
gives the seat exactly the same view never changes a bot's choice.

For positions of several presets, a second Match is built from a different
deal: every tile the seat cannot see (the other hands and the boneyard) is
swapped for another, respecting every pass, and the same public actions are
replayed. The two views must be byte-identical, the hidden tiles must really
differ, and every non-cheating level must choose the same action with the
same seed.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from capicua.bots import LEVELS, decide
from capicua.bots.infer import Knowledge
from capicua.bots.public import public_state
from capicua.engine import PRESETS as ENGINE_PRESETS
from capicua.engine import Match, Play, RedealAnswer, make_rules, parse_action
from capicua.engine.tiles import full_set, tile_index

PRESETS = sorted(ENGINE_PRESETS)  # every game, every layout
SEARCH_BUDGET_MS = 15  # small budgets keep the test quick; the code path is the same


def _advance(match: Match, steps: int, rng: random.Random) -> None:
    for _ in range(steps):
        if match.phase == "redeal_question":
            match.apply(match.turn, RedealAnswer(False))  # type: ignore[arg-type]
            continue
        if match.phase != "play":
            return
        seat = match.turn
        assert seat is not None
        view = match.view(seat)
        action = decide("botagorda" if rng.random() < 0.5 else "random", view, rng.randrange(1 << 30))
        match.apply(seat, parse_action(action, match.rules.max_pip))


def _alternative(match: Match, seat: int, rng: random.Random) -> Match | None:
    """A Match whose hidden tiles differ but whose view for ``seat`` is identical."""
    rules = match.rules
    hand = match.hand
    assert hand is not None
    view = match.view(seat)
    kn = Knowledge(public_state(view))
    new = kn.sample(rng)
    tiles = full_set(rules.max_pip)

    def idx(t: Any) -> int:
        return tile_index((min(t), max(t)), rules.max_pip)

    pi: dict[int, int] = {}
    for s in range(rules.players):
        if s == seat:
            continue
        old = [idx(t) for t in hand.hands[s]]
        assert len(old) == len(new[s])
        pi.update(zip(old, new[s], strict=True))
    pi.update(zip([idx(t) for t in hand.boneyard], new[rules.players], strict=True))

    def f(t: Any) -> tuple[int, int]:
        return tiles[pi.get(idx(t), idx(t))]

    deal = hand.deals[-1]
    other = Match(rules, seed=match.seed)
    try:
        other.start_hand_with_deal(
            [[f(t) for t in h] for h in deal["hands"]], [f(t) for t in deal["sleeping"]], opener=hand.opener
        )
        for a in hand.actions:
            if "play" in a:
                other.apply(a["seat"], Play(tuple(a["play"]), a["end"]))
            elif "redeal" in a:
                other.apply(a["seat"], RedealAnswer(a["redeal"]))
    except ValueError:
        return None  # this assignment does not reproduce the public history
    if json.dumps(other.view(seat), sort_keys=True) != json.dumps(view, sort_keys=True):
        return None
    return other


@pytest.mark.parametrize("preset", PRESETS)
def test_hidden_tiles_do_not_change_choices(preset: str) -> None:
    rules = make_rules(preset)
    rng = random.Random(f"nopeek-{preset}")
    checked = 0
    changed = 0
    for g in range(40):
        if checked >= 5:
            break
        match = Match(rules, seed=f"nopeek-{preset}-{g}")
        match.start_hand()
        _advance(match, rng.randrange(2, 14), rng)
        if match.phase != "play":
            continue
        seat = match.turn
        assert seat is not None
        view = match.view(seat)
        if len(view["legal"]) < 2:
            continue
        other = None
        for _ in range(20):
            other = _alternative(match, seat, rng)
            if other is not None:
                break
        if other is None:
            continue
        checked += 1
        a_hand, b_hand = match.hand, other.hand
        assert a_hand is not None and b_hand is not None
        hidden_a = [sorted(h) for s, h in enumerate(a_hand.hands) if s != seat] + [sorted(a_hand.boneyard)]
        hidden_b = [sorted(h) for s, h in enumerate(b_hand.hands) if s != seat] + [sorted(b_hand.boneyard)]
        changed += hidden_a != hidden_b
        view_b = other.view(seat)
        assert json.dumps(view, sort_keys=True).encode() == json.dumps(view_b, sort_keys=True).encode()
        for level in LEVELS:
            seed = rng.randrange(1 << 30)
            budget = SEARCH_BUDGET_MS if level in ("dificil", "experto") else None
            assert decide(level, view, seed, budget) == decide(level, view_b, seed, budget), (preset, level)
    assert checked >= 3, f"too few positions checked for {preset}"
    assert changed >= 2, f"the hidden tiles were hardly ever changed for {preset}"


def test_default_budgets_do_not_peek() -> None:
    """The same check at the levels' default budgets, on the Cuban game."""
    rules = make_rules("cubano")
    rng = random.Random("nopeek-default")
    done = 0
    for g in range(30):
        match = Match(rules, seed=f"nopeek-default-{g}")
        match.start_hand()
        _advance(match, 12 + g % 8, rng)
        if match.phase != "play":
            continue
        seat = match.turn
        assert seat is not None
        view = match.view(seat)
        if len(view["legal"]) < 2:
            continue
        other = next((o for o in (_alternative(match, seat, rng) for _ in range(20)) if o is not None), None)
        if other is None:
            continue
        for level in ("dificil", "experto"):
            assert decide(level, view, 7) == decide(level, other.view(seat), 7)
        done += 1
        if done == 2:
            break
    assert done == 2
