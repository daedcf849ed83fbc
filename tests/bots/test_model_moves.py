"""The play model's moves against the one rule of equivalent moves.

``FastState.distinct_moves`` is the rule (held to the engine by
``test_bots_public.py``): two plays of one tile are one move when the ends
they cover show the same number and, where the open count scores, the same
kind of end. The play model (``playmodel.legal_moves``, and its JIT copies in
the kernel, held to it by ``test_playmodel.py`` and ``test_kernel_model.py``)
tells moves apart by the numbers they leave open. Here, at random decisions of
every line preset: where the open count does not score, the model's moves
are the rule's distinct moves; where it scores, each distinct move is one of
the model's (:func:`playmodel.model_move`) and each of the model's stands for
one or more distinct moves. The contexts the model reads its features from
(``PublicState.plays`` / ``now``) take the passes from the history; at every
decision they are the engine's ``passed_on``.
"""

from __future__ import annotations

import random

import pytest

from capicua.bots.playmodel import legal_moves, model_move
from capicua.bots.public import PublicState
from capicua.engine import Match, RedealAnswer, make_rules, parse_action
from capicua.engine.rules import PRESETS

LINE_PRESETS = [p for p in PRESETS if PRESETS[p][0].get("layout", "line") == "line"]


@pytest.mark.parametrize("preset", LINE_PRESETS)
def test_model_moves_are_the_distinct_moves(preset: str) -> None:
    rules = make_rules(preset)
    rng = random.Random(f"model-moves-{preset}")
    checked = merged = 0
    game = 0
    while checked < 400:
        match = Match(rules, seed=f"model-moves-{preset}-{game}")
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
            now = pub.now
            assert now.passed == pub.passed  # the history's passes are the view's
            if now.left >= 0:  # the model skips the opening (forced or not, it reads no end)
                model = legal_moves(pub.r, now, sorted(pub.mine))
                if rules.in_play_scoring == "none":
                    assert model == pub.moves, (view["ends"], view["hand"])
                else:
                    assert sorted({model_move(now, t, e) for t, e in pub.moves}) == sorted(model)
                    merged += len(pub.moves) - len(model)
                checked += 1
            match.apply(seat, parse_action(rng.choice(view["legal"]), rules.max_pip))
    if rules.in_play_scoring != "none":
        assert merged > 0  # the double end the model does not read was met
