"""The bots' core against the engine: positions built the way the search builds them.

The search never sees a Match: it decodes a seat's view once
(:class:`capicua.bots.public.PublicState`), samples the hidden tiles
(:class:`capicua.bots.infer.Knowledge`) and completes the view's position with
them (``FastState.from_view`` + ``with_hidden``). Here, on every preset and
option set of the differential suite (``tests/bots/test_fast_differential.py``),
at every decision:

* the view's position completed with the *true* hidden tiles is the engine's
  own position (``FastState.from_match``), field by field;
* played on with the engine's moves, it ends the hand as the engine does;
* completed with a *sampled* deal, the seat's moves are the same, every seat
  holds as many tiles as the view says, the boneyard too, and it plays out;
* the candidate moves are the legal moves less equivalent ones, one per class.
"""

from __future__ import annotations

import random

import pytest
from test_fast_differential import CASES, _ids, fast_move, fast_result, rich_result

from capicua.bots.infer import Knowledge
from capicua.bots.public import PublicState
from capicua.engine import Match, Play, RedealAnswer, make_rules
from capicua.engine.compact import FastState, policy_playout
from capicua.engine.tiles import canonical, tile_index

REQUIRED_FIRST = 10  # index of required_first in FastState.snapshot(): a view cannot show it


def _public_snapshot(st: FastState) -> tuple[object, ...]:
    snap = st.snapshot()
    return snap[:REQUIRED_FIRST] + snap[REQUIRED_FIRST + 1 :]


def _true_deal(match: Match) -> list[list[int]]:
    """The match's hidden tiles as Knowledge.sample gives a deal: hands, then the boneyard in draw order."""
    hand = match.hand
    assert hand is not None
    mp = match.rules.max_pip
    deal = [[tile_index(canonical(*t), mp) for t in h] for h in hand.hands]
    deal.append([tile_index(canonical(*t), mp) for t in hand.boneyard])
    return deal


def to_state(kn: Knowledge, hands: list[list[int]]) -> FastState:
    """The view's position completed by the deal ``hands`` (as :meth:`Knowledge.sample` gives it)."""
    n = kn.r.players
    masks = [sum(1 << t for t in hands[s]) for s in range(n)]
    return kn.pub.base.with_hidden(masks, tuple(hands[n]))


def _check_decision(match: Match, rng: random.Random) -> FastState:
    seat = match.turn
    assert seat is not None
    view = match.view(seat)
    pub = PublicState(view)
    kn = Knowledge(pub)
    truth = to_state(kn, _true_deal(match))
    assert _public_snapshot(truth) == _public_snapshot(FastState.from_match(match))
    plays = [m for m in match.legal_moves() if isinstance(m, Play)]
    legal = [fast_move(match, m) for m in plays]
    assert truth.legal_moves() == legal
    # candidates: the legal moves in legal order, less those equivalent to an earlier one
    keys = [truth.equivalence_key(m) for m in legal]
    assert pub.moves == [m for i, m in enumerate(legal) if keys[i] not in keys[:i]]
    assert pub.moves == truth.distinct_moves()
    assert [pub.move_of(a) for a in pub.candidates] == pub.moves
    sampled = to_state(kn, kn.sample(rng))
    assert sampled.hands[seat] == truth.hands[seat]
    assert sampled.legal_moves() == legal
    assert [h.bit_count() for h in sampled.hands] == [h.bit_count() for h in truth.hands]
    assert len(sampled.boneyard) == len(truth.boneyard)
    assert sum(sampled.hands) | sum(1 << t for t in sampled.boneyard) == sum(truth.hands) | sum(
        1 << t for t in truth.boneyard
    )  # the same unseen tiles, dealt otherwise
    if pub.passed != [0] * len(pub.passed):
        nm = truth.r.num_mask
        for s, numbers in enumerate(pub.passed):
            for v in range(truth.r.max_pip + 1):
                if numbers >> v & 1:
                    assert not sampled.hands[s] & nm[v]  # a pass is honoured
    res = policy_playout(sampled, rng, 0.5)
    assert sum(res.pip_totals) <= sum(truth.r.tile_pips)
    return truth


@pytest.mark.parametrize(("preset", "options", "hands"), CASES, ids=_ids())
def test_view_built_state_follows_engine(preset: str, options: dict[str, object], hands: int) -> None:
    rules = make_rules(preset, **options)
    rng = random.Random(f"core/{preset}/{sorted(options.items())}")
    wanted = max(20, hands // 5)
    played = m = 0
    while played < wanted:
        match = Match(rules, seed=f"core-{preset}-{m}")
        m += 1
        match.start_hand()
        while played < wanted:
            if match.phase == "redeal_question":
                match.apply(match.turn, RedealAnswer(False))  # type: ignore[arg-type]
                continue
            follower: FastState | None = None
            start = rng.randrange(12)
            step = 0
            while match.phase == "play":
                truth = _check_decision(match, rng)
                if step == start:
                    follower = truth
                plays = [p for p in match.legal_moves() if isinstance(p, Play)]
                k = rng.randrange(len(plays))
                if follower is not None:
                    follower.play(fast_move(match, plays[k]))
                match.apply(match.turn, plays[k])  # type: ignore[arg-type]
                step += 1
            if follower is not None:
                # from the view on, the view-built position ends the hand as the engine did
                assert fast_result(follower)[:-1] == rich_result(match)[:-1]
                assert follower.scores == list(match.scores)
            played += 1
            if match.phase == "match_over":
                break
            match.start_hand()
