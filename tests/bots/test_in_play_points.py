"""The points a play scores at once, as ``medio`` reads them, against the engine.

``medio`` weighs every legal play by what it scores during the hand where the
open count scores (All Fives, Fives-and-Threes). It reads that from the
compact core (``FastState.in_play_points`` on the position of the seat's view,
the hidden hands empty). Here, at random decisions of random games of every
preset (and of the in-play options on other layouts and seat counts), every
legal play is made by the engine and the points of its ``score`` event are
compared with the compact core's. (In-play scoring is a line game's: no\noption turns it on for a cross.)
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from capicua.bots.public import PublicState
from capicua.engine import Match, Play, RedealAnswer, make_rules, parse_action
from capicua.engine.rules import PRESETS

CASES: list[tuple[str, dict[str, Any]]] = [(p, {}) for p in PRESETS] + [
    ("all-fives", {"players": 2}),
    ("all-fives", {"players": 3}),
    ("fives-and-threes", {"players": 2}),
    ("fives-and-threes", {"players": 3}),
    ("all-fives", {"target": 50}),  # plays that reach the target end the match at once
    ("fives-and-threes", {"max_pip": 9}),
]


def _ids() -> list[str]:
    return [p + "".join(f"-{k}={v}" for k, v in o.items()) for p, o in CASES]


def _engine_points(match: Match, seat: int, play: Play) -> int:
    events = match.clone().apply(seat, play)
    return sum(int(e["points"]) for e in events if e["kind"] == "score")


@pytest.mark.parametrize(("preset", "options"), CASES, ids=_ids())
def test_in_play_points_are_the_engines(preset: str, options: dict[str, Any]) -> None:
    rules = make_rules(preset, **options)
    rng = random.Random(f"in-play-{preset}-{sorted(options.items())}")
    plays = scored = targets = 0
    game = 0
    while plays < 400:
        match = Match(rules, seed=f"in-play-{preset}-{game}")
        game += 1
        match.start_hand()
        while match.phase in ("play", "redeal_question", "hand_over") and plays < 400:
            if match.phase == "hand_over":
                match.start_hand()
                continue
            seat = match.turn
            assert seat is not None
            if match.phase == "redeal_question":
                match.apply(seat, RedealAnswer(False))
                continue
            view = match.view(seat)
            pub = PublicState(view)
            for action in view["legal"]:
                play = parse_action(action, rules.max_pip)
                assert isinstance(play, Play)
                want = _engine_points(match, seat, play)
                got = pub.base.in_play_points(pub.move_of(action))
                assert got == want, (preset, options, view["ends"], action)
                plays += 1
                scored += want > 0
                targets += want > 0 and match.scores[rules.team_of(seat)] + want >= rules.target
            match.apply(seat, parse_action(rng.choice(view["legal"]), rules.max_pip))
    if rules.in_play_scoring == "none":
        assert scored == 0
    else:
        assert scored > 30, scored
    if "target" in options:
        assert targets > 0
