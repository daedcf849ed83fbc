"""``FastState.deal`` against the engine's deal (``capicua.engine.deal``).

The compact core deals fresh hands for the benchmarks and the tests without
building a ``Match``. It is the engine's deal: for a hand's seed it gives the
hands and the sleeping tiles of ``deal_hand`` (voided deals skipped the same
way), and the opener and required opening tile of the ``Match`` whose first
hand has that seed, on every preset and opener rule.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from capicua.engine import Match, make_rules
from capicua.engine.compact import FastState, fast_rules
from capicua.engine.deal import deal_hand, opener_rule
from capicua.engine.rules import DEAL_OPENERS, PRESETS
from capicua.engine.seeds import hand_seed
from capicua.engine.tiles import tile_index

CASES: list[tuple[str, dict[str, Any]]] = [(p, {}) for p in PRESETS] + [
    ("cubano", {"redeal_five_doubles": "off"}),
    ("cubano", {"first_opener": "highest_double"}),
    ("cubano", {"first_opener": "highest_double_holder"}),
    ("cubano", {"first_opener": "must_play_top_double", "redeal_five_doubles": "off"}),
    ("block", {"players": 2, "partnership": False, "first_opener": "highest_double"}),
    ("draw", {"players": 3, "partnership": False}),
    ("block", {"max_pip": 12, "players": 2, "partnership": False, "hand_size": 3,
               "first_opener": "highest_double"}),  # no double in 6 tiles: many voided deals
]


def _ids() -> list[str]:
    return [p + "".join(f"-{k}={v}" for k, v in o.items()) for p, o in CASES]


@pytest.mark.parametrize(("preset", "options"), CASES, ids=_ids())
def test_compact_deal_is_the_engines(preset: str, options: dict[str, Any]) -> None:
    rules = make_rules(preset, **options)
    r = fast_rules(rules)
    mp = rules.max_pip
    rule = opener_rule(rules, 1, None)
    voided = 0
    for i in range(150):
        match_seed = f"compact-deal-{preset}-{i}"
        seed = hand_seed(match_seed, 1)
        deals = deal_hand(rules, seed, rule)
        voided += len(deals.voided)
        want = deals.standing
        match = Match(rules, seed=match_seed)
        match.start_hand()
        hand = match.hand
        assert hand is not None
        given = None if rule in DEAL_OPENERS else hand.opener
        st = FastState.deal(rules, random.Random(seed), opener=given)
        assert st.hands == [r.mask_of(h) for h in want.hands]
        assert list(st.boneyard) == [tile_index(t, mp) for t in want.sleeping]
        assert [r.mask_of(h) for h in hand.hands] == st.hands  # the match dealt the same
        assert st.turn == st.opener == hand.opener
        required = hand.required_first
        assert st.required_first == (-1 if required is None else tile_index(required, mp))
    if options.get("hand_size") == 3:
        assert voided > 100, voided  # the redeals were exercised
