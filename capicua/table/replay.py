"""A finished match played again, as a spectator of the live table would have seen it.

The match's record drives the replay: the engine plays it again step by step,
and each step becomes an ``events`` frame (:func:`capicua.table.protocol.batch_frame`)
with the spectator's view in which ``revealed`` holds every seat's tiles (a
replay shows every hand face up from the start). The table's log, read by
:func:`capicua.table.log.read_log`, adds what the record does not hold
(:func:`told_by_the_log`): who made each move (the log's ``by``), the table as
the match ended, and what was said at the table during it, each with the
``seq`` of the step it followed.

Pure: the HTTP shell (:mod:`capicua.server.http.replay`) reads the store, adds
each hand's fairness proof, encodes, caches and decides who may see it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from capicua.engine import EngineError, Match, RecordError, parse_action, rules_from_json
from capicua.table import protocol
from capicua.table.core import AUTO, AUTOMATIC, CoreConfig, TableCore
from capicua.table.log import Action, Entry, Open, Rematch, StartHand

REBUILD_ERRORS = (ValueError, KeyError, TypeError, EngineError)  # a log that does not read, or the core cannot apply

Attribution = Callable[[dict[str, Any], str, int], dict[str, Any]]


class NotTheRecord(RecordError):
    """The match played again by the engine does not give the stored record."""


@dataclass(slots=True)
class MatchEnd:
    """The table as one of its matches ended, rebuilt from its log."""

    core: TableCore  # the table at the match's last entry
    said: list[dict[str, Any]]  # the said frames of the match, in order
    first_seq: int  # the table's seq before the match's first event
    players: frozenset[str]  # the guests seated while it was played


def rebuild_match(entries: Sequence[Entry], number: int) -> MatchEnd:
    """Play the log again up to the end of match ``number`` (or the log's end).

    Raises one of :data:`REBUILD_ERRORS` on a log the core cannot apply."""
    opening, *rest = entries
    if not isinstance(opening, Open):
        raise ValueError("a table log begins with an open entry")
    core = TableCore(opening, CoreConfig())
    frames: list[tuple[str, dict[str, Any]]] = []
    said: list[dict[str, Any]] = []
    players: set[str] = set()
    first_seq = 0
    for entry in rest:
        before = core.match_number
        core.apply(entry, frames)
        if before < number == core.match_number:
            first_seq = core.seq  # the seq the match before ended at
        if core.match_number == number:
            said.extend(frame for _, frame in frames if frame["type"] == "said")
            if core.match.hands:  # dealt: whoever sits now plays it (not a lobby before it)
                players.update(s.player for s in core.seats if s.is_human and s.player)
        frames.clear()  # the other frames (views per audience) are not needed
        if core.match_number > number or (core.match_number == number and core.match.phase == "match_over"):
            break
    return MatchEnd(core, said, first_seq, frozenset(players))


@dataclass(frozen=True, slots=True)
class Told:
    """What the table log says of one match beyond its record."""

    table: dict[str, Any] | None  # TABLE as a spectator of the finished match saw it
    said: list[dict[str, Any]]  # the said frames of the match, in order
    by: list[list[str]]  # per hand, who made each choice (the log's ``by``)
    first_seq: int  # the table's seq before the match's first event
    attribute: Attribution | None  # the core's attribution of a play
    players: frozenset[str] | None  # the guests seated while it was played (None: the log did not rebuild)


UNTOLD = Told(None, [], [], 0, None, None)  # a log that does not rebuild: the record alone still replays


def told_by_the_log(entries: Sequence[Entry], number: int) -> Told:
    """Rebuild the table from its log up to the match's end and keep what match ``number``
    needs. Raises one of :data:`REBUILD_ERRORS` on a log the core cannot apply."""
    end = rebuild_match(entries, number)
    core = end.core
    table = {**core.table_state(), "status": "finished", "match_number": number, "watchers": 0, "deadline": None}
    # A replay is nobody's live table: no presence, no stand-in playing now.
    table["seats"] = [{k: v for k, v in s.items() if k not in ("connected", "stand_in")} for s in table["seats"]]
    # The core's own attribution of a play (the log's by, a stand-in's name).
    return Told(table, end.said, choices_by(entries, number), end.first_seq, core.attributed, end.players)


def choices_by(entries: Sequence[Entry], number: int) -> list[list[str]]:
    """Per hand of match ``number``, the ``by`` of each choice, as the log recorded it."""
    match = 1
    hands: list[list[str]] = []
    for e in entries:
        if isinstance(e, Rematch):
            match += 1
        elif match == number and isinstance(e, StartHand):
            hands.append([])
        elif match == number and isinstance(e, Action) and hands:
            hands[-1].append(e.by)
    return hands


def hands(record: dict[str, Any], told: Told) -> Iterator[dict[str, Any]]:
    """Every hand of the record, played again by the engine, one at a time: its number
    and its steps as events frames. Raises :class:`NotTheRecord` after the last when the
    engine's record of the match differs from the stored one."""
    match = Match(rules_from_json(record["rules"]), record["seed"])
    seq = told.first_seq
    for index, rec in enumerate(record["hands"]):
        by = told.by[index] if index < len(told.by) else []
        frames: list[dict[str, Any]] = []
        events = _start(match, rec)
        seq = _step(match, events, seq, frames, lambda ev: ev)
        choice = 0
        for i, entry in enumerate(rec["actions"]):
            if i < len(match.hand.actions):  # type: ignore[union-attr]
                continue  # the engine made it itself (an automatic pass or draw)
            who = by[choice] if choice < len(by) else ""
            choice += 1
            events = match.apply(entry["seat"], parse_action(_choice(entry), match.rules.max_pip))
            seq = _step(match, events, seq, frames, _attribution(told, who, entry["seat"]))
        yield {"hand": index + 1, "frames": frames}
    if not _same_json(match.record(), record):
        raise NotTheRecord("the replay does not give the stored record")


def _start(match: Match, rec: dict[str, Any]) -> list[dict[str, Any]]:
    """Deal the hand ``rec`` records as the record says it was dealt (the engine decides the rest)."""
    # The seat that opened instead of the drawn one was present (RULES.md §1).
    present = frozenset({rec["opener"]}) if rec["opener"] != rec.get("opener_drawn", rec["opener"]) else None
    if rec.get("deal_source") == "given":
        given = rec["given_deal"]
        return match.start_hand_with_deal(given["hands"], given["sleeping"], rec.get("opener_given"), present)
    return match.start_hand(present)


def _choice(entry: dict[str, Any]) -> dict[str, Any]:
    if "redeal" in entry:
        return {"redeal": entry["redeal"]}
    return {"tile": entry["play"], "end": entry.get("end")}


def _attribution(told: Told, who: str, seat: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
    if told.attribute is None or not who:
        return lambda ev: ev
    attribute = told.attribute
    return lambda ev: attribute(ev, who, seat)


def _step(
    match: Match, events: list[dict[str, Any]], seq: int, frames: list[dict[str, Any]],
    attribute: Callable[[dict[str, Any]], dict[str, Any]],
) -> int:
    """One change as the live table numbers and sends it; returns the new seq."""
    if not events:
        return seq
    numbered = []
    for ev in events:
        seq += 1
        numbered.append((seq, {**ev, "by": AUTO} if ev["kind"] in AUTOMATIC else attribute(ev)))
    frames.append(protocol.batch_frame(numbered, face_up_view(match)))
    return seq


def face_up_view(match: Match) -> dict[str, Any]:
    """The spectator's view with every seat's tiles in ``revealed`` (each seat's own view gives them)."""
    view = match.view(None)
    if view["revealed"] is None:
        view["revealed"] = [match.view(seat)["hand"] for seat in range(match.rules.players)]
    return view


def _same_json(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
