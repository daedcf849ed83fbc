"""The rules engine: pure, standard library only, no I/O, no clock, no global randomness."""

from .errors import (
    EngineError,
    IllegalActionError,
    MalformedActionError,
    NoDealError,
    OutOfTurnError,
    PhaseError,
    RecordError,
    RulesError,
)
from .record import dumps, replay, replay_summary
from .rules import PRESETS, Rules, make_rules, preset_catalogue, rules_from_json, with_options
from .seeds import hand_seed, seed_hash
from .state import RECORD_FORMAT, Action, Hand, Match, Play, RedealAnswer, parse_action
from .tiles import Tile, canonical, full_set, pips, tile_index

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
