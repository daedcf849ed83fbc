"""The benchmark's JIT deal (``kernel.fresh_deals``) against the engine's deal.

``capicua bench`` times fresh deals played out in numba, so the deal is
restated there, with numba's random stream. Here the same stream drives a
reference built on :mod:`capicua.engine.deal`: each shuffle of the tiles is
split into hands and sleeping tiles as the engine splits them
(``seeds.split_deal``), a deal stands when ``deal.void_reason`` says so, and
the opener and required opening tile are those of a ``Match`` dealt that deal
(``start_hand_with_deal``). For the same seeds, the kernel deals the same
hands, sleeping tiles, opener and required tile, on every rule set the kernel
plays (line layouts up to double-nine) and every opener rule.

The bot workers never load the module (``warmup`` leaves it out): checked in a
fresh interpreter.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from capicua.engine import Match, make_rules
from capicua.engine.compact import fast_rules
from capicua.engine.deal import opener_rule, void_reason
from capicua.engine.rules import DEAL_OPENERS, PRESETS
from capicua.engine.seeds import split_deal
from capicua.engine.tiles import full_set, tile_index

K = pytest.importorskip("capicua.bots.kernel.fresh_deals")
from capicua.bots.kernel.params import kernel_rules  # noqa: E402
from capicua.bots.kernel.rng import below, seed_stream  # noqa: E402

pytestmark = pytest.mark.xdist_group("numba-kernel")

KERNEL_PRESETS = [p for p, (base, _, _) in PRESETS.items() if base.get("layout", "line") == "line"]
CASES: list[tuple[str, dict[str, Any]]] = [(p, {}) for p in KERNEL_PRESETS] + [
    ("cubano", {"redeal_five_doubles": "off"}),
    ("cubano", {"first_opener": "highest_double_holder"}),
    ("cubano", {"first_opener": "must_play_top_double"}),
    ("block", {"players": 2, "partnership": False, "max_pip": 9, "hand_size": 3}),  # no double: often voided
    ("draw", {"players": 3, "partnership": False}),
]


def _ids() -> list[str]:
    return [p + "".join(f"-{k}={v}" for k, v in o.items()) for p, o in CASES]


def _reference(rules: Any, rng: np.ndarray) -> tuple[list[list[tuple[int, int]]], list[tuple[int, int]], int, int]:
    """The engine's deal driven by the kernel's stream: hands, sleeping tiles, opener, required tile (or -1)."""
    tiles = full_set(rules.max_pip)
    order = list(range(len(tiles)))
    rule = opener_rule(rules, 1, None)
    voided = 0
    while True:
        for j in range(len(order) - 1, 0, -1):  # the kernel's Fisher-Yates on its stream
            k = int(below(rng, j + 1))
            order[j], order[k] = order[k], order[j]
        hands, sleeping = split_deal([tiles[i] for i in order], rules.players, rules.hand_size)
        if void_reason(rules, rule, hands) is None:
            break
        voided += 1
    if rule in DEAL_OPENERS:
        match = Match(rules, seed="fresh-deals")
        match.start_hand_with_deal(hands, sleeping)
        hand = match.hand
        assert hand is not None and not hand.voided
        opener = hand.opener
        required = -1 if hand.required_first is None else tile_index(hand.required_first, rules.max_pip)
    else:  # a random seat: the kernel's own draw (the engine draws it from the match seed)
        opener = int(below(rng, rules.players))
        required = -1
    return hands, sleeping, opener, required


@pytest.mark.parametrize(("preset", "options"), CASES, ids=_ids())
def test_fresh_deals_are_the_engines(preset: str, options: dict[str, Any]) -> None:
    rules = make_rules(preset, **options)
    r = fast_rules(rules)
    R = kernel_rules(rules)
    n = rules.players
    for seed in range(200):
        rng = np.zeros(1, dtype=np.uint64)
        seed_stream(rng, seed, 0xDEA1, 0)
        mirror = rng.copy()
        order = np.arange(r.n_tiles, dtype=np.int64)
        hands = np.zeros(n, dtype=np.int64)
        opener, required = K._deal(R, rng, order, hands)
        want_hands, want_sleeping, want_opener, want_required = _reference(rules, mirror)
        assert hands.tolist() == [r.mask_of(h) for h in want_hands], seed
        assert order[n * rules.hand_size :].tolist() == [tile_index(t, rules.max_pip) for t in want_sleeping]
        assert (int(opener), int(required)) == (want_opener, want_required), seed
        assert rng[0] == mirror[0]  # the same draws, no more


def test_bot_workers_do_not_load_the_fresh_deals() -> None:
    code = (
        "import sys; from capicua.bots import warmup; warmup(); "
        "print('capicua.bots.kernel.fresh_deals' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False"
