"""Match records: dump, load and replay with full re-validation.

A record (``"format": "capicua-record/1"``) holds the rules (preset and
options), the seed, and per hand the deal, the opener, every action in order
and the result. :func:`replay` rebuilds the match from the rules and the
seed, re-checking every fact the record states against the engine: a deal
that does not come from the seed, a tile not in the hand, a pass while
holding a playable tile, a wrong score, pip total, revealed seed, flag or
count raises :class:`RecordError` naming the hand, the index of the first
bad action and the field.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from capicua.engine.errors import EngineError, RecordError, RulesError
from capicua.engine.rules import rules_from_json
from capicua.engine.state import (
    RECORD_FORMAT,
    Match,
    Play,
    RedealAnswer,
)


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

    Every fact the record states is checked against the replay: the rules,
    the first-opener draw, and per hand its number, seed hash, voided deals,
    deal, deal count, opener, every action and the whole result (points, pip
    totals, in-play points, the revealed seed, cumulative scores, next
    opener), then the match's scores and result (winner, pollona, viajera).
    A record with a field the engine does not write is refused too. The last
    hand may be unfinished (a match in progress); every other hand must be
    complete. The first wrong fact raises :class:`RecordError` with the hand,
    the action (when there is one) and the field.
    """
    if not isinstance(record, dict):
        raise RecordError("a record is a JSON object")
    if record.get("format") != RECORD_FORMAT:
        raise RecordError(
            f"unknown record format {record.get('format')!r}; expected {RECORD_FORMAT}", field="format"
        )
    try:
        rules = rules_from_json(record.get("rules"))
    except RulesError as exc:
        raise RecordError(f"bad rules: {exc}", field="rules") from exc
    seed = record.get("seed")
    if not isinstance(seed, str) or not seed:
        raise RecordError("the record has no seed", field="seed")
    match = Match(rules, seed)
    if not same(record.get("setup"), match.setup):
        raise RecordError("the first-opener draw does not come from the seed", hand=0, field="setup")
    hands = record.get("hands")
    if not isinstance(hands, list):
        raise RecordError("hands must be a list", field="hands")
    for h_index, rec in enumerate(hands):
        _replay_hand(match, rec, h_index, last=h_index == len(hands) - 1)
    expected = match.record()
    expected["hands"] = [_as_engines_before_the_target_capicua(r, e) for r, e in zip(hands, expected["hands"], strict=True)]
    check_fields(record, expected, hand=None, action=None)
    return match


