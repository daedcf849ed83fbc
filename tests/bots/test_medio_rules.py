"""What ``medio`` reads of a move's rules, against the engine.

``medio`` weighs a play by the numbers it leaves open to play, by whether it
blocks the hand and by who would win that block. It reads the first two from
the compact core (``outcome_position`` / ``move_outcome``: the view's position,
every unseen tile in the next seat's hand, the move played and taken back)
and the third from ``compact.tranque_teams`` (the rules' ``tranque_winner``),
which it asks with estimated pips. Here, at every legal play of random games
of every preset (the crosses included) and of the other ``tranque_winner``
and seat counts, the engine makes the play on a copy of the match and:

* the numbers open to play after it (the playable arms' ends) are medio's;
* medio's block is the engine's whenever the engine cannot tell a deal with
  a fitting tile out of reach: medio says "blocks" only when the engine's
  hand ends in a tranque or a tie, and the engine blocks where medio does not
  only when a tile that fits sleeps in the boneyard out of every draw;
* at every block, ``tranque_teams`` of the engine's pip totals is the team
  the engine's result names alone, or more than one on a tie.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from capicua.bots.medio import move_outcome, outcome_position
from capicua.bots.public import PublicState
from capicua.engine import Match, Play, RedealAnswer, make_rules, parse_action
from capicua.engine.compact import fast_rules, tranque_teams
from capicua.engine.rules import PRESETS

# (preset, options, legal plays to check, blocks medio must have seen among them).
# A block medio can be sure of needs every tile of the open numbers in sight:
# the games with every tile dealt make them often enough to count on.
CASES: list[tuple[str, dict[str, Any], int, int]] = [(p, {}, 800, 0) for p in PRESETS] + [
    ("cubano", {"tranque_winner": "lowest_team"}, 800, 0),
    ("la-plaza", {"tranque_winner": "lowest_player"}, 1500, 5),
    ("block", {"players": 3, "partnership": False}, 800, 0),
    ("draw", {"players": 2, "partnership": False}, 800, 0),
    ("cross", {"hand_size": 7}, 3000, 3),
    ("cross", {"hand_size": 7, "tranque_winner": "lowest_player"}, 3000, 3),
    ("double-nine-cross", {"max_pip": 6, "hand_size": 7}, 6000, 3),
    ("double-nine-cross", {"max_pip": 6, "hand_size": 7, "tranque_winner": "lowest_player"}, 6000, 3),
]


def _ids() -> list[str]:
    return [p + "".join(f"-{k}={v}" for k, v in o.items()) for p, o, _, _ in CASES]


def _out_of_reach_fits(match: Match, numbers: frozenset[int]) -> bool:
    """Whether a sleeping tile no seat can ever draw shows one of ``numbers``."""
    hand = match.hand
    assert hand is not None
    rules = match.rules
    reach = len(hand.boneyard) - rules.draw_reserve if rules.drawing else 0
    return any(a in numbers or b in numbers for a, b in hand.boneyard[max(reach, 0):])


@pytest.mark.parametrize(("preset", "options", "checks", "sure_blocks"), CASES, ids=_ids())
def test_medio_reads_the_engines_rules(preset: str, options: dict[str, Any], checks: int, sure_blocks: int) -> None:
    rules = make_rules(preset, **options)
    r = fast_rules(rules)
    rng = random.Random(f"medio-rules-{preset}-{sorted(options.items())}")
    plays = blocks = sure = 0
    game = 0
    while plays < checks:
        # One hand a game: the copies the engine plays on stay small.
        match = Match(rules, seed=f"medio-rules-{preset}-{game}")
        game += 1
        match.start_hand()
        while match.phase in ("play", "redeal_question"):
            seat = match.turn
            assert seat is not None
            if match.phase == "redeal_question":
                match.apply(seat, RedealAnswer(False))
                continue
            view = match.view(seat)
            pub = PublicState(view)
            position = outcome_position(pub)
            for action in view["legal"]:
                play = parse_action(action, rules.max_pip)
                assert isinstance(play, Play)
                read = move_outcome(position, pub.move_of(action))
                after = match.clone()
                after.apply(seat, play)
                hand = after.hand
                assert hand is not None
                where = (preset, options, view["ends"], action)
                assert read.ends == frozenset(hand.ends[a] for a in hand.playable_arms()), where
                result = hand.result
                engine_blocks = result is not None and result["kind"] in ("tranque", "tie")
                if read.blocks:
                    assert engine_blocks, where
                    sure += 1
                elif engine_blocks:
                    assert _out_of_reach_fits(after, read.ends), where
                if engine_blocks:
                    assert result is not None
                    lightest = tranque_teams(r, result["pip_totals"])
                    if result["team"] is None:
                        assert len(lightest) > 1, where
                    else:
                        assert lightest == {result["team"]}, where
                    blocks += 1
                plays += 1
            match.apply(seat, parse_action(rng.choice(view["legal"]), rules.max_pip))
    assert sure >= sure_blocks, (preset, options, sure)


def test_the_lightest_teams_of_estimated_pips() -> None:
    """``tranque_teams`` reads fractional (estimated) pips by the same rule."""
    partners = fast_rules(make_rules("cubano"))  # lowest_player, seats 0/2 and 1/3
    assert tranque_teams(partners, [20, 7.5, 7.5, 30]) == {0, 1}  # seat 1 and seat 2 tie
    assert tranque_teams(partners, [20, 7.5, 7.5 - 1e-9, 30]) == {0}
    teams = fast_rules(make_rules("cubano", tranque_winner="lowest_team"))
    assert tranque_teams(teams, [20, 7.5, 7.5, 30]) == {0}  # 27.5 against 37.5
    assert tranque_teams(teams, [10, 7.5, 10, 12.5]) == {0, 1}
    alone = fast_rules(make_rules("all-fives"))  # four seats, four teams
    assert tranque_teams(alone, [20, 7.5, 7.5, 30]) == {1, 2}  # seat 0 loses to either
