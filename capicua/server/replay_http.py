"""Replays: ``GET /api/replay/{table_id}/{match_number}`` and the page ``/replay/{table_id}/{match_number}``.

A finished match is replayed from its stored record through the engine: the
record is re-validated (:func:`capicua.engine.replay`), then played again
step by step, and every step is served as the live table would have sent it
to a spectator (docs/protocol.md, "Replay"): an ``events`` frame built by
:func:`capicua.server.protocol.batch_frame` with the spectator's view, in
which ``revealed`` holds every seat's tiles at that moment (a replay shows
every hand face up from the start). Each hand also carries its fairness
proof (:func:`capicua.verify.verify_record_hand`, the answer of
``/api/verify``).

The table log adds what the record does not hold: who made each move (the
log's ``by``), the table around the match and what was said at the table
(the ``said`` frames the table sent, rebuilt by
:meth:`~capicua.server.core.TableCore.from_log`), each with the ``seq`` of
the step it followed.

Every refusal is a coded error (404 ``unknown_table`` / ``unknown_match``,
409 ``match_not_over``, 400 ``malformed``, 503 ``unavailable``); the work
runs in a worker thread, never on the event loop.
"""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from capicua.engine import EngineError, Match, RecordError, parse_action, replay, rules_from_json
from capicua.server import protocol
from capicua.server.core import AUTO, AUTOMATIC, CoreConfig, TableCore
from capicua.server.ports import LogUnavailable
from capicua.server.protocol import table_id_ok
from capicua.verify import VerifyError, verify_record_hand

MAX_MATCH = 10_000  # no table plays this many matches; 5 digits at most
GZIP_MIN = 2048  # bytes: smaller answers go as they are


class ReplayError(Exception):
    """A replay that cannot be served: its protocol code and HTTP status."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(message)
        self.code = code
        self.status = status

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": str(self)}}


@dataclass(frozen=True, slots=True)
class StoredMatch:
    """What the store holds of the match asked for, and the table's log."""

    number: int
    record: dict[str, Any]
    entries: list[dict[str, Any]]


def parse_match_number(raw: str) -> int:
    """A match number: ASCII digits from 1 to :data:`MAX_MATCH` (``²`` and the like refused)."""
    if not raw or len(raw) > len(str(MAX_MATCH)) or not raw.isascii() or not raw.isdigit():
        raise ReplayError("malformed", f"the match is a number from 1 to {MAX_MATCH}", 400)
    number = int(raw)
    if not 1 <= number <= MAX_MATCH:
        raise ReplayError("malformed", f"the match is a number from 1 to {MAX_MATCH}", 400)
    return number


async def finished_record(tables: Any, table_id: str, raw_number: str) -> dict[str, Any]:
    """The record of match ``raw_number`` of table ``table_id``, once that match is over."""
    if not table_id_ok(table_id):
        raise ReplayError("unknown_table", "no such table", 404)
    number = parse_match_number(raw_number)
    try:
        stored = await tables.log.records(table_id)
    except LogUnavailable as exc:
        raise ReplayError("unavailable", "the store cannot be read right now", 503) from exc
    if stored is None:
        raise ReplayError("unknown_table", "no such table", 404)
    found = next((m for m in stored if m["number"] == number), None)
    if found is None:
        raise ReplayError("unknown_match", f"this table has no match {number}", 404)
    record = found.get("record")
    if found.get("status") != "finished" or not isinstance(record, dict) or record.get("result") is None:
        raise ReplayError("match_not_over", f"match {number} is not over yet", 409)
    return record


async def load_match(tables: Any, table_id: str, raw_number: str) -> StoredMatch:
    record = await finished_record(tables, table_id, raw_number)
    try:
        entries = await tables.log.load(table_id)
    except LogUnavailable as exc:
        raise ReplayError("unavailable", "the store cannot be read right now", 503) from exc
    return StoredMatch(parse_match_number(raw_number), record, entries or [])


# ------------------------------------------------------------------ building


def build_replay(stored: StoredMatch) -> dict[str, Any]:
    """The replay of a finished match (docs/protocol.md, "Replay")."""
    try:
        replay(stored.record)  # every recorded fact re-checked before anything is shown
    except RecordError as exc:
        raise ReplayError("bad_record", f"the stored record does not replay: {exc}", 422) from exc
    told = _told_by_the_log(stored.entries, stored.number)
    hands = _hands(stored.record, told)
    return {
        "table": told.table,
        "match": stored.number,
        "hands": hands,
        "said": told.said,
        "scores": list(stored.record["scores"]),
        "result": stored.record["result"],
    }


