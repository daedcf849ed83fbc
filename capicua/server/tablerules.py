"""What a table may choose: a preset of docs/rules.md and a bounded set of its options.

The engine accepts every option of :data:`capicua.engine.rules.OVERRIDABLE`,
including the set size and the hand size, which exist for tests and puzzles.
A table (and ``/api/verify``, which recomputes a table's deals) takes only the
options a player can choose at the table; the set and the hand size follow
from the preset and the number of players. So nothing a stranger sends can
ask the server for a game whose every deal is void.
"""

from __future__ import annotations

from typing import Any

from capicua.engine import RulesError, make_rules
from capicua.engine.rules import OVERRIDABLE, PRESETS, Rules

# The engine's options minus the set and the hand size.
TABLE_OPTIONS = tuple(k for k in OVERRIDABLE if k not in ("max_pip", "hand_size"))
MAX_OPTIONS = len(TABLE_OPTIONS)
PLAYER_COUNTS = (2, 3, 4, 5)


def table_rules(preset: Any, options: Any) -> Rules:
    """The rules of a table, or :class:`RulesError` saying what is wrong.

    ``preset`` must name a preset and ``options`` be an object whose keys are
    :data:`TABLE_OPTIONS` and whose values are plain JSON scalars; the engine
    then validates the combination.
    """
    if not isinstance(preset, str) or preset not in PRESETS:
        raise RulesError(f"unknown game {preset!r}; games: {', '.join(PRESETS)}")
    if options is None:
        options = {}
    if not isinstance(options, dict) or len(options) > MAX_OPTIONS:
        raise RulesError(f"options are an object with at most {MAX_OPTIONS} entries")
    for key, value in options.items():
        if key not in TABLE_OPTIONS:
            raise RulesError(f"a table cannot set {key!r}; options: {', '.join(TABLE_OPTIONS)}")
        if not isinstance(value, (str, int, bool)) or (isinstance(value, str) and len(value) > 40):
            raise RulesError(f"{key} takes a name, a number or true/false")
    return make_rules(preset, **options)


def seat_choices(preset: str) -> list[dict[str, Any]]:
    """Every ``{"players": n, "partnership": bool}`` the preset can be played with at a table.

    Asked of the engine, so the home page never states a rule itself."""
    out = []
    for players in PLAYER_COUNTS:
        for partnership in (False, True):
            try:
                make_rules(preset, players=players, partnership=partnership)
            except RulesError:
                continue
            out.append({"players": players, "partnership": partnership})
    return out
