"""The ``outcome`` of the VIEW's open ends (``Match.end_outcome``): the page asks
"¿por dónde la pegas?" only between ends of different outcome, so one tile on two
ends of equal outcome must be one move, and two ends of different outcome two moves,
exactly as the compact core's equivalence of moves says
(``FastState.equivalence_key``, the bots' and the analysis's one definition). Held
here at random decisions of random games of every preset (and of a few options that
change the layout, the seats or the scoring)."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from capicua.engine import Match, RedealAnswer, make_rules, parse_action
from capicua.engine.compact import FastState
from capicua.engine.rules import PRESETS
from capicua.engine.tiles import canonical, tile_index

CASES: list[tuple[str, dict[str, Any]]] = [(p, {}) for p in PRESETS] + [
    ("all-fives", {"players": 3}),
    ("fives-and-threes", {"max_pip": 9}),
    ("all-fives", {"players": 2}),
]
DECISIONS = 300  # per case: decisions where one tile fits two ends or more


def _ids() -> list[str]:
    return [p + "".join(f"-{k}={v}" for k, v in o.items()) for p, o in CASES]


@pytest.mark.parametrize(("preset", "options"), CASES, ids=_ids())
def test_ends_of_equal_outcome_are_the_same_move_for_the_compact_core(preset: str, options: dict[str, Any]) -> None:
    rules = make_rules(preset, **options)
    rng = random.Random(f"outcome-{preset}-{sorted(options.items())}")
    decisions = alike = apart = 0
    game = 0
    while decisions < DECISIONS and game < 400:
        match = Match(rules, seed=f"outcome-{preset}-{game}")
        game += 1
        match.start_hand()
        while match.phase in ("play", "redeal_question", "hand_over") and decisions < DECISIONS:
            if match.phase == "hand_over":
                match.start_hand()
                continue
            seat = match.turn
            assert seat is not None
            if match.phase == "redeal_question":
                match.apply(seat, RedealAnswer(False))
                continue
            view = match.view(seat)
            outcome = {e["end"]: e["outcome"] for e in view["ends"]}
            assert outcome == {e["end"]: match.end_outcome(e["value"], e["double"]) for e in view["ends"]}
            fast = FastState.from_view(rules, view)
            arms = [e["end"] for e in view["ends"]]
            by_tile: dict[tuple[int, ...], list[dict[str, Any]]] = {}
            for action in view["legal"]:
                if action["end"] is not None:
                    by_tile.setdefault(tuple(sorted(action["tile"])), []).append(action)
            for plays in by_tile.values():
                if len(plays) < 2:
                    continue
                decisions += 1
                for a, b in itertools.combinations(plays, 2):
                    same_outcome = outcome[a["end"]] == outcome[b["end"]]
                    same_move = fast.equivalence_key(_move(fast, arms, a)) == fast.equivalence_key(_move(fast, arms, b))
                    assert same_outcome == same_move, (preset, options, view["ends"], a, b)
                    alike += same_outcome
                    apart += not same_outcome
            match.apply(seat, parse_action(rng.choice(view["legal"]), rules.max_pip))
    assert decisions >= 20, decisions  # every case offers tiles with a choice of ends
    assert apart > 0, (alike, apart)


def _move(fast: FastState, arms: list[str], action: dict[str, Any]) -> tuple[int, int]:
    """The compact core's move of a legal play of the view: its tile's index, and its
    end's index among the view's ends (the compact core numbers the arms in that order)."""
    return (tile_index(canonical(*action["tile"]), fast.r.max_pip), arms.index(action["end"]))
