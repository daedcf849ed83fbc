"""Replays: ``GET /api/replay/{table_id}/{match_number}`` and the page ``/replay/{table_id}/{match_number}``.

A finished match is replayed from its stored record through the engine: the
record is re-validated (:func:`capicua.engine.replay`), then played again
step by step as a spectator of the live table would have seen it, every hand
face up, with what the table's log adds (who moved, the table as the match
ended, what was said): :mod:`capicua.table.replay`, the pure part (docs/protocol.md,
"Replay"). This module is its HTTP shell: it reads the store, adds each hand's
fairness proof (:func:`capicua.table.fairness.verify_record_hand`, the answer
of ``/api/verify``), encodes, caches, and decides who may see it.

A replay of a long match is megabytes of views. A finished match never
changes, so :class:`Replays` builds each one once, in a worker thread —
engine, JSON (written piece by piece, so no single call holds the interpreter
for long) and gzip — keeps the gzipped bytes (:class:`ReplayCache`, bounded by
size) and serves every later request from them. At most :data:`BUILDS`
builds run at once; a request that would wait behind more than
:data:`WAITING` others is answered ``503 busy`` with ``Retry-After``.

A private table's match is shown to its players and to holders of its own
link only (:mod:`capicua.server.http.matchaccess`): anyone else gets ``403
private_match``. Every refusal is an :class:`~capicua.server.http.errors.HttpError`
(404 ``unknown_table`` / ``unknown_match``, 409 ``match_not_over``, 400
``malformed``, 422 ``bad_record``, 503 ``unavailable`` / ``busy``).
"""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from capicua.engine import RecordError, replay
from capicua.server.http.bigjson import GzipWriter
from capicua.server.http.compress import takes_gzip
from capicua.server.http.deps import Deps
from capicua.server.http.errors import HttpError
from capicua.server.http.matchaccess import Access, access_of, share_link
from capicua.server.http.viewer import link_key, viewer
from capicua.server.ports import EventLog, LogUnavailable, MatchRecords
from capicua.table import replay as match_replay
from capicua.table.fairness import VerifyError, verify_record_hand
from capicua.table.log import read_log
from capicua.table.protocol import table_id_ok

log = logging.getLogger("capicua.server")

MAX_MATCH = 10_000  # no table plays this many matches; 5 digits at most
CACHE_BYTES = 32 * 2**20  # gzipped replays kept in memory (a 20-hand match is about 60 KB of them)
BUILDS = 1  # replays built at once: pure Python, so more threads add no speed, only waits for the loop
WAITING = 16  # replays of other matches that may wait for a build slot; more are told to come back
RETRY_AFTER_S = 2


@dataclass(frozen=True, slots=True)
class StoredMatch:
    """What the store holds of the match asked for, and the table's log."""

    table_id: str
    number: int
    record: dict[str, Any]
    entries: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Built:
    """A finished match's replay as it goes on the wire, and who may see it."""

    gzipped: bytes  # the JSON answer, gzipped
    size: int  # bytes of the JSON before gzip
    access: Access


def parse_match_number(raw: str) -> int:
    """A match number: ASCII digits from 1 to :data:`MAX_MATCH` (``²`` and the like refused)."""
    if not raw or len(raw) > len(str(MAX_MATCH)) or not raw.isascii() or not raw.isdigit():
        raise HttpError(400, "malformed", f"the match is a number from 1 to {MAX_MATCH}")
    number = int(raw)
    if not 1 <= number <= MAX_MATCH:
        raise HttpError(400, "malformed", f"the match is a number from 1 to {MAX_MATCH}")
    return number


async def finished_record(records: MatchRecords, table_id: str, raw_number: str) -> dict[str, Any]:
    """The record of match ``raw_number`` of table ``table_id``, once that match is over."""
    if not table_id_ok(table_id):
        raise HttpError(404, "unknown_table", "no such table")
    number = parse_match_number(raw_number)
    try:
        stored = await records.records(table_id)
    except LogUnavailable as exc:
        raise HttpError(503, "unavailable", "the store cannot be read right now") from exc
    if stored is None:
        raise HttpError(404, "unknown_table", "no such table")
    found = next((m for m in stored if m["number"] == number), None)
    if found is None:
        raise HttpError(404, "unknown_match", f"this table has no match {number}")
    record = found.get("record")
    if found.get("status") != "finished" or not isinstance(record, dict) or record.get("result") is None:
        raise HttpError(409, "match_not_over", f"match {number} is not over yet")
    return record


