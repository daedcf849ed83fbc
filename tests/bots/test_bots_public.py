"""PublicState: one decoding of a view per decision, and the one rule for equivalent moves.

The rule (``FastState.distinct_moves``): two plays of a tile are one move when
the ends they cover show the same number and, where the open count scores,
the same kind of end. Checked here against the engine itself: after two
equivalent plays every continuation (chosen by equivalence class) ends the
hand with the same result and scores; two plays it keeps apart leave
different tables (the numbers open, or the open count that scores).
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from test_fast_differential import fast_move, rich_result

import capicua.bots.public as public_module
from capicua.bots import decide
from capicua.bots.search import distinct_moves
from capicua.engine import Match, Play, RedealAnswer, make_rules, parse_action
from capicua.engine.compact import FastState


def _positions(preset: str, n: int, seed: str, **options: Any) -> list[tuple[Match, dict[str, Any]]]:
    """``n`` decisions (two or more legal plays) from random games, with the match at each."""
    rules = make_rules(preset, **options)
    rng = random.Random(seed)
    out: list[tuple[Match, dict[str, Any]]] = []
    g = 0
    while len(out) < n:
        match = Match(rules, seed=f"{seed}-{g}")
        g += 1
        match.start_hand()
        while match.phase in ("play", "redeal_question") and len(out) < n:
            seat = match.turn
            assert seat is not None
            if match.phase == "redeal_question":
                match.apply(seat, RedealAnswer(False))
                continue
            view = match.view(seat)
            if len(view["legal"]) >= 2 and rng.random() < 0.4:
                out.append((copy.deepcopy(match), view))
            action = decide("botagorda" if rng.random() < 0.5 else "random", view, rng.randrange(1 << 30))
            match.apply(seat, parse_action(action, rules.max_pip))
    return out


@pytest.mark.parametrize("preset", ["cubano", "all-fives", "cross", "mano-a-mano"])
def test_one_decoding_per_decision(preset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every level that reads the view decodes it once per decision, early and late in a hand;
    nothing decodes the passes again for the kernel."""
    decodes = [0]
    real_init = public_module.PublicState.__init__

    def counting(self: public_module.PublicState, view: dict[str, Any]) -> None:
        decodes[0] += 1
        real_init(self, view)

    monkeypatch.setattr(public_module.PublicState, "__init__", counting)
    from capicua.bots.kernel import policies

    def no_passed_masks(_passed_on: Any) -> Any:
        raise AssertionError("the search takes the passes from PublicState")

    monkeypatch.setattr(policies, "passed_masks", no_passed_masks)
    from_view = FastState.from_view
    built = [0]

    def counting_from_view(rules: Any, view: dict[str, Any]) -> FastState:
        built[0] += 1
        return from_view(rules, view)

    monkeypatch.setattr(FastState, "from_view", staticmethod(counting_from_view))
    for i, (_match, view) in enumerate(_positions(preset, 10, f"decode-{preset}")):
        for level in ("medio", "dificil", "experto"):
            decodes[0] = built[0] = 0
            action = decide(level, view, i, 5.0 if level != "medio" else None)
            assert action in view["legal"]
            assert (decodes[0], built[0]) == (1, 1), (preset, level, i)
    for level in ("random", "botagorda"):  # they read the legal moves alone
        decodes[0] = 0
        decide(level, view, 0)
        assert decodes[0] == 0


def _finish_by_class(match: Match, rng: random.Random) -> tuple[object, ...]:
    """Play the hand out choosing among equivalence classes (the same choice in
    two equivalent positions): the result and scores."""
    while match.phase == "play":
        st = FastState.from_match(match)
        plays = [p for p in match.legal_moves() if isinstance(p, Play)]
        keyed: dict[tuple[int, int], Play] = {}
        for p in plays:
            keyed.setdefault(st.equivalence_key(fast_move(match, p)), p)
        keys = sorted(keyed)
        match.apply(match.turn, keyed[keys[rng.randrange(len(keys))]])  # type: ignore[arg-type]
    return rich_result(match)


def _table(match: Match) -> tuple[object, ...]:
    hand = match.hand
    assert hand is not None
    return (sorted(hand.ends[a] for a in hand.playable_arms()), match.open_count(hand))


CASES = [
    ("cubano", {}), ("caribe", {}), ("la-plaza", {}), ("mano-a-mano", {}), ("all-fives", {}),
    ("fives-and-threes", {}), ("cross", {}), ("double-nine-cross", {}), ("all-fives", {"players": 2}),
]


@pytest.mark.parametrize(("preset", "options"), CASES, ids=[p + "".join(f"-{v}" for v in o.values()) for p, o in CASES])
def test_equivalent_moves_lead_to_the_same_game(preset: str, options: dict[str, Any]) -> None:
    same = apart = 0
    for match, view in _positions(preset, 400, f"equiv-{preset}", **options):
        st = FastState.from_match(match)
        plays = [p for p in match.legal_moves() if isinstance(p, Play)]
        moves = [fast_move(match, p) for p in plays]
        for i in range(len(plays)):
            for j in range(i + 1, len(plays)):
                if moves[i][0] != moves[j][0]:
                    continue
                a, b = copy.deepcopy(match), copy.deepcopy(match)
                seat = match.turn
                a.apply(seat, plays[i])  # type: ignore[arg-type]
                b.apply(seat, plays[j])  # type: ignore[arg-type]
                if st.equivalence_key(moves[i]) == st.equivalence_key(moves[j]):
                    same += 1
                    for k in range(3):
                        seed = f"{preset}-{same}-{k}"
                        assert _finish_by_class(copy.deepcopy(a), random.Random(seed)) == _finish_by_class(
                            copy.deepcopy(b), random.Random(seed)
                        )
                else:
                    apart += 1
                    if a.phase == "play" and b.phase == "play":
                        assert _table(a) != _table(b)
        # the analysis' view of the same rule
        cands = distinct_moves(view)
        for action in view["legal"]:
            got = public_module.public_state(view).same_move(action)
            assert got in cands
            key = st.equivalence_key(fast_move(match, parse_action(got, match.rules.max_pip)))  # type: ignore[arg-type]
            assert key == st.equivalence_key(fast_move(match, parse_action(action, match.rules.max_pip)))  # type: ignore[arg-type]
    assert same > 0 and apart > 0, (same, apart)
