"""Match records: dump, load and replay with full re-validation.

A record (``"format": "capicua-record/1"``) holds the rules (preset and
options), the seed, and per hand the deal, the opener, every action in order
and the result. :func:`replay` rebuilds the match from the rules and the
seed, re-checking every recorded entry against the engine: a deal that does
not come from the seed, a tile not in the hand, a pass while holding a
playable tile or a wrong score raises :class:`RecordError` naming the hand
and the index of the first bad action.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import EngineError, RecordError, RulesError
from .rules import rules_from_json
from .state import RECORD_FORMAT, Match, Play, RedealAnswer

RESULT_KEYS = ("kind", "seat", "team", "points", "capicua", "next_opener")


def dumps(match: Match) -> str:
    return json.dumps(match.record(), separators=(",", ":"))


def _action_from_record(entry: dict[str, Any]) -> Play | RedealAnswer | None:
    """The player's choice an entry stands for; ``None`` for automatic entries."""
    if "play" in entry:
        tile = entry["play"]
        if not (isinstance(tile, list) and len(tile) == 2 and all(type(x) is int for x in tile)):
            raise ValueError("a play is a pair of numbers")
        end = entry.get("end")
        if end is not None and not isinstance(end, str):
            raise ValueError("end is a name or null")
        return Play((tile[0], tile[1]), end)
    if "redeal" in entry:
        if type(entry["redeal"]) is not bool:
            raise ValueError("redeal is true or false")
        return RedealAnswer(entry["redeal"])
    if entry.get("pass") is True or "draw" in entry:
        return None
    raise ValueError("unknown action")


def replay(record: Any) -> Match:
    """Rebuild and re-validate a match from its record.

    The last hand may be unfinished (a match in progress); every other hand
    must be complete and match its recorded result.
    """
    if not isinstance(record, dict):
        raise RecordError("a record is a JSON object")
    if record.get("format") != RECORD_FORMAT:
        raise RecordError(f"unknown record format {record.get('format')!r}; expected {RECORD_FORMAT}")
    try:
        rules = rules_from_json(record.get("rules"))
    except RulesError as exc:
        raise RecordError(f"bad rules: {exc}") from exc
    seed = record.get("seed")
    if not isinstance(seed, str) or not seed:
        raise RecordError("the record has no seed")
    match = Match(rules, seed)
    if record.get("setup") is not None and record["setup"] != match.setup:
        raise RecordError("the first-opener draw does not come from the seed", hand=0)
    hands = record.get("hands")
    if not isinstance(hands, list):
        raise RecordError("hands must be a list")
    for h_index, rec in enumerate(hands):
        _replay_hand(match, rec, h_index, last=h_index == len(hands) - 1)
    if record.get("scores") is not None and record["scores"] != match.scores:
        raise RecordError(f"recorded scores {record['scores']} differ from the replay's {match.scores}")
    return match


def _replay_hand(match: Match, rec: Any, h_index: int, last: bool) -> None:
    if not isinstance(rec, dict):
        raise RecordError("a hand is an object", hand=h_index)
    if match.phase == "match_over":
        raise RecordError("a hand recorded after the match was over", hand=h_index)
    opener = rec.get("opener")
    drawn_guess = rec.get("opener_drawn", opener)
    present = None
    if opener is not None and opener != drawn_guess:
        present = frozenset({opener})
    source = rec.get("deal_source", "seed")
    if source == "given":
        given = rec.get("given_deal")
        if not isinstance(given, dict):
            raise RecordError("a hand with a given deal must record it", hand=h_index)
        given_hands: Any = given.get("hands")
        given_sleeping: Any = given.get("sleeping")
        try:
            match.start_hand_with_deal(given_hands, given_sleeping, rec.get("opener_given"), present)
        except EngineError as exc:
            raise RecordError(f"bad given deal: {exc}", hand=h_index) from exc
    elif source == "seed":
        match.start_hand(present)
    else:
        raise RecordError(f"unknown deal_source {source!r}", hand=h_index)
    hand = match.hand
    assert hand is not None
    actions = rec.get("actions")
    # A redeal accepted during the hand (redeal_five_doubles=on_request) replaces
    # the deal: the recorded deal is then the last one, checked after the actions.
    redealt = isinstance(actions, list) and any(isinstance(a, dict) and a.get("redeal") is True for a in actions)
    where = "the given deal" if source == "given" else "the seed"
    if not redealt and rec.get("deal") is not None and rec["deal"] != hand.deals[-1]:
        raise RecordError(f"the deal does not come from {where}", hand=h_index)
    if opener is not None and opener != hand.opener:
        raise RecordError(f"seat {opener} cannot open this hand (seat {hand.opener} does)", hand=h_index)
    if not isinstance(actions, list):
        raise RecordError("actions must be a list", hand=h_index)
    i = 0
    while i < len(actions):
        entry = actions[i]
        if i < len(hand.actions):
            # The engine already made this entry itself (an automatic pass or draw).
            if entry != hand.actions[i]:
                raise RecordError(_mismatch(entry, hand.actions[i]), hand=h_index, action=i)
            i += 1
            continue
        if not isinstance(entry, dict) or type(entry.get("seat")) is not int:
            raise RecordError("an action is an object with a seat", hand=h_index, action=i)
        try:
            action = _action_from_record(entry)
        except ValueError as exc:
            raise RecordError(str(exc), hand=h_index, action=i) from exc
        if action is None:
            who = match.turn
            raise RecordError(
                f"seat {entry['seat']} {'passed' if 'pass' in entry else 'drew'} while seat {who} "
                f"had a choice to make" + (" (a playable tile)" if who == entry["seat"] else ""),
                hand=h_index,
                action=i,
            )
        try:
            match.apply(entry["seat"], action)
        except EngineError as exc:
            raise RecordError(f"seat {entry['seat']}: {exc}", hand=h_index, action=i) from exc
        made = hand.actions[i]
        if {k: v for k, v in entry.items()} != made:
            raise RecordError(_mismatch(entry, made), hand=h_index, action=i)
        i += 1
    if len(hand.actions) > len(actions):
        raise RecordError(
            f"the record leaves out {hand.actions[len(actions)]}", hand=h_index, action=len(actions)
        )
    if redealt and rec.get("deal") is not None and rec["deal"] != hand.deals[-1]:
        raise RecordError(f"the deal does not come from {where}", hand=h_index, action=len(actions))
    result = rec.get("result")
    if hand.result is None:
        if result is not None or not last:
            raise RecordError("the record ends before the hand does", hand=h_index, action=len(actions))
        return
    if not isinstance(result, dict):
        raise RecordError("a finished hand needs its result", hand=h_index, action=len(actions))
    for key in RESULT_KEYS:
        if result.get(key) != hand.result[key]:
            raise RecordError(
                f"wrong result: {key} is {result.get(key)!r}, the rules give {hand.result[key]!r}",
                hand=h_index,
                action=len(actions),
            )


def _mismatch(recorded: Any, expected: dict[str, Any]) -> str:
    if isinstance(recorded, dict) and recorded.get("pass") is True and "play" not in expected:
        return f"recorded {recorded}, but the rules give {expected}"
    if isinstance(recorded, dict) and recorded.get("pass") is True:
        return f"seat {recorded.get('seat')} passed holding a playable tile"
    return f"recorded {recorded}, but the rules give {expected}"


def replay_summary(match: Match) -> dict[str, Any]:
    """The results a replay establishes, as printed by ``capicua replay``."""
    return {
        "ok": True,
        "hands": [h.result for h in match.hands],
        "scores": match.scores,
        "result": match.match_result,
        "phase": match.phase,
    }