def same(a: Any, b: Any) -> bool:
    """JSON equality that tells types apart (``1`` is not ``true`` nor ``1.0``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def check_fields(
    recorded: dict[str, Any], expected: dict[str, Any], hand: int | None, action: int | None, prefix: str = ""
) -> None:
    """Refuse the first field of ``recorded`` that is missing, unknown or not ``expected``'s.

    Nested objects (a hand's result, the match result) are checked field by
    field so that the error names e.g. ``result.points``."""
    for key, value in expected.items():
        field = prefix + key
        if key not in recorded:
            raise RecordError(f"the record leaves out {field}", hand=hand, action=action, field=field)
        got = recorded[key]
        if isinstance(value, dict) and isinstance(got, dict) and key in NESTED:
            check_fields(got, value, hand, action, prefix=field + ".")
        elif not same(got, value):
            raise RecordError(
                f"wrong {field}: the record says {got!r}, the rules give {value!r}", hand=hand, action=action, field=field
            )
    for key in recorded:
        if key not in expected:
            field = prefix + key
            raise RecordError(f"unknown field {field}", hand=hand, action=action, field=field)


# Objects whose fields are checked one by one (the others compare whole).
NESTED = ("result",)


def _replay_hand(match: Match, rec: Any, h_index: int, last: bool) -> None:
    if not isinstance(rec, dict):
        raise RecordError("a hand is an object", hand=h_index)
    if match.phase == "match_over":
        raise RecordError("a hand recorded after the match was over", hand=h_index)
    source = _deal_recorded_hand(match, rec, h_index)
    opener = rec["opener"]
    hand = match.hand
    assert hand is not None
    actions = rec.get("actions")
    # A redeal accepted during the hand (redeal_five_doubles=on_request) replaces
    # the deal: the recorded deal is then the last one, checked after the actions.
    redealt = isinstance(actions, list) and any(isinstance(a, dict) and a.get("redeal") is True for a in actions)
    where = "the given deal" if source == "given" else "the seed"
    if not redealt and rec.get("deal") is not None and not same(rec["deal"], hand.deals[-1]):
        raise RecordError(f"the deal does not come from {where}", hand=h_index, field="deal")
    if opener != hand.opener:
        raise RecordError(f"seat {opener} cannot open this hand (seat {hand.opener} does)", hand=h_index, field="opener")
    if not isinstance(actions, list):
        raise RecordError("actions must be a list", hand=h_index, field="actions")
    _replay_actions(match, actions, h_index)
    if redealt and rec.get("deal") is not None and not same(rec["deal"], hand.deals[-1]):
        raise RecordError(f"the deal does not come from {where}", hand=h_index, action=len(actions), field="deal")
    if hand.result is None:
        if rec.get("result") is not None or not last:
            raise RecordError("the record ends before the hand does", hand=h_index, action=len(actions))
    elif not isinstance(rec.get("result"), dict):
        raise RecordError("a finished hand needs its result", hand=h_index, action=len(actions), field="result")
    check_fields(rec, _as_engines_before_the_target_capicua(rec, match.hand_record(hand)), h_index, len(actions))


def _as_engines_before_the_target_capicua(rec: dict[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
    """What a record may say of a hand cut short at the target by a last tile that made
    a capicúa: engines before RULES.md §3 said so recorded ``capicua: false`` there (no
    points hang on it: a ``target`` hand scores none), and those records stay valid."""
    said, result = rec.get("result"), expected.get("result")
    if (
        isinstance(said, dict) and isinstance(result, dict) and result.get("kind") == "target"
        and result.get("capicua") is True and said.get("capicua") is False
    ):
        return {**expected, "result": {**result, "capicua": False}}
    return expected


def _deal_recorded_hand(match: Match, rec: dict[str, Any], h_index: int) -> str:
    """Start the hand ``rec`` records, as it was dealt; returns its deal source."""
    opener = rec.get("opener")
    if type(opener) is not int or not 0 <= opener < match.rules.players:
        raise RecordError(f"opener is a seat from 0 to {match.rules.players - 1}", hand=h_index, field="opener")
    # The seat that opened instead of the drawn one was present (RULES.md §1); the
    # replay then checks that the rules give that substitution.
    present = frozenset({opener}) if opener != rec.get("opener_drawn", opener) else None
    source = rec.get("deal_source", "seed")
    try:
        if source == "given":
            given = rec.get("given_deal")
            if not isinstance(given, dict):
                raise RecordError("a hand with a given deal must record it", hand=h_index, field="given_deal")
            given_hands: Any = given.get("hands")
            given_sleeping: Any = given.get("sleeping")
            match.start_hand_with_deal(given_hands, given_sleeping, rec.get("opener_given"), present)
        elif source == "seed":
            match.start_hand(present)
        else:
            raise RecordError(f"unknown deal_source {source!r}", hand=h_index, field="deal_source")
    except EngineError as exc:
        raise RecordError(f"the hand cannot be dealt: {exc}", hand=h_index, field="deal") from exc
    return str(source)


def hand_positions(record: Any, hand_number: int) -> Iterator[tuple[int, Match]]:
    """The match just before each choice of hand ``hand_number`` (from 1): pairs of
    the index of the chosen action in the hand's ``actions`` and the match at that
    moment (read it, do not change it: the next pair continues from it).

    The whole record is re-validated by :func:`replay` first, so every position is
    one the rules gave; automatic entries (passes, draws) are the engine's own."""
    replay(record)
    hands = record["hands"]
    if not 1 <= hand_number <= len(hands):
        raise RecordError(f"the record has no hand {hand_number}", field="hands")
    match = Match(rules_from_json(record["rules"]), record["seed"])
    for h_index, rec in enumerate(hands[: hand_number - 1]):
        _replay_hand(match, rec, h_index, last=False)
    rec = hands[hand_number - 1]
    _deal_recorded_hand(match, rec, hand_number - 1)
    hand = match.hand
    assert hand is not None
    for i, entry in enumerate(rec["actions"]):
        if i < len(hand.actions):
            continue  # made by the engine itself (an automatic pass or draw)
        action = _action_from_record(entry)
        assert action is not None  # replay() checked it
        yield i, match
        match.apply(entry["seat"], action)


def _replay_actions(match: Match, actions: list[Any], h_index: int) -> None:
    hand = match.hand
    assert hand is not None
    i = 0
    while i < len(actions):
        entry = actions[i]
        if i < len(hand.actions):
            # The engine already made this entry itself (an automatic pass or draw).
            if not same(entry, hand.actions[i]):
                raise RecordError(_mismatch(entry, hand.actions[i]), hand=h_index, action=i, field="actions")
            i += 1
            continue
        if match.phase not in ("play", "redeal_question"):
            raise RecordError(
                f"an action recorded after the hand was over: {entry!r}", hand=h_index, action=i, field="actions"
            )
        if not isinstance(entry, dict) or type(entry.get("seat")) is not int:
            raise RecordError("an action is an object with a seat", hand=h_index, action=i, field="actions")
        try:
            action = _action_from_record(entry)
        except ValueError as exc:
            raise RecordError(str(exc), hand=h_index, action=i, field="actions") from exc
        if action is None:
            who = match.turn
            raise RecordError(
                f"seat {entry['seat']} {'passed' if 'pass' in entry else 'drew'} while seat {who} "
                f"had a choice to make" + (" (a playable tile)" if who == entry["seat"] else ""),
                hand=h_index,
                action=i,
                field="actions",
            )
        try:
            match.apply(entry["seat"], action)
        except EngineError as exc:
            raise RecordError(f"seat {entry['seat']}: {exc}", hand=h_index, action=i, field="actions") from exc
        made = hand.actions[i]
        if not same(entry, made):
            raise RecordError(_mismatch(entry, made), hand=h_index, action=i, field="actions")
        i += 1
    if len(hand.actions) > len(actions):
        raise RecordError(
            f"the record leaves out {hand.actions[len(actions)]}", hand=h_index, action=len(actions), field="actions"
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
