"""Bots: players that choose an action from a seat's view only.

``decide(level, view, seed)`` is a pure function of what the seat may know,
so it can run in a process pool and cannot peek at hidden tiles.
"""

from __future__ import annotations

import random
from typing import Any

LEVELS = ("random", "botagorda")


def _legal(view: dict[str, Any]) -> list[dict[str, Any]]:
    legal = view.get("legal") or []
    if not legal:
        raise ValueError("the seat has no choice to make in this view")
    return list(legal)


def decide_random(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Any legal move."""
    return dict(rng.choice(_legal(view)))


def decide_botagorda(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The heaviest playable tile ("botar la gorda"); ties broken at random."""
    legal = _legal(view)
    if "redeal" in legal[0]:
        return {"redeal": True}
    best = max(sum(m["tile"]) for m in legal)
    return dict(rng.choice([m for m in legal if sum(m["tile"]) == best]))


_DECIDERS = {"random": decide_random, "botagorda": decide_botagorda}


def decide(level: str, view: dict[str, Any], seed: int, budget_ms: int | None = None) -> dict[str, Any]:
    """The action a bot of ``level`` takes in ``view`` (JSON, as ``parse_action`` reads it)."""
    try:
        fn = _DECIDERS[level]
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}; levels: {', '.join(LEVELS)}") from None
    return fn(view, random.Random(seed))
