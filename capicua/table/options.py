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


class TableRulesError(RulesError):
    """A table's game cannot be had, and which part of the request is at fault.

    ``field`` is ``"preset"``, ``"options"``, ``"players"`` or ``"partnership"``:
    the page translates ``(code, field)`` into the player's language."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


# The options that choose the seats, checked first so that the error names them.
SEAT_OPTIONS = ("players", "partnership")

# The levels a neighbour may play at a table, weakest first. The bots implement
# more (the cheating ``tramposo`` measures the ceiling and is never offered);
# tests/table/test_table_imports.py holds this list to :data:`capicua.bots.LEVELS`.
NEIGHBOUR_LEVELS = ("random", "botagorda", "medio", "dificil", "experto")


def table_rules(preset: Any, options: Any) -> Rules:
    """The rules of a table, or :class:`TableRulesError` saying what is wrong.

    ``preset`` must name a preset and ``options`` be an object whose keys are
    :data:`TABLE_OPTIONS` and whose values are plain JSON scalars; the engine
    then validates the seats (``players``, ``partnership``) and the whole
    combination.
    """
    if not isinstance(preset, str) or preset not in PRESETS:
        raise TableRulesError(f"unknown game {preset!r}; games: {', '.join(PRESETS)}", "preset")
    if options is None:
        options = {}
    if not isinstance(options, dict) or len(options) > MAX_OPTIONS:
        raise TableRulesError(f"options are an object with at most {MAX_OPTIONS} entries", "options")
    for key, value in options.items():
        if key not in TABLE_OPTIONS:
            raise TableRulesError(f"a table cannot set {key!r}; options: {', '.join(TABLE_OPTIONS)}", "options")
        if not isinstance(value, (str, int, bool)) or (isinstance(value, str) and len(value) > 40):
            raise TableRulesError(f"{key} takes a name, a number or true/false", "options")
    seats = {key: options[key] for key in SEAT_OPTIONS if key in options}
    if seats:
        try:
            make_rules(preset, **seats)
        except RulesError as exc:
            field = "players" if "players" in seats else "partnership"
            raise TableRulesError(f"{preset} is not played {_seats_text(seats)}: {exc}", field) from exc
    try:
        return make_rules(preset, **options)
    except RulesError as exc:
        raise TableRulesError(str(exc), "options") from exc


def _seats_text(seats: dict[str, Any]) -> str:
    parts = []
    if "players" in seats:
        parts.append(f"by {seats['players']!r} players")
    if "partnership" in seats:
        parts.append("in partnerships" if seats["partnership"] is True else f"with partnership={seats['partnership']!r}")
    return " ".join(parts)


def bot_seat_levels(rules: Rules, human_seat: int, partner_level: str, rival_level: str) -> dict[int, str]:
    """The level of every seat but the human's: the human's partner (asked of
    the engine; none in individual games) plays ``partner_level``, every other
    seat ``rival_level``."""
    partner = rules.partner_of(human_seat)
    return {
        seat: partner_level if seat == partner else rival_level
        for seat in range(rules.players)
        if seat != human_seat
    }


def seat_choices(preset: str) -> list[dict[str, Any]]:
    """Every ``{"players": n, "partnership": bool}`` the preset can be played with at a table.

    Asked of the engine, so the home page never states a rule itself."""
    out = []
    for players in PLAYER_COUNTS:
        for partnership in (False, True):
            try:
                make_rules(preset, players=players, partnership=partnership)
            except RulesError:  # the game is not played so: not a choice
                continue
            out.append({"players": players, "partnership": partnership})
    return out