async def load_match(log: EventLog, records: MatchRecords, table_id: str, raw_number: str) -> StoredMatch:
    record = await finished_record(records, table_id, raw_number)
    try:
        entries = await log.load(table_id)
    except LogUnavailable as exc:
        raise HttpError(503, "unavailable", "the store cannot be read right now") from exc
    return StoredMatch(table_id, parse_match_number(raw_number), record, entries or [])


# ------------------------------------------------------------------ building


def build_encoded(stored: StoredMatch) -> Built:
    """The replay of a finished match (docs/protocol.md, "Replay"), gzipped as it is kept
    and sent, and who may see it (in a worker thread).

    Each hand is written and gzipped as soon as it is played again, then dropped:
    the whole replay never lives as Python objects at once. Those were hundreds of
    thousands of dicts and lists, and a full collection of the garbage collector
    walking them held every thread, the event loop's too, for over 100 ms."""
    try:
        replay(stored.record)  # every recorded fact re-checked before anything is shown
    except RecordError as exc:
        raise HttpError(422, "bad_record", f"the stored record does not replay: {exc}") from exc
    told = _told(stored)
    access = access_of(stored.entries, stored.number, told.players)
    head: dict[str, Any] = {
        "table": told.table,
        "match": stored.number,
        "said": told.said,
        "scores": list(stored.record["scores"]),
        "result": stored.record["result"],
    }
    link = share_link(stored.table_id, stored.number, access)
    if link is not None:
        head["share"] = link
    out = GzipWriter()
    for i, (key, value) in enumerate(head.items()):
        out.text(("," if i else "{") + json.dumps(key) + ":")
        out.value(value, depth=1)
    out.text(',"hands":[')
    try:
        for i, hand in enumerate(match_replay.hands(stored.record, told)):
            out.text("," if i else "")
            out.value({**hand, "proof": _proof(stored.record, hand["hand"])}, depth=2)
    except match_replay.NotTheRecord as exc:
        raise HttpError(422, "bad_record", str(exc)) from exc
    out.text("]}")
    gzipped, size = out.finish()
    return Built(gzipped, size, access)


def _told(stored: StoredMatch) -> match_replay.Told:
    """What the table's log says of the match beyond its record. A log that cannot be
    read or rebuilt (it should not happen) leaves the replay without talk, names and
    attributions: the record alone still replays."""
    try:
        return match_replay.told_by_the_log(read_log(stored.entries), stored.number)
    except match_replay.REBUILD_ERRORS as exc:
        log.warning("the log of table %s does not rebuild to match %d (%s: %s): its replay has no talk or names",
                    stored.table_id, stored.number, type(exc).__name__, exc)
        return match_replay.UNTOLD


def _proof(record: dict[str, Any], hand: int) -> dict[str, Any] | None:
    """Hand ``hand``'s fairness proof; None (and a line in the log) for a hand that cannot
    be verified, which a record that replays should never hold."""
    try:
        return verify_record_hand(record, hand)
    except VerifyError as exc:
        log.warning("hand %d of a replayed match has no proof (%s: %s)", hand, type(exc).__name__, exc)
        return None


