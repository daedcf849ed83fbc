"""The rules engine: pure, standard library only, no I/O, no clock, no global randomness."""

from capicua.engine.errors import (
    EngineError,
    IllegalActionError,
    MalformedActionError,
    NoDealError,
    OutOfTurnError,
    PhaseError,
    RecordError,
    RulesError,
)
from capicua.engine.record import dumps, replay, replay_summary
from capicua.engine.rules import (
    PRESETS,
    Rules,
    make_rules,
    preset_catalogue,
    rules_from_json,
    with_options,
)
from capicua.engine.seeds import hand_seed, seed_hash
from capicua.engine.state import (
    RECORD_FORMAT,
    Action,
    Hand,
    Match,
    Play,
    RedealAnswer,
    parse_action,
)
from capicua.engine.tiles import (
    Tile,
    canonical,
    full_set,
    pips,
    tile_index,
)

__all__ = [
    "Action",
    "EngineError",
    "Hand",
    "IllegalActionError",
    "MalformedActionError",
    "Match",
    "NoDealError",
    "OutOfTurnError",
    "PRESETS",
    "PhaseError",
    "Play",
    "RECORD_FORMAT",
    "RecordError",
    "RedealAnswer",
    "Rules",
    "RulesError",
    "Tile",
    "canonical",
    "dumps",
    "full_set",
    "hand_seed",
    "make_rules",
    "parse_action",
    "pips",
    "preset_catalogue",
    "replay",
    "replay_summary",
    "rules_from_json",
    "seed_hash",
    "tile_index",
    "with_options",
]
