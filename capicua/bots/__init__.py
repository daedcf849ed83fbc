"""Bots: players that choose an action from a seat's view only.

``decide(level, view, seed, budget_ms=None)`` is a pure function of what the
seat may know (plus a seed and a thinking budget), so it can run in a process
pool and cannot peek at hidden tiles. ``decide_cheating(match, seat, seed)``
is the ``tramposo`` twin that sees every hand: it measures the ceiling and is
never offered to players. See docs/bots.md.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from capicua.bots.medio import decide_medio
from capicua.bots.public import PublicState, public_state
from capicua.bots.search import (
    DIFICIL,
    EXPERTO,
    Config,
    cheat_decide,
    decide_public,
    search_evaluate,
    warmup,
)

LEVELS = ("random", "botagorda", "medio", "dificil", "experto")
CHEATING_LEVELS = ("tramposo",)


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


Decider = Callable[[PublicState, random.Random, "float | None", "dict[str, Any] | None"], dict[str, Any]]


def _search(cfg: Config) -> Decider:
    def run(
        pub: PublicState, rng: random.Random, budget_ms: float | None, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        c = cfg if budget_ms is None else replace(cfg, budget_ms=float(budget_ms))
        if options:
            c = replace(c, **options)
        return decide_public(pub, rng, c)

    return run


def search_options(level: str, options: dict[str, Any]) -> dict[str, Any]:
    """Validate overrides of a search level's :class:`Config` (for experiments:
    ``capicua tournament --option-a gorda=false``); returns them typed like the
    defaults. Raises ValueError for other levels and unknown or mistyped keys."""
    if level not in _SEARCH_CONFIGS:
        raise ValueError(f"level {level!r} has no search options; only {', '.join(_SEARCH_CONFIGS)} do")
    base = _SEARCH_CONFIGS[level]
    out: dict[str, Any] = {}
    for key, value in options.items():
        if key not in Config.__dataclass_fields__ or key == "budget_ms":
            raise ValueError(f"unknown option {key!r} for {level}")
        current = getattr(base, key)
        if isinstance(current, bool):
            if not isinstance(value, bool):
                raise ValueError(f"option {key!r} takes true or false")
        elif isinstance(current, (int, float)) and not isinstance(current, bool):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"option {key!r} takes a number")
            value = type(current)(value)
        elif isinstance(current, str):
            if not isinstance(value, str):
                raise ValueError(f"option {key!r} takes a string")
        elif current is None or isinstance(current, tuple):
            if value is not None and not isinstance(value, list):
                raise ValueError(f"option {key!r} takes a list of numbers or null")
            value = None if value is None else tuple(float(x) for x in value)
        out[key] = value
    replace(base, **out)  # every key is a field: fails here rather than in a worker
    return out


_SIMPLE = {"random": decide_random, "botagorda": decide_botagorda}
#: Levels that never search: a decision is a pass over the legal moves (about
#: 0.01 ms for random and botagorda, 0.08 ms mean and 0.4 ms at worst for medio
#: on a double-nine hand), far less than sending the view to another process.
QUICK_LEVELS = frozenset((*_SIMPLE, "medio"))
_SEARCH_CONFIGS = {"dificil": DIFICIL, "experto": EXPERTO}
_SEARCH: dict[str, Decider] = {name: _search(cfg) for name, cfg in _SEARCH_CONFIGS.items()}


def decide(
    level: str, view: dict[str, Any], seed: int, budget_ms: float | None = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The action a bot of ``level`` takes in ``view`` (JSON, as ``parse_action`` reads it).

    ``budget_ms`` is a thinking budget for the search levels, turned into a
    number of playouts by a calibrated rate (so the result stays a pure
    function of view, seed and budget); None means the level's default.
    ``options`` override fields of a search level's Config (experiments; see
    :func:`search_options`).
    """
    rng = random.Random(seed)
    if options and level not in _SEARCH:
        raise ValueError(f"level {level!r} has no search options")
    if level in _SIMPLE:
        return _SIMPLE[level](view, rng)
    if level == "medio":
        return decide_medio(public_state(view), rng)
    if level in _SEARCH:
        return _SEARCH[level](public_state(view), rng, budget_ms, options)
    raise ValueError(f"unknown bot level {level!r}; levels: {', '.join(LEVELS)}")


def evaluate(
    level: str, view: dict[str, Any], seed: int, budget_ms: float | None = None
) -> list[tuple[dict[str, Any], float]]:
    """A search level's value of every distinct legal move in ``view``: pairs of
    the action (JSON) and the mean point margin of the seat's team from here to
    the end of the hand (:func:`capicua.bots.search.search_evaluate`). The move
    :func:`decide` plays with the same arguments is the first of highest value.
    Pure like :func:`decide`; the experto's analysis (capicua.bots.analysis) uses it."""
    if level not in _SEARCH_CONFIGS:
        raise ValueError(f"level {level!r} does not search; only {', '.join(_SEARCH_CONFIGS)} do")
    cfg = _SEARCH_CONFIGS[level]
    if budget_ms is not None:
        cfg = replace(cfg, budget_ms=float(budget_ms))
    return search_evaluate(view, random.Random(seed), cfg)


def decide_cheating(match: Any, seat: int, seed: int, budget_ms: float | None = None) -> dict[str, Any]:
    """``tramposo``: sees every hand of ``match`` and searches with perfect information."""
    if match.turn != seat:
        raise ValueError("it is not this seat's turn")
    return cheat_decide(match, seat, random.Random(seed), 200.0 if budget_ms is None else float(budget_ms))


__all__ = ["evaluate", "search_options", "warmup", "CHEATING_LEVELS", "LEVELS", "QUICK_LEVELS", "decide", "decide_cheating", "decide_botagorda", "decide_random"]