def _same_json(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


# ------------------------------------------------------------------ HTTP


class ReplayCache:
    """Finished matches' replays, gzipped, the least recently asked dropped first so that
    the bytes kept stay within ``max_bytes`` (a replay bigger than that is not kept)."""

    def __init__(self, max_bytes: int = CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self._kept: OrderedDict[tuple[str, int], Built] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key: tuple[str, int]) -> Built | None:
        built = self._kept.get(key)
        if built is not None:
            self._kept.move_to_end(key)
        return built

    def put(self, key: tuple[str, int], built: Built) -> None:
        if len(built.gzipped) > self.max_bytes:
            return
        old = self._kept.pop(key, None)
        if old is not None:
            self.bytes -= len(old.gzipped)
        self._kept[key] = built
        self.bytes += len(built.gzipped)
        while self.bytes > self.max_bytes:
            _, dropped = self._kept.popitem(last=False)
            self.bytes -= len(dropped.gzipped)


class Replays:
    """Every replay this server serves: each built once, off the event loop, at most
    ``builds`` at once, then served from :class:`ReplayCache`. ``log`` and ``records``:
    the stored tables' logs and their matches' records."""

    def __init__(
        self, log: EventLog, records: MatchRecords,
        cache_bytes: int = CACHE_BYTES, builds: int = BUILDS, waiting: int = WAITING,
    ) -> None:
        self.log = log
        self.records = records
        self.cache = ReplayCache(cache_bytes)
        self.builds = builds
        self.waiting = waiting
        self.built = 0  # replays built so far (each is built once while it stays kept)
        self._slots: asyncio.Semaphore | None = None
        self._building: dict[tuple[str, int], asyncio.Task[Built]] = {}

    async def get(self, table_id: str, raw_number: str) -> Built:
        """The replay of match ``raw_number`` of ``table_id``: kept, being built, or built now.
        Raises :class:`HttpError`."""
        if not table_id_ok(table_id):
            raise HttpError(404, "unknown_table", "no such table")
        key = (table_id, parse_match_number(raw_number))
        kept = self.cache.get(key)
        if kept is not None:
            return kept
        task = self._building.get(key)
        if task is None:
            if len(self._building) >= self.builds + self.waiting:
                raise HttpError(
                    503, "busy", "too many replays are being prepared; try again in a moment",
                    headers={"Retry-After": str(RETRY_AFTER_S)},
                )
            # A task of its own: a client that goes away does not cancel a build others wait for.
            task = asyncio.get_running_loop().create_task(self._build(key, raw_number), name=f"replay {key}")
            self._building[key] = task
            task.add_done_callback(lambda t: self._done(key, t))
        return await asyncio.shield(task)

    async def _build(self, key: tuple[str, int], raw_number: str) -> Built:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.builds)
        async with self._slots:
            stored = await load_match(self.log, self.records, key[0], raw_number)
            built = await asyncio.to_thread(build_encoded, stored)
        self.built += 1
        return built

    def _done(self, key: tuple[str, int], task: asyncio.Task[Built]) -> None:
        del self._building[key]
        if not task.cancelled() and task.exception() is None:
            self.cache.put(key, task.result())


def routes(deps: Deps) -> list[BaseRoute]:
    async def replay_api(request: Request) -> Response:
        return await replay_response(request, deps, request.path_params["table_id"], request.path_params["match_number"])

    async def replay_page(request: Request) -> Response:
        """The replay page, with the status its match has (the page says why in its own
        language), its static URLs versioned like every page's (:mod:`capicua.server.http.static`)."""
        try:
            await finished_record(deps.records, request.path_params["table_id"], request.path_params["match_number"])
            status = 200
        except HttpError as exc:
            status = exc.status
        return await deps.assets.page(request, "replay.html", status)

    return [
        Route("/api/replay/{table_id}/{match_number}", replay_api),
        Route("/replay/{table_id}/{match_number}", replay_page),
    ]


async def check_access(request: Request, access: Access, deps: Deps) -> None:
    """Refuse (403 ``private_match``) a private match to anyone but its players and holders of its link."""
    key = link_key(request)
    if not access.private or access.allows(None, key):
        return
    guest = await viewer(request, deps.guests)
    if not access.allows(guest.player if guest is not None else None, key):
        raise HttpError(403, "private_match", "this match was played at a private table: it is for its players")


async def replay_response(request: Request, deps: Deps, table_id: str, raw_number: str) -> Response:
    """The answer of ``GET /api/replay/{table_id}/{match_number}``."""
    link_key(request)  # a malformed query is refused before anything is read
    built = await deps.replays.get(table_id, raw_number)
    await check_access(request, built.access, deps)
    headers = {
        "Vary": "Accept-Encoding, Authorization",
        # A finished match never changes; a private one stays out of shared caches.
        "Cache-Control": "private, no-cache" if built.access.private else "public, max-age=86400",
    }
    if takes_gzip(request.headers.get("accept-encoding", "")):
        # Already compressed: a gzip middleware leaves a response with Content-Encoding alone.
        headers["Content-Encoding"] = "gzip"
        return Response(built.gzipped, media_type="application/json", headers=headers)
    plain = await asyncio.to_thread(gzip.decompress, built.gzipped)
    return Response(plain, media_type="application/json", headers=headers)
