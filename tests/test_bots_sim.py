"""The bots' compact simulator agrees with the engine on random games of every preset."""

from __future__ import annotations

import random

import pytest

from capicua.bots.sim import move_of_json, playout, sim_from_match, static_of
from capicua.engine import PRESETS, Match, make_rules


def _engine_ends(match: Match) -> list[int]:
    h = match.hand
    assert h is not None
    return [h.ends[a] for a in h.arm_order]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_sim_follows_engine(preset: str) -> None:
    rules = make_rules(preset)
    st = static_of(rules)
    rng = random.Random(preset)
    for g in range(12):
        match = Match(rules, seed=f"sim-{preset}-{g}")
        match.start_hand()
        while match.phase == "redeal_question":
            match.apply(match.turn, match.legal_moves()[1])  # type: ignore[arg-type]
        sim = sim_from_match(match)
        before = list(match.scores)
        while match.phase == "play":
            seat = match.turn
            assert sim.turn == seat
            legal = match.legal_moves()
            # Same legal tiles (the sim drops equivalent ends, never a tile).
            assert {st.index(m.tile) for m in legal} == {t for t, _ in sim.moves()}  # type: ignore[union-attr]
            action = rng.choice(legal)
            sim.play(move_of_json(st, sim, action.to_json()))
            match.apply(seat, action)  # type: ignore[arg-type]
            h = match.hand
            assert h is not None
            assert [sorted(x) for x in sim.hands] == [sorted(st.index(t) for t in hh) for hh in h.hands]
            assert len(sim.boneyard) == len(h.boneyard)
            if match.phase == "play":
                assert sim.ends == _engine_ends(match)
        assert sim.over
        gained = [match.scores[t] - before[t] for t in range(rules.teams)]
        assert sim.gain == gained, (preset, g)


@pytest.mark.parametrize("preset", ["cubano", "caribe", "la-plaza", "block"])
@pytest.mark.parametrize("policy", [0, 1, 2])
def test_fast_playout_matches_generic(preset: str, policy: int) -> None:
    """The inlined playout of simple line games plays exactly like Sim.play."""
    rules = make_rules(preset)
    st = static_of(rules)
    assert st.simple
    for g in range(30):
        match = Match(rules, seed=f"fast-{preset}-{g}")
        match.start_hand()
        sim = sim_from_match(match)
        a = playout(sim.copy(), random.Random(g), policy)
        b = playout(sim.copy(), random.Random(g), policy, generic=True)
        assert a.over and b.over
        assert a.hands == b.hands
        assert a.gain == b.gain
