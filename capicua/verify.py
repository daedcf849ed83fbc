"""Fair deals you can check: recompute a hand's deal from its revealed seed.

Before a hand the table publishes ``seed_hash = sha256(hand_seed)``; when the
hand is over it reveals ``hand_seed``. :func:`verify_deal` recomputes the deal
exactly as the engine makes it (``Match._deal``): shuffle the whole set with
``random.Random(hand_seed)``, split it into hands and sleeping tiles, and
shuffle again from the same generator for every deal that the rules void
(five doubles in one hand; no double at all when the hand must be opened
with a double). Used by ``GET /api/verify`` and ``capicua verify``.
"""

from __future__ import annotations

import random
from typing import Any

from capicua.engine import make_rules, seed_hash
from capicua.engine.rules import DEAL_OPENERS
from capicua.engine.seeds import shuffled_set, split_deal

MAX_DEALS = 10_000


def verify_deal(
    preset: str,
    hand_seed: str,
    options: dict[str, Any] | None = None,
    hand_number: int = 1,
    opener_rule: str | None = None,
) -> dict[str, Any]:
    """Recompute the deal of the hand whose seed is ``hand_seed``.

    ``opener_rule`` is the rule that chose the hand's opener (it decides
    whether a deal without any double is void); by default the rules'
    ``first_opener`` for hand 1 and ``next_opener_after_win`` after it.
    Returns ``{"preset", "seed", "seed_hash", "hands", "sleeping", "voided",
    "deals"}``: ``hands[seat]`` is the sorted list of tiles dealt to each
    seat, ``voided`` the reasons of the deals that were made again.
    Raises ``RulesError`` for an unknown preset or option and ``ValueError``
    for an empty seed.
    """
    if not isinstance(hand_seed, str) or not hand_seed:
        raise ValueError("the seed is a non-empty string")
    rules = make_rules(preset, **(options or {}))
    if opener_rule is None:
        opener_rule = rules.first_opener if hand_number <= 1 else rules.next_opener_after_win
    rng = random.Random(hand_seed)
    voided: list[dict[str, Any]] = []
    for _ in range(MAX_DEALS):
        tiles = shuffled_set(rng, rules.max_pip)
        hands, sleeping = split_deal(tiles, rules.players, rules.hand_size)
        reason: str | None = None
        seat: int | None = None
        if rules.redeal_five_doubles == "automatic":
            for s, h in enumerate(hands):
                if sum(1 for t in h if t[0] == t[1]) >= 5:
                    reason, seat = "five_doubles", s
                    break
        if reason is None and opener_rule in DEAL_OPENERS:
            if not any(t[0] == t[1] for h in hands for t in h):
                reason = "no_double"
        if reason is None:
            return {
                "preset": preset,
                "seed": hand_seed,
                "seed_hash": seed_hash(hand_seed),
                "hands": [[list(t) for t in h] for h in hands],
                "sleeping": [list(t) for t in sleeping],
                "voided": voided,
                "deals": len(voided) + 1,
            }
        voided.append({"reason": reason, "seat": seat})
    raise RuntimeError("no deal stood after many tries")  # pragma: no cover