@dataclass(slots=True)
class _Told:
    """What the table log says of one match beyond its record."""

    table: dict[str, Any] | None  # TABLE as a spectator of the finished match saw it
    said: list[dict[str, Any]]  # the said frames of the match, in order
    by: list[list[str]]  # per hand, who made each choice (the log's ``by``)
    first_seq: int  # the table's seq before the match's first event
    attribute: Callable[[dict[str, Any], str, int], dict[str, Any]] | None  # the core's attribution of a play


def _told_by_the_log(entries: list[dict[str, Any]], number: int) -> _Told:
    """Rebuild the table from its log (the frames it sent included) and keep what match ``number`` needs.

    A log that cannot be rebuilt (it should not happen) leaves the replay without
    talk, names and attributions: the record alone still replays."""
    by = _choices_by(entries, number)
    try:
        core, frames = TableCore.from_log(entries, CoreConfig())
    except (ValueError, KeyError, TypeError, EngineError):
        return _Told(None, [], by, 0, None)
    current, first_seq, said = 1, 0, []
    for _, frame in frames:
        if frame["type"] == "table" and frame["table"]["match_number"] != current:
            current = frame["table"]["match_number"]
            if current == number:
                first_seq = frame["seq"]  # the seq the earlier match ended at
        elif frame["type"] == "said" and current == number:
            said.append(frame)
    table = {**core.table_state(), "status": "finished", "match_number": number, "watchers": 0, "deadline": None,
             "rematch": None}
    # A replay is nobody's live table: no presence, no stand-in playing now.
    table["seats"] = [{k: v for k, v in s.items() if k not in ("connected", "stand_in")} for s in table["seats"]]
    return _Told(table, said, by, first_seq, core._attributed)  # noqa: SLF001 - the one attribution of a play


def _choices_by(entries: list[dict[str, Any]], number: int) -> list[list[str]]:
    """Per hand of match ``number``, the ``by`` of each choice, as the log recorded it."""
    match = 1
    hands: list[list[str]] = []
    for e in entries:
        op = e.get("op")
        if op == "rematch":
            match += 1
        elif match == number and op == "start_hand":
            hands.append([])
        elif match == number and op == "action" and hands:
            hands[-1].append(str(e.get("by", "")))
    return hands


def _hands(record: dict[str, Any], told: _Told) -> list[dict[str, Any]]:
    """Every hand of the record, played again by the engine: its steps as events frames and its proof."""
    match = Match(rules_from_json(record["rules"]), record["seed"])
    seq = told.first_seq
    out = []
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
        out.append({"hand": index + 1, "frames": frames, "proof": _proof(record, index + 1)})
    if not _same_json(match.record(), record):
        raise ReplayError("bad_record", "the replay does not give the stored record", 422)
    return out


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


def _attribution(told: _Told, who: str, seat: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
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


def _proof(record: dict[str, Any], hand: int) -> dict[str, Any] | None:
    try:
        return verify_record_hand(record, hand)
    except VerifyError:
        return None


def _same_json(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


# ------------------------------------------------------------------ HTTP


async def replay_answer(tables: Any, table_id: str, raw_number: str) -> tuple[int, dict[str, Any]]:
    """``(status, body)`` for ``GET /api/replay/{table_id}/{match_number}``."""
    try:
        stored = await load_match(tables, table_id, raw_number)
        return 200, await asyncio.to_thread(build_replay, stored)
    except ReplayError as exc:
        return exc.status, exc.body()


def json_response(request: Request, status: int, body: dict[str, Any]) -> Response:
    """JSON, gzipped when the client takes it (a replay of a long match is a few hundred KB of views)."""
    data = json.dumps(body, separators=(",", ":")).encode()
    if len(data) < GZIP_MIN or "gzip" not in request.headers.get("accept-encoding", ""):
        return Response(data, status_code=status, media_type="application/json")
    return Response(
        gzip.compress(data, compresslevel=6), status_code=status, media_type="application/json",
        headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"},
    )


def api_endpoint(tables_of: Callable[[], Any]) -> Callable[[Request], Any]:
    async def endpoint(request: Request) -> Response:
        status, body = await replay_answer(
            tables_of(), request.path_params["table_id"], request.path_params["match_number"]
        )
        return json_response(request, status, body)

    return endpoint


def page_endpoint(tables_of: Callable[[], Any], web: Path) -> Callable[[Request], Any]:
    """The replay page, with the status its match has (the page says why in its own language)."""

    async def endpoint(request: Request) -> Response:
        path = web / "replay.html"
        if not path.exists():
            return JSONResponse({"error": {"code": "not_found", "message": "no replay page"}}, status_code=404)
        try:
            await finished_record(tables_of(), request.path_params["table_id"], request.path_params["match_number"])
            status = 200
        except ReplayError as exc:
            status = exc.status
        return FileResponse(path, status_code=status, headers={"Cache-Control": "no-cache"})

    return endpoint
